#!/usr/bin/python3
"""check_threads.py MERGED.h5 - threads.c's requests, begun on one thread of
rank 0 and completed on another: the MPI_Isend (100 bytes to rank 1, tag 5)
and MPI_Irecv (tag 6) on the first, on the second the MPI_Wait's completed
send (its partner and tag, its origin the MPI_Isend's start) and the
MPI_Waitall's completed receive (40 bytes from rank 1, tag 6, its origin
the MPI_Irecv's start)."""
import sys

import h5py


def main():
    f = h5py.File(sys.argv[1], "r")
    names = [n.decode() if isinstance(n, bytes) else n
             for n in f["region_table/names"][:]]
    g = f["rank0/mpi/messages"]
    msgs = [{k: int(g[k][i]) for k in g} for i in range(len(g["kind"]))]
    by = {}
    for m in msgs:
        by.setdefault(names[m["region"]], []).append(m)
    want = ["MPI_Isend", "MPI_Irecv", "MPI_Wait", "MPI_Waitall"]
    if sorted(by) != sorted(want) or any(len(by[n]) != 1 for n in want):
        sys.exit("check_threads.py: rank 0's messages %s, want one each of %s"
                 % ({n: len(v) for n, v in by.items()}, want))
    isend, irecv = by["MPI_Isend"][0], by["MPI_Irecv"][0]
    wait, waitall = by["MPI_Wait"][0], by["MPI_Waitall"][0]
    got = [(isend["kind"], isend["peer"], isend["tag"], isend["bytes_sent"]),
           (irecv["kind"], irecv["peer"], irecv["tag"], irecv["bytes_recv"]),
           (wait["kind"], wait["peer"], wait["tag"], wait["bytes_sent"],
            wait["bytes_recv"], wait["origin_ns"], names[wait["origin_region"]]),
           (waitall["kind"], waitall["peer"], waitall["tag"],
            waitall["bytes_recv"], waitall["origin_ns"],
            names[waitall["origin_region"]])]
    expect = [(2, 1, 5, 100), (4, 1, 6, 0),
              (7, 1, 5, 0, 0, isend["start_ns"], "MPI_Isend"),
              (5, 1, 6, 40, irecv["start_ns"], "MPI_Irecv")]
    if got != expect:
        sys.exit("check_threads.py: got %s, want %s" % (got, expect))
    if isend["thread"] != irecv["thread"] or \
            wait["thread"] != waitall["thread"] or \
            wait["thread"] == isend["thread"]:
        sys.exit("check_threads.py: threads %d %d %d %d: want the begin on "
                 "one, the completions on another"
                 % (isend["thread"], irecv["thread"], wait["thread"],
                    waitall["thread"]))
    print("check_threads.py: completions on another thread recorded")


main()
