#!/usr/bin/python3
"""check_calls.py DIR SP_IMPORT SP_REPORT NRANKS [--parent REGION] [NAME=EXPR ...]
- merges the rank files in DIR and checks that the MPI_ rows of each rank are
exactly NAME=EXPR (EXPR: a Python expression of r, the rank, and n, the
number of ranks); no NAME=EXPR means no MPI_ row at all. With --parent, every
MPI call but MPI_Init, MPI_Comm_rank and MPI_Comm_size sits directly under
REGION in every call stack (sp-report --export folded)."""
import json
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

# sp-report --mpi: the same counts per rank and function, and each rank's
# time in MPI at least its longest function's and at most their sum (the
# union of its MPI calls); without MPI rows, one line saying so.
mpi = subprocess.run([sp_report, "--mpi", "--export", "json", out], check=True,
                     capture_output=True, text=True).stdout
view = json.loads(mpi)
cells = {(int(r), fn["name"]): c["calls"] for fn in view["functions"]
         for r, c in fn["per_rank"].items() if c["calls"]}
if cells != want:
    sys.exit("--mpi counts differ:\n got  %s\n want %s" % (sorted(cells.items()), sorted(want.items())))
for rk in view["ranks"]:
    r = rk["rank"]
    tot = [fn["per_rank"][str(r)]["total_ns"] for fn in view["functions"]]
    assert rk["calls"] == sum(c for (q, _), c in want.items() if q == r), (rk, want)
    assert (max(tot) if tot else 0) <= rk["mpi_ns"] <= min(sum(tot), rk["span_ns"]), (rk, tot)
if not want:
    text = subprocess.run([sp_report, "--mpi", out], check=True, capture_output=True,
                          text=True).stdout
    assert text == "%s: no MPI calls (no region named MPI_* or PMPI_*)\n" % out, text

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
