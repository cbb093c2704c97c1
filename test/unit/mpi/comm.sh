#!/bin/sh
# comm.sh - comm.c on 4 ranks with the layer, each rank writing its .h5
# (MODE h5) or the job one file (SP_MERGE=1, MODE merge); sp-import merges
# the ranks' files; check_comm.py checks the messages and --matrix.
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
*) echo "comm.sh: unknown mode $mode" >&2; exit 2 ;;
esac
"$PY3" "$SRC/check_comm.py" "$d/m.h5" "$SP_REPORT" "$PYDIR"
