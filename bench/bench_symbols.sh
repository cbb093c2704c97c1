#!/bin/sh
# bench_symbols.sh BUILD [N] - what naming address regions costs, and where:
# a program of N (default 5000) -finstrument-functions functions, each
# called once, built with -g -O1 against BUILD's libscopeprof (an
# SP_TESTING build). perf stat (task-clock, 20 runs) of the program
# writing .spt with its names made in the process (the default), and with
# SP_TEST_NO_SYMBOLS=2 (none made: the file keeps addresses); then the
# same run killed by SIGSEGV after its calls with nothing named, and
# sp-import of its stream, which names them from the binary, against
# sp-import of it with the binary gone (nothing to name from).
set -eu
b="$(cd "$1" && pwd)"
n="${2:-5000}"
d="$(mktemp -d)"
trap 'rm -rf "$d"' EXIT
{
  echo '#include <signal.h>'
  echo '#include <string.h>'
  echo 'volatile int sink;'
  i=0
  while [ "$i" -lt "$n" ]; do
    echo "__attribute__((noinline)) void bench_fn_$i(void) { sink += $i; }"
    i=$((i + 1))
  done
  echo 'int main(int argc, char **argv) {'
  i=0
  while [ "$i" -lt "$n" ]; do
    echo "  bench_fn_$i();"
    i=$((i + 1))
  done
  echo '  if (argc > 1 && strcmp(argv[1], "segv") == 0) raise(SIGSEGV);'
  echo '  return 0; }'
} >"$d/prog.c"
cc -finstrument-functions -g -O1 -Wl,--build-id "$d/prog.c" -o "$d/prog" \
  -L"$b/runtime" -lscopeprof -Wl,-rpath,"$b/runtime"
export SP_FORMAT=spt SP_OUTPUT="$d/o"
run() { # label, then the command
  label="$1"; shift
  ms=$(perf stat -r 20 -x, -e task-clock "$@" 2>&1 >/dev/null |
    awk -F, '/task-clock/ { printf "%.2f", $1 }')
  echo "$label: $ms ms task-clock (mean of 20)"
}
run "names made in the process" "$d/prog"
run "no names (SP_TEST_NO_SYMBOLS=2)" env SP_TEST_NO_SYMBOLS=2 "$d/prog"
SP_OUTPUT="$d/k" SP_TEST_NO_SYMBOLS=1 "$d/prog" segv 2>/dev/null || true
run "sp-import of the killed run's stream (named from the binary)" \
  "$b/import/sp-import" -o "$d/k.h5" "$d"/k_rank00000.*.spts
mv "$d/prog" "$d/gone"
run "sp-import of it, the binary gone (nothing named)" \
  "$b/import/sp-import" -o "$d/g.h5" "$d"/k_rank00000.*.spts
