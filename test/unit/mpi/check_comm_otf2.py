#!/usr/bin/python3
"""check_comm_otf2.py MERGED.h5 SP_REPORT OTF2_PRINT MODE - comm.c's
messages in sp-report --export otf2, as otf2-print reads them: every send
and receive event (partners through their communicator's group), the
matrix they make against comm.c's own numbers, each nonblocking receive's
request matched, and the collectives with their operation, root and bytes.
MODE: h5, or abort (one more MPI_Barrier, before rank 0's MPI_Abort)."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_comm import NP, expected_matrix  # noqa: E402

EV = re.compile(r"^(MPI_\w+)\s+(\d+)\s+(\d+)\s+(.*)$")


def fail(msg):
    sys.exit("check_comm_otf2.py: " + msg)


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode != 0:
        fail("%s: status %d\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    return p.stdout


def main():
    h5, report, printer, mode = sys.argv[1:5]
    barriers = 2 if mode == "abort" else 1
    d = tempfile.mkdtemp()
    arch = os.path.join(d, "tr")
    run([report, "--export", "otf2", "-o", arch, h5])
    anchor = os.path.join(arch, "traces.otf2")
    # communicator -> its members' world ranks, from the definitions
    defs = run([printer, "-G", anchor])
    groups, comms = {}, {}
    for line in defs.splitlines():
        m = re.match(r"^GROUP\s+(\d+)\s+Name: .*Type: COMM_GROUP,.*Members: (.*)$",
                     line)
        if m:
            groups[int(m.group(1))] = [int(x) for x in
                                       re.findall(r"(\d+) \(", m.group(2))]
        m = re.match(r'^COMM\s+(\d+)\s+Name: "([^"]*)".*Group: "[^"]*" <(\d+)>',
                     line)
        if m:
            comms[int(m.group(1))] = (m.group(2), int(m.group(3)))
    world = [c for c, (name, g) in comms.items() if name == "MPI_COMM_WORLD"]
    if len(world) != 1 or groups[comms[world[0]][1]] != list(range(NP)):
        fail("no MPI_COMM_WORLD of %d ranks:\n%s" % (NP, defs))
    subs = sorted(groups[g] for c, (n, g) in comms.items() if c != world[0])
    if subs != [[2, 0], [3, 1]]:
        fail("sub-communicators %s, not [[2, 0], [3, 1]]" % subs)

    def members(attrs):
        return groups[comms[int(re.search(r"Communicator: .*?<(\d+)>",
                                          attrs).group(1))][1]]

    sent, recvd, colls = {}, {}, {}
    requests, irecvs, isends, done = {}, {}, {}, {}
    counts = {}
    for line in run([printer, anchor]).splitlines():
        m = EV.match(line)
        if not m:
            continue
        ev, loc, attrs = m.group(1), int(m.group(2)), m.group(4)
        rank = loc & 0xFFFFFFFF
        counts[ev] = counts.get(ev, 0) + 1
        if ev in ("MPI_SEND", "MPI_ISEND", "MPI_RECV", "MPI_IRECV"):
            who = int(re.search(r"(?:Receiver|Sender): (\d+)", attrs).group(1))
            peer = members(attrs)[who]
            n = int(re.search(r"Length: (\d+)", attrs).group(1))
            key = (rank, peer) if "SEND" in ev else (peer, rank)
            c = (sent if "SEND" in ev else recvd).setdefault(key, [0, 0])
            c[0] += 1
            c[1] += n
        if ev == "MPI_IRECV_REQUEST":
            requests[(loc, int(attrs.split()[-1]))] = 1
        if ev == "MPI_IRECV":
            irecvs[(loc, int(re.search(r"Request: (\d+)", attrs).group(1)))] = 1
        if ev == "MPI_ISEND":
            q = int(re.search(r"Request: (\d+)", attrs).group(1))
            isends[(loc, q)] = 1
        if ev == "MPI_ISEND_COMPLETE":
            done[(loc, int(attrs.split()[-1]))] = 1
        if ev == "MPI_COLLECTIVE_END":
            op = re.search(r"Operation: (\w+)", attrs).group(1)
            root = re.search(r"Root: (\w+)", attrs).group(1)
            s = int(re.search(r"Sent: (\d+)", attrs).group(1))
            r = int(re.search(r"Received: (\d+)", attrs).group(1))
            name = re.search(r'Communicator: "([^"]*)"', attrs).group(1)
            colls.setdefault((op, name == "MPI_COMM_WORLD"), []).append(
                (rank, root, s, r))
    want = expected_matrix()
    if sent != want:
        fail("send events' matrix %s, want %s" % (sorted(sent.items()),
                                                  sorted(want.items())))
    if recvd != want:
        fail("receive events' matrix %s, want %s" % (sorted(recvd.items()),
                                                     sorted(want.items())))
    # ring, ANY_SOURCE and the sub-communicators' sends are blocking; the
    # halo and every-pair sends nonblocking, each receive posted first
    nb = 2 * NP + NP * (NP - 1)
    blocking = NP + (NP - 1) + 2
    got = {k: counts.get(k, 0) for k in
           ("MPI_SEND", "MPI_ISEND", "MPI_RECV", "MPI_IRECV",
            "MPI_IRECV_REQUEST", "MPI_ISEND_COMPLETE",
            "MPI_COLLECTIVE_BEGIN", "MPI_COLLECTIVE_END")}
    exp = {"MPI_SEND": blocking, "MPI_ISEND": nb, "MPI_RECV": blocking,
           "MPI_IRECV": nb, "MPI_IRECV_REQUEST": nb,
           "MPI_ISEND_COMPLETE": nb,
           "MPI_COLLECTIVE_BEGIN": (5 + barriers) * NP,
           "MPI_COLLECTIVE_END": (5 + barriers) * NP}
    if got != exp:
        fail("event counts %s, want %s" % (got, exp))
    if set(done) != set(isends):
        fail("MPI_ISEND_COMPLETE requests %s not those of MPI_ISEND %s" %
             (sorted(done), sorted(isends)))
    if set(irecvs) != set(requests):
        fail("MPI_IRECV requests %s not those posted %s" %
             (sorted(irecvs), sorted(requests)))
    bcast = sorted(colls[("BCAST", True)])
    if bcast != [(0, "1", 0, 80), (1, "1", 240, 0), (2, "1", 0, 80),
                 (3, "1", 0, 80)]:
        fail("MPI_Bcast from rank 1: %s" % bcast)
    sub = sorted(colls[("BCAST", False)])
    if sub != [(0, "0", 0, 8), (1, "0", 0, 8), (2, "0", 8, 0),
               (3, "0", 8, 0)]:
        fail("the sub-communicators' MPI_Bcast: %s" % sub)
    for op, n in (("ALLREDUCE", 1), ("GATHER", 1), ("ALLTOALL", 1),
                  ("BARRIER", barriers)):
        if len(colls.get((op, True), [])) != n * NP:
            fail("%s: %s" % (op, colls.get((op, True))))
    subprocess.run(["rm", "-rf", d])
    print("check_comm_otf2.py: ok (%d events)" % sum(counts.values()))


main()
