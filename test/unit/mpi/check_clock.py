#!/usr/bin/python3
"""check_clock.py DIR RAW SP_IMPORT REGION OFFSETS [--drift PPMS] [--no-meta]
- merges the files (or streams) in DIR and checks the calls of REGION, one
per barrier on every rank, on the merged timeline (rank 0's clock, which
is the true CLOCK_MONOTONIC here):
  - each rank's error: RAW/raw<rank>.txt holds true clock reads just before
    and after each barrier call. With e_i the error of call i, its start
    minus the read before it is at least e_i and its end minus the read
    after it at most e_i (equal but for the few ns between the read and
    the call, unless the rank was preempted there). So
    max(end - after) <= max(e) and min(start - before) >= min(e): the first
    must be at most 50 us, the second at least -50 us, which fails (and
    only fails) when some call is off by more;
  - for every barrier no rank ends before another began it (50 us slack).
(Barrier ends themselves differ by milliseconds of true time when 3 ranks
share 2 busy cores: a rank that is not running when the barrier completes
leaves it later.) OFFSETS: the
SP_TEST_CLOCK_OFFSET_NS of each rank, comma-separated; the metadata's
measured offsets must match them within half the round trip. --drift PPMS:
SP_TEST_CLOCK_DRIFT_PPM made the clocks run apart too (the offset at
MPI_Init then includes what the clocks drifted since start); the change of
the offset between MPI_Init and MPI_Finalize must give that rate within
10%.
--no-meta: the inputs carry no metadata (.spt)."""
import os
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

assert sorted(starts) == list(range(n)), sorted(starts)
counts = {r: len(starts[r]) for r in starts}
assert len(set(counts.values())) == 1 and counts[0] > 0, counts
S = np.array([starts[r] for r in range(n)], dtype=np.int64)
E = np.array([ends[r] for r in range(n)], dtype=np.int64)
late = E.min(axis=0) - S.max(axis=0)  # >= 0 when causal
worst = int(late.argmin())
assert late[worst] >= -SLACK, (
    "barrier %d: rank %d ends %d ns before rank %d begins it" %
    (worst, int(E[:, worst].argmin()), -int(late[worst]), int(S[:, worst].argmax())))
for r in range(n):
    rw = np.loadtxt(os.path.join(raw, "raw%d.txt" % r), dtype=np.int64, ndmin=2)
    assert rw.shape == (S.shape[1], 2), (r, rw.shape)
    late_, early = int((E[r] - rw[:, 1]).max()), int((S[r] - rw[:, 0]).min())
    assert late_ <= SLACK and early >= -SLACK, (
        "rank %d: some barrier is off rank 0's clock: max(end - after) %d ns, "
        "min(start - before) %d ns" % (r, late_, early))
    print("rank %d: max(end - after) %d ns, min(start - before) %d ns" % (r, late_, early))
spread = E.max(axis=0) - E.min(axis=0)
print("%s: %d barriers causal (worst margin %d ns); ends spread %d..%d ns, median %d" %
      (region, S.shape[1], int(late[worst]), int(spread.min()), int(spread.max()),
       int(np.median(spread))))

if no_meta:
    sys.exit(0)
ids = [text(x) for x in meta["rank_ids"]]
assert ids == [str(r) for r in range(n)], ids
hosts = [text(x) for x in meta["rank_hostname"]]
assert hosts == [socket.gethostname()] * n, hosts
methods = [text(x) for x in meta["rank_clock_sync_method"]]
assert all(m.startswith("MPI ping-pong with rank 0") for m in methods), methods
off = [int(x) for x in meta["rank_clock_offset_init_ns"]]
rtt = [int(x) for x in meta["rank_clock_rtt_init_ns"]]
assert off[0] == 0 and rtt[0] == 0, (off, rtt)
for r in range(1, n):
    want = skew[0] - skew[r]
    assert rtt[r] > 0, rtt
    tol = rtt[r] // 2 + 2000 if not drift else abs(want) // 10
    assert abs(off[r] - want) <= tol, "rank %d: offset %d, want %d +- %d" % (r, off[r], want, tol)
if "rank_clock_offset_fin_ns" in meta:
    fin = [int(x) for x in meta["rank_clock_offset_fin_ns"]]
    ti = [int(x) for x in meta["rank_clock_sync_init_ns"]]
    tf = [int(x) for x in meta["rank_clock_sync_fin_ns"]]
    rate = [(fin[r] - off[r]) / (tf[r] - ti[r]) * 1e6 for r in range(n)]
    print("offsets at init %s, at finalize %s; round trips %s ns; drift %s ppm" %
          (off, fin, rtt, ["%.1f" % x for x in rate]))
    for r in range(1, n):
        # rank r's clock runs at 1 + p of the true one: rank 0's minus it
        # changes by -p / (1 + p) per ns of rank r's clock
        p = (drift[r] - drift[0]) * 1e-6 if drift else 0
        want = -p / (1 + p) * 1e6
        assert abs(rate[r] - want) <= max(abs(want) / 10, 50), (r, rate[r], want)
else:
    print("offsets at init %s (no finalize); round trips %s ns" % (off, rtt))
