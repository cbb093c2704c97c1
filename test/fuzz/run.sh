#!/bin/sh
# run.sh [SECONDS] [BUILD_DIR] - builds the .spt reader's libFuzzer target
# with clang-22 and ASan/UBSan, and runs it from the committed seed corpus.
# Exits non-zero on a finding; the crashing input lands in BUILD_DIR.
# SP_FUZZ_WERROR=1 (set by ctest when the build has SP_WERROR=ON) makes
# warnings errors.
# ASan keeps freed memory in quarantine, so a 10-minute run peaks near
# 500 MB resident; the RSS limit leaves room for long runs.
set -eu
secs=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${2:-${SP_FUZZ_BUILD_DIR:-${TMPDIR:-/tmp}/scopeprof-fuzz}}
cc=${SP_FUZZ_CC:-clang-22}
werror=
if [ "${SP_FUZZ_WERROR:-0}" = 1 ]; then werror=-Werror; fi
mkdir -p "$build/corpus"
fmt=$root/format
# Only what the reader and the statistics need: no HDF5. Files are read
# through a 29-byte header window (16 KiB in the tools), so that inputs of
# a few hundred bytes cross its edges everywhere.
"$cc" -std=c11 -D_GNU_SOURCE -DSP_SPT_WINDOW=29 -g -O1 -Wall -Wextra $werror \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$fmt" "$here/fuzz_spt.c" "$fmt/spt_read.c" "$fmt/source.c" \
  "$fmt/stats.c" "$fmt/meta.c" "$fmt/atomic.c" -lm -o "$build/fuzz_spt"
# New inputs go to the build dir's corpus; the committed seeds stay as they are.
exec "$build/fuzz_spt" -max_total_time="$secs" -timeout=10 \
  -rss_limit_mb=2048 -malloc_limit_mb=256 -print_final_stats=1 \
  -artifact_prefix="$build/" "$build/corpus" "$here/corpus"
