#!/usr/bin/python3
"""check_late.py MERGED.h5 SP_REPORT - late.c's wait states as sp-report
--mpi gives them: each receiving call's time before its message's send
began, each collective's time before the last rank entered it (both up to
the call's end), each blocking send's time before its receive was posted
when it ended after that (late receiver), and their sum per rank and
function (waiting), recomputed here from the file's own stamps to the
nanosecond, and at least the sleeps that made them (the late receiver:
all of its sleep; a late sender's receive and the last barrier's wait:
the sleep less what the waiting call began after the sleep began, from
the stamps, so that a rank descheduled on a loaded machine cannot fail
it)."""
import csv
import io
import json
import subprocess
import sys

import h5py


def fail(msg):
    sys.exit("check_late.py: " + msg)


def main():
    path, report = sys.argv[1], sys.argv[2]
    f = h5py.File(path, "r")
    names = [n.decode() if isinstance(n, bytes) else n
             for n in f["region_table/names"][:]]
    idx = f["rank_region_index"]
    starts, ends = f["events/start_times"][:], f["events/end_times"][:]

    def call_end(rank, thread, name, start):
        for i in range(len(idx["ranks"])):
            if idx["ranks"][i] == rank and idx["threads"][i] == thread and \
                    names[idx["region_ids"][i]] == name:
                o, n = idx["event_offsets"][i], idx["event_counts"][i]
                for k in range(o, o + n):
                    if starts[k] == start:
                        return int(ends[k])
        fail("no call %s at %d on rank %d" % (name, start, rank))

    def msgs(rank):
        g = f["rank%d/mpi/messages" % rank]
        return [{k: int(g[k][i]) for k in g} for i in range(len(g["kind"]))]

    # the bounds below come from rank 1's own stamps: they hold on rank 0's
    # timeline exactly because both ranks read one clock (one node)
    meta = f["metadata"].attrs
    method = [x.decode() if isinstance(x, bytes) else x
              for x in meta["rank_clock_sync_method"]]
    if not method[1].startswith("rank 0's own clock") or \
            [int(x) for x in meta["rank_clock_offset_init_ns"]] != [0, 0]:
        fail("rank 1 did not read rank 0's clock: %s, offsets %s"
             % (method, list(meta["rank_clock_offset_init_ns"])))
    sends = {m["tag"]: m["start_ns"] for m in msgs(1) if m["kind"] == 1}
    # what rank 1 slept from: tag 1's 200 ms from its leaving the first
    # barrier, tag 2's 100 ms from the end of tag 1's send
    ones = [m for m in msgs(1) if m["kind"] == 6]
    first = min(ones, key=lambda m: m["start_ns"])
    slept_from = {
        1: (call_end(1, first["thread"], names[first["region"]],
                     first["start_ns"]), 200e6),
        2: (call_end(1, 0, "MPI_Send", sends[1]), 100e6)}
    want = {}
    for m in msgs(0):
        if m["kind"] not in (3, 5):
            continue
        fn = names[m["region"]]
        end = call_end(0, m["thread"], fn, m["start_ns"])
        s = sends[m["tag"]]
        late = max(0, min(s, end) - m["start_ns"])
        want[fn] = want.get(fn, 0) + late
        # the sleep, less what this call began after rank 1 began it
        # (rank 0 descheduled meanwhile): that much waiting at least
        t0, nap = slept_from.get(m["tag"], (0, 0))
        if late < nap - max(0, m["start_ns"] - t0):
            fail("%s of tag %d waited %d ns for a send %d ms late; it began "
                 "%d ns after the sender began its sleep"
                 % (fn, m["tag"], late, nap / 1e6, m["start_ns"] - t0))
    js = json.loads(subprocess.run([report, "--mpi", "--export", "json",
                                    path], check=True, capture_output=True,
                                   text=True).stdout)
    got = {x["name"]: x["per_rank"]["0"]["late_sender_ns"]
           for x in js["functions"]}
    for fn in ("MPI_Recv", "MPI_Wait"):
        if got.get(fn) != want[fn]:
            fail("%s: late sender %s ns, want %d" % (fn, got.get(fn),
                                                     want[fn]))
    r = {x["rank"]: x["late_sender_ns"] for x in js["ranks"]}
    if r[0] != want["MPI_Recv"] + want["MPI_Wait"] or r[1] != 0:
        fail("per rank %s, want %d and 0" % (r, want["MPI_Recv"] +
                                               want["MPI_Wait"]))
    # collectives: the k-th on a communicator is one operation; each rank
    # waited from its start to the last rank's start (up to its end)
    colls = {}
    for rank in (0, 1):
        seq = 0
        for m in sorted(msgs(rank), key=lambda m: m["start_ns"]):
            if m["kind"] == 6:
                colls.setdefault(seq, []).append(
                    (rank, m["thread"], names[m["region"]], m["start_ns"]))
                seq += 1
    cw = {0: 0, 1: 0}
    for seq, calls in colls.items():
        last = max(c[3] for c in calls)
        for rank, thread, fn, start in calls:
            end = call_end(rank, thread, fn, start)
            cw[rank] += max(0, min(last, end) - start)
        if seq == len(colls) - 1:
            w0 = [min(last, call_end(0, t, fn, s)) - s
                  for r, t, fn, s in calls if r == 0][0]
            # rank 1 slept 150 ms after it left the barrier before: rank 0
            # waited that, less what it came after rank 1 had left it
            s0 = [c[3] for c in calls if c[0] == 0][0]
            r1, t1, fn1, st1 = [c for c in colls[seq - 1] if c[0] == 1][0]
            e1 = call_end(r1, t1, fn1, st1)
            if w0 < 150e6 - max(0, s0 - e1):
                fail("rank 0 waited %d ns in the last barrier, entered %d "
                     "ns after rank 1 left the one before and slept 150 ms"
                     % (w0, s0 - e1))
    got_cw = {x["rank"]: x["coll_wait_ns"] for x in js["ranks"]}
    bar = {int(k): v["coll_wait_ns"] for x in js["functions"]
           if x["name"] == "MPI_Barrier" for k, v in x["per_rank"].items()}
    if got_cw != cw or bar != cw:
        fail("collective wait %s (MPI_Barrier %s), want %s"
             % (got_cw, bar, cw))
    # late receiver: a blocking send (not MPI_Sendrecv's), or the wait that
    # completed an MPI_Isend, that ended after its receive was posted, from
    # its start to that post
    lr = {}
    posted = {r: {} for r in (0, 1)}
    for rank in (0, 1):
        for m in msgs(rank):
            if m["kind"] == 3:
                posted[rank][m["tag"]] = m["start_ns"]
            elif m["kind"] == 5:
                posted[rank][m["tag"]] = m["origin_ns"]
    isend = {}
    for rank in (0, 1):
        for m in msgs(rank):
            if m["kind"] == 2:
                isend[(rank, m["tag"])] = m["start_ns"]
            if m["kind"] not in (1, 7):
                continue
            fn = names[m["region"]]
            at = posted[m["peer"]][m["tag"]]
            end = call_end(rank, m["thread"], fn, m["start_ns"])
            x = at - m["start_ns"] if m["start_ns"] < at < end else 0
            lr[(rank, fn)] = lr.get((rank, fn), 0) + x
            # the receive was posted 80 ms after the message arrived, so
            # after the MPI_Issend began: the wait waited that, less what
            # it began after the MPI_Issend (a descheduled sender)
            if m["kind"] == 7 and m["tag"] == 5 and \
                    (at - m["origin_ns"] < 80e6 or
                     x < 80e6 - max(0, m["start_ns"] - m["origin_ns"])):
                fail("MPI_Wait of MPI_Issend tag 5: %d ns late receiver, "
                     "receive posted %d ns after the send began (80 ms "
                     "after the message arrived)" % (x, at - m["origin_ns"]))
            if m["tag"] == 4 and x < 120e6:
                fail("MPI_Ssend of tag 4 waited %d ns for a receive posted "
                     "120 ms after the message arrived" % x)
            # buffered, received 100 ms later: nothing, unless the sender
            # was descheduled inside it until after the post
            if m["tag"] == 3 and x != 0 and end - m["start_ns"] < 100e6:
                fail("MPI_Send of tag 3 (buffered, received 100 ms later) "
                     "has %d ns late receiver" % x)
    if lr.get((0, "MPI_Ssend"), 0) < 120e6:
        fail("no MPI_Ssend or MPI_Wait late receiver on rank 0: %s" % lr)
    if (0, 5) not in isend:
        fail("no MPI_Issend of tag 5 recorded")
    for x in js["functions"]:
        for r, c in x["per_rank"].items():
            want_lr = lr.get((int(r), x["name"]), 0)
            if c["late_receiver_ns"] != want_lr:
                fail("%s rank %s: late receiver %d ns, want %d"
                     % (x["name"], r, c["late_receiver_ns"], want_lr))
            w = c["late_sender_ns"] + want_lr + c["coll_wait_ns"]
            if c["waiting_ns"] != w:
                fail("%s rank %s: waiting %d ns, want %d (the sum)"
                     % (x["name"], r, c["waiting_ns"], w))
        if x["late_receiver_ns"] != sum(v for (r, fn), v in lr.items()
                                        if fn == x["name"]):
            fail("%s: late receiver %d ns" % (x["name"],
                                               x["late_receiver_ns"]))
    waits = {}
    for x in js["ranks"]:
        r = x["rank"]
        want_lr = sum(v for (k, fn), v in lr.items() if k == r)
        w = want["MPI_Recv"] + want["MPI_Wait"] if r == 0 else 0
        w += want_lr + cw[r]
        waits[r] = w
        if x["late_receiver_ns"] != want_lr or x["waiting_ns"] != w:
            fail("rank %d: late receiver %d, waiting %d ns; want %d, %d"
                 % (r, x["late_receiver_ns"], x["waiting_ns"], want_lr, w))
        if abs(x["waiting_mpi_pct"] - 100.0 * w / x["mpi_ns"]) > 1e-3:
            fail("rank %d: waiting %.4f%% of %d ns in MPI"
                 % (r, x["waiting_mpi_pct"], x["mpi_ns"]))
    most = max(sorted(waits), key=lambda r: waits[r])
    if js["waiting_most"] != {"rank": most, "waiting_ns": waits[most]}:
        fail("waiting_most %s, want rank %d %d ns" % (js["waiting_most"],
                                                      most, waits[most]))
    rows = list(csv.DictReader(io.StringIO(subprocess.run(
        [report, "--mpi", "--export", "csv", path], check=True,
        capture_output=True, text=True).stdout)))
    for row in rows:
        r, fn = int(row["rank"]), row["region"]
        c = [x for x in js["functions"] if x["name"] == fn]
        c = c[0]["per_rank"][str(r)] if c else None
        if c is None or int(row["late_receiver_ns"]) != \
                c["late_receiver_ns"] or \
                int(row["waiting_ns"]) != c["waiting_ns"]:
            fail("csv row %s, json %s" % (row, c))
    text = subprocess.run([report, "--mpi", path], check=True,
                          capture_output=True, text=True).stdout
    if "late sender" not in text or "coll. wait" not in text or \
            "late recv" not in text or \
            "waiting most: rank %d," % most not in text:
        fail("--mpi text without late sender:\n" + text)
    print("check_late.py: MPI_Recv %.1f ms, MPI_Wait %.1f ms late sender; "
          "rank 0 %.1f ms in collectives before the last rank; MPI_Ssend "
          "%.1f ms, MPI_Wait %.1f ms late receiver; waiting %s"
          % (want["MPI_Recv"] / 1e6, want["MPI_Wait"] / 1e6, cw[0] / 1e6,
             lr[(0, "MPI_Ssend")] / 1e6, lr[(0, "MPI_Wait")] / 1e6, waits))


main()
