#!/usr/bin/python3
"""check_abort.py DIR SP_IMPORT NRANKS - after one run of abort.c (or
abort_f.f90) under mpirun: each rank's stream, merged by sp-import, holds
that rank's 1000 * (rank + 1) + 7 calls of "work", rank 1's "abort" call
(open as it aborted) and at most one "wait" call on the others (they may
still be in the barrier when the job ends). Prints one line;
exit status 1 when a rank lost calls (the line names them), 2 when the
run left something unreadable."""
import os
import subprocess
import sys

import h5py

d, sp_import, nranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
streams = sorted(f for f in os.listdir(d) if f.endswith(".spts"))
out = os.path.join(d, "merged.h5")
r = subprocess.run([sp_import, "-o", out, d], capture_output=True, text=True)
if r.returncode != 0:
    print("sp-import failed: " + r.stderr.strip())
    sys.exit(2)
with h5py.File(out, "r") as f:
    names = [n.decode() if isinstance(n, bytes) else n
             for n in f["region_table/names"][()]]
    idx = f["rank_region_index"]
    got = {}
    for i in range(len(idx["ranks"])):
        got[(int(idx["ranks"][i]), names[idx["region_ids"][i]])] = \
            int(idx["event_counts"][i])
lost = []
for rank in range(nranks):
    want = {"work": 1000 * (rank + 1) + 7, "abort": int(rank == 1)}
    have = {k: got.get((rank, k), 0) for k in want}
    if have != want or got.get((rank, "wait"), 0) > int(rank != 1):
        lost.append("rank %d %s (want %s)" % (rank, have, want))
if lost:
    print("%d streams; lost: %s" % (len(streams), "; ".join(lost)))
    sys.exit(1)
print("%d streams; every rank's calls there" % len(streams))
