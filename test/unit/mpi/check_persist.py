#!/usr/bin/python3
"""check_persist.py MERGED.h5 SP_REPORT - persist.c's messages on 2 ranks:
each MPI_Start(all) of a persistent request recorded as the nonblocking
call it starts, its MPI_Wait(all) as the completion tied to that start, and
the matched receives (MPI_Mrecv, MPI_Imrecv) with the bytes and source of
their message; the nonblocking v/w collectives, scan and reduce-scatter
with their bytes per rank."""
import csv
import io
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_fcomm import (COLL, ISEND, IRECV, RECV, SEND,  # noqa: E402
                         WAITRECV, WAITSEND, matrix, read)

ROUNDS = 3


def fail(msg):
    sys.exit("check_persist.py: " + msg)


def rows_of(rows):
    return sorted((m["region"], m["kind"], m["peer"], m["tag"],
                   m["bytes_sent"], m["bytes_recv"],
                   m["origin_region"] if m["origin_region"] != -1 else "")
                  for m in rows if m["kind"] != COLL)


def main():
    path, report = sys.argv[1], sys.argv[2]
    msgs, _ = read(path, 2)
    want = {(0, 1): [ROUNDS + 2, ROUNDS * 400 + 28 + 24],
            (1, 0): [ROUNDS, ROUNDS * 200]}
    for kinds, field, first in (((SEND, ISEND), "bytes_sent", True),
                                ((RECV, WAITRECV), "bytes_recv", False)):
        got = matrix(msgs, kinds, field, first)
        if got != want:
            fail("matrix from %s %s, want %s" % (field, got, want))
    want0 = ROUNDS * [
        ("MPI_Startall", ISEND, 1, 10, 400, 0, ""),
        ("MPI_Startall", IRECV, 1, 11, 0, 0, ""),
        ("MPI_Waitall", WAITSEND, 1, 10, 0, 0, "MPI_Startall"),
        ("MPI_Waitall", WAITRECV, 1, 11, 0, 200, "MPI_Startall")] + [
        ("MPI_Send", SEND, 1, 12, 28, 0, ""),
        ("MPI_Send", SEND, 1, 13, 24, 0, "")]
    want1 = ROUNDS * [
        ("MPI_Start", IRECV, 0, 10, 0, 0, ""),
        ("MPI_Start", ISEND, 0, 11, 200, 0, ""),
        ("MPI_Wait", WAITSEND, 0, 11, 0, 0, "MPI_Start"),
        ("MPI_Wait", WAITRECV, 0, 10, 0, 400, "MPI_Start")] + [
        ("MPI_Mrecv", RECV, 0, 12, 0, 28, ""),
        ("MPI_Imrecv", IRECV, 0, 13, 0, 0, ""),
        ("MPI_Wait", WAITRECV, 0, 13, 0, 24, "MPI_Imrecv")]
    # the nonblocking collectives at their start: (sent, received, root)
    want_c = {0: {"MPI_Igatherv": (0, 8, 0), "MPI_Ialltoallw": (8, 4, -1),
                  "MPI_Iscan": (12, 0, -1), "MPI_Ireduce_scatter": (4, 4, -1)},
              1: {"MPI_Igatherv": (8, 0, 0), "MPI_Ialltoallw": (4, 8, -1),
                  "MPI_Iscan": (0, 12, -1), "MPI_Ireduce_scatter": (4, 4, -1)}}
    for r in (0, 1):
        got = {m["region"]: (m["bytes_sent"], m["bytes_recv"], m["root"])
               for m in msgs[r] if m["kind"] == COLL}
        if got != want_c[r] or \
                sum(m["kind"] == COLL for m in msgs[r]) != len(want_c[r]):
            fail("rank %d: collectives %s, want %s" % (r, got, want_c[r]))
    for r, w in ((0, want0), (1, want1)):
        if rows_of(msgs[r]) != sorted(w):
            fail("rank %d: %s, want %s" % (r, rows_of(msgs[r]), sorted(w)))
        starts = {m["start_ns"] for m in msgs[r]}
        for m in msgs[r]:
            if m["kind"] in (WAITSEND, WAITRECV) and \
                    m["origin_ns"] not in starts:
                fail("rank %d: a completion not tied to its start %s"
                     % (r, m))
    out = subprocess.run([report, "--matrix", "--export", "csv", path],
                         check=True, capture_output=True, text=True).stdout
    rep = {(int(x["sender"]), int(x["receiver"])):
           [int(x["messages"]), int(x["bytes"])]
           for x in csv.DictReader(io.StringIO(out))}
    if rep != want:
        fail("sp-report --matrix csv %s, want %s" % (rep, want))
    print("check_persist.py: %d messages, as persist.c sent them"
          % sum(v[0] for v in want.values()))


if __name__ == "__main__":
    main()
