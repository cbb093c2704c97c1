#!/usr/bin/python3
# test_likwid.py - the counters per region (SP_COUNTERS) from Python:
# read_h5_summary(include_likwid=True) and read_h5 on two ranks merged by
# sp-import, value for value against the file (h5py) and against what the
# program did (fresh pages touched, nesting exact); filters; none asked.
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

PROG, IMPORT, MODULE, WORK = sys.argv[1:5]
from sptest import check, eq, failures  # noqa: E402

from scopeprof import read_h5, read_h5_summary  # noqa: E402

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
env = {k: v for k, v in os.environ.items() if not k.startswith(("SP_", "OMPI_", "PMI"))}
env.update(SP_OUTPUT=os.path.join(WORK, "c"), SP_H5_MODULE=MODULE,
           SP_COUNTERS="page-faults,context-switches")
for rank, pages in ((0, 20), (1, 40)):
    subprocess.run([PROG, str(pages), "2", "8"], env=dict(env, SP_RANK=str(rank)), check=True)
merged = os.path.join(WORK, "m.h5")
subprocess.run([IMPORT, "-o", merged, WORK], check=True)

res = read_h5_summary(merged)
df = res.likwid
eq(list(df.columns), ["name", "rank", "thread", "calls", "page-faults", "page-faults_excl",
                      "context-switches", "context-switches_excl", "faults_per_call"],
   "columns")
eq(list(df["rank"].unique()), [0, 1], "ranks")
with h5py.File(merged, "r") as h:
    for rank in (0, 1):
        g = h["rank%d/likwid" % rank]
        eq([x.decode() if isinstance(x, bytes) else x for x in g.attrs["counters"]],
           ["page-faults", "context-switches"], "rank %d counters" % rank)
        sub = df[df["rank"] == rank]
        eq(len(sub), len(g["region"]), "rank %d rows" % rank)
        for i, name in enumerate(g["region"][()]):
            name = name.decode() if isinstance(name, bytes) else name
            row = sub[(sub["name"] == name) & (sub["thread"] == g["thread"][i])]
            eq(len(row), 1, "rank %d %s: one row" % (rank, name))
            eq(int(row["calls"].iloc[0]), int(g["calls"][i]), "calls")
            eq(int(row["page-faults"].iloc[0]), int(g["inclusive"][i, 0]), "inclusive")
            eq(int(row["context-switches_excl"].iloc[0]), int(g["exclusive"][i, 1]),
               "exclusive")


def one(rank, name, col, thread=0):
    r = df[(df["rank"] == rank) & (df["name"] == name) & (df["thread"] == thread)]
    return r[col].iloc[0]


for rank, pages in ((0, 20), (1, 40)):
    pf = int(one(rank, "touch", "page-faults"))
    check(pages <= pf <= pages + 8, "rank %d touch: %d faults for %d pages" % (rank, pf, pages))
    eq(float(one(rank, "touch", "faults_per_call")), float(pf), "faults per call")
    check(int(one(rank, "nap", "context-switches")) >= 2, "rank %d: naps switch" % rank)
    for c in ("page-faults", "context-switches"):
        inner = sum(int(one(rank, n, c)) for n in ("touch", "nap", "spin"))
        eq(int(one(rank, "outer", c)), int(one(rank, "outer", c + "_excl")) + inner,
           "rank %d outer %s: exclusive plus its children" % (rank, c))
    w = int(one(rank, "worker_touch", "page-faults", thread=1))
    check(8 <= w <= 16, "rank %d worker: %d faults" % (rank, w))

sel = read_h5_summary(merged, regions=["touch"], ranks=[1]).likwid
eq(len(sel), 1, "filtered rows")
eq(list(sel["name"]), ["touch"], "filtered name")
eq(read_h5_summary(merged, include_likwid=False).likwid, None, "not asked")
full = read_h5(WORK).likwid  # the per-rank files of the directory
eq(len(full), len(df), "read_h5 rows")
eq(int(full["page-faults"].sum()), int(df["page-faults"].sum()), "read_h5 sums")
# A run without counters: an empty frame of the base columns.
plain = os.path.join(WORK, "plain")
os.makedirs(plain)
penv = dict(env, SP_OUTPUT=os.path.join(plain, "p"), SP_FORMAT="h5")
del penv["SP_COUNTERS"]
subprocess.run([PROG, "4", "0", "0"], env=penv, check=True)
none = read_h5_summary(plain).likwid
eq(list(none.columns), ["name", "rank", "thread", "calls"], "empty columns")
eq(len(none), 0, "empty rows")
check(np.issubdtype(df["page-faults"].dtype, np.integer), "counts are integers")

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("ok")
