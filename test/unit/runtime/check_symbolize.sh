#!/bin/sh
# check_symbolize.sh MODE - regions a killed run left as code addresses,
# named by the tools from the binaries. MODE cyg: sym_prog.c built with
# -finstrument-functions by the build ($PROG; $PROG2 the same with
# -DREBUILT); cxx: sym_prog.cpp as the build built it ($PROG: C++ names,
# which the tools demangle through libstdc++, which they do not link);
# omp: sym_omp.c built by sp-cc -fopenmp -O2 -g (LLVM's libomp, through
# OMPT). Each program runs to its end (names made
# in the process), and again dying by SIGSEGV after its calls with
# SP_TEST_NO_SYMBOLS=1 (the stream keeps every region as an address): the
# sp-import of that stream must give the same names, files and lines, and
# sp-report of the stream the same names. The same program run to its end
# with SP_TEST_NO_SYMBOLS=1 (the converter names them at exit) too. Then
# (cyg) the binary rebuilt (another build-id) and removed: one warning line
# each, the regions keep their addresses with the binary as their file.
# Environment: PROG, PROG2 (cyg), SP_BIN (omp: sp-cc), IMPORT, REPORT,
# DUMP, SRC (this directory).
set -eu
mode="$1"
d="$(mktemp -d)"
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive SP_FORMAT=spt
case "$mode" in
cyg) src="$SRC/sym_prog.c"; cp "$PROG" "$d/prog" ;;
cxx) src="$SRC/sym_prog.cpp"; cp "$PROG" "$d/prog" ;;
omp)
  src="$SRC/sym_omp.c"
  "$SP_BIN/sp-cc" -fopenmp -g -O2 -Wl,--build-id "$src" -o "$d/prog" ;;
*) echo "check_symbolize.sh: unknown mode $mode" >&2; exit 2 ;;
esac
# region=NAME file=FILE line=N of a profile, sorted, one per region
places() {
  "$DUMP" "$1" | sed -n 's/^block rank=[0-9]* thread=[0-9]* \(region=.* line=-*[0-9]*\) calls=.*/\1/p' |
    sort -u
}
# 1. names made by the process at exit
SP_OUTPUT="$d/n" "$d/prog"
places "$d/n_rank00000.spt" >"$d/want"
case "$mode" in
cyg)
  for f in sym_outer sym_middle sym_static_leaf main; do
    grep -qx "region=$f file=- line=-1" "$d/want" || fail "no $f: $(cat "$d/want")"
  done ;;
cxx)
  for f in "over(double)" "double ns::twice<double>(double)" \
    "int ns::twice<int>(int)" main; do
    grep -qxF "region=$f file=- line=-1" "$d/want" || fail "no $f: $(cat "$d/want")"
  done ;;
omp)
  for m in parallel for second single; do
    line=$(grep -n "MARK $m\b" "$src" | cut -d: -f1)
    what=$m
    [ "$m" = second ] && what=parallel
    grep -q "^region=omp $what @ sym_omp.c:$line file=.*sym_omp.c line=$line$" \
      "$d/want" || fail "no omp $what at line $line: $(cat "$d/want")"
  done ;;
esac
if grep -q "region=0x\|+0x" "$d/want"; then fail "an address left: $(cat "$d/want")"; fi

# 2. killed by SIGSEGV, nothing named in the process: sp-import names them
# (in a sanitized build the fault is the test's, not a finding: the
# sanitizer leaves SIGSEGV to the program, and so to ScopeProf)
[ -z "${ASAN_OPTIONS:-}" ] || export ASAN_OPTIONS="$ASAN_OPTIONS handle_segv=0"
[ -z "${TSAN_OPTIONS:-}" ] || export TSAN_OPTIONS="$TSAN_OPTIONS handle_segv=0"
if SP_OUTPUT="$d/k" SP_TEST_NO_SYMBOLS=1 "$d/prog" segv 2>/dev/null; then
  fail "the program did not die"
fi
set -- "$d"/k_rank00000.*.spts
[ -f "$1" ] || fail "no stream left"
stream="$1"
"$IMPORT" -o "$d/k.h5" "$stream" 2>"$d/err"
[ "$(grep -c . "$d/err")" = 1 ] || fail "sp-import said more: $(cat "$d/err")"
grep -q "recovered from a stream: .* ended by signal 11$" "$d/err" ||
  fail "$(cat "$d/err")"
places "$d/k.h5" >"$d/got"
diff "$d/want" "$d/got" || fail "killed run's names differ"
# sp-report reads the stream itself: the same names
"$REPORT" "$stream" 2>/dev/null | awk 'NR > 2 { print $1 }' | sort >"$d/rep"
[ -s "$d/rep" ] || fail "no sp-report rows"
"$REPORT" "$stream" 2>/dev/null | grep -q "^0x" && fail "sp-report left an address"

# 3. run to its end, nothing named in the process: the converter names them
SP_OUTPUT="$d/c" SP_TEST_NO_SYMBOLS=1 "$d/prog"
places "$d/c_rank00000.spt" >"$d/conv"
diff "$d/want" "$d/conv" || fail "converter's names differ"

if [ "$mode" != cyg ]; then echo ok; exit 0; fi
# 4. the binary rebuilt (another build-id), then removed: one warning line
# naming it, every region keeps its address, the binary as its file
cp "$PROG2" "$d/prog"
"$IMPORT" -o "$d/r.h5" "$stream" 2>"$d/err"
[ "$(grep -c . "$d/err")" = 2 ] || fail "sp-import said: $(cat "$d/err")"
grep -qx "sp-import: warning: $d/prog: build-id [0-9a-f]*, the run's was [0-9a-f]* (rebuilt?); 4 regions keep their addresses" \
  "$d/err" || fail "no build-id warning: $(cat "$d/err")"
places "$d/r.h5" >"$d/rebuilt"
[ "$(grep -c "^region=0x[0-9a-f]* file=$d/prog line=-1$" "$d/rebuilt")" = 4 ] ||
  fail "rebuilt: $(cat "$d/rebuilt")"
rm "$d/prog"
"$IMPORT" -o "$d/m.h5" "$stream" 2>"$d/err"
grep -qx "sp-import: warning: $d/prog: No such file or directory; 4 regions keep their addresses" \
  "$d/err" || fail "no missing-file warning: $(cat "$d/err")"
places "$d/m.h5" >"$d/missing"
diff "$d/rebuilt" "$d/missing" || fail "missing binary: other names"
echo ok
