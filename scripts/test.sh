#!/usr/bin/env bash
# test.sh - every test: builds with LLVM 22 and runs ctest (unit, lit, end
# to end), then builds the plugin against LLVM 19 and runs its lit tests.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SP_BUILD_DIR:-$root/build-test}"
"$root/scripts/deps.sh" test
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm -DSP_TEST_ONLY= >/dev/null
cmake --build "$build" -j2
status=0
(cd "$build" && ctest -j2 --output-on-failure --timeout 900) || status=1
if [[ -x "$root/scripts/test_llvm19.sh" ]]; then
  "$root/scripts/test_llvm19.sh" || status=1
fi
exit $status
