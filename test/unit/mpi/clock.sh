#!/bin/sh
# clock.sh MODE - one clock for an MPI job: 3 ranks whose clocks are skewed
# by SP_TEST_CLOCK_OFFSET_NS (+10 s, -10 s, 0 for ranks 1, 2, 0) and, in the
# drift modes, SP_TEST_CLOCK_DRIFT_PPM; their barriers must line up on the
# merged timeline (check_clock.py). A rank without a skew reads rank 0's
# clock itself (MODE same-node: rank 2).
# Environment: SP_BIN (sp-fc), SP_LIBDIR, SP_IMPORT, PY3, MPIRUN, CLOCK
# (clock.c with the runtime and the MPI layer), CLOCK_PLAIN (without ScopeProf), SRC
# (this directory).
set -eu
mode="$1"
d="$(mktemp -d)"
trap 'rm -rf "$d"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
offsets="0,10000000000,-10000000000"
ppm="0,20000,-15000"
# rank r's skew, set in the rank's own environment (a drift in ppm too)
cat >"$d/skew.sh" <<'SH'
#!/bin/sh
r="${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}"
case "$r" in
1) SP_TEST_CLOCK_OFFSET_NS=10000000000 ppm=${PPM1:-20000} ;;
2) SP_TEST_CLOCK_OFFSET_NS=${OFF2:--10000000000} ppm=${PPM2:--15000} ;;
*) SP_TEST_CLOCK_OFFSET_NS=0 ppm=0 ;;
esac
export SP_TEST_CLOCK_OFFSET_NS
[ "${DRIFT:-0}" = 1 ] && export SP_TEST_CLOCK_DRIFT_PPM="$ppm"
# the preload for the program only, not for this shell
[ -n "${PRELOAD:-}" ] && export LD_PRELOAD="$PRELOAD"
exec "$@"
SH
chmod +x "$d/skew.sh"
mkdir "$d/raw"
run() { # run [VAR=VALUE...] PROGRAM [ARG...]: $NP ranks (3) writing into
  # $d/out, their true clock reads into $d/raw
  "$MPIRUN" --oversubscribe -np "${NP:-3}" env SP_OUTPUT="$d/out/p" "$@" >/dev/null
}
check() { "$PY3" "$SRC/check_clock.py" "$d/out" "$d/raw" "$SP_IMPORT" "$@"; }

case "$mode" in
runtime) # the linked MPI layer's MPI_Init and MPI_Finalize; .spt has no
  # metadata: the round trips come from SP_VERBOSE's lines
  run SP_VERBOSE=1 "$d/skew.sh" "$CLOCK" "$d/raw" 2>"$d/log"
  check sync_barrier "$offsets" --no-meta --log "$d/log" ;;
runtime-h5)
  run SP_FORMAT=h5 "$d/skew.sh" "$CLOCK" "$d/raw"; check sync_barrier "$offsets" ;;
drift) # clocks that also run apart: the two measurements correct it
  run SP_FORMAT=h5 DRIFT=1 "$d/skew.sh" "$CLOCK" "$d/raw" thread
  check sync_barrier "$offsets" --drift "$ppm" ;;
drift-monotonic) # the same with ns stamps instead of the TSC
  run SP_FORMAT=h5 SP_CLOCK=monotonic DRIFT=1 "$d/skew.sh" "$CLOCK" "$d/raw"
  check sync_barrier "$offsets" --drift "$ppm" ;;
layer) # libscopeprof_mpi.so's MPI_Init_thread, MPI_Barrier regions
  run SP_FORMAT=h5 PRELOAD="$SP_LIBDIR/libscopeprof_mpi.so:$SP_LIBDIR/libscopeprof.so" \
    DRIFT=1 "$d/skew.sh" "$CLOCK_PLAIN" "$d/raw" thread
  check MPI_Barrier "$offsets" --drift "$ppm" ;;
barrier-ends) # the clock target: rank 1's clock 10 s ahead of rank 0's
  # and 50 ppm fast, 800 MPI_Barrier calls of the layer over some seconds:
  # on the merged timeline no rank leaves the k-th barrier before the other
  # entered it, within 50 us, in each quarter of the run (a descheduled
  # rank only leaves later, which that order allows).
  NP=2 run SP_FORMAT=h5 PRELOAD="$SP_LIBDIR/libscopeprof_mpi.so:$SP_LIBDIR/libscopeprof.so" \
    DRIFT=1 PPM1=50 "$d/skew.sh" "$CLOCK_PLAIN" "$d/raw" ends
  "$PY3" "$SRC/check_barrier_ends.py" "$d/out" "$SP_IMPORT" 2 800 50000 ;;
same-node) # rank 2's clock is rank 0's own (one kernel, no test skew):
  # its offset is 0 without a ping-pong, rank 1's is measured
  run SP_FORMAT=h5 OFF2=0 "$d/skew.sh" "$CLOCK" "$d/raw"
  check sync_barrier "0,10000000000,0" ;;
crash) # no MPI_Finalize: sp-import reads the streams, init offsets alone
  run "$d/skew.sh" "$CLOCK" "$d/raw" crash 2>/dev/null || true
  ls "$d/out" | grep -q '\.spts$' || { echo "no stream left"; exit 1; }
  check sync_barrier "$offsets" ;;
fortran) # gfortran, use mpi, through sp-fc: the layer's mpi_init_, and
  # MPI_Finalize reached from Fortran; the metadata must hold both
  SP_FC="${MPIF90:-mpif90}" "$SP_BIN/sp-fc" -O1 "$SRC/f_mpi.f90" -o "$d/f"
  run SP_FORMAT=h5 "$d/skew.sh" "$d/f"
  check - "$offsets" --meta-only ;;
*) echo "clock.sh: unknown mode $mode" >&2; exit 2 ;;
esac
