#!/usr/bin/env bash
# run_example.sh - the main job: build and install ScopeProf, build the
# heat2d mini-app (C driver, Fortran kernel, MPI) with ScopeProf's CMake
# package, run it on 2 ranks, merge with sp-import, print sp-report's summary
# and its MPI view (time inside MPI per rank and per MPI function).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SP_BUILD_DIR:-$root/build}"
"$root/scripts/deps.sh" main
llvm=/usr/lib/llvm-22
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLLVM_DIR=$llvm/lib/cmake/llvm -DBUILD_TESTING=OFF -DSP_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j2
cmake --install "$build" --prefix "$build/install" >/dev/null

app="$build/example-heat2d"
cmake -S "$root/examples/heat2d" -B "$app" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=$llvm/bin/clang -DCMAKE_Fortran_COMPILER=$llvm/bin/flang \
  -DCMAKE_PREFIX_PATH="$build/install" >/dev/null
cmake --build "$app" -j2

run="$build/example-run"
rm -rf "$run" && mkdir -p "$run"
# OpenMPI refuses root unless told; the example is meant to run anywhere.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  SP_OUTPUT="$run/heat2d" SP_LABEL=heat2d \
  mpirun --oversubscribe -np 2 "$app/heat2d" 512 512 300 0 "$run/heat2d.pgm"
"$build/install/bin/sp-import" -o "$run/profile.h5" "$run"
echo "merged profile: $run/profile.h5"
"$build/install/bin/sp-report" "$run/profile.h5"
echo
"$build/install/bin/sp-report" --mpi "$run/profile.h5"
