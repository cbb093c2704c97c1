#!/usr/bin/env bash
# run.sh BUILD_DIR SP_DUMP - installs the build into a temporary prefix and
# builds consumers against it: find_package (ALL, ANNOTATED, FILTER, the C
# API, the Fortran module) with clang/flang and with gcc/gfortran,
# pkg-config, and a plain Makefile with CC=sp-cc. Checks each profile.
set -euo pipefail
build="$1"
dump="$2"
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
inst="$tmp/inst"
cmake --install "$build" --prefix "$inst" >/dev/null

fail() { echo "FAIL: $*" >&2; exit 1; }
# expect FILE LINE...: each line must appear in sp-dump's output of FILE
expect() {
  local file="$1"; shift
  local out; out="$("$dump" "$file")"
  for want in "$@"; do
    grep -qxF -- "$want" <<<"$out" || fail "$file lacks '$want'; it holds:
$out"
  done
}
run() { # run NAME BINARY: runs it with an .spt output named NAME
  SP_FORMAT=spt SP_OUTPUT="$tmp/$1" "$2" >/dev/null
}

for tc in llvm gnu; do
  if [[ $tc == llvm ]]; then cc=/usr/lib/llvm-22/bin/clang fc=/usr/lib/llvm-22/bin/flang
  else cc=gcc fc=gfortran; fi
  b="$tmp/consumer-$tc"
  cmake -S "$here/consumer" -B "$b" -DCMAKE_C_COMPILER=$cc -DCMAKE_Fortran_COMPILER=$fc \
    -DCMAKE_PREFIX_PATH="$inst" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$b" -j2 >/dev/null
  for app in app_all app_annotated app_filtered app_api f_api; do
    run "$tc-$app" "$b/$app"
  done
  expect "$tmp/$tc-app_api_rank00000.spt" \
    "block rank=0 thread=0 region=by_hand file=api.c line=5 calls=2"
  expect "$tmp/$tc-f_api_rank00000.spt" \
    "block rank=0 thread=0 region=fortran_by_hand file=api.f90 line=5 calls=3"
  if [[ $tc == llvm ]]; then # the plugin: names, files and lines
    src="$here/consumer/app.c"
    expect "$tmp/$tc-app_all_rank00000.spt" \
      "block rank=0 thread=0 region=kernel file=$src line=7 calls=3" \
      "block rank=0 thread=0 region=helper file=$src line=4 calls=12" \
      "block rank=0 thread=0 region=main file=$src line=14 calls=1"
    expect "$tmp/$tc-app_annotated_rank00000.spt" \
      "block rank=0 thread=0 region=kernel file=$src line=7 calls=3"
    [[ $("$dump" "$tmp/$tc-app_annotated_rank00000.spt" | grep -c '^block') == 1 ]] ||
      fail "ANNOTATED instrumented more than the annotated function"
    expect "$tmp/$tc-app_filtered_rank00000.spt" \
      "block rank=0 thread=0 region=kernel file=$src line=7 calls=3"
    if grep -q region=helper <<<"$("$dump" "$tmp/$tc-app_filtered_rank00000.spt")"; then
      fail "the filter file did not exclude helper"
    fi
  else # gcc: the runtime's hooks name the functions
    expect "$tmp/$tc-app_all_rank00000.spt" \
      "block rank=0 thread=0 region=kernel file=- line=-1 calls=3" \
      "block rank=0 thread=0 region=helper file=- line=-1 calls=12" \
      "block rank=0 thread=0 region=main file=- line=-1 calls=1"
  fi
done

# scopeprof_instrument keeps a build's own debug information: line tables
# only where the configuration has no -g.
cc=/usr/lib/llvm-22/bin/clang
for cfg in Release RelWithDebInfo Debug; do
  b="$tmp/g-$cfg"
  cmake -S "$here/consumer" -B "$b" -DCMAKE_C_COMPILER=$cc \
    -DCMAKE_Fortran_COMPILER=/usr/lib/llvm-22/bin/flang \
    -DCMAKE_PREFIX_PATH="$inst" -DCMAKE_BUILD_TYPE=$cfg \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
  line="$(grep -o '"command": "[^"]*app_all[^"]*app.c[^"]*"' "$b/compile_commands.json" || true)"
  [[ -n $line ]] || fail "$cfg: no compile command for app_all"
  if [[ $cfg == Release ]]; then
    [[ $line == *" -gline-tables-only"* ]] || fail "$cfg: no line tables: $line"
  else
    [[ $line != *"-gline-tables-only"* && $line == *" -g "* ]] ||
      fail "$cfg: the build's -g was not kept: $line"
  fi
done

# Editing the filter file rebuilds what it affects.
cp -r "$here/consumer" "$tmp/edit"
b="$tmp/edit-build"
cmake -S "$tmp/edit" -B "$b" -DCMAKE_C_COMPILER=$cc \
  -DCMAKE_Fortran_COMPILER=/usr/lib/llvm-22/bin/flang \
  -DCMAKE_PREFIX_PATH="$inst" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$b" --target app_filtered >/dev/null
printf 'exclude function main\n' >"$tmp/edit/filter.txt"
cmake --build "$b" --target app_filtered >/dev/null
run edited "$b/app_filtered"
src="$tmp/edit/app.c"
expect "$tmp/edited_rank00000.spt" \
  "block rank=0 thread=0 region=helper file=$src line=4 calls=12"
if grep -q "region=main " <<<"$("$dump" "$tmp/edited_rank00000.spt")"; then
  fail "an edited filter file did not rebuild app_filtered"
fi

# The plugin in CFLAGS only, no runtime on the link line: CMake's compiler
# check and an autoconf configure script link and run their tests, the
# program builds and runs (unrecorded); with the runtime added it records.
plug="-fpass-plugin=$inst/lib/scopeprof/ScopeProf.so -finstrument-functions"
b="$tmp/plain-cmake"
CFLAGS="$plug" cmake -S "$here/plainflags" -B "$b" -DCMAKE_C_COMPILER=$cc >"$tmp/plain-cmake.log" 2>&1 ||
  fail "CMake with the plugin in CFLAGS: $(tail -5 "$tmp/plain-cmake.log")"
cmake --build "$b" >/dev/null
[[ "$("$b/plain")" == 42 ]] || fail "plain CMake program did not run"
if command -v autoconf >/dev/null; then
  cp -r "$here/plainflags" "$tmp/ac"
  (cd "$tmp/ac" && autoconf) || fail "autoconf"
  (cd "$tmp/ac" && ./configure CC=$cc CFLAGS="$plug" >configure.log 2>&1) ||
    fail "configure with the plugin in CFLAGS: $(tail -5 "$tmp/ac/config.log")"
  grep -q "^#define HAVE_STRDUP 1" "$tmp/ac/confdefs.h" 2>/dev/null ||
    grep -q "HAVE_STRDUP" "$tmp/ac/config.log" || fail "configure's link test of strdup failed"
  make -s -C "$tmp/ac" >/dev/null
  [[ "$("$tmp/ac/plain")" == 42 ]] || fail "autoconf program did not run"
  make -s -C "$tmp/ac" LIBS="-L$inst/lib -lscopeprof -Wl,-rpath,$inst/lib" -B >/dev/null
  SP_FORMAT=spt SP_OUTPUT="$tmp/ac-rec" "$tmp/ac/plain" >/dev/null
  expect "$tmp/ac-rec_rank00000.spt" \
    "block rank=0 thread=0 region=twice file=./main.c line=-1 calls=1"
fi

# pkg-config
export PKG_CONFIG_PATH="$inst/lib/pkgconfig"
# shellcheck disable=SC2046
gcc -o "$tmp/pc_api" "$here/consumer/api.c" $(pkg-config --cflags --libs scopeprof)
run pc "$tmp/pc_api"
expect "$tmp/pc_rank00000.spt" "block rank=0 thread=0 region=by_hand file=api.c line=5 calls=2"

# .h5 through the installed module (<libdir>/scopeprof/libscopeprof_h5.so,
# found beside the installed libscopeprof.so), when it was built
if [[ -e "$inst/lib/scopeprof/libscopeprof_h5.so" ]]; then
  SP_FORMAT=h5 SP_OUTPUT="$tmp/pch5" "$tmp/pc_api" >/dev/null 2>"$tmp/pch5.err"
  [[ ! -s "$tmp/pch5.err" ]] || fail "SP_FORMAT=h5: $(cat "$tmp/pch5.err")"
  expect "$tmp/pch5_rank00000.h5" "block rank=0 thread=0 region=by_hand file=api.c line=5 calls=2"
fi

# make CC=sp-cc on a plain Makefile project
cp -r "$here/makefile" "$tmp/mk"
make -s -C "$tmp/mk" CC="$inst/bin/sp-cc" >/dev/null
run mk "$tmp/mk/app"
expect "$tmp/mk_rank00000.spt" \
  "block rank=0 thread=0 region=util_twice file=$tmp/mk/util.c line=2 calls=4" \
  "block rank=0 thread=0 region=add file=$tmp/mk/main.c line=4 calls=4"

# a filter file passes through the wrapper (SP_FILTER) to the plugin
printf 'exclude function add\n' >"$tmp/mk.filter"
rm -f "$tmp"/mk/*.o "$tmp/mk/app"
SP_FILTER="$tmp/mk.filter" make -s -C "$tmp/mk" CC="$inst/bin/sp-cc" >/dev/null
run mkf "$tmp/mk/app"
expect "$tmp/mkf_rank00000.spt" \
  "block rank=0 thread=0 region=util_twice file=$tmp/mk/util.c line=2 calls=4"
if grep -q "region=add " <<<"$("$dump" "$tmp/mkf_rank00000.spt")"; then
  fail "SP_FILTER did not reach the plugin through sp-cc"
fi

# The gcc route through the wrapper leaves the standard library's headers
# out, as the plugin does: sum and fill, not std::vector's operator[] or
# std::sort's helpers; SP_SYSTEM_HEADERS=1 brings them back.
SP_CXX=g++ "$inst/bin/sp-c++" -O1 -o "$tmp/gnucxx" "$here/gnucxx/app.cpp"
run gnucxx "$tmp/gnucxx"
expect "$tmp/gnucxx_rank00000.spt" \
  "block rank=0 thread=0 region=fill(std::vector<long, std::allocator<long> >&) file=- line=-1 calls=3" \
  "block rank=0 thread=0 region=sum(std::vector<long, std::allocator<long> > const&) file=- line=-1 calls=3" \
  "block rank=0 thread=0 region=main file=- line=-1 calls=1"
[[ $("$dump" "$tmp/gnucxx_rank00000.spt" | grep -c '^block') == 3 ]] ||
  fail "sp-c++ with g++ recorded system-header functions: $("$dump" "$tmp/gnucxx_rank00000.spt" | grep '^block')"
SP_SYSTEM_HEADERS=1 SP_CXX=g++ "$inst/bin/sp-c++" -O1 -o "$tmp/gnucxx_sys" "$here/gnucxx/app.cpp"
run gnucxx_sys "$tmp/gnucxx_sys"
# (grep reads a variable: with pipefail, grep -q closing the pipe early
# would fail the dump by SIGPIPE)
sys_dump="$("$dump" "$tmp/gnucxx_sys_rank00000.spt")"
grep -q '^block .*region=std::' <<<"$sys_dump" ||
  fail "SP_SYSTEM_HEADERS=1 did not record the standard library's functions"

# The wrappers' own --help and --version (the compiler's version kept first:
# build systems read it)
for w in sp-cc sp-c++ sp-fc; do
  h="$("$inst/bin/$w" --help)"
  grep -q "^Usage: $w " <<<"$h" && grep -q "SP_INSTRUMENT=annotated" <<<"$h" ||
    fail "$w --help is not the wrapper's: $h"
  v="$("$inst/bin/$w" --version)"
  grep -q "^$w: ScopeProf [0-9.]* wrapper around " <<<"$v" ||
    fail "$w --version does not name the wrapper: $v"
  grep -qi "version" <<<"$(head -n 1 <<<"$v")" || fail "$w --version lost the compiler's line: $v"
done

# LD_PRELOAD of the installed MPI layer alone finds its runtime ($ORIGIN)
if [[ -e "$inst/lib/libscopeprof_mpi.so" ]]; then
  err="$(LD_PRELOAD="$inst/lib/libscopeprof_mpi.so" /bin/true 2>&1)"
  [[ -z $err ]] || fail "LD_PRELOAD of libscopeprof_mpi.so alone: $err"
fi

# the README's mini-app: C driver, Fortran kernel, MPI, all three routes
if command -v mpirun >/dev/null; then
  app="$tmp/heat2d"
  cmake -S "$here/../../examples/heat2d" -B "$app" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=/usr/lib/llvm-22/bin/clang \
    -DCMAKE_Fortran_COMPILER=/usr/lib/llvm-22/bin/flang -DCMAKE_PREFIX_PATH="$inst" >/dev/null
  cmake --build "$app" -j2 >/dev/null
  mkdir "$tmp/run"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 SP_FORMAT=spt \
    SP_OUTPUT="$tmp/run/heat2d" mpirun --oversubscribe -np 2 "$app/heat2d" 64 64 10 0 "$tmp/h.pgm" >/dev/null
  [[ "$(head -c 12 "$tmp/h.pgm")" == $'P5\n64 64\n255' ]] || fail "heat2d wrote no 64x64 PGM"
  [[ $(stat -c %s "$tmp/h.pgm") == $((13 + 64 * 64)) ]] || fail "heat2d's PGM has the wrong size"
  src="$here/../../examples/heat2d"
  src="$(cd "$src" && pwd)"
  for r in 0 1; do
    f="$tmp/run/heat2d_rank0000$r.spt"
    expect "$f" \
      "block rank=$r thread=0 region=halo_exchange file=$src/halo.c line=8 calls=10" \
      "block rank=$r thread=0 region=heat_kernel::update_row file=$src/heat_kernel.f90 line=48 calls=$((32 * 10))" \
      "block rank=$r thread=0 region=fixed_boundary_loop file=heat_kernel.f90 line=72 calls=10" \
      "block rank=$r thread=0 region=residual_allreduce file=$src/driver.c line=17 calls=10" \
      "block rank=$r thread=0 region=solve file=$src/driver.c line=16 calls=1"
    if grep -q "region=row" <<<"$("$dump" "$f")"; then fail "filter: row was instrumented"; fi
  done
  # scopeprof_instrument(heat2d ... MPI): every MPI call a region; per rank
  # 2 MPI_Sendrecv a step, 13 MPI_Allreduce (10 steps, 3 totals).
  mpi="$("$inst/bin/sp-report" --mpi --export csv "$tmp/run")"
  for r in 0 1; do
    for want in "$r,MPI_Sendrecv,20," "$r,MPI_Allreduce,13," "$r,MPI_Init,1," \
      "$r,MPI_Gatherv,1," "$r,MPI_Bcast,1,"; do
      grep -q "^$want" <<<"$mpi" || fail "sp-report --mpi of heat2d lacks '$want': $mpi"
    done
  done
fi
echo "install: find_package (clang/flang, gcc/gfortran), pkg-config, make CC=sp-cc: ok"
