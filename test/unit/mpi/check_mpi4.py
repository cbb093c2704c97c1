#!/usr/bin/python3
"""check_mpi4.py MERGED.h5 SP_REPORT - mpi4.c's messages on 4 ranks: each
MPI_Start(all) of a persistent collective (a neighbourhood one too)
recorded as that collective (bytes per rank, root), nothing at its MPI_<coll>_init; the large-count
calls (MPI_Send_c, MPI_Recv_c, MPI_Isend_c, MPI_Irecv_c, MPI_Allreduce_c,
MPI_Alltoallv_c) with the bytes and partners of their int-count forms;
sp-report --matrix the same."""
import csv
import io
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_fcomm import (COLL, ISEND, IRECV, RECV, SEND,  # noqa: E402
                         WAITRECV, WAITSEND, matrix, read)

NP = 4
ROUNDS = 3


def fail(msg):
    sys.exit("check_mpi4.py: " + msg)


def p2p(r):
    """Rank r's point-to-point records (region, kind, peer, tag, sent,
    received, origin region), as mpi4.c makes them."""
    right, left = (r + 1) % NP, (r + NP - 1) % NP
    return sorted([
        ("MPI_Send_c", SEND, right, 20, 24, 0, ""),
        ("MPI_Recv_c", RECV, left, 20, 0, 24, ""),
        ("MPI_Irecv_c", IRECV, right, 21, 0, 0, ""),
        ("MPI_Isend_c", ISEND, left, 21, 24, 0, ""),
        ("MPI_Waitall", WAITRECV, right, 21, 0, 24, "MPI_Irecv_c"),
        ("MPI_Waitall", WAITSEND, left, 21, 0, 0, "MPI_Isend_c")])


def colls(r):
    """Rank r's collectives (region, sent, received, root) in order."""
    bcast = (120, 0) if r == 2 else (0, 40)
    gatherv = (0, 36) if r == 0 else ((r + 1) * 4, 0)
    return (ROUNDS * [("MPI_Start", 120, 120, -1)] +
            2 * [("MPI_Start",) + bcast + (2,)] +
            [("MPI_Startall", 0, 0, -1), ("MPI_Start",) + gatherv + (0,)] +
            2 * [("MPI_Start", 16, 16, -1)] +
            [("MPI_Allreduce_c", 96, 96, -1),
             ("MPI_Alltoallv_c", (10 - (r + 1)) * 4, (r + 1) * 3 * 4, -1)])


def main():
    path, report = sys.argv[1], sys.argv[2]
    msgs, _ = read(path, NP)
    for r in range(NP):
        rows = msgs[r]
        got = sorted((m["region"], m["kind"], m["peer"], m["tag"],
                      m["bytes_sent"], m["bytes_recv"],
                      m["origin_region"] if m["origin_region"] != -1 else "")
                     for m in rows if m["kind"] != COLL)
        if got != p2p(r):
            fail("rank %d: %s, want %s" % (r, got, p2p(r)))
        got = [(m["region"], m["bytes_sent"], m["bytes_recv"], m["root"])
               for m in sorted(rows, key=lambda m: m["start_ns"])
               if m["kind"] == COLL]
        if got != colls(r):
            fail("rank %d: collectives %s, want %s" % (r, got, colls(r)))
        starts = {m["start_ns"] for m in rows}
        for m in rows:
            if m["kind"] in (WAITSEND, WAITRECV) and \
                    m["origin_ns"] not in starts:
                fail("rank %d: a completion not tied to its start %s"
                     % (r, m))
    want = {}
    for r in range(NP):
        want[(r, (r + 1) % NP)] = [1, 24]
        want[(r, (r + NP - 1) % NP)] = [1, 24]
    for kinds, field, first in (((SEND, ISEND), "bytes_sent", True),
                                ((RECV, WAITRECV), "bytes_recv", False)):
        got = matrix(msgs, kinds, field, first)
        if got != want:
            fail("matrix from %s %s, want %s" % (field, got, want))
    out = subprocess.run([report, "--matrix", "--export", "csv", path],
                         check=True, capture_output=True, text=True).stdout
    rep = {(int(x["sender"]), int(x["receiver"])):
           [int(x["messages"]), int(x["bytes"])]
           for x in csv.DictReader(io.StringIO(out))}
    if rep != want:
        fail("sp-report --matrix csv %s, want %s" % (rep, want))
    print("check_mpi4.py: %d messages and %d collectives per rank, as "
          "mpi4.c made them" % (len(p2p(0)), len(colls(0))))


if __name__ == "__main__":
    main()
