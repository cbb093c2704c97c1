#!/usr/bin/env bash
# run.sh BUILD_DIR SP_DUMP - installs the build into a temporary prefix and
# builds consumers against it: find_package (ALL, ANNOTATED, FILTER, the C
# API, the Fortran module) with clang/flang and with gcc/gfortran,
# pkg-config, and a plain Makefile with CC=sp-cc. Checks each profile.
set -euo pipefail
build="$1"
dump="$2"
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
inst="$tmp/inst"
cmake --install "$build" --prefix "$inst" >/dev/null

fail() { echo "FAIL: $*" >&2; exit 1; }
# expect FILE LINE...: each line must appear in sp-dump's output of FILE
expect() {
  local file="$1"; shift
  local out; out="$("$dump" "$file")"
  for want in "$@"; do
    grep -qxF -- "$want" <<<"$out" || fail "$file lacks '$want'; it holds:
$out"
  done
}
run() { # run NAME BINARY: runs it with an .spt output named NAME
  SP_FORMAT=spt SP_OUTPUT="$tmp/$1" "$2" >/dev/null
}

for tc in llvm gnu; do
  if [[ $tc == llvm ]]; then cc=/usr/lib/llvm-22/bin/clang fc=/usr/lib/llvm-22/bin/flang
  else cc=gcc fc=gfortran; fi
  b="$tmp/consumer-$tc"
  cmake -S "$here/consumer" -B "$b" -DCMAKE_C_COMPILER=$cc -DCMAKE_Fortran_COMPILER=$fc \
    -DCMAKE_PREFIX_PATH="$inst" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$b" -j2 >/dev/null
  for app in app_all app_annotated app_filtered app_api f_api; do
    run "$tc-$app" "$b/$app"
  done
  expect "$tmp/$tc-app_api_rank00000.spt" \
    "block rank=0 thread=0 region=by_hand file=api.c line=5 calls=2"
  expect "$tmp/$tc-f_api_rank00000.spt" \
    "block rank=0 thread=0 region=fortran_by_hand file=api.f90 line=5 calls=3"
  if [[ $tc == llvm ]]; then # the plugin: names, files and lines
    src="$here/consumer/app.c"
    expect "$tmp/$tc-app_all_rank00000.spt" \
      "block rank=0 thread=0 region=kernel file=$src line=7 calls=3" \
      "block rank=0 thread=0 region=helper file=$src line=4 calls=12" \
      "block rank=0 thread=0 region=main file=$src line=14 calls=1"
    expect "$tmp/$tc-app_annotated_rank00000.spt" \
      "block rank=0 thread=0 region=kernel file=$src line=7 calls=3"
    [[ $("$dump" "$tmp/$tc-app_annotated_rank00000.spt" | grep -c '^block') == 1 ]] ||
      fail "ANNOTATED instrumented more than the annotated function"
    expect "$tmp/$tc-app_filtered_rank00000.spt" \
      "block rank=0 thread=0 region=kernel file=$src line=7 calls=3"
    if "$dump" "$tmp/$tc-app_filtered_rank00000.spt" | grep -q region=helper; then
      fail "the filter file did not exclude helper"
    fi
  else # gcc: the runtime's hooks name the functions
    expect "$tmp/$tc-app_all_rank00000.spt" \
      "block rank=0 thread=0 region=kernel file=- line=-1 calls=3" \
      "block rank=0 thread=0 region=helper file=- line=-1 calls=12" \
      "block rank=0 thread=0 region=main file=- line=-1 calls=1"
  fi
done

# pkg-config
export PKG_CONFIG_PATH="$inst/lib/pkgconfig"
# shellcheck disable=SC2046
gcc -o "$tmp/pc_api" "$here/consumer/api.c" $(pkg-config --cflags --libs scopeprof)
run pc "$tmp/pc_api"
expect "$tmp/pc_rank00000.spt" "block rank=0 thread=0 region=by_hand file=api.c line=5 calls=2"

# make CC=sp-cc on a plain Makefile project
cp -r "$here/makefile" "$tmp/mk"
make -s -C "$tmp/mk" CC="$inst/bin/sp-cc" >/dev/null
run mk "$tmp/mk/app"
expect "$tmp/mk_rank00000.spt" \
  "block rank=0 thread=0 region=util_twice file=$tmp/mk/util.c line=2 calls=4" \
  "block rank=0 thread=0 region=add file=$tmp/mk/main.c line=4 calls=4"
echo "install: find_package (clang/flang, gcc/gfortran), pkg-config, make CC=sp-cc: ok"
