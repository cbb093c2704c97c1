#!/bin/sh
# check_maps.sh PROG DIR FORMAT MERGE - a program that is not an MPI program
# maps libscopeprof and, for .h5, its serial HDF5 module, and no MPI
# library nor any part of ScopeProf's MPI layer (libscopeprof_mpi,
# libscopeprof_h5mpi), whatever SP_MERGE says; and writes its file.
set -eu
prog="$1" d="$2" fmt="$3" merge="$4"
rm -rf "$d" && mkdir -p "$d"
out=$(SP_OUTPUT="$d/p" SP_FORMAT="$fmt" SP_MERGE="$merge" "$prog")
want="mapped libscopeprof.so"
[ "$fmt" = h5 ] && want="$want
mapped libscopeprof_h5.so"
want="$want
sp_finalize 0"
want=$(echo "$want" | LC_ALL=C sort)
# a library's file name ends in its version: cut at .so
got=$(echo "$out" | sed 's/\.so[.0-9]*$/.so/' | LC_ALL=C sort)
if [ "$got" != "$want" ]; then
  echo "check_maps.sh: SP_FORMAT=$fmt SP_MERGE=$merge: expected:"
  echo "$want"
  echo "got:"
  echo "$out"
  exit 1
fi
test -s "$d/p_rank00000.$fmt" || { echo "no $d/p_rank00000.$fmt"; exit 1; }
echo "SP_FORMAT=$fmt SP_MERGE=$merge: $(echo "$out" | grep -c mapped) ScopeProf files mapped, no MPI"
