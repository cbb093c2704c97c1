#!/usr/bin/python3
"""check_comm.py MERGED.h5 SP_REPORT [PYDIR] - comm.c's messages, as the
merged file holds them, as sp-report --matrix shows them and (with PYDIR,
the scopeprof package's directory) as Python's mpi_messages() and
mpi_matrix() give them: every number below is comm.c's own."""
import csv
import io
import json
import os
import subprocess
import sys

import h5py

NP = 4
SEND, ISEND, RECV, IRECV, WAITRECV, COLL, WAITSEND = 1, 2, 3, 4, 5, 6, 7


def expected_matrix():
    m = {}

    def add(a, b, n):
        c = m.setdefault((a, b), [0, 0])
        c[0] += 1
        c[1] += n
    for r in range(NP):
        add(r, (r + 1) % NP, 1000)         # ring
        add(r, r ^ 1, 800)                 # halo, x
        add(r, r ^ 2, 1600)                # halo, y
        for k in range(1, NP):             # every pair
            add(r, (r + k) % NP, 16)
        if r:
            add(r, 0, 10 * r)              # MPI_ANY_SOURCE
    add(2, 0, 24)                          # the sub-communicators
    add(3, 1, 24)
    return m


def fail(msg):
    sys.exit("check_comm.py: " + msg)


def check_python(pydir, path, msgs, want):
    sys.path.insert(0, pydir)
    import scopeprof
    r = scopeprof.read_h5(path)
    df = r.mpi_messages()
    if len(df) != sum(len(v) for v in msgs.values()):
        fail("mpi_messages(): %d rows" % len(df))
    cols = ["rank", "thread", "function", "start_ns", "kind", "peer", "tag",
            "comm", "root", "bytes_sent", "bytes_recv", "origin_function",
            "origin_ns"]
    if list(df.columns) != cols:
        fail("mpi_messages() columns %s" % list(df.columns))
    anys = df[(df["rank"] == 0) & (df["tag"] == 5)]
    if sorted(zip(anys["peer"], anys["bytes_recv"])) != \
            [(1, 10), (2, 20), (3, 30)] or set(anys["kind"]) != {"recv"}:
        fail("mpi_messages() ANY_SOURCE rows\n%s" % anys)
    ta = df[df["function"] == "MPI_Testany"]
    if set(ta["kind"]) != {"wait_recv"} or \
            set(ta["origin_function"]) != {"MPI_Irecv"} or len(ta) != 12:
        fail("mpi_messages() MPI_Testany rows\n%s" % ta)
    for value, k in (("bytes", 1), ("messages", 0)):
        m = r.mpi_matrix(value)
        got = {(a, b): int(m.loc[a, b]) for a in m.index for b in m.columns
               if m.loc[a, b]}
        if got != {key: v[k] for key, v in want.items()}:
            fail("mpi_matrix(%r) %s" % (value, got))
    comms = r.mpi_communicators()
    if comms[0][0] != list(range(NP)) or [2, 0] not in comms[0].values():
        fail("mpi_communicators() %s" % comms)


def main():
    path, report = sys.argv[1], sys.argv[2]
    f = h5py.File(path, "r")
    names = [n.decode() if isinstance(n, bytes) else n
             for n in f["region_table/names"][:]]
    msgs = {}
    for r in range(NP):
        g = f["rank%d/mpi/messages" % r]
        cols = {k: g[k][:] for k in g}
        rows = [{k: (names[int(v[i])] if k in ("region", "origin_region")
                     and v[i] >= 0 else int(v[i])) for k, v in cols.items()}
                for i in range(len(cols["kind"]))]
        msgs[r] = rows
    # the matrix from the senders' records
    got = {}
    for r, rows in msgs.items():
        for m in rows:
            if m["kind"] in (SEND, ISEND) and m["peer"] >= 0:
                c = got.setdefault((r, m["peer"]), [0, 0])
                c[0] += 1
                c[1] += m["bytes_sent"]
    want = expected_matrix()
    if got != want:
        fail("matrix from the file %s, want %s" % (got, want))
    # every receive, with its source from the status: the same matrix
    recv = {}
    for r, rows in msgs.items():
        for m in rows:
            if m["kind"] in (RECV, WAITRECV):
                c = recv.setdefault((m["peer"], r), [0, 0])
                c[0] += 1
                c[1] += m["bytes_recv"]
    if recv != want:
        fail("receives %s, want %s" % (recv, want))
    for r in range(NP):
        rows = msgs[r]
        # MPI_Waitall completed the two halo receives, tied to MPI_Irecv
        wa = sorted((m["peer"], m["tag"], m["bytes_recv"]) for m in rows
                    if m["kind"] == WAITRECV and m["region"] == "MPI_Waitall")
        if wa != sorted([(r ^ 1, 2, 800), (r ^ 2, 3, 1600)]):
            fail("rank %d: MPI_Waitall's receives %s" % (r, wa))
        # the MPI_Testany loop completed one receive from every other rank
        ta = [m for m in rows if m["region"] == "MPI_Testany"]
        if sorted((m["peer"], m["bytes_recv"]) for m in ta) != \
                [(p, 16) for p in range(NP) if p != r]:
            fail("rank %d: MPI_Testany's receives %s" % (r, ta))
        irecv = {m["start_ns"] for m in rows if m["kind"] == IRECV}
        for m in ta + [m for m in rows if m["region"] == "MPI_Waitall" and
                       m["kind"] != WAITSEND]:
            if m["kind"] != WAITRECV or m["origin_region"] != "MPI_Irecv" \
                    or m["origin_ns"] not in irecv:
                fail("rank %d: a completion not tied to its MPI_Irecv: %s"
                     % (r, m))
        # the MPI_Waitalls completed the halo's and the pairs' sends, each
        # tied to its MPI_Isend (partner and tag; no bytes: counted there)
        isend = {(m["start_ns"], m["peer"], m["tag"]) for m in rows
                 if m["kind"] == ISEND}
        ws = [m for m in rows if m["kind"] == WAITSEND]
        if sorted((m["peer"], m["tag"]) for m in ws) != sorted(
                [(r ^ 1, 2), (r ^ 2, 3)] + [(p, 4) for p in range(NP)
                                            if p != r]):
            fail("rank %d: sends completed %s" % (r, ws))
        for m in ws:
            if m["region"] != "MPI_Waitall" or \
                    m["origin_region"] != "MPI_Isend" or \
                    (m["origin_ns"], m["peer"], m["tag"]) not in isend or \
                    m["bytes_sent"] or m["bytes_recv"]:
                fail("rank %d: a send's completion not tied to its "
                     "MPI_Isend: %s" % (r, m))
        # collectives (bytes per rank; roots in MPI_COMM_WORLD numbers)
        coll = {(m["region"], m["comm"]): m for m in rows
                if m["kind"] == COLL}
        def c(name, comm=0):
            m = coll[(name, comm)]
            return (m["bytes_sent"], m["bytes_recv"], m["root"])
        want_c = {
            "MPI_Bcast": (240, 0, 1) if r == 1 else (0, 80, 1),
            "MPI_Allreduce": (96, 96, -1),
            "MPI_Gather": (0, 12, 0) if r == 0 else (4, 0, 0),
            "MPI_Alltoall": (24, 24, -1),
            "MPI_Barrier": (0, 0, -1),
        }
        for name, w in want_c.items():
            if c(name) != w:
                fail("rank %d: %s: %s, want %s" % (r, name, c(name), w))
        # the sub-communicator: world ranks {2, 0} or {3, 1}, in that order
        g = f["rank%d/mpi/communicators" % r]
        ids, sizes = list(g["ids"][:]), list(g["sizes"][:])
        offs, members = list(g["member_offsets"][:]), list(g["members"][:])
        comms = {int(i): [int(x) for x in members[o:o + s]]
                 for i, s, o in zip(ids, sizes, offs)}
        sub_id = [i for i in comms if i != 0]
        if comms.get(0) != list(range(NP)) or len(sub_id) != 1:
            fail("rank %d: communicators %s" % (r, comms))
        sub = comms[sub_id[0]]
        if sub != [2 + r % 2, r % 2]:
            fail("rank %d: sub-communicator members %s" % (r, sub))
        sb = c("MPI_Bcast", sub_id[0])
        want_sb = (8, 0, sub[0]) if r == sub[0] else (0, 8, sub[0])
        if sb != want_sb:
            fail("rank %d: MPI_Bcast on the sub-communicator %s, want %s"
                 % (r, sb, want_sb))
        sr = [m for m in rows if m["tag"] == 6 and m["kind"] in (SEND, RECV)]
        if len(sr) != 1 or sr[0]["peer"] != (sub[1] if r == sub[0]
                                              else sub[0]):
            fail("rank %d: sub-communicator partner %s" % (r, sr))
    # MPI_ANY_SOURCE: rank 0's three receives resolved from their status
    anys = sorted((m["peer"], m["bytes_recv"]) for m in msgs[0]
                  if m["tag"] == 5)
    if anys != [(1, 10), (2, 20), (3, 30)]:
        fail("MPI_ANY_SOURCE receives %s" % anys)
    # sp-report --matrix: csv, json and text agree with the file
    out = subprocess.run([report, "--matrix", "--export", "csv", path],
                         check=True, capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    rep = {(int(x["sender"]), int(x["receiver"])):
           [int(x["messages"]), int(x["bytes"])] for x in rows}
    if rep != want:
        fail("sp-report --matrix csv %s, want %s" % (rep, want))
    js = json.loads(subprocess.run(
        [report, "--mpi", "--matrix", "--export", "json", path], check=True,
        capture_output=True, text=True).stdout)
    for (a, b), (n, nb) in want.items():
        if js["messages"][a][b] != n or js["bytes"][a][b] != nb:
            fail("sp-report --matrix json %s" % js)
    if js["messages_total"] != sum(v[0] for v in want.values()):
        fail("sp-report --matrix json total %s" % js["messages_total"])
    text = subprocess.run([report, "--matrix", path], check=True,
                          capture_output=True, text=True).stdout
    total = sum(v[1] for v in want.values())
    if "%d messages" % sum(v[0] for v in want.values()) not in text or \
            (" %d\n" % total) not in text:
        fail("sp-report --matrix text:\n" + text)
    svg = subprocess.run([report, "--svg", "matrix", path], check=True,
                         capture_output=True, text=True).stdout
    if svg.count("<rect") != NP * NP + 1 or \
            "2 -&gt; 0: 4 messages, 1660 bytes" not in svg:
        fail("sp-report --svg matrix:\n" + svg[:2000])
    # --mpi: bytes per function and per rank
    js = json.loads(subprocess.run([report, "--mpi", "--export", "json", path],
                                   check=True, capture_output=True,
                                   text=True).stdout)
    fn = {x["name"]: x for x in js["functions"]}
    isend = NP * (800 + 1600 + 16 * (NP - 1))
    if fn["MPI_Isend"]["bytes_sent"] != isend:
        fail("--mpi: MPI_Isend sent %s, want %d"
             % (fn["MPI_Isend"]["bytes_sent"], isend))
    if fn["MPI_Bcast"]["bytes_sent"] != 240 + 8 * 2 or \
            fn["MPI_Bcast"]["bytes_recv"] != 3 * 80 + 2 * 8:
        fail("--mpi: MPI_Bcast %s" % fn["MPI_Bcast"])
    for x in js["ranks"]:
        r = x["rank"]
        want_s = sum(m["bytes_sent"] for m in msgs[r])
        want_r = sum(m["bytes_recv"] for m in msgs[r])
        if (x["bytes_sent"], x["bytes_recv"]) != (want_s, want_r):
            fail("--mpi: rank %d bytes %s" % (r, x))
    if "bytes sent" not in subprocess.run(
            [report, "--mpi", path], check=True, capture_output=True,
            text=True).stdout:
        fail("--mpi text without bytes")
    if len(sys.argv) > 3:
        check_python(sys.argv[3], path, msgs, want)
    print("check_comm.py: %d messages, %d bytes, as comm.c sent them"
          % (sum(v[0] for v in want.values()), total))


if __name__ == "__main__":
    main()
