#!/bin/sh
# run.sh MODE - one test of libscopeprof_mpi.so: builds (when the mode needs
# it) and runs an MPI program on 3 ranks, then checks its MPI rows.
# Environment: SP_BIN (sp-cc...), SP_LIBDIR, SP_IMPORT, SP_REPORT, PY3,
# MPIRUN, PROG (calls built with the layer), PLAIN (calls without ScopeProf),
# SRC (this directory), BUILD (the build tree, for the cmake mode).
set -eu
mode="$1"
d="$(mktemp -d)"
trap 'rm -rf "$d"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The MPI compilers of the MPI the layer was built for (MPICH's in
# scripts/test_mpich.sh)
MPICC="${MPICC:-mpicc}" MPIF90="${MPIF90:-mpif90}"
# calls.c's counts (per rank r of n) and its region around the calls
c_rows="MPI_Init=1 MPI_Comm_rank=1 MPI_Comm_size=1 MPI_Allreduce=4 MPI_Barrier=2 MPI_Send=r+1 MPI_Recv=(r+n-1)%n+1"
f_rows="MPI_Init=1 MPI_Comm_rank=1 MPI_Comm_size=1 MPI_Allreduce=3 MPI_Send=2*(r==0) MPI_Recv=2*(r==1)"
np=3
run() { # run PROGRAM [ENV...]: $np ranks writing into $d/out; the
  # environment is the ranks' only (a preload must not reach mpirun)
  prog="$1"; shift
  "$MPIRUN" --oversubscribe -np $np env SP_OUTPUT="$d/out/p" "$@" "$prog" >/dev/null
}
check() { "$PY3" "$SRC/check_calls.py" "$d/out" "$SP_IMPORT" "$SP_REPORT" $np "$@"; }

case "$mode" in
link) run "$PROG"; check --parent exchange $c_rows ;;
off) run "$PROG" SP_MPI=0; check ;;
preload)
  run "$PLAIN" LD_PRELOAD="$SP_LIBDIR/libscopeprof_mpi.so:$SP_LIBDIR/libscopeprof.so"
  check $c_rows ;;
sp-cc) # the recommended way: the MPI compiler wrapper as the real compiler
  SP_CC="$MPICC" "$SP_BIN/sp-cc" -O1 "$SRC/calls.c" -o "$d/calls"
  run "$d/calls"; check --parent exchange $c_rows ;;
ompi-cc) # the MPI's mpicc running sp-cc (gcc underneath): OMPI_CC for
  # OpenMPI's, MPICH_CC for MPICH's
  SP_CC=gcc OMPI_CC="$SP_BIN/sp-cc" MPICH_CC="$SP_BIN/sp-cc" "$MPICC" -O1 \
    "$SRC/calls.c" -o "$d/calls"
  run "$d/calls"; check --parent exchange $c_rows ;;
cmake) # an installed ScopeProf, a project that links MPI first
  cmake --install "$BUILD" --prefix "$d/inst" >/dev/null
  cmake -S "$SRC/consumer" -B "$d/b" -DCMAKE_PREFIX_PATH="$d/inst" \
    -DMPI_C_COMPILER="$(command -v "$MPICC")" \
    -DSP_CALLS_SRC="$SRC/calls.c" >/dev/null
  cmake --build "$d/b" >/dev/null
  run "$d/b/calls"; check --parent exchange $c_rows ;;
cmake-f) # the same for a Fortran program linked --as-needed: the link
  # keeps MPI's Fortran library (MPICH's MPI_IN_PLACE needs it)
  np=2
  cmake --install "$BUILD" --prefix "$d/inst" >/dev/null
  cmake -S "$SRC/consumer" -B "$d/b" -DCMAKE_PREFIX_PATH="$d/inst" \
    -DMPI_C_COMPILER="$(command -v "$MPICC")" \
    -DMPI_Fortran_COMPILER="$(command -v "$MPIF90")" \
    -DSP_CALLS_SRC="$SRC/calls.c" -DSP_FINPLACE_SRC="$SRC/f_inplace.f90" >/dev/null
  cmake --build "$d/b" --target finplace >/dev/null
  readelf -d "$d/b/finplace" | grep -q "NEEDED.*libmpi_mpifh\|NEEDED.*libmpichfort" ||
    { echo "run.sh: the link dropped MPI's Fortran library"; exit 1; }
  run "$d/b/finplace"
  check MPI_Init=1 MPI_Comm_rank=1 MPI_Comm_size=1 MPI_Allreduce=2 ;;
f-allreduce) # gfortran, mpif.h, on 2 ranks, the layer linked by hand with
  # --as-needed (as some toolchains do by default): the layer defines every
  # MPI entry point the program calls, so the link drops MPI's Fortran
  # library; the layer finds the pmpi_ twins in it all the same
  np=2
  "$MPIF90" -O1 "$SRC/f_allreduce.f90" -o "$d/f" -Wl,--as-needed \
    -L"$SP_LIBDIR" -Wl,-rpath,"$SP_LIBDIR" -lscopeprof_mpi -lscopeprof
  if readelf -d "$d/f" | grep -q "NEEDED.*libmpi_mpifh\|NEEDED.*libmpichfort"; then
    echo "run.sh: this link kept MPI's Fortran library: nothing tested"; exit 1
  fi
  run "$d/f"
  check MPI_Init=1 MPI_Comm_rank=1 MPI_Comm_size=1 MPI_Allreduce=4 ;;
f-inplace) # gfortran, mpif.h, MPI_IN_PLACE, through sp-fc with --as-needed:
  # sp-fc keeps MPI's Fortran library (MPICH's MPI_IN_PLACE is a common
  # block the program shares with it only then)
  np=2
  SP_FC="$MPIF90" "$SP_BIN/sp-fc" -O1 -Wl,--as-needed "$SRC/f_inplace.f90" -o "$d/f"
  readelf -d "$d/f" | grep -q "NEEDED.*libmpi_mpifh\|NEEDED.*libmpichfort" ||
    { echo "run.sh: sp-fc's link dropped MPI's Fortran library"; exit 1; }
  run "$d/f"
  check MPI_Init=1 MPI_Comm_rank=1 MPI_Comm_size=1 MPI_Allreduce=2 ;;
f-mpi | f-f08) # gfortran: use mpi, use mpi_f08
  SP_FC="$MPIF90" "$SP_BIN/sp-fc" -O1 "$SRC/$(echo "$mode" | tr - _).f90" -o "$d/f"
  run "$d/f"; check $f_rows ;;
flang-mpifh) # flang-22 with mpif.h; Debian's mpif-sizeof.h is gfortran's
  # (flang: "Generic 'mpi_sizeof' ... not distinguishable"): an empty one
  inc="$(mpicc --showme:incdirs | tr ' ' '\n' | while read -r i; do
    [ -e "$i/mpif.h" ] && echo "$i"; done | head -n 1)"
  mkdir "$d/inc"
  cp "$inc"/mpif*.h "$d/inc/"
  : >"$d/inc/mpif-sizeof.h"
  SP_FC=flang-22 "$SP_BIN/sp-fc" -O1 -I"$d/inc" "$SRC/f_mpifh.f90" -o "$d/f" \
    -L"$(mpicc --showme:libdirs | cut -d' ' -f1)" -lmpi_mpifh -lmpi
  run "$d/f"; check $f_rows ;;
*) echo "run.sh: unknown mode $mode" >&2; exit 2 ;;
esac
