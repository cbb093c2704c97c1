#!/bin/sh
# run.sh MODE - one test of the OpenMP regions: builds the program with
# sp-cc/sp-fc and -fopenmp, runs it on 4 threads writing .h5, and checks it
# with check_omp.py. c and off: -O0 -g (the outlined bodies are there);
# c-dwarf4: -O2 -gdwarf-4 (the older line table); c-lines: -O2 and the
# line tables sp-cc adds by itself; fortran: flang, -O0 and those; built:
# the program $PROG, built by the build itself (a sanitizer build's flags);
# names-c-O0, names-c-O2, names-fortran-O0, names-fortran-O2: omp_names.c /
# .f90 at that level, checked by check_names.py (with the libomp of
# SP_LIBOMP_DIR when set); names-built: omp_names.c as the build compiled
# it, $PROG.
# Environment: SP_BIN (sp-cc, sp-fc), PY3, SRC (this directory), REPORT
# (sp-report, for fortran).
set -eu
mode="$1"
d="$(mktemp -d)"
trap 'rm -rf "$d"' EXIT
export OMP_NUM_THREADS=4 OMP_WAIT_POLICY=passive SP_FORMAT=h5 SP_OUTPUT="$d/p"
# Runs $1 with $SP_LIBOMP_DIR's libomp, when set (and checks it is that).
omp_run() {
  if [ -n "${SP_LIBOMP_DIR:-}" ]; then
    maps="$(LD_LIBRARY_PATH="$SP_LIBOMP_DIR" ldd "$1")"
    case "$maps" in
    *"$SP_LIBOMP_DIR/libomp"*) ;;
    *) echo "$1 does not load $SP_LIBOMP_DIR's libomp: $maps"; exit 1 ;;
    esac
    LD_LIBRARY_PATH="$SP_LIBOMP_DIR" "$1"
  else
    "$1"
  fi
}
case "$mode" in
c | off | c-dwarf4 | c-lines)
  case "$mode" in
  c-dwarf4) flags="-O2 -gdwarf-4" ;;
  c-lines) flags="-O2" ;;
  *) flags="-O0 -g" ;;
  esac
  # shellcheck disable=SC2086
  "$SP_BIN/sp-cc" -fopenmp $flags "$SRC/omp_prog.c" -o "$d/prog"
  if [ "$mode" = off ]; then SP_OMPT=0 "$d/prog"; else "$d/prog"; fi
  src="$SRC/omp_prog.c"
  mode="${mode%%-*}" ;;
fortran)
  SP_FC=flang-22 "$SP_BIN/sp-fc" -fopenmp -O0 -J"$d" "$SRC/omp_prog.f90" -o "$d/prog"
  KMP_WARNINGS=0 "$d/prog"
  src="$SRC/omp_prog.f90" ;;
names-c-*)
  # omp_names.c at -O0 / -O2 (names-c-O2), with $SP_LIBOMP_DIR's libomp
  "$SP_BIN/sp-cc" -fopenmp -g "-${mode##*-}" "$SRC/omp_names.c" -o "$d/prog"
  omp_run "$d/prog"
  "$PY3" "$SRC/check_names.py" c "$d/p_rank00000.h5" "$SRC/omp_names.c"
  exit 0 ;;
names-fortran-*)
  SP_FC=flang-22 "$SP_BIN/sp-fc" -fopenmp -g "-${mode##*-}" -J"$d" \
    "$SRC/omp_names.f90" -o "$d/prog"
  KMP_WARNINGS=0 omp_run "$d/prog"
  "$PY3" "$SRC/check_names.py" fortran "$d/p_rank00000.h5" \
    "$SRC/omp_names.f90"
  exit 0 ;;
names-built)
  # omp_names.c as the build compiled it (omp_names_built): $PROG
  "$PROG"
  "$PY3" "$SRC/check_names.py" c "$d/p_rank00000.h5" "$SRC/omp_names.c"
  exit 0 ;;
built)
  # omp_prog.c as the build compiled it (omp_c_built): $PROG
  "$PROG"
  src="$SRC/omp_prog.c"
  mode=c ;;
noomp)
  "$SP_BIN/sp-cc" -O0 -g "$SRC/no_omp.c" -o "$d/prog"
  "$d/prog" >"$d/maps"
  if [ -s "$d/maps" ]; then
    echo "an OpenMP runtime was loaded:"; cat "$d/maps"; exit 1
  fi
  src="$SRC/no_omp.c" ;;
*) echo "run.sh: unknown mode $mode" >&2; exit 2 ;;
esac
"$PY3" "$SRC/check_omp.py" "$mode" "$d/p_rank00000.h5" "$src"
