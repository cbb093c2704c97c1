#!/bin/sh
# debian-package.sh - a real third-party code base (Debian's zlib source
# package) built with ScopeProf.so and -finstrument-functions at -O2: its own
# test suite must pass and every process must leave a readable profile.
# usage: debian-package.sh CLANG PLUGIN RUNTIME_LIB_DIR SP_DUMP WORKDIR
# Exits 77 (ctest: skipped) when the source package cannot be fetched.
set -eu
CLANG=$1 PLUGIN=$2 RTLIB=$3 SPDUMP=$4 WORK=$5
PKG=zlib

rm -rf "$WORK"
mkdir -p "$WORK/sources.d" "$WORK/lists/partial" "$WORK/cache/archives/partial"
cd "$WORK"
# A private apt configuration with the system's Debian mirrors as deb-src,
# so nothing outside WORK changes.
for f in /etc/apt/sources.list.d/*.sources; do
  [ -e "$f" ] || continue
  sed 's/^Types: deb$/Types: deb-src/' "$f" > "sources.d/$(basename "$f")"
done
if [ -e /etc/apt/sources.list ]; then
  sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > sources.d/classic.list
fi
APT="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$WORK/sources.d
     -o Dir::State::Lists=$WORK/lists -o Dir::Cache=$WORK/cache -q"
# shellcheck disable=SC2086
if ! apt-get $APT update > apt.log 2>&1 ||
   ! apt-get $APT source "$PKG/bookworm" >> apt.log 2>&1; then
  echo "debian-package: cannot fetch the $PKG source package (see $WORK/apt.log); skipped"
  exit 77
fi
SRC=$(find . -maxdepth 1 -type d -name "$PKG-*" | head -n 1)
cd "$SRC"

mkdir -p "$WORK/prof"
SP_OUTPUT="$WORK/prof/$PKG-%p"
SP_FORMAT=spt
export SP_OUTPUT SP_FORMAT
CC="$CLANG" \
CFLAGS="-O2 -g -finstrument-functions -fpass-plugin=$PLUGIN" \
LDFLAGS="-L$RTLIB -Wl,-rpath,$RTLIB -Wl,--no-as-needed -lscopeprof" \
  ./configure --static > "$WORK/configure.log" 2>&1
make -j2 > "$WORK/build.log" 2>&1
# The package's own tests (example, minigzip round trips).
make test > "$WORK/test.log" 2>&1 || { cat "$WORK/test.log"; exit 1; }
grep -q "\*\*\* zlib test OK \*\*\*" "$WORK/test.log"

# No hook reference may remain in the objects.
if nm ./*.o 2>/dev/null | grep -q __cyg_profile_func; then
  echo "debian-package: __cyg_profile_func_* left in an object"; exit 1
fi
# Every profile reads back; the test programs must have recorded zlib's
# compressor and decompressor.
n=0
for f in "$WORK"/prof/*.spt; do
  "$SPDUMP" "$f" > "$f.txt"
  n=$((n + 1))
done
echo "debian-package: $n profile(s)"
[ "$n" -gt 0 ]
cat "$WORK"/prof/*.txt | grep -q "region=deflate file=.*deflate.c line=[0-9]* calls=[1-9]"
cat "$WORK"/prof/*.txt | grep -q "region=inflate file=.*inflate.c line=[0-9]* calls=[1-9]"
! grep -l "scopeprof:" "$WORK/test.log"
echo "debian-package: $PKG built with ScopeProf.so, its tests pass, profiles read back"
