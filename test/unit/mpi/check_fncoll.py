#!/usr/bin/python3
"""check_fncoll.py MERGED.h5 SP_REPORT - f_ncoll.F90's neighbourhood
collectives on 4 ranks (any Fortran binding): each once, a collective
without a root, with the bytes f_ncoll.F90 sent and received (the line's
ends have an MPI_PROC_NULL neighbour; MPI_Neighbor_alltoallw's two
neighbours each way take an integer and two double precisions)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_fcomm import COLL, read  # noqa: E402


def main():
    msgs, _ = read(sys.argv[1], 4)
    for r in range(4):
        inner = r in (1, 2)
        want = [("MPI_Neighbor_allgather", 48, 48),
                ("MPI_Neighbor_alltoall", 32 if inner else 16,
                 32 if inner else 16),
                ("MPI_Neighbor_alltoallw", 20, 20)]
        rows = sorted(msgs[r], key=lambda m: m["start_ns"])
        got = [(m["region"], m["bytes_sent"], m["bytes_recv"]) for m in rows]
        if got != want or any(m["kind"] != COLL or m["root"] != -1
                              for m in rows):
            sys.exit("check_fncoll.py: rank %d: %s, want %s" % (r, got, want))
    print("check_fncoll.py: 3 neighbourhood collectives per rank, bytes exact")


if __name__ == "__main__":
    main()
