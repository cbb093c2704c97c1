#!/usr/bin/env bash
# test_warnings.sh - Release builds (tests included, not run) with GCC 12 and
# with clang-22, warnings as errors (SP_WERROR=ON): what -O3 and the other
# compiler warn about fails CI. The GCC build is the production runtime
# (SP_TESTING=OFF: no test-only settings), the clang-22 one the tests'.
#
# Usage: scripts/test_warnings.sh [gcc|clang]...   (default: both)
#   SP_WARN_BUILD_DIR   build directories' prefix (default build-warn)
#   SP_WARN_PLUGIN=1    build the plugin in the GCC build too
# The GCC build leaves the plugin out by default: scripts/test.sh and
# scripts/test_llvm19.sh already build it with GCC and SP_WERROR=ON against
# LLVM 22 and 19, and it is the slowest part to compile. The clang-22 build
# has the plugin against LLVM 22. Neither builds Fortran: no warning flags
# apply to it, and scripts/test.sh builds it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${SP_WARN_BUILD_DIR:-$root/build-warn}"
which=("$@")
((${#which[@]})) || which=(gcc clang)
status=0
for c in "${which[@]}"; do
  case $c in
  gcc)
    cc=gcc-12 cxx=g++-12
    plugin=$([[ ${SP_WARN_PLUGIN:-0} == 1 ]] && echo ON || echo OFF)
    testing=OFF
    ;;
  clang)
    cc=clang-22 cxx=clang++-22 plugin=ON testing=ON
    ;;
  *)
    echo "test_warnings.sh: unknown compiler '$c' (gcc or clang)" >&2
    exit 2
    ;;
  esac
  build="$prefix-$c"
  start=$SECONDS
  echo "== Release, $cc/$cxx, SP_WERROR=ON, plugin $plugin"
  CC=$cc CXX=$cxx cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DSP_WERROR=ON -DSP_BUILD_PASS=$plugin -DSP_BUILD_FORTRAN=OFF -DSP_TEST_ONLY= \
    -DSP_TESTING=$testing -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm >/dev/null
  cmake --build "$build" -j2 || status=1
  echo "== $cc: $((SECONDS - start)) s"
done
exit $status
