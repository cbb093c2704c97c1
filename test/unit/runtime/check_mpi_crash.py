#!/usr/bin/python3
"""check_mpi_crash.py DIR SP_IMPORT MODE - after an mpirun -np 3 run whose
rank 1 crashed (MODE crash) or called MPI_Abort (MODE abort), and whose other
ranks the launcher then killed, every rank left a stream; sp-import merges
them with one warning per stream, and every call each rank recorded before
the end is in the merged profile."""
import os
import subprocess
import sys

import h5py

d, sp_import, mode = sys.argv[1], sys.argv[2], sys.argv[3]
streams = sorted(f for f in os.listdir(d) if f.endswith(".spts"))
assert len(streams) == 3, os.listdir(d)
assert not [f for f in os.listdir(d) if f.endswith(".spt")], os.listdir(d)
out = os.path.join(d, "merged.h5")
r = subprocess.run([sp_import, "-o", out, d], capture_output=True, text=True)
assert r.returncode == 0, r.stderr
warnings = [l for l in r.stderr.splitlines() if l]
assert len(warnings) == 3, r.stderr
for w in warnings:
    assert "warning" in w and ".spts" in w, w
if mode == "crash":
    assert any("signal 11" in w for w in warnings), r.stderr
with h5py.File(out, "r") as f:
    names = [n.decode() if isinstance(n, bytes) else n
             for n in f["region_table/names"][()]]
    idx = f["rank_region_index"]
    got = {}
    for i in range(len(idx["ranks"])):
        got[(int(idx["ranks"][i]), names[idx["region_ids"][i]])] = \
            int(idx["event_counts"][i])
    for rank in range(3):
        assert got[(rank, "work")] == 1000 * (rank + 1), got
    # ranks 0 and 2 were killed in the barrier or inside the reduction
    # (then its call is there, closed when the signal came)
    assert got.get((0, "wait"), 0) <= 1 and got.get((2, "wait"), 0) <= 1, got
print("mpi %s: 3 streams merged, every call there" % mode)
