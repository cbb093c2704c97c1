#!/usr/bin/python3
"""check_calls.py DIR SP_IMPORT SP_REPORT NRANKS [--parent REGION] [NAME=EXPR ...]
- merges the rank files in DIR and checks that the MPI_ rows of each rank are
exactly NAME=EXPR (EXPR: a Python expression of r, the rank, and n, the
number of ranks); no NAME=EXPR means no MPI_ row at all. With --parent, every
MPI call but MPI_Init, MPI_Comm_rank and MPI_Comm_size sits directly under
REGION in every call stack (sp-report --export folded)."""
import os
import subprocess
import sys

import h5py

d, sp_import, sp_report, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
args = sys.argv[5:]
parent = None
if args[:1] == ["--parent"]:
    parent, args = args[1], args[2:]
expect = dict(a.split("=", 1) for a in args)

out = os.path.join(d, "merged.h5")
subprocess.run([sp_import, "-o", out, d], check=True, stdout=subprocess.DEVNULL)
got = {}
with h5py.File(out, "r") as f:
    names = [x.decode() if isinstance(x, bytes) else x for x in f["region_table/names"][()]]
    idx = f["rank_region_index"]
    for i in range(len(idx["ranks"])):
        name = names[idx["region_ids"][i]]
        if name.startswith("MPI_"):
            got[(int(idx["ranks"][i]), name)] = int(idx["event_counts"][i])
    ranks = sorted({int(r) for r in idx["ranks"][()]})
assert ranks == list(range(n)), ranks
want = {}
for r in range(n):
    for name, e in expect.items():
        c = eval(e, {}, {"r": r, "n": n})
        if c:
            want[(r, name)] = c
if got != want:
    sys.exit("MPI rows differ:\n got  %s\n want %s" % (sorted(got.items()), sorted(want.items())))

if parent:
    folded = subprocess.run([sp_report, "--export", "folded", out], check=True,
                            capture_output=True, text=True).stdout
    seen = 0
    for line in folded.splitlines():
        stack = line.rsplit(" ", 1)[0].split(";")
        leaf = stack[-1]
        if leaf.startswith("MPI_") and leaf not in ("MPI_Init", "MPI_Comm_rank", "MPI_Comm_size"):
            seen += 1
            if len(stack) < 2 or stack[-2] != parent:
                sys.exit("%s is not directly under %s: %s" % (leaf, parent, line))
    assert seen > 0, folded
print("mpi: %d ranks, MPI rows as expected: %s" % (n, " ".join(sorted(expect)) or "none"))
