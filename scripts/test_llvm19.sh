#!/usr/bin/env bash
# test_llvm19.sh - the other half of the plugin's version matrix: builds the
# runtime and ScopeProf.so against LLVM 19 and runs the plugin's lit tests
# with clang-19/flang-19 (Fortran -finstrument-functions tests are
# UNSUPPORTED there: flang-19 lacks the flag).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SP_BUILD_DIR_19:-$root/build-test-llvm19}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLLVM_DIR=/usr/lib/llvm-19/lib/cmake/llvm -DSP_TEST_ONLY=none \
  -DSP_BUILD_BENCH=OFF -DSP_WERROR=ON >/dev/null
cmake --build "$build" -j2 --target ScopeProf scopeprof scopeprof_static sp-dump
cd "$build" && ctest -R lit-plugin --output-on-failure
