#!/bin/sh
# msgs.sh NP CHECK - PROG on NP ranks with the layer, each rank writing its
# .h5; sp-import merges them and CHECK (a Python checker in this folder)
# checks the messages against the program's own: f_comm.F90 per Fortran
# binding (check_fcomm.py), persist.c (check_persist.py), ncoll.c
# (check_ncoll.py).
# Environment: MPIRUN, PROG, SP_IMPORT, SP_REPORT, PY3, SRC, PYDIR.
set -eu
np="$1"
check="$2"
d="$(mktemp -d)"
trap 'rm -rf "$d"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$MPIRUN" --oversubscribe -np "$np" env SP_FORMAT=h5 SP_OUTPUT="$d/out/p" \
  "$PROG"
"$SP_IMPORT" -o "$d/m.h5" "$d/out" >/dev/null
exec "$PY3" "$SRC/$check" "$d/m.h5" "$SP_REPORT" "$PYDIR"
