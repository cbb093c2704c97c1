#!/usr/bin/python3
"""check_barrier_ends.py DIR SP_IMPORT NRANKS NBARRIERS BOUND_NS
- merges the rank files in DIR and reads every rank's MPI_Barrier calls
(NBARRIERS each: the k-th call of every rank is the same barrier). No rank
leaves a barrier before the last one entered it, so on a timeline aligned
to rank 0's clock, rank r's k-th barrier starts before rank 0's ends and
ends after rank 0's starts. Those bound rank r's remaining clock error x
(its stamps minus the true time): max_k(start_r - end_0) <= x <=
min_k(end_r - start_0). The check is that 0 lies in that window widened
by BOUND_NS, in each quarter of the run, so that an alignment right at
MPI_Init but wrong later (a drift not corrected) fails too. A loaded
machine, which delays a rank after a barrier by milliseconds, only widens
the window: it cannot make a right alignment fail."""
import os
import subprocess
import sys

import h5py
import numpy as np

d, sp_import = sys.argv[1], sys.argv[2]
n, nb, bound = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
out = os.path.join(d, "merged.h5")
subprocess.run([sp_import, "-o", out, d], check=True, stdout=subprocess.DEVNULL)


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


starts, ends = {}, {}
with h5py.File(out, "r") as f:
    names = [text(x) for x in f["region_table/names"][()]]
    idx = f["rank_region_index"]
    for i in range(len(idx["ranks"])):
        if names[idx["region_ids"][i]] == "MPI_Barrier":
            r, o, c = (int(idx["ranks"][i]), int(idx["event_offsets"][i]),
                       int(idx["event_counts"][i]))
            st = f["events/start_times"][o:o + c]
            en = f["events/end_times"][o:o + c]
            order = np.argsort(st, kind="stable")
            starts[r], ends[r] = st[order], en[order]
    meta = {k: f["metadata"].attrs[k] for k in f["metadata"].attrs}
assert sorted(ends) == list(range(n)), sorted(ends)
assert all(len(e) == nb for e in ends.values()), {r: len(e) for r, e in ends.items()}
S = np.array([starts[r] for r in range(n)], dtype=np.int64)
E = np.array([ends[r] for r in range(n)], dtype=np.int64)
spread = E.max(axis=0) - E.min(axis=0)
run_s = (E[0, -1] - E[0, 0]) / 1e9
print("%d ranks, %d barriers over %.2f s; round trips at init %s, at finalize %s ns"
      % (n, nb, run_s, [text(x) for x in meta.get("rank_clock_rtt_init_ns", [])],
         [text(x) for x in meta.get("rank_clock_rtt_fin_ns", [])]))
print("spread of the barrier ends: best %d ns, median %d ns"
      % (int(spread.min()), int(np.median(spread))))
bad = []
for r in range(1, n):
    for i in range(4):
        k = slice(i * nb // 4, (i + 1) * nb // 4)
        lo = int((S[r, k] - E[0, k]).max())
        hi = int((E[r, k] - S[0, k]).min())
        print("rank %d, quarter %d: clock error within [%d, %d] ns" % (r, i, lo, hi))
        if lo > bound or hi < -bound:
            bad.append((r, i, lo, hi))
assert not bad, "barriers out of order by more than %d ns (rank, quarter, lo, hi): %s" % (bound, bad)
