#!/bin/sh
# abort.sh RUNS [NP] - runs abort.c's job (or $PROG) RUNS times under mpirun
# (OpenMPI's kill settings unless OMPI_MCA_* in the environment say
# otherwise) and checks after each that mpirun ended with the abort's code,
# 3, and that every rank's calls are there (check_abort.py); prints one line
# per run, then the failures. Exit status 1 when any run failed.
# Environment: MPIRUN, PROG, SP_IMPORT, PY3, SRC (this directory); SP_*
# pass through to the ranks.
runs=${1:-5}
np=${2:-4}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
lost=0
i=1
while [ "$i" -le "$runs" ]; do
  d=$(mktemp -d)
  t0=$(date +%s%N)
  SP_OUTPUT=$d/abort "$MPIRUN" --oversubscribe -np "$np" "$PROG" \
    >"$d/out" 2>&1
  rc=$?
  t1=$(date +%s%N)
  line=$("$PY3" "$SRC/check_abort.py" "$d" "$SP_IMPORT" "$np")
  ok=$?
  echo "run $i: mpirun status $rc, $(((t1 - t0) / 1000000)) ms: $line"
  if [ "$ok" -ne 0 ] || [ "$rc" -ne 3 ]; then
    lost=$((lost + 1))
    grep -i scopeprof "$d/out"
  fi
  rm -rf "$d"
  i=$((i + 1))
done
echo "$lost of $runs runs lost calls or ended otherwise"
[ "$lost" -eq 0 ]
