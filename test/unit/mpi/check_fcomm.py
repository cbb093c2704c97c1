#!/usr/bin/python3
"""check_fcomm.py MERGED.h5 SP_REPORT [PYDIR] - f_comm.F90's messages on 4
ranks (any of its three bindings), as the merged file holds them, as
sp-report --matrix shows them and (with PYDIR) as Python's mpi_messages()
and mpi_matrix() give them: each message once, with the bytes, partner,
tag and communicator f_comm.F90 gave it; persistent requests' starts and
completions tied; the probed message received."""
import csv
import io
import subprocess
import sys

import h5py

NP = 4
SEND, ISEND, RECV, IRECV, WAITRECV, COLL, WAITSEND = 1, 2, 3, 4, 5, 6, 7


def fail(msg):
    sys.exit("check_fcomm.py: " + msg)


def expected_matrix():
    """(sender, receiver): [messages, bytes], as f_comm.F90 sends them."""
    m = {}

    def add(a, b, n):
        c = m.setdefault((a, b), [0, 0])
        c[0] += 1
        c[1] += n
    for r in range(NP):
        add(r, (r + 1) % NP, 1000)           # ring, MPI_Sendrecv
        add(r, (r + NP - 1) % NP, 800)       # halo, left
        add(r, (r + 1) % NP, 800)            # halo, right
    add(0, 1, 12)                            # MPI_Send to MPI_ANY_SOURCE
    add(2, 3, 40)                            # MPI_Isend, MPI_Wait
    add(2, 0, 24)                            # the sub-communicators
    add(3, 1, 24)
    for r in range(NP):
        for _ in range(2):
            add(r, (r + 1) % NP, 16)         # persistent, MPI_Startall
    add(1, 0, 12)                            # MPI_Mprobe, MPI_Mrecv
    return m


def read(path, np=NP):
    """Each rank's messages (regions by name) and communicators."""
    f = h5py.File(path, "r")
    names = [n.decode() if isinstance(n, bytes) else n
             for n in f["region_table/names"][:]]
    msgs, comms = {}, {}
    for r in range(np):
        g = f["rank%d/mpi/messages" % r]
        cols = {k: g[k][:] for k in g}
        msgs[r] = [{k: (names[int(v[i])] if k in ("region", "origin_region")
                        and v[i] >= 0 else int(v[i]))
                    for k, v in cols.items()}
                   for i in range(len(cols["kind"]))]
        g = f["rank%d/mpi/communicators" % r]
        members, offs = list(g["members"][:]), list(g["member_offsets"][:])
        comms[r] = {int(i): [int(x) for x in members[o:o + s]]
                    for i, s, o in zip(g["ids"][:], g["sizes"][:], offs)}
    return msgs, comms


def matrix(msgs, kinds, field, sender_first):
    """(sender, receiver): [messages, bytes] of the records of kinds."""
    got = {}
    for r, rows in msgs.items():
        for m in rows:
            if m["kind"] in kinds and m["peer"] >= 0:
                c = got.setdefault((r, m["peer"]) if sender_first
                                   else (m["peer"], r), [0, 0])
                c[0] += 1
                c[1] += m[field]
    return got


def check_rank(r, rows, comms):
    left, right = (r + NP - 1) % NP, (r + 1) % NP
    # MPI_Waitall (statuses ignored) completed the halo's receives, tied to
    # their MPI_Irecv, and its sends, tied to their MPI_Isend
    wr = sorted((m["peer"], m["tag"], m["bytes_recv"], m["origin_region"])
                for m in rows if m["kind"] == WAITRECV
                and m["region"] == "MPI_Waitall")
    if wr != sorted([(left, 2, 800, "MPI_Irecv"),
                     (right, 2, 800, "MPI_Irecv")] +
                    2 * [(left, 7, 16, "MPI_Startall")]):
        fail("rank %d: MPI_Waitall's receives %s" % (r, wr))
    ws = sorted((m["region"], m["peer"], m["tag"], m["origin_region"])
                for m in rows if m["kind"] == WAITSEND)
    want_ws = [("MPI_Waitall", left, 2, "MPI_Isend"),
               ("MPI_Waitall", right, 2, "MPI_Isend")] + \
        2 * [("MPI_Waitall", right, 7, "MPI_Startall")]
    if r == 2:
        want_ws.append(("MPI_Wait", 3, 4, "MPI_Isend"))
    if ws != sorted(want_ws):
        fail("rank %d: sends completed %s, want %s" % (r, ws, want_ws))
    starts = {m["start_ns"] for m in rows if m["kind"] in (ISEND, IRECV)}
    for m in rows:
        if m["kind"] in (WAITRECV, WAITSEND) and m["origin_ns"] not in starts:
            fail("rank %d: a completion not tied to its start: %s" % (r, m))
    # MPI_ANY_SOURCE, from the status: rank 1's MPI_Recv, rank 3's MPI_Wait
    if r in (1, 3):
        want = ([("MPI_Recv", RECV, 0, 3, 12)] if r == 1 else
                [("MPI_Irecv", IRECV, -2, 4, 0),
                 ("MPI_Wait", WAITRECV, 2, 4, 40)])
        got = [(m["region"], m["kind"], m["peer"], m["tag"], m["bytes_recv"])
               for m in rows if m["tag"] == want[0][3]]
        if got != want:
            fail("rank %d: MPI_ANY_SOURCE receive %s, want %s"
                 % (r, got, want))
    # the probed message, received by MPI_Mrecv (status ignored)
    mr = [(m["region"], m["kind"], m["peer"], m["bytes_recv"]) for m in rows
          if m["tag"] == 8]
    if mr != ([("MPI_Mrecv", RECV, 1, 12)] if r == 0 else
              [("MPI_Send", SEND, 0, 0)] if r == 1 else []):
        fail("rank %d: the probed message %s" % (r, mr))
    # collectives: MPI_IN_PLACE's share not counted; roots in world numbers
    sub = [i for i in comms if i != 0]
    if comms.get(0) != list(range(NP)) or len(sub) != 1 or \
            comms[sub[0]] != [2 + r % 2, r % 2]:
        fail("rank %d: communicators %s" % (r, comms))
    first = comms[sub[0]][0]
    coll = sorted((m["region"], m["comm"], m["bytes_sent"], m["bytes_recv"],
                   m["root"]) for m in rows if m["kind"] == COLL)
    want_c = sorted([
        ("MPI_Allreduce", 0, 40 * (NP - 1), 40 * (NP - 1), -1),
        ("MPI_Allgather", 0, 8 * (NP - 1), 8 * (NP - 1), -1),
        ("MPI_Barrier", 0, 0, 0, -1),
        ("MPI_Iallgatherv", 0, 4 * (r + 1) * (NP - 1), 4 * (9 - r), -1),
        ("MPI_Bcast", sub[0], 8 if r == first else 0,
         0 if r == first else 8, first)])
    if coll != want_c:
        fail("rank %d: collectives %s, want %s" % (r, coll, want_c))
    # the sub-communicator's message: partner in world numbers
    sr = [(m["kind"], m["peer"], m["comm"], m["bytes_sent"] + m["bytes_recv"])
          for m in rows if m["tag"] == 6]
    other = comms[sub[0]][1] if r == first else first
    if sr != [(SEND if r == first else RECV, other, sub[0], 24)]:
        fail("rank %d: sub-communicator message %s" % (r, sr))


def check_python(pydir, path, msgs, want):
    sys.path.insert(0, pydir)
    import scopeprof
    res = scopeprof.read_h5(path)
    if len(res.mpi_messages()) != sum(len(v) for v in msgs.values()):
        fail("mpi_messages(): %d rows" % len(res.mpi_messages()))
    m = res.mpi_matrix("bytes")
    got = {(a, b): int(m.loc[a, b]) for a in m.index for b in m.columns
           if m.loc[a, b]}
    if got != {k: v[1] for k, v in want.items()}:
        fail("mpi_matrix('bytes') %s" % got)


def main():
    path, report = sys.argv[1], sys.argv[2]
    msgs, comms = read(path)
    want = expected_matrix()
    got = matrix(msgs, (SEND, ISEND), "bytes_sent", True)
    if got != want:
        fail("matrix from the senders %s, want %s" % (got, want))
    got = matrix(msgs, (RECV, WAITRECV), "bytes_recv", False)
    if got != want:
        fail("matrix from the receivers %s, want %s" % (got, want))
    for r in range(NP):
        check_rank(r, msgs[r], comms[r])
    out = subprocess.run([report, "--matrix", "--export", "csv", path],
                         check=True, capture_output=True, text=True).stdout
    rep = {(int(x["sender"]), int(x["receiver"])):
           [int(x["messages"]), int(x["bytes"])]
           for x in csv.DictReader(io.StringIO(out))}
    if rep != want:
        fail("sp-report --matrix csv %s, want %s" % (rep, want))
    if len(sys.argv) > 3:
        check_python(sys.argv[3], path, msgs, want)
    print("check_fcomm.py: %d messages, %d bytes, as f_comm.F90 sent them"
          % (sum(v[0] for v in want.values()),
             sum(v[1] for v in want.values())))


if __name__ == "__main__":
    main()
