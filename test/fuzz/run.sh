#!/bin/sh
# run.sh [SECONDS] [BUILD_DIR] [TARGET] - builds a format reader's libFuzzer
# target with clang-22 and ASan/UBSan, and runs it from its committed seed
# corpus: TARGET spt (default; fuzz_spt.c, corpus/) or stream
# (fuzz_stream.c, corpus_stream/). Exits non-zero on a finding; the
# crashing input lands in BUILD_DIR.
# SP_FUZZ_WERROR=1 (set by ctest when the build has SP_WERROR=ON) makes
# warnings errors.
# ASan keeps freed memory in quarantine, so a 10-minute run peaks near
# 500 MB resident; the RSS limit leaves room for long runs.
set -eu
secs=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${2:-${SP_FUZZ_BUILD_DIR:-${TMPDIR:-/tmp}/scopeprof-fuzz}}
target=${3:-spt}
cc=${SP_FUZZ_CC:-clang-22}
fmt=$root/format
case $target in
spt)
  seeds=$here/corpus
  # Files are read through a 29-byte header window (16 KiB in the tools),
  # so that inputs of a few hundred bytes cross its edges everywhere.
  flags="-DSP_SPT_WINDOW=29"
  srcs="$fmt/spt_read.c" ;;
stream)
  seeds=$here/corpus_stream
  # A 64-byte index window and 3-call read batches (4 MiB and 16 Ki in the
  # tools), for the same reason.
  flags="-DSP_STREAM_WINDOW=64 -DSP_STREAM_BATCH=3"
  srcs="$fmt/stream_read.c $fmt/profile.c $fmt/ctr.c $fmt/symbolize.c $fmt/elf_sym.c $fmt/elf_lines.c" ;;
*)
  echo "run.sh: unknown target $target (spt or stream)" >&2
  exit 2 ;;
esac
werror=
if [ "${SP_FUZZ_WERROR:-0}" = 1 ]; then werror=-Werror; fi
mkdir -p "$build/corpus"
# Only what the reader and the statistics need: no HDF5.
"$cc" -std=c11 -D_GNU_SOURCE $flags -g -O1 -Wall -Wextra $werror \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$fmt" "$here/fuzz_$target.c" $srcs "$fmt/source.c" \
  "$fmt/stats.c" "$fmt/meta.c" "$fmt/mpi.c" "$fmt/common.c" "$fmt/atomic.c" "$fmt/hash.c" \
  "$fmt/progress.c" -lm \
  -o "$build/fuzz_$target"
# New inputs go to the build dir's corpus; the committed seeds stay as they are.
exec "$build/fuzz_$target" -max_total_time="$secs" -timeout=10 \
  -rss_limit_mb=2048 -malloc_limit_mb=256 -print_final_stats=1 \
  -artifact_prefix="$build/" "$build/corpus" "$seeds"
