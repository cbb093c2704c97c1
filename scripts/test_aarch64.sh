#!/usr/bin/env bash
# test_aarch64.sh - the runtime and the format library cross-built for
# aarch64 (Debian's aarch64-linux-gnu-gcc, and clang-22
# --target=aarch64-linux-gnu) and their unit tests run under qemu-aarch64:
# test_runtime, test_endings and test_abort (the runtime, through the
# programs they start), test_fork_where (aarch64's code before a call that
# starts an OpenMP parallel region) and the format library's test_spt,
# test_stats, test_meta, test_stream, and sp-dump for a check of its own. No HDF5
# (SP_USE_HDF5=OFF), no plugin, no sp-import or sp-report.
#
# Usage: scripts/test_aarch64.sh [gcc|clang]...   (default: both)
#   SP_AARCH64_BUILD_DIR   build directories' prefix (default build-aarch64)
#   SP_AARCH64_CLANG_RUN=1 run the tests of the clang build too (default:
#                          build them only; the GCC build runs them)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${SP_AARCH64_BUILD_DIR:-$root/build-aarch64}"
"$root/scripts/deps.sh" aarch64
which=("$@")
((${#which[@]})) || which=(gcc clang)
tests=(test_runtime test_endings test_abort test_fork_where test_spt
       test_spt_window test_stats test_meta test_stream test_stream_window)
status=0
for c in "${which[@]}"; do
  case $c in
  gcc) cross=() run=1 ;;
  clang) cross=(-DSP_CROSS_CLANG=clang-22) run=${SP_AARCH64_CLANG_RUN:-0} ;;
  *)
    echo "test_aarch64.sh: unknown compiler '$c' (gcc or clang)" >&2
    exit 2
    ;;
  esac
  build="$prefix-$c"
  start=$SECONDS
  echo "== aarch64, $c, SP_WERROR=ON, tests $([[ $run == 1 ]] && echo run || echo built)"
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" "${cross[@]}" \
    -DSP_WERROR=ON -DSP_USE_HDF5=OFF -DSP_BUILD_PASS=OFF -DSP_BUILD_FORTRAN=OFF \
    -DSP_BUILD_BENCH=OFF -DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON -DSP_TESTING=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_LLVM=ON "-DSP_TEST_ONLY=runtime;format" \
    >/dev/null
  if ! cmake --build "$build" -j2 --target "${tests[@]}" sp-dump; then
    status=1
    continue
  fi
  if [[ $run == 1 ]]; then
    regex="^($(IFS='|'; echo "${tests[*]}"))\$"
    (cd "$build" && ctest -j2 --output-on-failure --timeout 600 -R "$regex") ||
      status=1
    # The tests start their programs without the caller's SP_*, and under
    # qemu the host's clocksource (not arch_sys_counter) makes them record
    # with CLOCK_MONOTONIC: the generic timer's path, forced, here.
    out="$(mktemp -d)"
    if SP_CLOCK=tsc SP_VERBOSE=1 SP_FORMAT=spt SP_OUTPUT="$out/p" \
      "$build/test/rt_scenario" nest 2>"$out/err" &&
      grep -q "with cntvct_el0 (" "$out/err" &&
      "$build/test/tools/sp-dump" --events "$out/p_rank00000.spt" >"$out/dump" &&
      grep -q "region=rec file=nest.c line=30 calls=5" "$out/dump" &&
      awk '$1 == "call" && $2 > $3 { bad = 1 } END { exit bad }' "$out/dump"
    then
      echo "== aarch64, $c: SP_CLOCK=tsc records with the generic timer"
    else
      echo "== aarch64, $c: SP_CLOCK=tsc (generic timer) FAILED" >&2
      cat "$out/err" "$out/dump" >&2 || true
      status=1
    fi
    rm -rf "$out"
  fi
  echo "== aarch64, $c: $((SECONDS - start)) s"
done
exit $status
