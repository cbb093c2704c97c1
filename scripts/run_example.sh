#!/usr/bin/env bash
# run_example.sh - the main job: build ScopeProf, run the example solver as
# two ranks, merge them with sp-import and print the summary with sp-report.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SP_BUILD_DIR:-$root/build}"
"$root/scripts/deps.sh" main
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" -j2 --target heat_c sp-import sp-report
run="$build/example-run"
rm -rf "$run" && mkdir -p "$run"
for rank in 0 1; do
  SP_RANK=$rank SP_OUTPUT="$run/heat" "$build/examples/heat_c" 300
done
"$build/import/sp-import" -o "$run/profile.h5" "$run"
echo "merged profile: $run/profile.h5"
"$build/report/sp-report" "$run/profile.h5"
