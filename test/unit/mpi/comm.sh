#!/bin/sh
# comm.sh MODE - comm.c on 4 ranks with the layer, each rank writing its
# .h5 (MODE h5) or ending in MPI_Abort, each rank's stream left (MODE
# abort); sp-import merges the ranks' files; check_comm.py checks the
# messages, --matrix and Python's view of them, and (with OTF2_PRINT)
# check_comm_otf2.py the OTF2 export's MPI events.
# Environment: MPIRUN, COMM (the program), SP_IMPORT, SP_REPORT, PY3, SRC,
# PYDIR (the scopeprof package's directory).
set -eu
mode="$1"
d="$(mktemp -d)"
trap 'rm -rf "$d"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
case "$mode" in
h5)
  "$MPIRUN" --oversubscribe -np 4 env SP_FORMAT=h5 SP_OUTPUT="$d/out/p" "$COMM"
  "$SP_IMPORT" -o "$d/m.h5" "$d/out" ;;
abort) # the job ends in MPI_Abort: each rank's stream (.spts), read as it is
  set +e
  "$MPIRUN" --oversubscribe -np 4 env SP_OUTPUT="$d/out/p" "$COMM" abort \
    >"$d/log" 2>&1
  rc=$?
  set -e
  [ "$rc" -eq 3 ] || { cat "$d/log"; echo "comm.sh: mpirun status $rc, not 3" >&2; exit 1; }
  ls "$d/out"/*.spts >/dev/null
  "$SP_IMPORT" -o "$d/m.h5" "$d/out" 2>/dev/null ;;
*) echo "comm.sh: unknown mode $mode" >&2; exit 2 ;;
esac
"$PY3" "$SRC/check_comm.py" "$d/m.h5" "$SP_REPORT" "$PYDIR"
if [ -n "${OTF2_PRINT:-}" ]; then
  "$PY3" "$SRC/check_comm_otf2.py" "$d/m.h5" "$SP_REPORT" "$OTF2_PRINT" "$mode"
fi
