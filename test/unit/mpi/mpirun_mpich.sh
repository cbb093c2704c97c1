#!/bin/sh
# mpirun_mpich.sh - MPICH's mpirun for the MPI tests (scripts/test_mpich.sh):
# the tests pass OpenMPI's --oversubscribe, which MPICH's launcher (hydra)
# refuses and does not need (it runs any number of ranks on one node).
for a; do
  shift
  [ "$a" = --oversubscribe ] || set -- "$@" "$a"
done
exec /usr/bin/mpirun.mpich "$@"
