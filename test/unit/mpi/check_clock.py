#!/usr/bin/python3
"""check_clock.py DIR RAW SP_IMPORT REGION OFFSETS [--drift PPMS]
                   [--no-meta --log STDERR | --meta-only]
- merges the files (or streams) in DIR and checks the calls of REGION, one
per barrier on every rank, on the merged timeline (rank 0's clock, which
is the true CLOCK_MONOTONIC here):
  - each rank's error: RAW/raw<rank>.txt holds true clock reads just before
    and after each barrier call. With e_i the error of call i, its start
    minus the read before it is at least e_i and its end minus the read
    after it at most e_i (equal but for the few ns between the read and
    the call, unless the rank was preempted there). So
    max(end - after) <= max(e) and min(start - before) >= min(e): the first
    must be at most B, the second at least -B, which fails (and only fails)
    when some call is off by more. B is 50 us, or the runtime's own bound
    for the rank (half its longer round trip, from the metadata or the
    SP_VERBOSE lines in STDERR, and 5 us for reading clocks) where that is
    more: the round trip is what the measurement guarantees, and on a
    machine of 2 cores running 3 ranks and more besides, an exchange is
    sometimes slow in all of its tries;
  - for every barrier no rank ends before another began it (slack: two
    ranks' B).
(Barrier ends themselves differ by milliseconds of true time when 3 ranks
share 2 busy cores: a rank that is not running when the barrier completes
leaves it later.) OFFSETS: the
SP_TEST_CLOCK_OFFSET_NS of each rank, comma-separated; the metadata's
measured offsets must match them within half the round trip. --drift PPMS:
SP_TEST_CLOCK_DRIFT_PPM made the clocks run apart too (the offset at
MPI_Init then includes what the clocks drifted since start); the change of
the offset between MPI_Init and MPI_Finalize must give that rate within
10% (or within what the two round trips allow).
--no-meta: the inputs carry no metadata (.spt); --log: SP_VERBOSE's lines. --meta-only: no REGION calls
to check (RAW and REGION are not used), only the metadata, which must then
hold both measurements of every rank."""
import os
import re
import socket
import subprocess
import sys

import h5py
import numpy as np

d, raw, sp_import, region = sys.argv[1:5]
skew = [int(x) for x in sys.argv[5].split(",")]
opts = sys.argv[6:]
drift = [int(x) for x in opts[opts.index("--drift") + 1].split(",")] if "--drift" in opts else None
no_meta = "--no-meta" in opts
log = opts[opts.index("--log") + 1] if "--log" in opts else None
meta_only = "--meta-only" in opts
n = len(skew)
SLACK = 50000  # ns

out = os.path.join(d, "merged.h5")
subprocess.run([sp_import, "-o", out, d], check=True, stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL)


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


with h5py.File(out, "r") as f:
    names = [text(x) for x in f["region_table/names"][()]]
    idx = f["rank_region_index"]
    starts, ends = {}, {}
    for i in range(len(idx["ranks"])):
        if names[idx["region_ids"][i]] != region:
            continue
        r, o, c = int(idx["ranks"][i]), int(idx["event_offsets"][i]), int(idx["event_counts"][i])
        starts[r] = f["events/start_times"][o:o + c]
        ends[r] = f["events/end_times"][o:o + c]
    meta = {k: f["metadata"].attrs[k] for k in f["metadata"].attrs}

if meta_only:
    starts = {r: np.zeros(1, dtype=np.int64) for r in range(n)}
    ends = starts
if not no_meta and "rank_clock_rtt_init_ns" in meta:
    print("round trips at init %s, at finalize %s ns" % (
        [int(x) for x in meta["rank_clock_rtt_init_ns"]],
        [text(x) for x in meta.get("rank_clock_rtt_fin_ns", [])]))
assert sorted(starts) == list(range(n)), sorted(starts)
counts = {r: len(starts[r]) for r in starts}
assert len(set(counts.values())) == 1 and counts[0] > 0, counts
S = np.array([starts[r] for r in range(n)], dtype=np.int64)
E = np.array([ends[r] for r in range(n)], dtype=np.int64)
# the longer round trip of each rank
rtts = [0] * n
if log:
    pat = re.compile(r"rank (\d+): clock offset to rank 0 at \w+: -?\d+ ns \(round trip (\d+) ns\)")
    with open(log) as fh:
        for line in fh:
            mt = pat.search(line)
            if mt:
                r = int(mt.group(1))
                rtts[r] = max(rtts[r], int(mt.group(2)))
    assert all(rtts[1:]), ("no round trip in the log", rtts)
elif not no_meta:
    for key in ("rank_clock_rtt_init_ns", "rank_clock_rtt_fin_ns"):
        for r, x in enumerate(meta.get(key, [])):
            if text(x):
                rtts[r] = max(rtts[r], int(text(x)))
bounds = [max(SLACK, x // 2 + 5000) for x in rtts]
late = E.min(axis=0) - S.max(axis=0)  # >= 0 when causal
worst = int(late.argmin())
two = sorted(bounds)[-1] + sorted(bounds)[-2]  # two ranks' errors apart
assert late[worst] >= -two, (
    "barrier %d: rank %d ends %d ns before rank %d begins it" %
    (worst, int(E[:, worst].argmin()), -int(late[worst]), int(S[:, worst].argmax())))
for r in range(0 if meta_only else n):
    bound = bounds[r]
    rw = np.loadtxt(os.path.join(raw, "raw%d.txt" % r), dtype=np.int64, ndmin=2)
    assert rw.shape == (S.shape[1], 2), (r, rw.shape)
    late_, early = int((E[r] - rw[:, 1]).max()), int((S[r] - rw[:, 0]).min())
    assert late_ <= bound and early >= -bound, (
        "rank %d: some barrier is off rank 0's clock by more than %d ns: "
        "max(end - after) %d ns, min(start - before) %d ns" % (r, bound, late_, early))
    print("rank %d: max(end - after) %d ns, min(start - before) %d ns (bound %d ns%s)" %
          (r, late_, early, bound, "" if bound == SLACK else ": a slow round trip"))
spread = E.max(axis=0) - E.min(axis=0)
if not meta_only:
    print("%s: %d barriers causal (worst margin %d ns); ends spread %d..%d ns, median %d" %
          (region, S.shape[1], int(late[worst]), int(spread.min()),
           int(spread.max()), int(np.median(spread))))

if no_meta:
    sys.exit(0)
ids = [text(x) for x in meta["rank_ids"]]
assert ids == [str(r) for r in range(n)], ids
hosts = [text(x) for x in meta["rank_hostname"]]
assert hosts == [socket.gethostname()] * n, hosts
methods = [text(x) for x in meta["rank_clock_sync_method"]]
off = [int(x) for x in meta["rank_clock_offset_init_ns"]]
rtt = [int(x) for x in meta["rank_clock_rtt_init_ns"]]
assert off[0] == 0 and rtt[0] == 0, (off, rtt)
# a rank of rank 0's clock itself (neither skewed): offset 0, no exchange
same = [r > 0 and skew[r] == 0 and skew[0] == 0 and
        (not drift or drift[r] == drift[0] == 0) for r in range(n)]
SAME = "rank 0's own clock (CLOCK_MONOTONIC of one kernel): offset 0"
assert methods[0].startswith("MPI ping-pong with rank 0"), methods
for r in range(1, n):
    if same[r]:
        assert methods[r] == SAME and off[r] == 0 and rtt[r] == 0 and \
            int(meta["rank_clock_offset_fin_ns"][r]) == 0, \
            (r, methods[r], off[r], rtt[r])
        continue
    assert methods[r].startswith("MPI ping-pong with rank 0"), methods
    want = skew[0] - skew[r]
    assert rtt[r] > 0, rtt
    tol = rtt[r] // 2 + 2000 if not drift else abs(want) // 10
    assert abs(off[r] - want) <= tol, "rank %d: offset %d, want %d +- %d" % (r, off[r], want, tol)
assert "rank_clock_offset_fin_ns" in meta or not meta_only, sorted(meta)
if "rank_clock_offset_fin_ns" in meta:
    fin = [int(x) for x in meta["rank_clock_offset_fin_ns"]]
    ti = [int(x) for x in meta["rank_clock_sync_init_ns"]]
    tf = [int(x) for x in meta["rank_clock_sync_fin_ns"]]
    rate = [(fin[r] - off[r]) / (tf[r] - ti[r]) * 1e6 for r in range(n)]
    print("offsets at init %s, at finalize %s; round trips %s ns; drift %s ppm" %
          (off, fin, rtt, ["%.1f" % x for x in rate]))
    for r in range(1, n):
        if same[r]:
            continue
        # rank r's clock runs at 1 + p of the true one: rank 0's minus it
        # changes by -p / (1 + p) per ns of rank r's clock
        p = (drift[r] - drift[0]) * 1e-6 if drift else 0
        want = -p / (1 + p) * 1e6
        # each offset is right within half its round trip
        noise = (rtt[r] + int(meta["rank_clock_rtt_fin_ns"][r])) / 2 / (tf[r] - ti[r]) * 1e6
        assert abs(rate[r] - want) <= max(abs(want) / 10, noise + 1), (r, rate[r], want, noise)
else:
    print("offsets at init %s (no finalize); round trips %s ns" % (off, rtt))

# merged again (a merged file as input): every rank keeps its own values
again = os.path.join(d, "again.h5")
subprocess.run([sp_import, "-o", again, out], check=True, stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL)
with h5py.File(again, "r") as f:
    meta2 = {k: f["metadata"].attrs[k] for k in f["metadata"].attrs}
for k in sorted(meta):
    if k.startswith("rank_"):
        assert [text(x) for x in meta2[k]] == [text(x) for x in meta[k]], (k, meta2[k], meta[k])
print("merged again: the rank_* lists are kept")
