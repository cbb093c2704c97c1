#!/usr/bin/env bash
# test.sh - every test: builds with LLVM 22 and runs ctest (unit, lit, end
# to end), then builds the plugin against LLVM 19 and runs its lit tests,
# then Release builds with GCC and clang-22 (test_warnings.sh), then the
# runtime's and tools' tests under ASan+UBSan and TSan
# (test_sanitizers.sh), then the MPI layer built on MPICH with the MPI
# tests (test_mpich.sh), then the runtime and format library cross-built
# for aarch64 with their unit tests under qemu (test_aarch64.sh). Warnings
# are errors in every build here (SP_WERROR=ON). SP_TEST_WARNINGS=0 /
# SP_TEST_SANITIZERS=0 / SP_TEST_MPICH=0 / SP_TEST_AARCH64=0 skip those
# steps.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SP_BUILD_DIR:-$root/build-test}"
"$root/scripts/deps.sh" test
step() { echo "== test.sh: $1 ($((SECONDS - t0)) s so far)"; }
t0=$SECONDS
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm -DSP_TEST_ONLY= -DSP_WERROR=ON -DSP_TESTING=ON \
  >/dev/null
cmake --build "$build" -j2
status=0
(cd "$build" && ctest -j2 --output-on-failure --timeout 900) || status=1
if [[ -x "$root/scripts/test_llvm19.sh" ]]; then
  step "LLVM 19"
  "$root/scripts/test_llvm19.sh" || status=1
fi
if [[ ${SP_TEST_WARNINGS:-1} != 0 ]]; then
  step "Release builds, warnings as errors"
  "$root/scripts/test_warnings.sh" || status=1
fi
if [[ ${SP_TEST_SANITIZERS:-1} != 0 ]]; then
  step "sanitizers"
  "$root/scripts/test_sanitizers.sh" || status=1
fi
if [[ ${SP_TEST_MPICH:-1} != 0 ]]; then
  step "MPICH (the MPI layer and its tests on Debian's MPICH)"
  "$root/scripts/test_mpich.sh" || status=1
fi
if [[ ${SP_TEST_AARCH64:-1} != 0 ]]; then
  step "aarch64 (cross, qemu)"
  "$root/scripts/test_aarch64.sh" || status=1
fi
step "done, status $status"
exit $status
