#!/usr/bin/env bash
# deps.sh - installs the Debian 12 packages ScopeProf needs, only those
# missing. Usage: scripts/deps.sh [main|test|aarch64|mpich]  (main has
# OpenMPI and the OpenMPI build of HDF5, for SP_MERGE's parallel write;
# test adds the LLVM 19 matrix, h5py, pandas, matplotlib, the tools the
# tests use, MPICH and the aarch64 cross build's packages; aarch64 and
# mpich are those alone: scripts/test_aarch64.sh, scripts/test_mpich.sh).
# MPICH beside OpenMPI leaves OpenMPI the default mpicc and mpirun.
set -euo pipefail
# The aarch64 cross build: compilers, qemu, and arm64 libraries from Debian
# multiarch (cmocka, and the C and C++ libraries the tests run with).
aarch64=(cmake make gcc-aarch64-linux-gnu g++-aarch64-linux-gnu
         libc6-dev-arm64-cross qemu-user clang-22
         libcmocka-dev:arm64 libstdc++6:arm64)
want=(build-essential cmake gfortran pkg-config libhdf5-dev zlib1g-dev hdf5-tools openmpi-bin libopenmpi-dev
      libhdf5-openmpi-dev
      llvm-22-dev llvm-22-tools clang-22 flang-22 libclang-rt-22-dev libomp-22-dev
      libotf2-trace-dev)
case "${1:-main}" in
test)
  want+=(libcmocka-dev python3 python3-h5py python3-numpy python3-pandas python3-matplotlib
         python3-venv python3-pip python3-setuptools python3-wheel
         otf2-tools python3-otf2 python3-mpi4py
         llvm-19-dev llvm-19-tools clang-19 flang-19
         chromium autoconf libblas-dev mpich libmpich-dev valgrind
         "${aarch64[@]}")
  ;;
aarch64) want=("${aarch64[@]}") ;;
mpich) want=(build-essential cmake gfortran libhdf5-dev zlib1g-dev llvm-22-dev clang-22
             libomp-22-dev mpich libmpich-dev python3-h5py python3-numpy) ;;
esac
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "scopeprof: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if [[ " ${missing[*]}" == *:arm64* ]] &&
    ! dpkg --print-foreign-architectures | grep -qx arm64; then
    dpkg --add-architecture arm64
  fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
