#!/usr/bin/python3
"""check_barrier_ends.py DIR SP_IMPORT NRANKS NBARRIERS BOUND_NS
- merges the rank files in DIR and reads every rank's MPI_Barrier calls
(NBARRIERS each: the k-th call of every rank is the same barrier). A
barrier releases every rank at once, so on a timeline aligned to rank 0's
clock its ends agree but for how soon each rank runs again; on a loaded
machine some barriers end milliseconds apart (a rank descheduled), so the
check is on the best barriers: in each quarter of the run, the third
smallest spread (latest end - earliest end over ranks) must be at most
BOUND_NS. Per quarter, so that an alignment right at MPI_Init but wrong
later (a drift not corrected) fails too; the third, not the first, because
a wrong alignment by e still sees a barrier now and then whose ranks'
delays happen to cancel e."""
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


ends = {}
with h5py.File(out, "r") as f:
    names = [text(x) for x in f["region_table/names"][()]]
    idx = f["rank_region_index"]
    for i in range(len(idx["ranks"])):
        if names[idx["region_ids"][i]] == "MPI_Barrier":
            r, o, c = (int(idx["ranks"][i]), int(idx["event_offsets"][i]),
                       int(idx["event_counts"][i]))
            ends[r] = np.sort(f["events/end_times"][o:o + c])
    meta = {k: f["metadata"].attrs[k] for k in f["metadata"].attrs}
assert sorted(ends) == list(range(n)), sorted(ends)
assert all(len(e) == nb for e in ends.values()), {r: len(e) for r, e in ends.items()}
E = np.array([ends[r] for r in range(n)], dtype=np.int64)
spread = E.max(axis=0) - E.min(axis=0)
run_s = (E[0, -1] - E[0, 0]) / 1e9
q = [spread[i * nb // 4:(i + 1) * nb // 4] for i in range(4)]
print("%d ranks, %d barriers over %.2f s; round trips at init %s, at finalize %s ns"
      % (n, nb, run_s, [text(x) for x in meta.get("rank_clock_rtt_init_ns", [])],
         [text(x) for x in meta.get("rank_clock_rtt_fin_ns", [])]))
print("spread of the barrier ends per quarter: best %s ns, median %s ns"
      % ([int(x.min()) for x in q], [int(np.median(x)) for x in q]))
third = [int(np.sort(x)[2]) for x in q]
print("third best per quarter: %s ns; barriers within %d ns per quarter: %s"
      % (third, bound, [int((x <= bound).sum()) for x in q]))
bad = [i for i, x in enumerate(third) if x > bound]
assert not bad, "quarters %s: fewer than 3 barriers whose ends agree within %d ns" % (bad, bound)
