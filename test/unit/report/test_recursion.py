#!/usr/bin/env python3
"""test_recursion.py - a region's total counts its outermost calls only: a
hand-stamped profile (recursion three deep, a non-recursive sibling, two
threads, two ranks) through every view that shows a total, read from .spt
(calls), a merged .h5 (summary records), --events and an .h5 whose records
predate outer_total_ns; then a real recursive fib built with sp-cc.
usage: test_recursion.py SP_REPORT SP_IMPORT WORKDIR [SP_CC FIB_C]"""
import csv
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

from rptest import check, eq, finish, tool

REPORT, IMPORT, WORK = sys.argv[1:4]
CC, FIB = (sys.argv[4], sys.argv[5]) if len(sys.argv) > 5 else (None, None)


run = tool(REPORT, stdout_only=True)


def write_spt(path, rank, blocks):
    """.spt version 3; blocks: (thread, name, [(start, end), ...])."""
    out = [b"SCOPEPRF", struct.pack("<iiq", 3, rank, len(blocks))]
    for thread, name, calls in blocks:
        nb, fb = name.encode(), b"r.c"
        out.append(struct.pack("<ii", thread, len(nb)) + nb)
        out.append(struct.pack("<i", len(fb)) + fb + struct.pack("<i", 1))
        out.append(struct.pack("<q", len(calls)))
        out.append(struct.pack("<%dq" % len(calls), *[s for s, _ in calls]))
        out.append(struct.pack("<%dq" % len(calls), *[e for _, e in calls]))
    with open(path, "wb") as f:
        f.write(b"".join(out))


shutil.rmtree(WORK, ignore_errors=True)
D = WORK + "/spt"
os.makedirs(D)
# Rank 0 thread 0: main [0, 10000] holds rec [1000, 5000] > rec [1500, 4000]
# > rec [2000, 3000] > leaf [2200, 2500], then rec [6000, 7000] and leaf
# [7500, 9000]. Thread 1: rec [0, 2000] > rec [500, 1500]. Rank 1: rec
# [0, 1000]. Stamps in ns.
write_spt(D + "/run_rank00000.spt", 0, [
    (0, "main", [(0, 10000)]),
    (0, "rec", [(1000, 5000), (1500, 4000), (2000, 3000), (6000, 7000)]),
    (0, "leaf", [(2200, 2500), (7500, 9000)]),
    (1, "rec", [(0, 2000), (500, 1500)]),
])
write_spt(D + "/run_rank00001.spt", 1, [(0, "rec", [(0, 1000)])])
MERGED = WORK + "/merged.h5"
subprocess.run([IMPORT, "-o", MERGED, D], check=True, capture_output=True)

# By hand. rec: 7 calls of 4000, 2500, 1000, 1000 | 2000, 1000 | 1000 ns;
# every call 12500 ns (the mean's), outermost calls 4000 + 1000 + 2000 +
# 1000 = 8000 ns; exclusive 1500 + 1500 + 700 + 1000 + 1000 + 1000 + 1000.
# Per rank 7000 and 1000 (imbal 7000 / 4000); rank 0's threads 5000 and
# 2000 (timbal 5000 / 3500). Span 0..10000 on 2 ranks: %span 40.0.
REC = dict(calls=7, total=8000, avg=12500 / 7, min=1000, max=4000,
           excl=7700, span=40.0, imbal=1.75, timbal=5000 / 3500)
LEAF = dict(calls=2, total=1800, avg=900, excl=1800, span=18.0)
MAIN = dict(calls=1, total=10000, excl=10000 - 4000 - 1000 - 1500)

INPUTS = {"spt": [D], "h5": [MERGED], "events": ["--events", MERGED]}

# Files written before summary records held outer_total_ns: read in full.
try:
    import h5py
    import numpy as np
    OLD = WORK + "/old.h5"
    shutil.copy(MERGED, OLD)
    with h5py.File(OLD, "r+") as f:
        ix = f["rank_region_index"]
        raw = ix["summary_statistics"][()]
        check("outer_total_ns" in raw.dtype.names, "summary has outer_total_ns")
        check(ix["summary_statistics"].dtype.itemsize == 88, "88-byte records")
        keep = [n for n in raw.dtype.names if n != "outer_total_ns"]
        old = np.zeros(raw.shape, dtype=[(n, raw.dtype[n]) for n in keep])
        for n in keep:
            old[n] = raw[n]
        del ix["summary_statistics"]
        ix["summary_statistics"] = old
    INPUTS["old-h5"] = [OLD]
except ImportError:
    print("h5py missing: the older-file case is not run")

for label, args in INPUTS.items():
    rows = {r["region"]: r for r in csv.DictReader(io.StringIO(
        run("--export", "csv", *args)))}
    r = rows["rec"]
    w = f"{label} rec"
    eq(int(r["calls"]), REC["calls"], w + " calls")
    eq(int(r["total_ns"]), REC["total"], w + " total")
    eq(round(float(r["avg_ns"]), 3), round(REC["avg"], 3), w + " avg")
    eq(int(r["min_ns"]), REC["min"], w + " min")
    eq(int(r["max_ns"]), REC["max"], w + " max")
    eq(int(r["exclusive_ns"]), REC["excl"], w + " excl")
    eq(float(r["span_pct"]), REC["span"], w + " %span")
    eq(round(float(r["imbalance"]), 4), round(REC["imbal"], 4), w + " imbal")
    eq(round(float(r["thread_imbalance"]), 4), round(REC["timbal"], 4),
       w + " timbal")
    for name, want in (("leaf", LEAF), ("main", MAIN)):
        for k, col in (("calls", "calls"), ("total", "total_ns"),
                       ("excl", "exclusive_ns")):
            eq(int(rows[name][col]), want[k], f"{label} {name} {k}")
    eq(float(rows["leaf"]["span_pct"]), LEAF["span"], f"{label} leaf %span")
    # --by-rank, --by-thread
    br = {r["rank"]: r for r in csv.DictReader(io.StringIO(run(
        "--export", "csv", "--by-rank", "--include", "^rec$", *args)))}
    eq({k: int(v["total_ns"]) for k, v in br.items()}, {"0": 7000, "1": 1000},
       label + " by-rank totals")
    eq(round(float(br["0"]["imbalance"]), 4), 1.75, label + " by-rank imbal")
    bt = {(r["rank"], r["thread"]): r for r in csv.DictReader(io.StringIO(run(
        "--export", "csv", "--by-thread", "--include", "^rec$", *args)))}
    eq({k: int(v["total_ns"]) for k, v in bt.items()},
       {("0", "0"): 5000, ("0", "1"): 2000, ("1", "0"): 1000},
       label + " by-thread totals")
    eq({k: int(v["calls"]) for k, v in bt.items()},
       {("0", "0"): 4, ("0", "1"): 2, ("1", "0"): 1}, label + " by-thread calls")
    # the table
    line = next(l for l in run(*args).splitlines() if l.startswith("rec "))
    eq(line.split()[3:5], ["8", "us"], label + " table total")
    eq(line.split()[-3], "40.0", label + " table %span")
    # json: seconds, per rank too
    js = json.loads(run("--export", "json", *args))["files"][0]["regions"]
    eq(round(js["rec"]["total"] * 1e9), 8000, label + " json total")
    eq(round(js["rec"]["average"] * 1e9, 3), round(12500 / 7, 3),
       label + " json average")
    eq({k: round(v["total"] * 1e9) for k, v in js["rec"]["per_rank"].items()},
       {"0": 7000, "1": 1000}, label + " json per-rank totals")
    # --diff against itself: total A and B both the outermost calls'
    d = next(l for l in run("--diff", *args, *args[-1:]).splitlines()
             if l.startswith("rec "))
    eq(d.split()[3:7], ["8", "us", "8", "us"], label + " diff totals")
    # --svg compare --metric total
    root = ET.fromstring(run("--svg", "compare", "--metric", "total",
                             "--include", "^rec$", *args, *args[-1:]))
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    # a bar's title: "rec in FILE: total 8 us", then "7 calls, total 8 us";
    # the legend's swatches title the profiles
    bars = [t.split("\n") for t in titles if t.startswith("rec in ")]
    check(len(bars) == 2 and all(
        b[0].endswith(": total 8 us") and b[1] == "7 calls, total 8 us"
        for b in bars), f"{label} compare titles {titles}")

# --region: the total the table shows, the mean over every call
reg = run("--region", "rec", D).splitlines()
eq(reg[2].split()[:2], ["total", "8000.0"], "--region total")
eq(reg[3].split()[:2], ["mean", "%.1f" % (12500 / 7)], "--region mean")

# ---- a real recursive program ---------------------------------------------
if CC:
    env = dict(os.environ, SP_FORMAT="spt", SP_OUTPUT=WORK + "/fib")
    subprocess.run([CC, "-O0", "-g", FIB, "-o", WORK + "/fibprog"], check=True,
                   env=env)
    subprocess.run([WORK + "/fibprog"], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    P = WORK + "/fib_rank00000.spt"
    row = next(r for r in csv.DictReader(io.StringIO(run("--export", "csv", P)))
               if r["region"] == "fib")
    eq(int(row["calls"]), 3 * 465, "fib calls")  # fib(12): 465 calls
    # The outermost calls from the events: depth 1 (under main); their sum
    # is the total, all calls' durations sum to the mean's.
    ev = [e for e in csv.DictReader(io.StringIO(run("--export", "events", P)))
          if e["region"] == "fib"]
    outer = sum(int(e["duration_ns"]) for e in ev if e["depth"] == "1")
    every = sum(int(e["duration_ns"]) for e in ev)
    eq(sum(e["depth"] == "1" for e in ev), 3, "fib outermost calls")
    eq(int(row["total_ns"]), outer, "fib total = outermost calls")
    check(every > 2 * outer, f"fib nested calls counted in the sum: {every}")
    eq(round(float(row["avg_ns"]), 3), round(every / len(ev), 3), "fib avg")
    # the call tree's main > fib node: its 3 calls, and the recursive ones
    # folded into it (direct recursion folds: no fib > fib node)
    tree = [l for l in run("--tree", P).splitlines() if " fib" in l]
    eq(len(tree), 1, "tree: one fib node")
    eq(int(tree[0].split()[0]), 3, "tree main > fib calls")
    check(tree[0].endswith("  fib (+%d calls folded in)" % (3 * 465 - 3)),
          f"tree fib folded calls: {tree[0]}")
    spans = [int(e["end_ns"]) - int(e["start_ns"]) for e in ev]
    eq(sum(s for s, e in zip(spans, ev) if e["depth"] == "1"), outer,
       "outer from stamps")
    # the table's %span stays within the run: fib is under main
    line = next(l for l in run(P).splitlines() if l.startswith("fib "))
    check(float(line.split()[-3]) <= 100.0, f"fib %span: {line}")
    # merged .h5 (summary records) agrees
    subprocess.run([IMPORT, "-o", WORK + "/fib.h5", P], check=True,
                   capture_output=True)
    row5 = next(r for r in csv.DictReader(io.StringIO(
        run("--export", "csv", WORK + "/fib.h5"))) if r["region"] == "fib")
    eq(int(row5["total_ns"]), outer, "fib .h5 total")

finish()
