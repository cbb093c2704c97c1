#!/usr/bin/env bash
# deps.sh - installs the Debian 12 packages ScopeProf needs, only those
# missing. Usage: scripts/deps.sh [main|test]  (test adds the LLVM 19
# matrix, h5py, pandas, matplotlib, OpenMPI, the OpenMPI build of HDF5 and the tools the tests use).
set -euo pipefail
want=(build-essential cmake gfortran pkg-config libhdf5-dev hdf5-tools openmpi-bin libopenmpi-dev
      llvm-22-dev llvm-22-tools clang-22 flang-22 libclang-rt-22-dev)
if [[ "${1:-main}" == test ]]; then
  want+=(libcmocka-dev python3 python3-h5py python3-numpy python3-pandas python3-matplotlib
         libhdf5-openmpi-dev
         llvm-19-dev llvm-19-tools clang-19 flang-19
         chromium)
fi
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "scopeprof: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
