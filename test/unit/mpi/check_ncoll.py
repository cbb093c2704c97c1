#!/usr/bin/python3
"""check_ncoll.py MERGED.h5 SP_REPORT - ncoll.c's neighbourhood
collectives on 4 ranks: one collective record each, on its communicator
(no root), with the bytes ncoll.c sent to its out-neighbours and received
from its in-neighbours (an MPI_PROC_NULL neighbour moves nothing), and no
other message; and sp-report --mpi counts no collective wait in them
(a rank waits there for its neighbours, not for the last rank)."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_fcomm import COLL, read  # noqa: E402


def fail(msg):
    sys.exit("check_ncoll.py: " + msg)


def main():
    msgs, comms = read(sys.argv[1], 4)
    for r in range(4):
        line = 16 if r in (0, 3) else 32  # one or two real neighbours
        want = [("MPI_Neighbor_allgather", 48, 48),
                ("MPI_Ineighbor_allgatherv", 16, 16),
                ("MPI_Neighbor_alltoall", line, line),
                ("MPI_Ineighbor_alltoall", line // 2, line // 2),
                ("MPI_Neighbor_alltoallv", 20, 20),
                ("MPI_Neighbor_alltoallw", 20, 20),
                ("MPI_Ineighbor_alltoallv", 12, 12)]
        rows = sorted(msgs[r], key=lambda m: m["start_ns"])
        got = [(m["region"], m["bytes_sent"], m["bytes_recv"]) for m in rows]
        if got != want:
            fail("rank %d: %s, want %s" % (r, got, want))
        for m in rows:
            if m["kind"] != COLL or m["root"] != -1 or \
                    m["comm"] not in comms[r] or len(comms[r][m["comm"]]) != 4:
                fail("rank %d: %s is not a collective on a communicator of "
                     "4 ranks without a root" % (r, m))
    js = json.loads(subprocess.run([sys.argv[2], "--mpi", "--export", "json",
                                    sys.argv[1]], check=True,
                                   capture_output=True, text=True).stdout)
    waits = {(x["name"], r): v["coll_wait_ns"] for x in js["functions"]
             for r, v in x["per_rank"].items() if v["coll_wait_ns"]}
    if waits or any(x["coll_wait_ns"] for x in js["ranks"]):
        fail("collective wait in neighbourhood collectives: %s" % waits)
    print("check_ncoll.py: 7 neighbourhood collectives per rank, bytes exact")


if __name__ == "__main__":
    main()
