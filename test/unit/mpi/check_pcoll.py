#!/usr/bin/python3
"""check_pcoll.py MERGED.h5 SP_REPORT - pcoll.c's persistent collectives on
3 ranks: one collective record per MPI_Start/MPI_Startall of a request,
at that call, with the bytes and root of the blocking form; none at the
MPI_*_init calls, none at MPI_Request_free."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_fcomm import COLL, read  # noqa: E402

NP = 3


def fail(msg):
    sys.exit("check_pcoll.py: " + msg)


def main():
    path, report = sys.argv[1], sys.argv[2]
    msgs, _ = read(path, NP)
    for r in range(NP):
        got = sorted((m["region"], m["bytes_sent"], m["bytes_recv"], m["root"])
                     for m in msgs[r])
        if any(m["kind"] != COLL for m in msgs[r]):
            fail("rank %d: a record that is no collective: %s" % (r, msgs[r]))
        # MPI_Allreduce_init, 4 ints: 16 bytes to and from each other rank
        want = 3 * [("MPI_Start", 32, 32, -1)]
        # MPI_Bcast_init, 8 doubles from rank 1; MPI_Barrier_init: nothing
        want += 2 * [("MPI_Startall", 128 if r == 1 else 0,
                      0 if r == 1 else 64, 1),
                     ("MPI_Startall", 0, 0, -1)]
        # MPI_Gatherv_init: rank r sends r + 1 ints to rank 0
        want += [("MPI_Start", 0 if r == 0 else 4 * (r + 1),
                  4 * (2 + 3) if r == 0 else 0, 0)]
        if got != sorted(want):
            fail("rank %d: %s, want %s" % (r, got, sorted(want)))
    js = json.loads(subprocess.run([report, "--mpi", "--export", "json", path],
                                   check=True, capture_output=True,
                                   text=True).stdout)
    fn = {x["name"]: x for x in js["functions"]}
    for name in ("MPI_Allreduce_init", "MPI_Bcast_init", "MPI_Barrier_init",
                 "MPI_Gatherv_init", "MPI_Request_free"):
        if name not in fn:
            fail("sp-report --mpi has no %s" % name)
    print("check_pcoll.py: %d collectives at their starts, bytes and roots "
          "as their blocking forms'" % sum(len(v) for v in msgs.values()))


main()
