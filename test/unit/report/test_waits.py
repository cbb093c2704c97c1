#!/usr/bin/env python3
"""test_waits.py - sp-report --mpi's wait states on two ranks whose calls
and messages are set by hand (.spt files and the .spt.mpi beside each,
docs/format.md), the figures worked out below: late receiver of a
synchronous send and of an MPI_Waitall of sends (the latest once), none
for a send that ended before its receive was posted nor for
MPI_Sendrecv's send, a wait that completed a send and a receive (late
sender first, late receiver beyond it), collective wait, and waiting, the
sum; the same from the .spt files and from their merged file.
usage: test_waits.py SP_REPORT SP_IMPORT WORKDIR"""
import json
import os
import shutil
import struct
import subprocess
import sys

from rptest import check, eq, finish, tool

REPORT, IMPORT, WORK = sys.argv[1:4]
run = tool(REPORT, stdout_only=True)

SEND, ISEND, RECV, IRECV, WAITRECV, COLL, WAITSEND = range(1, 8)

# rank -> [(function, start, end, [(kind, peer, tag, origin start, origin
# function), ...])], thread 0, MPI_COMM_WORLD of ranks 0 and 1
CALLS = {
    0: [
        # synchronous send; rank 1 posts at 3000: late receiver 2000
        ("MPI_Ssend", 1000, 5000, [(SEND, 1, 1, -1, None)]),
        # ended before rank 1 posted at 7000: buffered, none
        ("MPI_Send", 6000, 6100, [(SEND, 1, 2, -1, None)]),
        # a send and a receive completed by one MPI_Waitall [8100, 9000]:
        # the send rank 1 began at 8300 (late sender 200), the receive
        # rank 1 posted at 8500 (400 from the start: 200 beyond)
        ("MPI_Isend", 8000, 8010, [(ISEND, 1, 3, -1, None)]),
        ("MPI_Irecv", 8020, 8030, [(IRECV, 1, 4, -1, None)]),
        ("MPI_Waitall", 8100, 9000, [(WAITSEND, 1, 3, 8000, "MPI_Isend"),
                                     (WAITRECV, 1, 4, 8020, "MPI_Irecv")]),
        # MPI_Sendrecv: rank 1 sends at 11500 (late sender 1500); its own
        # send's receive posted at 11000 is no late receiver
        ("MPI_Sendrecv", 10000, 12000, [(SEND, 1, 5, -1, None),
                                        (RECV, 1, 6, -1, None)]),
        # rank 1 arrives at 13600: collective wait 600
        ("MPI_Barrier", 13000, 14000, [(COLL, -1, -1, -1, None)]),
        # two sends completed by one MPI_Waitall [15100, 17000], received
        # at 15500 and 16000: late receiver 900 (the latest, once)
        ("MPI_Isend", 15000, 15010, [(ISEND, 1, 7, -1, None)]),
        ("MPI_Isend", 15020, 15030, [(ISEND, 1, 8, -1, None)]),
        ("MPI_Waitall", 15100, 17000, [(WAITSEND, 1, 7, 15000, "MPI_Isend"),
                                       (WAITSEND, 1, 8, 15020,
                                        "MPI_Isend")]),
    ],
    1: [
        ("MPI_Recv", 3000, 5100, [(RECV, 0, 1, -1, None)]),
        ("MPI_Recv", 7000, 7100, [(RECV, 0, 2, -1, None)]),
        ("MPI_Send", 8300, 8350, [(SEND, 0, 4, -1, None)]),
        ("MPI_Recv", 8500, 8600, [(RECV, 0, 3, -1, None)]),
        ("MPI_Recv", 11000, 11100, [(RECV, 0, 5, -1, None)]),
        ("MPI_Send", 11500, 11600, [(SEND, 0, 6, -1, None)]),
        ("MPI_Barrier", 13600, 14000, [(COLL, -1, -1, -1, None)]),
        ("MPI_Recv", 15500, 15600, [(RECV, 0, 7, -1, None)]),
        ("MPI_Recv", 16000, 16100, [(RECV, 0, 8, -1, None)]),
    ],
}
# rank -> function -> (late sender, late receiver, collective wait)
WANT = {
    0: {"MPI_Ssend": (0, 2000, 0), "MPI_Send": (0, 0, 0),
        "MPI_Isend": (0, 0, 0), "MPI_Irecv": (0, 0, 0),
        "MPI_Waitall": (200, 200 + 900, 0), "MPI_Sendrecv": (1500, 0, 0),
        "MPI_Barrier": (0, 0, 600)},
    1: {"MPI_Recv": (0, 0, 0), "MPI_Send": (0, 0, 0),
        "MPI_Barrier": (0, 0, 0)},
}


def write_spt(path, rank, calls):
    """.spt version 3, one block per function (thread 0)."""
    blocks = {}
    for fn, s, e, _ in calls:
        blocks.setdefault(fn, []).append((s, e))
    out = [b"SCOPEPRF", struct.pack("<iiq", 3, rank, len(blocks))]
    for fn, v in blocks.items():
        nb, fb = fn.encode(), b"w.c"
        out.append(struct.pack("<ii", 0, len(nb)) + nb)
        out.append(struct.pack("<i", len(fb)) + fb + struct.pack("<i", 1))
        out.append(struct.pack("<q", len(v)))
        out.append(struct.pack("<%dq" % len(v), *[s for s, _ in v]))
        out.append(struct.pack("<%dq" % len(v), *[e for _, e in v]))
    with open(path, "wb") as f:
        f.write(b"".join(out))


def fnv(b):
    h = 1469598103934665603
    for c in b:
        h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def write_side(spt, rank, calls):
    """The messages beside spt (docs/format.md, "Messages beside a
    .spt")."""
    names = []
    for fn, _, _, msgs in calls:
        for n in [fn] + [m[4] for m in msgs if m[4]]:
            if n not in names:
                names.append(n)
    recs = []
    for fn, s, _, msgs in calls:
        for kind, peer, tag, origin, ofn in msgs:
            recs.append(struct.pack(
                "<qqiiiiiiiiqq", s, origin, 0, names.index(fn),
                names.index(ofn) if ofn else -1, kind, peer, tag, 0, -1,
                0, 0))
    body = [b"SPTMPI\r\n", struct.pack("<Iiqqqqqq", 1, rank,
                                        os.path.getsize(spt), len(names), 1,
                                        len(recs), 0, 0)]
    body += [struct.pack("<I", len(n)) + n.encode() for n in names]
    body.append(struct.pack("<iiii", 0, 2, 0, 1))
    body += recs
    b = b"".join(body)
    with open(spt + ".mpi", "wb") as f:
        f.write(b + struct.pack("<Q", fnv(b)))


def check_json(src):
    j = json.loads(run("--mpi", "--export", "json", src))
    for x in j["functions"]:
        for r, c in x["per_rank"].items():
            ls, lr, cw = WANT[int(r)].get(x["name"], (0, 0, 0))
            eq((c["late_sender_ns"], c["late_receiver_ns"],
                c["coll_wait_ns"], c["waiting_ns"]),
               (ls, lr, cw, ls + lr + cw), f"{src} {x['name']} rank {r}")
    for x in j["ranks"]:
        v = WANT[x["rank"]].values()
        ls, lr, cw = (sum(t[i] for t in v) for i in range(3))
        eq((x["late_sender_ns"], x["late_receiver_ns"], x["coll_wait_ns"],
            x["waiting_ns"]), (ls, lr, cw, ls + lr + cw),
           f"{src} rank {x['rank']}")
        # rank 0's time in MPI: its calls, none nested
        if x["rank"] == 0:
            mpi = sum(e - s for _, s, e, _ in CALLS[0])
            eq(x["mpi_ns"], mpi, f"{src} rank 0 in MPI")
            check(abs(x["waiting_mpi_pct"] - 100 * (ls + lr + cw) / mpi)
                  < 1e-3, f"{src} waiting_mpi_pct {x['waiting_mpi_pct']}")
    eq(j["waiting_most"], {"rank": 0, "waiting_ns": 1700 + 3100 + 600},
       f"{src} waiting_most")
    text = run("--mpi", src)
    check("waiting most: rank 0, 5.4 us, " in text, f"{src} text:\n{text}")


shutil.rmtree(WORK, ignore_errors=True)
D = WORK + "/spt"
os.makedirs(D)
for rank, calls in CALLS.items():
    p = f"{D}/w_rank{rank:05d}.spt"
    write_spt(p, rank, calls)
    write_side(p, rank, calls)
check_json(D)
merged = WORK + "/w.h5"
p = subprocess.run([IMPORT, "-o", merged, D], capture_output=True, text=True)
eq((p.returncode, p.stderr), (0, ""), "sp-import of the .spt files")
check_json(merged)
finish()
