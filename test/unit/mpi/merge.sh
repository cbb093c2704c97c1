#!/bin/sh
# merge.sh MODE - SP_MERGE: the ranks of a job write one <prefix>.h5 at
# MPI_Finalize (merge.c on 3 or 4 ranks; check_merge.py compares).
#   equal  the merged file against sp-import of the same run's own rank
#          files (SP_MERGE_KEEP_RANK_FILES=1 writes both from each rank's
#          one stream): rows, every call, summary_statistics, metadata
#   only   SP_MERGE alone (.spt the format asked for): the merged file and
#          nothing else, with merge.c's calls on every rank
#   kill   rank 1 ends itself with SIGKILL before MPI_Finalize: no merged
#          file, no temporary left, the others' own .h5 files and rank 1's
#          stream, which sp-import merges with them (every call of ranks 0
#          and 2, what rank 1's stream had of its)
#   early  rank 2 calls sp_finalize() before MPI_Finalize: it says so to
#          rank 0 at once, and every rank writes its own file
#   early0 the same by rank 0: it tells the others as it finalizes MPI
#   refuse rank 3 cannot write its place in the merged file (a file size
#          limit, EFBIG) while other ranks' turns are open: no merged
#          file, no temporary, every rank's own file. refuse-par: rank 0
#          first says that rank 3's limit rules parallel HDF5 out.
#   counters SP_COUNTERS=page-faults,context-switches, in trace then in
#          profile mode: each rank's rank<N>/likwid group in the merged
#          file equals the one sp-import makes of the rank files
#   profile SP_MODE=profile: the merged file (rank files kept) holds the
#          call paths sp-import makes of the rank files, with merge.c's calls;
#          without SP_MERGE_KEEP_RANK_FILES, the merged file alone and a
#          silent run
#   term   SIGTERM ends rank 0 once its calls are in the merged file's
#          temporary: no merged file, no temporary, the ranks' streams
#   h5app  (parallel HDF5) in a program that uses the same parallel HDF5
#          itself: its own file whole, the merged file as sp-import's
#   fail   (parallel HDF5) rank 2's part of the collective write fails
#          (SP_MERGE_TEST_FAIL): no merged file, no temporary, every
#          rank's own file; fail0 the same on rank 0
# Where libscopeprof_h5mpi.so is built (PAR=1), SP_MERGE_PARALLEL=auto (the
# default) writes through it when the ranks span hosts, and the ranks take
# turns on one host; equal and only check that the way taken is the one
# expected. Suffixes:
#   -par    SP_MERGE_PARALLEL=1: parallel HDF5 on this one host
#   -hosts  ranks 0-1 and 2-3 say they run on two hosts (SP_MERGE_TEST_HOST):
#           the default takes parallel HDF5
#   -posix  the same two hosts with SP_MERGE_PARALLEL=0: the ranks' turns
#   -wN     SP_MERGE_PARALLEL=0 and SP_MERGE_WRITERS=N (the default
#           otherwise: every other rank's turn open at once on these few
#           ranks). equal-wN also sets SP_MERGE_TEST_REVERSE=1, so that
#           rank 0 takes the open turns' rows newest first: with 4 ranks and
#           2 writers, ranks 2 and 3's rows come before rank 1's and wait
#           for it (rank 0 says how many waited).
# Environment: SP_IMPORT, PY3, MPIRUN, MERGE (merge.c built), SRC, PAR,
# H5APP (h5app only).
set -eu
mode="$1"
writers=
way=auto
case "$mode" in
*-w*) writers="${mode##*-w}"; mode="${mode%-w*}"; way=0 ;;
*-posix) mode="${mode%-posix}"; way=0 ;;
*-par) mode="${mode%-par}"; way=1 ;;
*-hosts) mode="${mode%-hosts}"; way=hosts ;;
esac
: "${PAR:=0}"
# SP_MERGE_PARALLEL and SP_MERGE_WRITERS, when asked for, through env on
# every rank
w() {
  case "$way" in
  0 | 1) echo "SP_MERGE_PARALLEL=$way" ;;
  esac
  if [ -n "$writers" ]; then echo "SP_MERGE_WRITERS=$writers"; fi
  echo SP_MERGE=1
}
# Whether rank 0's verbose line says the merge went through parallel HDF5
# exactly when it should.
check_way() {
  if [ "$PAR" = 1 ] && { [ "$way" = 1 ] || [ "$way" = hosts ]; }; then
    grep -q "calls, parallel HDF5)" "$1" ||
      { echo "expected the parallel HDF5 write"; cat "$1"; exit 1; }
  elif grep -q "parallel HDF5)" "$1"; then
    echo "expected the ranks' turns, not parallel HDF5"; cat "$1"; exit 1
  fi
  if [ "$PAR" = 1 ] && [ "$way" = auto ]; then
    # on one host the default does not even load the parallel writer
    if grep -q "parallel HDF5" "$1"; then
      echo "parallel HDF5 considered on one host"; cat "$1"; exit 1
    fi
  fi
}
d="$(mktemp -d)"
trap 'rm -rf "$d"' EXIT
# The program, through a wrapper that gives ranks 0-1 and 2-3 two host
# names when asked to (-hosts, -posix).
prog="$MERGE"
if [ "$way" = hosts ] || [ "$way" = 0 ]; then
  cat >"$d/hosts" <<'EOF2'
#!/bin/sh
r="${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}"
SP_MERGE_TEST_HOST="node$((r / 2))" exec "$@"
EOF2
  chmod +x "$d/hosts"
  prog="$d/hosts $MERGE"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
check() { "$PY3" "$SRC/check_merge.py" "$@"; }
mkdir "$d/out"
case "$mode" in
equal)
  rev=SP_MERGE=1
  [ -z "$writers" ] || rev=SP_MERGE_TEST_REVERSE=1
  # shellcheck disable=SC2046
  "$MPIRUN" --oversubscribe -np 4 env SP_OUTPUT="$d/out/p" SP_MERGE=1 \
    $(w) $rev SP_VERBOSE=1 SP_MERGE_KEEP_RANK_FILES=1 SP_FORMAT=h5 $prog \
    3000 >/dev/null 2>"$d/err"
  test -f "$d/out/p.h5" || { echo "no merged file"; ls "$d/out"; cat "$d/err"; exit 1; }
  check_way "$d/err"
  if [ -n "$writers" ]; then
    # one writer: nothing waits; two, newest first: ranks 2 and 3 wait
    held=$((writers == 1 ? 0 : 2))
    grep -q "up to $writers at once; rows of $held ranks held" "$d/err" ||
      { echo "expected rows of $held ranks held"; cat "$d/err"; exit 1; }
  fi
  "$SP_IMPORT" -o "$d/imported.h5" --label p "$d/out"/p_rank0000[0-3].h5
  check equal "$d/out/p.h5" "$d/imported.h5"
  check counts "$d/out/p.h5" 4 3000 ;;
counters)
  for m in trace profile; do
    rm -f "$d/out"/*
    # shellcheck disable=SC2046
    "$MPIRUN" --oversubscribe -np 3 env SP_OUTPUT="$d/out/p" SP_MERGE=1 \
      $(w) SP_MODE=$m SP_COUNTERS=page-faults,context-switches \
      SP_MERGE_KEEP_RANK_FILES=1 SP_FORMAT=h5 $prog 1000 >/dev/null 2>"$d/err"
    if [ -s "$d/err" ]; then cat "$d/err"; exit 1; fi
    test -f "$d/out/p.h5" || { echo "no merged file"; ls "$d/out"; exit 1; }
    "$SP_IMPORT" -o "$d/imported.h5" --label p "$d/out"/p_rank0000[0-2].h5
    check counters "$d/out/p.h5" "$d/imported.h5" 3
  done ;;
profile)
  "$MPIRUN" --oversubscribe -np 3 env SP_OUTPUT="$d/out/p" SP_MERGE=1 \
    SP_MODE=profile SP_MERGE_KEEP_RANK_FILES=1 $prog 2000 >/dev/null 2>"$d/err"
  if [ -s "$d/err" ]; then cat "$d/err"; exit 1; fi
  test -f "$d/out/p.h5" || { echo "no merged file"; ls "$d/out"; exit 1; }
  "$SP_IMPORT" -o "$d/imported.h5" --label p "$d/out"/p_rank0000[0-2].h5
  check profile "$d/out/p.h5" "$d/imported.h5" 3 2000
  rm -f "$d/out"/*
  "$MPIRUN" --oversubscribe -np 3 env SP_OUTPUT="$d/out/p" SP_MERGE=1 \
    SP_MODE=profile $prog 2000 >/dev/null 2>"$d/err"
  if [ -s "$d/err" ]; then cat "$d/err"; exit 1; fi
  left="$(ls "$d/out")"
  [ "$left" = "p.h5" ] || { echo "expected p.h5 alone, found: $left"; exit 1; } ;;
only)
  # shellcheck disable=SC2046
  "$MPIRUN" --oversubscribe -np 3 env SP_OUTPUT="$d/out/p" SP_MERGE=1 \
    $(w) $prog 2000 >/dev/null 2>"$d/err"
  # a normal run prints nothing
  if [ -s "$d/err" ]; then cat "$d/err"; exit 1; fi
  left="$(ls "$d/out")"
  [ "$left" = "p.h5" ] || { echo "expected p.h5 alone, found: $left"; exit 1; }
  check counts "$d/out/p.h5" 3 2000
  # the same run, saying which way it wrote
  rm -f "$d/out/p.h5"
  # shellcheck disable=SC2046
  "$MPIRUN" --oversubscribe -np 3 env SP_OUTPUT="$d/out/p" SP_VERBOSE=1 \
    $(w) $prog 2000 >/dev/null 2>"$d/err"
  check_way "$d/err"
  check counts "$d/out/p.h5" 3 2000 ;;
kill)
  # OpenMPI ends the whole job when a rank dies unless told to recover;
  # its own MPI_Finalize may then wait for the dead rank for good, after
  # the runtime's files are written: the run is cut off and the files
  # decide. SP_MERGE_TIMEOUT=5: a rank waits at most 5 s for another.
  rc=0
  timeout 60 "$MPIRUN" --oversubscribe --mca orte_enable_recovery 1 -np 3 \
    env SP_OUTPUT="$d/out/p" SP_MERGE=1 SP_MERGE_TIMEOUT=5 SP_FORMAT=h5 \
    $(w) "$MERGE" 2000 kill 1 >/dev/null 2>"$d/err" || rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 124 ] || { echo "mpirun: $rc"; cat "$d/err"; exit 1; }
  ls "$d/out" >"$d/files"
  for f in p_rank00000.h5 p_rank00002.h5; do
    grep -qx "$f" "$d/files" || { echo "no $f"; cat "$d/files"; exit 1; }
  done
  grep -q '^p_rank00001\.[0-9]*\.spts$' "$d/files" || { echo "no stream of rank 1"; exit 1; }
  if grep -v -e '^p_rank0000[02]\.h5$' -e '^p_rank00001\.[0-9]*\.spts$' "$d/files"; then
    echo "files besides the ranks' own"; exit 1
  fi
  grep -q "SP_MERGE: .*rank 1 did not reach MPI_Finalize" "$d/err" ||
    { echo "rank 0 did not say why"; cat "$d/err"; exit 1; }
  "$SP_IMPORT" -o "$d/imported.h5" "$d/out" 2>/dev/null
  # rank 1's stream: the calls its writer had written when it died
  check counts "$d/imported.h5" 3 2000 1 ;;
early)
  # The default timeout (60 s): the ranks must not need it. The mpi label's
  # 300 s bound would not catch a wait of 60 s, so the run is cut off at 50.
  timeout 50 "$MPIRUN" --oversubscribe -np 3 env SP_OUTPUT="$d/out/p" \
    SP_MERGE=1 SP_FORMAT=h5 $(w) "$MERGE" 1000 early 2 >/dev/null 2>"$d/err"
  left="$(ls "$d/out" | tr '\n' ' ')"
  [ "$left" = "p_rank00000.h5 p_rank00001.h5 p_rank00002.h5 " ] ||
    { echo "expected the three ranks' files, found: $left"; exit 1; }
  grep -q "SP_MERGE: .*rank 2 does not take part" "$d/err" ||
    { echo "rank 0 did not say why"; cat "$d/err"; exit 1; }
  "$SP_IMPORT" -o "$d/imported.h5" "$d/out"
  check counts "$d/imported.h5" 3 1000 ;;
early0)
  timeout 50 "$MPIRUN" --oversubscribe -np 3 env SP_OUTPUT="$d/out/p" \
    SP_MERGE=1 SP_FORMAT=h5 $(w) "$MERGE" 1000 early 0 >/dev/null 2>"$d/err" ||
    { echo "mpirun failed"; cat "$d/err"; exit 1; }
  left="$(ls "$d/out" | tr '\n' ' ')"
  [ "$left" = "p_rank00000.h5 p_rank00001.h5 p_rank00002.h5 " ] ||
    { echo "expected the three ranks' files, found: $left"; exit 1; }
  "$SP_IMPORT" -o "$d/imported.h5" "$d/out"
  check counts "$d/imported.h5" 3 1000 ;;
refuse)
  # Rank 3 may write no file past 1.5 MB (ulimit -f, SIGXFSZ ignored so
  # that pwrite fails with EFBIG): its place in the merged file begins
  # beyond that, its stream and its own file end before. Rank 0 takes the
  # newest turn's rows first (SP_MERGE_TEST_REVERSE), so it hears of rank
  # 3 while ranks 1 and 2 (with 2 or more writers) are still writing.
  # shellcheck disable=SC2016,SC2046
  timeout 120 "$MPIRUN" --oversubscribe -np 4 sh -c \
    'r="${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-}}"
     if [ "$r" = 3 ]; then trap "" XFSZ; ulimit -f 2930; fi
     exec "$@"' sh env SP_OUTPUT="$d/out/p" SP_MERGE=1 SP_FORMAT=h5 \
    SP_MERGE_TEST_REVERSE=1 SP_VERBOSE=1 $(w) "$MERGE" 20000 >/dev/null \
    2>"$d/err"
  left="$(ls "$d/out" | tr '\n' ' ')"
  [ "$left" = "p_rank00000.h5 p_rank00001.h5 p_rank00002.h5 p_rank00003.h5 " ] ||
    { echo "expected the four ranks' files, found: $left"; cat "$d/err"; exit 1; }
  grep -q "SP_MERGE: .*rank 3 could not write its calls there" "$d/err" ||
    { echo "rank 0 did not say why"; cat "$d/err"; exit 1; }
  if [ "$PAR" = 1 ] && [ "$way" = 1 ]; then
    grep -q "SP_MERGE: a rank may write no file of [0-9]* bytes: no parallel HDF5" \
      "$d/err" || { echo "rank 0 did not rule out parallel HDF5"; cat "$d/err"; exit 1; }
  fi
  "$SP_IMPORT" -o "$d/imported.h5" "$d/out"
  check counts "$d/imported.h5" 4 20000 ;;
fail|fail0)
  bad=2
  [ "$mode" = fail ] || bad=0
  # shellcheck disable=SC2016
  timeout 120 "$MPIRUN" --oversubscribe -np 4 sh -c \
    'r="${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-}}"
     if [ "$r" = "$0" ]; then export SP_MERGE_TEST_FAIL=1; fi
     exec "$@"' "$bad" env SP_OUTPUT="$d/out/p" SP_MERGE=1 SP_FORMAT=h5 \
    SP_VERBOSE=1 SP_MERGE_PARALLEL=1 "$MERGE" 5000 >/dev/null 2>"$d/err"
  left="$(ls "$d/out" | tr '\n' ' ')"
  [ "$left" = "p_rank00000.h5 p_rank00001.h5 p_rank00002.h5 p_rank00003.h5 " ] ||
    { echo "expected the four ranks' files, found: $left"; cat "$d/err"; exit 1; }
  if [ "$bad" = 0 ]; then
    why="SP_MERGE: .*p.h5.tmp.*: SP_MERGE_TEST_FAIL"
  else
    why="SP_MERGE: .*rank 2 could not write its calls there"
  fi
  grep -q "$why" "$d/err" || { echo "rank 0 did not say why"; cat "$d/err"; exit 1; }
  "$SP_IMPORT" -o "$d/imported.h5" "$d/out"
  check counts "$d/imported.h5" 4 5000 ;;
term)
  # Rank 0 is ended by SIGTERM once its calls are in the merged file's
  # temporary (SP_TEST_RAISE_IN_WRITE): the temporary is removed, no
  # merged file, every rank keeps its stream (OpenMPI ends the others),
  # and sp-import merges them: every call.
  rc=0
  # shellcheck disable=SC2016,SC2046
  timeout 120 "$MPIRUN" --oversubscribe -np 3 sh -c \
    'r="${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-}}"
     if [ "$r" = 0 ]; then export SP_TEST_RAISE_IN_WRITE=15; fi
     exec "$@"' sh env SP_OUTPUT="$d/out/p" $(w) "$MERGE" 2000 \
    >/dev/null 2>"$d/err" || rc=$?
  { [ "$rc" != 0 ] && [ "$rc" != 124 ]; } ||
    { echo "mpirun: $rc, expected rank 0's SIGTERM"; cat "$d/err"; exit 1; }
  left="$(ls -A "$d/out" | sed 's/\.[0-9]*\.spts$/.spts/' | tr '\n' ' ')"
  [ "$left" = "p_rank00000.spts p_rank00001.spts p_rank00002.spts " ] ||
    { echo "expected the three streams alone, found: $left"; exit 1; }
  "$SP_IMPORT" -o "$d/imported.h5" "$d/out" 2>/dev/null
  check counts "$d/imported.h5" 3 2000 ;;
h5app)
  # A program that uses parallel HDF5 itself (H5APP: h5_app.c's MPI build,
  # its own file collectively): the parallel write shares that library.
  # Its file must be whole; the merged file equal to sp-import of the
  # ranks' own files (written by the same HDF5, SP_MERGE_KEEP_RANK_FILES).
  rc=0
  "$MPIRUN" --oversubscribe -np 2 env SP_OUTPUT="$d/out/p" SP_MERGE=1 \
    SP_MERGE_PARALLEL=1 SP_VERBOSE=1 SP_MERGE_KEEP_RANK_FILES=1 SP_FORMAT=h5 \
    "$H5APP" "$d" exit >/dev/null 2>"$d/err" || rc=$?
  [ "$rc" = 7 ] || { echo "h5_app: $rc, expected its own 7"; cat "$d/err"; exit 1; }
  grep -q "calls, parallel HDF5)" "$d/err" ||
    { echo "expected the parallel HDF5 write"; cat "$d/err"; exit 1; }
  "$PY3" -c 'import sys, h5py, numpy as np
v = h5py.File(sys.argv[1])["values"][:]
sys.exit(0 if (v == 3 * np.arange(1000)).all() else "app.h5: values changed")' \
    "$d/app.h5"
  "$SP_IMPORT" -o "$d/imported.h5" --label p "$d/out"/p_rank0000[01].h5
  check equal "$d/out/p.h5" "$d/imported.h5" ;;
*) echo "merge.sh: unknown mode $mode" >&2; exit 2 ;;
esac
