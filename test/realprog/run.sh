#!/usr/bin/env bash
# run.sh - two programs from Debian source packages, not written by the
# project, built with the wrappers (sp-cc) and run in profile mode and with
# a run-time filter: zlib (its `make test`) and the HPC Challenge suite
# HPCC (MPI, 2 ranks; its own residual and error checks; and traced on 4
# ranks, its communication matrix checked). Each must pass its own checks,
# and the merged profile must hold their functions.
# usage: run.sh BUILD_DIR WORKDIR
# Exits 77 (ctest: skipped) when a source package cannot be fetched.
set -euo pipefail
build=$1 work=$2
here="$(cd "$(dirname "$0")" && pwd)"
bin="$build/bin"
import="$build/import/sp-import" report="$build/report/sp-report"
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work/sources.d" "$work/lists/partial" "$work/cache/archives/partial"
cd "$work"
# A private apt configuration with the system's Debian mirrors as deb-src,
# so nothing outside WORK changes; only the upstream tarballs are used.
for f in /etc/apt/sources.list.d/*.sources; do
  [[ -e $f ]] || continue
  sed 's/^Types: deb$/Types: deb-src/' "$f" >"sources.d/$(basename "$f")"
done
if [[ -e /etc/apt/sources.list ]]; then
  sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >sources.d/classic.list
fi
apt=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/sources.d"
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -q)
fetch() { # fetch PACKAGE[/RELEASE]: its upstream (orig) tarball, by apt
  local uri
  uri=$(apt-get "${apt[@]}" source --print-uris "$1" 2>>apt.log |
    grep -o "'[^']*\.orig\.tar\.[a-z0-9]*'" | head -n 1 | tr -d "'") || true
  if [[ -z $uri ]] ||
    ! /usr/lib/apt/apt-helper download-file "$uri" "$work/$(basename "$uri")" >>apt.log 2>&1; then
    echo "realprog: cannot fetch the $1 source package (see $work/apt.log); skipped"
    exit 77
  fi
}
apt-get "${apt[@]}" update >apt.log 2>&1 || {
  echo "realprog: no Debian source index (see $work/apt.log); skipped"
  exit 77
}
fetch zlib/bookworm
fetch hpcc/bookworm
mkdir src
tar -xjf zlib_*.orig.tar.bz2 -C src
tar -xzf hpcc_*.orig.tar.gz -C src
zsrc=$(echo src/zlib-*) hsrc=$(echo src/hpcc-*)

# ---- zlib: sp-cc (clang and the plugin), its own tests -------------------
(cd "$zsrc" && CC="$bin/sp-cc" CFLAGS=-O2 ./configure --static >"$work/zlib-configure.log" 2>&1 &&
  make -j2 >"$work/zlib-build.log" 2>&1) || fail "zlib did not build (see $work/zlib-*.log)"
ztest() { # ztest NAME [VAR=VALUE...]: zlib's make test, each process profiled
  mkdir -p "$work/$1"
  (cd "$zsrc" && env SP_MODE=profile SP_OUTPUT="$work/$1/zlib-%p" "${@:2}" \
    make test >"$work/$1.log" 2>&1) || fail "zlib's tests failed ($1): $(tail -5 "$work/$1.log")"
  grep -q "\*\*\* zlib test OK \*\*\*" "$work/$1.log" || fail "zlib's tests ($1) did not say OK"
  ! grep -q "scopeprof:" "$work/$1.log" || fail "the runtime printed in $1: $(grep scopeprof: "$work/$1.log")"
  "$import" --merge-processes -o "$work/$1.h5" "$work/$1" >/dev/null 2>"$work/$1.import.log" ||
    fail "sp-import $1: $(cat "$work/$1.import.log")"
  "$report" --export csv "$work/$1.h5" >"$work/$1.csv"
}
calls() { # calls CSV REGION: the region's calls in sp-report's csv (0: absent)
  awk -F, -v r="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "calls") c = i }
    NR > 1 && $1 == r { print $c; found = 1 } END { if (!found) print 0 }' "$1"
}
ztest zlib
for fn in deflate inflate crc32 adler32; do
  [[ $(calls "$work/zlib.csv" "$fn") -gt 0 ]] || fail "zlib profile: no call of $fn"
done
# the profile holds call paths, no events
python_h5() { /usr/bin/python3 -c "$1" "${@:2}"; }
if python_h5 "import h5py" 2>/dev/null; then
  python_h5 'import h5py, sys
with h5py.File(sys.argv[1], "r") as h:
    mode = h["metadata"].attrs["mode"]
    assert (mode.decode() if isinstance(mode, bytes) else mode) == "profile"
    assert h["events/start_times"].shape == (0,)
    assert h["call_paths/parents"].shape[0] > 0' "$work/zlib.h5" ||
    fail "zlib.h5 is not a profile"
fi
# the run-time filter: crc32 and adler32 out, no rebuild; the rest stays
printf 'exclude function crc32*\nexclude function adler32*\n' >"$work/zlib.filter"
ztest zlibf SP_FILTER="$work/zlib.filter"
for fn in crc32 adler32; do
  [[ $(calls "$work/zlibf.csv" "$fn") == 0 ]] || fail "SP_FILTER left $fn in"
done
for fn in deflate inflate; do
  [[ $(calls "$work/zlibf.csv" "$fn") == $(calls "$work/zlib.csv" "$fn") ]] ||
    fail "SP_FILTER changed $fn's calls"
done

# ---- HPCC: MPI, sp-cc around mpicc around clang --------------------------
if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
  cp "$here/Make.sp" "$hsrc/hpl/"
  (cd "$hsrc" && OMPI_CC=/usr/lib/llvm-22/bin/clang SP_CC=mpicc \
    make arch=sp CC="$bin/sp-cc" SP_HPCC_COMPAT="$here/hpcc_mpi3.h" \
    >"$work/hpcc-build.log" 2>&1) || true # HPCC's make ignores a failed clean
  [[ -x $hsrc/hpcc ]] || fail "HPCC did not build: $(grep -m3 error "$work/hpcc-build.log")"
  # the default input, on a 1 x 2 process grid
  sed -e '11s/^2 /1 /' "$hsrc/_hpccinf.txt" >"$hsrc/hpccinf.txt"
  hrun() { # hrun NAME [VAR=VALUE...]
    mkdir -p "$work/$1"
    rm -f "$hsrc/hpccoutf.txt"
    (cd "$hsrc" && env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      SP_MODE=profile SP_OUTPUT="$work/$1/hpcc" NP=2 "${@:2}" \
      sh -c 'exec mpirun --oversubscribe -np "$NP" ./hpcc' >"$work/$1.log" 2>&1) ||
      fail "HPCC failed ($1): $(tail -5 "$work/$1.log")"
    local out="$hsrc/hpccoutf.txt"
    grep -q "^End of Summary section" "$out" || fail "HPCC ($1) did not finish"
    ! grep -q "[1-9][0-9]* tests completed and failed residual checks" "$out" ||
      fail "HPCC ($1): a residual check failed"
    grep -q "0 tests completed and failed residual checks" "$out" || fail "HPCC ($1): no HPL check"
    grep -q "^MPIRandomAccess_Errors=0$" "$out" || fail "HPCC ($1): RandomAccess errors"
    grep -q "Solution Validates" "$out" || fail "HPCC ($1): STREAM did not validate"
    ! grep -q "scopeprof:" "$work/$1.log" || fail "the runtime printed in $1: $(grep scopeprof: "$work/$1.log")"
    "$import" --merge-processes -o "$work/$1.h5" "$work/$1" >/dev/null 2>"$work/$1.import.log" ||
      fail "sp-import $1: $(cat "$work/$1.import.log")"
    "$report" --export csv --by-rank "$work/$1.h5" >"$work/$1.csv"
    "$report" --mpi --export csv "$work/$1.h5" >"$work/$1.mpi.csv"
  }
  hrun hpcc
  for r in 0 1; do
    for fn in HPL_pdgesv PTRANS HPCC_StarDGEMM main; do
      grep -q "^$fn,$r," "$work/hpcc.csv" || fail "HPCC profile: no $fn on rank $r"
    done
    for fn in MPI_Init MPI_Allreduce MPI_Bcast MPI_Alltoall; do # the PMPI layer's
      grep -q "^$fn,$r," "$work/hpcc.csv" || fail "HPCC profile: no $fn on rank $r"
      # sp-report --mpi from the profile: the same calls per rank and function
      want=$(grep "^$fn,$r," "$work/hpcc.csv" | cut -d, -f3)
      grep -q "^$r,$fn,$want," "$work/hpcc.mpi.csv" ||
        fail "HPCC profile: sp-report --mpi lacks $r,$fn,$want: $(grep ",$fn," "$work/hpcc.mpi.csv")"
    done
  done
  printf 'exclude function HPL_l*\nexclude function HPL_d*\n' >"$work/hpcc.filter"
  hrun hpccf SP_FILTER="$work/hpcc.filter"
  if grep -q "^HPL_[ld]" "$work/hpccf.csv"; then
    fail "SP_FILTER left HPL_l*/HPL_d* in: $(grep '^HPL_[ld]' "$work/hpccf.csv" | head -3)"
  fi
  grep -q "^HPL_pdgesv,0," "$work/hpccf.csv" || fail "SP_FILTER removed HPL_pdgesv"
  # 4 ranks on its default 2 x 2 grid, traced: the messages the MPI layer
  # recorded, as sp-report --mpi --matrix shows them, against what the
  # receivers recorded (check_matrix.py)
  cp "$hsrc/_hpccinf.txt" "$hsrc/hpccinf.txt"
  hrun hpcc4 SP_MODE=trace SP_FORMAT=h5 NP=4
  "$report" --mpi --matrix --export csv "$work/hpcc4.h5" >"$work/hpcc4.matrix.csv" ||
    fail "sp-report --mpi --matrix of HPCC on 4 ranks"
  "$report" --mpi --matrix "$work/hpcc4.h5" >"$work/hpcc4.matrix.txt"
  PYTHONPATH="$here/../../python" /usr/bin/python3 "$here/check_matrix.py" \
    "$work/hpcc4.h5" "$work/hpcc4.matrix.csv" 4 || fail "HPCC's matrix (4 ranks)"
  echo "realprog: HPCC (MPI, 2 ranks) built with sp-cc, its checks pass in profile mode and filtered; on 4 ranks its matrix is every rank's"
fi
echo "realprog: zlib built with sp-cc, its tests pass in profile mode and filtered"
