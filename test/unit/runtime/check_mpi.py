#!/usr/bin/python3
"""check_mpi.py DIR SP_IMPORT - checks the two rank files an mpirun -np 2 run
wrote, merges them, and checks ranks, counts and mpi_size with h5py."""
import os
import subprocess
import sys

import h5py

d, sp_import = sys.argv[1], sys.argv[2]
files = sorted(f for f in os.listdir(d) if f.endswith(".h5"))
assert files == ["mpi_rank00000.h5", "mpi_rank00001.h5"], files
out = os.path.join(d, "merged.h5")
subprocess.run([sp_import, "-o", out, d], check=True)
with h5py.File(out, "r") as f:
    names = [n.decode() if isinstance(n, bytes) else n for n in f["region_table/names"][()]]
    idx = f["rank_region_index"]
    got = {}
    for i in range(len(idx["ranks"])):
        got[(int(idx["ranks"][i]), names[idx["region_ids"][i]])] = int(idx["event_counts"][i])
    assert got == {(0, "work"): 1, (0, "allreduce"): 1, (1, "work"): 2, (1, "allreduce"): 2}, got
    assert int(f["metadata"].attrs["mpi_size"]) == 2, f["metadata"].attrs["mpi_size"]
for fn in files:  # each rank's own file says the job had 2 ranks
    with h5py.File(os.path.join(d, fn), "r") as f:
        assert int(f["metadata"].attrs["mpi_size"]) == 2
print("mpi: ranks, counts and mpi_size ok")
