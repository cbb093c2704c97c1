#!/bin/sh
# comm.sh MODE - comm.c on 4 ranks with the layer, each rank writing its
# .h5 (MODE h5), the job one file (SP_MERGE=1, MODE merge) or ending in
# MPI_Abort, each rank's stream left (MODE abort), or with SP_MPI_MESSAGES=0
# (MODE off: regions, no messages), or in the default format (MODE spt: each
# .spt with its messages beside it, compared with an SP_FORMAT=h5 run and
# then damaged, check_spt_mpi.py); sp-import merges the ranks' files; MODE
# late runs late.c instead (LATE) for the late sender, MODE threads
# threads.c (THREADS, check_threads.py) for requests completed on another
# thread. check_comm.py checks
# the messages, --matrix and Python's view of them, and (with OTF2_PRINT,
# modes h5, abort and merge) check_comm_otf2.py the OTF2 export's MPI
# events.
# Environment: MPIRUN, COMM (the program), SP_IMPORT, SP_REPORT, PY3, SRC,
# PYDIR (the scopeprof package's directory), PAR (1: parallel HDF5 built).
set -eu
mode="$1"
d="$(mktemp -d)"
trap 'rm -rf "$d"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
case "$mode" in
h5)
  "$MPIRUN" --oversubscribe -np 4 env SP_FORMAT=h5 SP_OUTPUT="$d/out/p" "$COMM"
  "$SP_IMPORT" -o "$d/m.h5" "$d/out" ;;
off) # SP_MPI_MESSAGES=0: the calls are regions, no message is recorded
  "$MPIRUN" --oversubscribe -np 4 env SP_MPI_MESSAGES=0 SP_FORMAT=h5 \
    SP_OUTPUT="$d/out/p" "$COMM"
  "$SP_IMPORT" -o "$d/m.h5" "$d/out"
  "$PY3" - "$d/m.h5" <<'PY'
import sys

import h5py
f = h5py.File(sys.argv[1], "r")
names = [n.decode() if isinstance(n, bytes) else n
         for n in f["region_table/names"][:]]
idx = f["rank_region_index"]
sends = sum(int(c) for r, c in zip(idx["region_ids"][:], idx["event_counts"][:])
            if names[r] == "MPI_Send")
if any(k[4:].isdigit() for k in f.keys() if k.startswith("rank")) or \
        sends != 9:
    sys.exit("comm.sh off: groups %s, %d MPI_Send calls (want none, 9)"
             % (list(f.keys()), sends))
PY
  "$SP_REPORT" --matrix "$d/m.h5" | grep -q "no point-to-point messages"
  exit 0 ;;
spt) # the default SP_FORMAT: .spt files, their messages beside them
  "$MPIRUN" --oversubscribe -np 4 env SP_OUTPUT="$d/out/p" "$COMM"
  "$MPIRUN" --oversubscribe -np 4 env SP_FORMAT=h5 SP_OUTPUT="$d/h5/p" "$COMM"
  "$SP_IMPORT" -o "$d/m.h5" "$d/out"
  "$SP_IMPORT" -o "$d/h.h5" "$d/h5"
  "$PY3" "$SRC/check_spt_mpi.py" "$d/m.h5" "$d/h.h5" "$d/out" "$SP_IMPORT" \
    "$SP_REPORT" "$PYDIR"
  if [ -n "${E2E:-}" ]; then
    # a later program without the layer writes rank 1's .spt over this
    # run's: the sidecar of the earlier .spt goes, and sp-import says so
    cp -r "$d/out" "$d/stale"
    SP_RANK=1 SP_OUTPUT="$d/stale/p" "$E2E"
    if [ -e "$d/stale/p_rank00001.spt.mpi" ]; then
      echo "comm.sh spt: a stale p_rank00001.spt.mpi left" >&2
      exit 1
    fi
    "$SP_IMPORT" -o "$d/s.h5" "$d/stale" 2>"$d/err"
    if [ "$(wc -l <"$d/err")" -ne 1 ] ||
      ! grep -q "^sp-import: warning: $d/stale/p_rank00001.spt.mpi: offset 0: missing" "$d/err"; then
      cat "$d/err" >&2
      echo "comm.sh spt: want one warning, rank 1's sidecar missing" >&2
      exit 1
    fi
  fi ;;
threads) # threads.c on 2 ranks: requests completed on another thread
  "$MPIRUN" --oversubscribe -np 2 env SP_FORMAT=h5 SP_OUTPUT="$d/out/p" \
    "$THREADS"
  "$SP_IMPORT" -o "$d/m.h5" "$d/out"
  exec "$PY3" "$SRC/check_threads.py" "$d/m.h5" ;;
late) # late.c on 2 ranks: sp-report --mpi's late sender (check_late.py)
  "$MPIRUN" --oversubscribe -np 2 env SP_FORMAT=h5 SP_OUTPUT="$d/out/p" "$LATE"
  "$SP_IMPORT" -o "$d/m.h5" "$d/out"
  exec "$PY3" "$SRC/check_late.py" "$d/m.h5" "$SP_REPORT" ;;
merge) # SP_MERGE=1: the job's one file, written at MPI_Finalize (in turns,
  # and with PAR=1 also through parallel HDF5)
  "$MPIRUN" --oversubscribe -np 4 env SP_MERGE=1 SP_OUTPUT="$d/m" "$COMM"
  if [ "${PAR:-0}" = 1 ]; then
    "$PY3" "$SRC/check_comm.py" "$d/m.h5" "$SP_REPORT" "$PYDIR"
    rm -f "$d/m.h5"
    "$MPIRUN" --oversubscribe -np 4 env SP_MERGE=1 SP_MERGE_PARALLEL=1 \
      SP_OUTPUT="$d/m" "$COMM"
  fi ;;
abort) # the job ends in MPI_Abort: each rank's stream (.spts), read as it is
  set +e
  "$MPIRUN" --oversubscribe -np 4 env SP_OUTPUT="$d/out/p" "$COMM" abort \
    "$d" >"$d/log" 2>&1
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
