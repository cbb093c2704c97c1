#!/usr/bin/env python3
"""test_report.py - sp-report against hand-built profiles (report_gen.c):
exact summary values, filters, every export parsed back, SVGs as XML,
one-line errors and no partial output.
usage: test_report.py SP_REPORT REPORT_GEN SP_IMPORT WORKDIR"""
import csv
import io
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

from rptest import check, finish, tool

REPORT, GEN, IMPORT, WORK = sys.argv[1:5]


run = tool(REPORT)


def one_line_error(args, needle):
    p = run(*args, ok=False)
    lines = p.stderr.strip().splitlines()
    check(p.returncode != 0, f"{args}: exit status {p.returncode}")
    check(len(lines) == 1, f"{args}: {len(lines)} lines: {p.stderr!r}")
    check(needle in p.stderr, f"{args}: {needle!r} not in {p.stderr!r}")
    check(p.stdout == "", f"{args}: stdout not empty")


def csv_rows(*args):
    out = run("--export", "csv", *args).stdout
    return {r["region"] + ("@" + r["rank"] if "rank" in r else ""): r
            for r in csv.DictReader(io.StringIO(out))}


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK + "/a")
subprocess.run([GEN, WORK], check=True)
A = WORK + "/a"
R0, R1 = A + "/run_rank00000.spt", A + "/run_rank00001.h5"
MERGED = WORK + "/merged.h5"
subprocess.run([IMPORT, "-o", MERGED, A], check=True, capture_output=True)

# ---- exact summary (by hand, from report_gen.c's layout) ------------------
# main: 1000, 500, 2000; excl 300 + 400 + 700.  solve: 300, 400, 1000;
# excl 300 + 300 + 1000.  io: 100, 100, 100, 200.  Span 0..2000.
EXPECT = {
    "main": dict(ranks=2, calls=3, total=3500, min=500, max=2000, excl=1400,
                 std=math.sqrt(((1000 - 3500 / 3) ** 2 + (500 - 3500 / 3) ** 2
                                + (2000 - 3500 / 3) ** 2) / 3),
                 span=87.5, imbal=2000 / 1750, file="m.c", line=10),
    "solve": dict(ranks=2, calls=3, total=1700, min=300, max=1000, excl=1600,
                  std=math.sqrt(((300 - 1700 / 3) ** 2 + (400 - 1700 / 3) ** 2
                                 + (1000 - 1700 / 3) ** 2) / 3),
                  span=42.5, imbal=1000 / 850, file="s.c", line=20),
    "io": dict(ranks=2, calls=4, total=500, min=100, max=200, excl=500,
               std=math.sqrt(1875), span=12.5, imbal=1.2, file="io.c",
               line=30),
}
for label, inputs in [("directory", [A]), ("files", [R0, R1]),
                      ("merged summary-only", [MERGED]),
                      ("same file twice", [MERGED, "./" + os.path.relpath(MERGED)])]:
    rows = csv_rows(*inputs)
    check(list(rows) == ["main", "solve", "io"],
          f"{label}: order by total {list(rows)}")
    for name, e in EXPECT.items():
        r = rows[name]
        for k, col in [("ranks", "ranks"), ("calls", "calls"),
                       ("min", "min_ns"), ("max", "max_ns"), ("line", "line")]:
            check(int(r[col]) == e[k], f"{label} {name} {k}: {r}")
        check(int(r["total_ns"]) == e["total"], f"{label} {name} total {r}")
        check(int(r["exclusive_ns"]) == e["excl"], f"{label} {name} excl {r}")
        check(abs(float(r["avg_ns"]) - e["total"] / e["calls"]) < 1e-3,
              f"{label} {name} avg {r}")
        check(abs(float(r["std_ns"]) - e["std"]) < 1e-3,
              f"{label} {name} std {r} vs {e['std']}")
        check(abs(float(r["span_pct"]) - e["span"]) < 1e-4,
              f"{label} {name} span {r}")
        check(abs(float(r["imbalance"]) - e["imbal"]) < 1e-4,
              f"{label} {name} imbalance {r}")
        check(r["file"] == e["file"], f"{label} {name} file {r}")

# Statistics recomputed from the calls equal the stored summary records.
check(run("--events", MERGED).stdout == run(MERGED).stdout, "--events table")
check(run("--events", "--by-rank", "--export", "csv", MERGED).stdout ==
      run("--by-rank", "--export", "csv", MERGED).stdout, "--events csv")

# The table reads summary records only: in a merged file whose event
# columns are zeroed it is unchanged, while reading calls sees the zeros.
try:
    import h5py
    NOEV = WORK + "/zeroed.h5"
    shutil.copy(MERGED, NOEV)
    with h5py.File(NOEV, "r+") as h:
        h["events/start_times"][...] = 0
        h["events/end_times"][...] = 0
    same = run(MERGED).stdout.replace(MERGED, NOEV)
    check(run(NOEV).stdout == same, "summary-only table ignores events")
    check(run("--events", NOEV).stdout != same, "--events reads the calls")
    rows = csv_rows("--events", NOEV)
    check(rows["main"]["total_ns"] == "0", f"--events zeroed {rows['main']}")
    # A file from before summary records: its calls are read instead.
    OLD = WORK + "/no_summary.h5"
    shutil.copy(MERGED, OLD)
    with h5py.File(OLD, "r+") as h:
        del h["rank_region_index/summary_statistics"]
    check(run(OLD).stdout == run(MERGED).stdout.replace(MERGED, OLD),
          "no summary records: statistics from the calls")
    # Time the runtime waited for the disk is said under the header, and
    # only when it is not zero.
    WAITED = WORK + "/waited.h5"
    shutil.copy(MERGED, WAITED)
    with h5py.File(WAITED, "r+") as h:
        h["metadata"].attrs["recording_wait_ns"] = 1500000000
    t = run(WAITED).stdout.splitlines()
    check(t[1].startswith("note: recording waited 1.500 s for the disk"),
          f"wait note: {t[:2]}")
    with h5py.File(WAITED, "r+") as h:
        h["metadata"].attrs["recording_wait_ns"] = 0
    check(run(WAITED).stdout == run(MERGED).stdout.replace(MERGED, WAITED),
          "no note without a wait")
    # The index is checked once, for every reader: summary records whose
    # call count is not the row's events, and two rows for one (rank,
    # thread, region), fail the summary read and the calls' read alike.
    BADSUM = WORK + "/tampered.h5"
    shutil.copy(MERGED, BADSUM)
    with h5py.File(BADSUM, "r+") as h:
        st = h["rank_region_index/summary_statistics"][()]
        n1 = int(h["rank_region_index/event_counts"][1])
        st["calls"][1] += 10
        h["rank_region_index/summary_statistics"][...] = st
    for args in ([BADSUM], ["--events", BADSUM]):
        one_line_error(args, f"{BADSUM}: row 1: summary_statistics says "
                       f"{n1 + 10} calls, the row has {n1} events")
    DUP = WORK + "/duprow.h5"
    shutil.copy(MERGED, DUP)
    with h5py.File(DUP, "r+") as h:
        ix = h["rank_region_index"]
        for col in ("ranks", "threads", "region_ids"):
            v = ix[col][()]
            v[2] = v[0]
            ix[col][...] = v
        st = ix["summary_statistics"][()]
        st["calls"][2] = ix["event_counts"][2]
        ix["summary_statistics"][...] = st
        name = h["region_table/names"][int(ix["region_ids"][0])].decode()
        want = (f"{DUP}: rows 0 and 2: two rows for rank {int(ix['ranks'][0])} "
                f"thread {int(ix['threads'][0])} region {name}")
    for args in ([DUP], ["--events", DUP]):
        one_line_error(args, want)
except ImportError:
    print("note: h5py absent, summary-only check skipped")

# The table: units, names, ranks.
t = run(A).stdout.splitlines()
check(t[0] == f"{A}: 2 ranks, span 2 us", f"table head {t[0]!r}")
check(t[1].split() == ["region", "ranks", "calls", "total", "avg", "min",
                       "max", "std", "excl", "%span", "imbal", "timbal"], t[1])
# timbal: rank 0's threads ran main for 1000 and 500 (mean 750), rank 1's
# one thread 1.00: the worst rank's 1000 / 750.
check(t[2].split() == ["main", "2", "3", "3.5", "us", "1.17", "us", "500",
                       "ns", "2", "us", "624", "ns", "1.4", "us", "87.5",
                       "1.14", "1.33"], f"table main {t[2]!r}")
check([l.split()[0] for l in t[2:]] == ["main", "solve", "io"], t)

# --by-rank: per-rank values, imbalance = rank total / mean of rank totals.
rows = csv_rows("--by-rank", A)
check(sorted(rows) == ["io@0", "io@1", "main@0", "main@1", "solve@0",
                       "solve@1"], sorted(rows))
check(rows["main@0"]["calls"] == "2" and rows["main@0"]["total_ns"] == "1500"
      and rows["main@0"]["exclusive_ns"] == "700", rows["main@0"])
check(rows["solve@1"]["total_ns"] == "1000" and
      abs(float(rows["solve@1"]["imbalance"]) - 1000 / 850) < 1e-4,
      rows["solve@1"])
check(rows["io@1"]["min_ns"] == "100" and rows["io@1"]["max_ns"] == "200",
      rows["io@1"])
# Thread imbalance per rank: rank 0's threads 1000 and 500, rank 1 alone.
check(abs(float(rows["main@0"]["thread_imbalance"]) - 1000 / 750) < 1e-4 and
      float(rows["main@1"]["thread_imbalance"]) == 1.0,
      (rows["main@0"], rows["main@1"]))
rows = csv_rows(A)
check(abs(float(rows["main"]["thread_imbalance"]) - 1000 / 750) < 1e-4 and
      float(rows["solve"]["thread_imbalance"]) == 1.0 and
      float(rows["io"]["thread_imbalance"]) == 1.0, rows)

# --by-thread: one row per region, rank and thread; imbal is the row's
# rank's (as --by-rank), timbal this thread's total / its rank's mean.
out = run("--by-thread", "--export", "csv", A).stdout
T = {(r["region"], r["rank"], r["thread"]): r
     for r in csv.DictReader(io.StringIO(out))}
check(out.splitlines()[0].startswith("region,rank,thread,calls,total_ns,"),
      out.splitlines()[0])
check(sorted(T) == [("io", "0", "0"), ("io", "0", "1"), ("io", "1", "0"),
                    ("main", "0", "0"), ("main", "0", "1"),
                    ("main", "1", "0"), ("solve", "0", "0"),
                    ("solve", "1", "0")], sorted(T))
r = T[("main", "0", "1")]
check(r["calls"] == "1" and r["total_ns"] == "500" and
      r["exclusive_ns"] == "400" and
      abs(float(r["imbalance"]) - 1500 / 1750) < 1e-4 and
      abs(float(r["thread_imbalance"]) - 500 / 750) < 1e-4, r)
r = T[("main", "0", "0")]
check(r["total_ns"] == "1000" and r["exclusive_ns"] == "300" and
      abs(float(r["thread_imbalance"]) - 1000 / 750) < 1e-4, r)
check(T[("solve", "0", "0")]["calls"] == "2" and
      T[("solve", "0", "0")]["total_ns"] == "700", T[("solve", "0", "0")])
t = run("--by-thread", "--include", "^main$", A).stdout.splitlines()
check(t[1].split()[:4] == ["region", "rank", "thread", "calls"], t[1])
check([l.split()[:3] for l in t[2:]] ==
      [["main", "1", "0"], ["main", "0", "0"], ["main", "0", "1"]], t)
check(t[4].split()[-2:] == ["0.86", "0.67"], t[4])
t = run("--by-thread", "--sort", "thread", "--include", "^io$",
        A).stdout.splitlines()
check([l.split()[1:3] for l in t[2:]] == [["0", "0"], ["1", "0"], ["0", "1"]],
      f"--sort thread {t}")
check(run("--events", "--by-thread", "--export", "csv", MERGED).stdout ==
      run("--by-thread", "--export", "csv", MERGED).stdout,
      "--events --by-thread csv")

# --sort, --top, --include, --exclude, --ranks
out = run("--sort", "calls", A).stdout.splitlines()
check([l.split()[0] for l in out[2:]] == ["io", "main", "solve"], out)
out = run("--sort", "region", "--top", "2", A).stdout.splitlines()
check([l.split()[0] for l in out[2:]] == ["io", "main"], out)
rows = csv_rows("--include", "^(main|io)$", A)
check(list(rows) == ["main", "io"], list(rows))
rows = csv_rows("--exclude", "o", A)
check(list(rows) == ["main"], list(rows))
rows = csv_rows("--ranks", "1", MERGED)
check(rows["main"]["ranks"] == "1" and rows["main"]["total_ns"] == "2000" and
      abs(float(rows["main"]["imbalance"]) - 1.0) < 1e-9, rows["main"])
rows = csv_rows("--ranks", "0-0,7", A)
check(rows["io"]["calls"] == "2" and rows["io"]["total_ns"] == "200",
      rows["io"])
check(run("--ranks", "0,1", A).stdout == run(A).stdout, "--ranks 0,1")

# ---- json: scope-profiler's region_statistics.json layout ------------------
j = json.loads(run("--export", "json", A, WORK + "/s1.h5").stdout)
check(len(j["files"]) == 2, j.keys())
ra = j["files"][0]["regions"]
check(sorted(ra) == ["io", "main", "solve"], ra.keys())
m = ra["main"]
check(m["count"] == 3 and abs(m["total"] - 3.5e-6) < 1e-15 and
      abs(m["average"] - 3.5e-6 / 3) < 1e-15 and abs(m["min"] - 5e-7) < 1e-15
      and abs(m["max"] - 2e-6) < 1e-15 and
      abs(m["std"] - EXPECT["main"]["std"] / 1e9) < 1e-15, m)
check(sorted(m["per_rank"]) == ["0", "1"] and
      m["per_rank"]["0"]["count"] == 2 and
      abs(m["per_rank"]["1"]["total"] - 2e-6) < 1e-15, m["per_rank"])
check(m["source_file"] == "m.c" and m["source_lineno"] == 10, m)
check(abs(m["thread_imbalance"] - 1000 / 750) < 1e-5, m)
check(j["common_regions"] == ["main", "solve"], j["common_regions"])
check(j["files"][1]["mpi_size"] == 1, j["files"][1])
j = json.loads(run("--export", "json", "--top", "1", A).stdout)
check(list(j["files"][0]["regions"]) == ["main"] and
      sorted(j["files"][0]["regions"]["main"]["per_rank"]) == ["0", "1"],
      f"json --top 1: {j}")

# ---- --diff ---------------------------------------------------------------
d = run("--diff", WORK + "/s1.h5", WORK + "/s4.h5").stdout.splitlines()
check(d[2].split()[:3] == ["region", "calls", "A"], d[2])
body = {l.split()[0]: l.split() for l in d[3:]}
check(list(body) == ["main", "solve", "io"], list(body))
check(body["main"][1:3] == ["1", "1"] and "0.250x" in body["main"],
      body["main"])
check(body["solve"][1:3] == ["2", "2"] and "0.250x" in body["solve"],
      body["solve"])
check(body["io"][1:3] == ["-", "1"] and "new" in body["io"], body["io"])
# A ratio far below 1 stays readable: 230 us -> 80 ns is 1/2875x.
for name, dur in (("ra", 230000), ("rb", 80)):
    with open(f"{WORK}/{name}.spt", "wb") as fh:
        fh.write(b"SCOPEPRF" + struct.pack("<iiq", 2, 0, 1) +
                 struct.pack("<i", 1) + b"k" + struct.pack("<i", 3) + b"k.c" +
                 struct.pack("<iq", 1, 1) + struct.pack("<2q", 1000, 1000 + dur))
d = run("--diff", WORK + "/ra.spt", WORK + "/rb.spt").stdout.splitlines()
check(d[3].split()[9] == "1/2875x" and d[3].split()[-1] == "1/2875x",
      f"small ratio: {d[3]!r}")
d = run("--diff", WORK + "/rb.spt", WORK + "/ra.spt").stdout.splitlines()
check(d[3].split()[9] == "2875x" and d[3].split()[-1] == "2875x",
      f"large ratio: {d[3]!r}")

# ---- errors: one line, no partial output ------------------------------------
one_line_error([WORK + "/nonexistent.h5"], "nonexistent.h5")
with open(WORK + "/garbage.spt", "wb") as f:
    f.write(b"SCOPEPRF\x07\x00\x00\x00")
one_line_error([WORK + "/garbage.spt"], "garbage.spt")
os.chmod(R0, 0)
if os.geteuid() != 0:  # root reads anything
    one_line_error([R0], "run_rank00000.spt")
os.chmod(R0, 0o644)
one_line_error([WORK + "/empty.spt"], "no regions")
p = run("--version")
check(re.fullmatch(r"sp-report \(ScopeProf\) \d+\.\d+\.\d+\n", p.stdout) and
      p.stderr == "", f"--version: {p.stdout!r} {p.stderr!r}")
# A FIFO is refused at once, not waited on.
os.mkfifo(WORK + "/fifo.spt")
try:
    p = subprocess.run([REPORT, WORK + "/fifo.spt"], capture_output=True,
                       text=True, timeout=10)
    check(p.returncode == 1 and
          p.stderr == f"sp-report: {WORK}/fifo.spt: not a regular file\n",
          f"fifo: {p.returncode} {p.stderr!r}")
except subprocess.TimeoutExpired:
    check(False, "fifo: sp-report blocked")
os.unlink(WORK + "/fifo.spt")

# Stamps at the ends of int64 (a crafted .spt v2: calls (INT64_MIN,
# INT64_MAX) and (0, INT64_MIN)): every view ends at once, with a result
# or one line.
lo, hi = -2**63, 2**63 - 1
with open(WORK + "/extreme.spt", "wb") as fh:
    fh.write(b"SCOPEPRF" + struct.pack("<iiq", 2, 0, 1) +
             struct.pack("<i", 1) + b"a" + struct.pack("<i", 3) + b"a.c" +
             struct.pack("<iq", 1, 2) + struct.pack("<4q", lo, 0, hi, lo))
for view in ([], ["--tree"], ["--by-rank"], ["--by-thread"],
             ["--svg", "timeline"], ["--svg", "flame"], ["--export", "chrome"],
             ["--export", "folded"], ["--export", "csv"], ["--export", "json"],
             ["--export", "events"], ["--region", "a"], ["--events"],
             ["--export", "otf2", "-o", WORK + "/extreme.otf2"],
             ["--mpi"],
             ["--svg", "compare", WORK + "/extreme.spt"]):
    try:
        p = subprocess.run([REPORT, WORK + "/extreme.spt", *view],
                           capture_output=True, text=True, timeout=10)
        check(p.returncode == 0 or (p.returncode == 1 and
                                    p.stderr.count("\n") == 1),
              f"extreme stamps {view}: {p.returncode} {p.stderr!r}")
    except subprocess.TimeoutExpired:
        check(False, f"extreme stamps {view}: did not end")
# Names: five that share their first 48 characters stay five distinct
# rows (start and end kept around "..."); newlines, escape sequences and
# bytes that are not UTF-8 are shown escaped; --wide shows them whole; an
# .h5 stores them as valid UTF-8.
vb = "std::_Vector_base<double, std::allocator<double> >::"
long_names = [vb + x for x in ("_M_allocate(unsigned long)",
                               "_M_deallocate(double*, unsigned long)",
                               "_Vector_impl::_Vector_impl()",
                               "~_Vector_base()",
                               "_M_create_storage(unsigned long)")]
raw = [n.encode() for n in long_names] + [b"bad\nname\x1b[31m\xffend",
                                          b"tab\there"]
img = b"SCOPEPRF" + struct.pack("<iiq", 2, 0, len(raw))
for k, nb in enumerate(raw):
    img += (struct.pack("<i", len(nb)) + nb + struct.pack("<i", 3) + b"a.c" +
            struct.pack("<iq", k + 1, 1) +
            struct.pack("<2q", 1000 * (k + 1), 1000 * (k + 1) + 10 * (k + 1)))
NM = WORK + "/names"  # not among the profiles other checks glob
os.makedirs(NM, exist_ok=True)
with open(NM + "/names.spt", "wb") as fh:
    fh.write(img)
t = run(NM + "/names.spt").stdout
rows = [l[:48] for l in t.splitlines()[2:]]
shown = [r for r in rows if r.startswith("std::")]
check(len(shown) == 5 and len(set(shown)) == 5 and
      all("..." in r for r in shown), f"long names: {shown}")
check(any(r.rstrip().endswith("~_Vector_base()") for r in shown),
      f"a long name keeps its end: {shown}")
check("bad\\nname\\x1b[31m\\xffend" in t and "\x1b" not in t and
      "tab\\there" in t, f"escaped names: {t!r}")
# Names alike at both ends, differing in the middle (templates): the cut
# keeps them distinct in the table and in --suggest-filter's table, by the
# part where they differ.
mid = ["sim::NBody<double>::%s(sim::Body<double> const&, sim::Body<double> const&) const" % m
       for m in ("force_between", "energy_between", "torque_between")]
img = b"SCOPEPRF" + struct.pack("<iiq", 2, 0, len(mid))
for k, nm in enumerate(mid):
    nb = nm.encode()
    img += (struct.pack("<i", len(nb)) + nb + struct.pack("<i", 3) + b"n.c" +
            struct.pack("<iq", k + 1, 1) + struct.pack("<2q", 10 * k, 10 * k + 5))
with open(NM + "/mid.spt", "wb") as fh:
    fh.write(img)
t = run(NM + "/mid.spt").stdout.splitlines()[2:]
shown = [l[:48] for l in t]
check(len(set(shown)) == 3 and all("..." in r for r in shown) and
      sorted(any(w in r for r in shown) for w in ("force", "energ", "torqu")) == [True] * 3,
      f"names alike at both ends: {shown}")
out = run("--suggest-filter=" + NM + "/mid.filter", NM + "/mid.spt").stdout
rows = [l[:48] for l in out.splitlines() if l.startswith("sim::")]
check(len(rows) == 3 and len(set(rows)) == 3, f"--suggest-filter's names: {rows}")
svg = ET.fromstring(run("--svg", "timeline", NM + "/mid.spt").stdout)
legend = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")
          if t.text and t.text.startswith("sim:") and "..." in t.text]
check(len(legend) == 3 and len(set(legend)) == 3, f"timeline legend: {legend}")
w = run("--wide", NM + "/names.spt").stdout
check(all(n in w for n in long_names), "--wide shows whole names")
tr = run("--tree", NM + "/names.spt").stdout
check("\x1b" not in tr and "bad\\nname" in tr, f"tree escapes: {tr!r}")
try:
    import h5py
    subprocess.run([IMPORT, "-o", NM + "/names.h5", NM + "/names.spt"],
                   check=True)
    with h5py.File(NM + "/names.h5", "r") as h:
        stored = list(h["region_table/names"].asstr()[()])
    check("bad\nname\x1b[31m\\xffend" in stored,
          f"stored as valid UTF-8: {stored}")
except ImportError:
    pass
# --region NAME: percentiles as NumPy's default (linear), the histogram's
# power-of-two buckets, against a hand-made profile of 997 calls on two
# threads.
import numpy as np
durs = [(i * 7919) % 100000 + 1 for i in range(997)]
blocks = []
for th in (0, 1):
    mine = durs[th::2]
    st = [10**6 * k for k in range(len(mine))]
    blocks.append((th, st, [a + b for a, b in zip(st, mine)]))
img = b"SCOPEPRF" + struct.pack("<iiq", 3, 0, 2)
for th, st, en in blocks:
    img += (struct.pack("<i", th) + struct.pack("<i", 4) + b"kern" +
            struct.pack("<i", 3) + b"k.c" + struct.pack("<iq", 9, len(st)) +
            struct.pack("<%dq" % len(st), *st) +
            struct.pack("<%dq" % len(en), *en))
with open(NM + "/dist.spt", "wb") as fh:
    fh.write(img)
out = run("--region", "kern", NM + "/dist.spt").stdout.splitlines()
check(out[0] == f"{NM}/dist.spt: region kern, 997 calls on 1 rank, "
      "2 threads; source k.c:9", f"--region head: {out[0]!r}")
vals = {l.split()[0]: float(l.split()[1]) for l in out[2:10]}
d = np.array(durs, dtype=np.int64)
for q in (50, 90, 99):
    want = float(np.percentile(d, q))
    check(abs(vals["p%d" % q] - want) <= 0.05,
          f"p{q}: {vals['p%d' % q]} vs numpy {want}")
check(vals["min"] == d.min() and vals["max"] == d.max() and
      abs(vals["mean"] - d.mean()) <= 0.05 and
      abs(vals["std"] - d.std()) <= 0.05, f"--region stats {vals}")
hist = [l for l in out[12:] if l.strip()]
buckets = np.floor(np.log2(d)).astype(int)
want = [int((buckets == b).sum()) for b in range(buckets.min(), buckets.max() + 1)]
got = [int(l.split(")")[1].split()[0]) for l in hist]
check(got == want, f"histogram {got} vs {want}")
one_line_error(["--region", "nope", NM + "/dist.spt"], "no call of region 'nope'")
# --region by the name users type: the whole name, the name without its
# parameters when one region has it, a unique part of a name; several
# candidates are listed.
fnames = [b"fib(int)", b"fib(long)", b"solve(double*)", b"ns::solve_all()"]
img = b"SCOPEPRF" + struct.pack("<iiq", 2, 0, len(fnames))
for k, nb in enumerate(fnames):
    img += (struct.pack("<i", len(nb)) + nb + struct.pack("<i", 3) + b"f.c" +
            struct.pack("<iq", k + 1, k + 1) +
            struct.pack("<%dq" % (k + 1), *[100 * j for j in range(k + 1)]) +
            struct.pack("<%dq" % (k + 1), *[100 * j + 10 * (k + 1)
                                            for j in range(k + 1)]))
with open(NM + "/fns.spt", "wb") as fh:
    fh.write(img)
for arg, whole, calls in (("fib(int)", "fib(int)", 1), ("solve", "solve(double*)", 3),
                          ("solve_a", "ns::solve_all()", 4),
                          ("(long", "fib(long)", 2)):
    head = run("--region", arg, NM + "/fns.spt").stdout.splitlines()[0]
    check(head.startswith(f"{NM}/fns.spt: region {whole}, {calls} call"),
          f"--region {arg}: {head!r}")
one_line_error(["--region", "fib", NM + "/fns.spt"],
               "region 'fib' is ambiguous: 2 regions match ('fib(int)', 'fib(long)')")
one_line_error(["--region", "(", NM + "/fns.spt"], "4 regions match")
one_line_error(["--include", "(unclosed", A], "--include '(unclosed'")
one_line_error(["--exclude", "[z-a]", A], "--exclude")
one_line_error(["--include", "nothing-matches", A], "no region matches")
one_line_error(["--sort", "speed", A], "--sort 'speed'")
one_line_error(["--ranks", "1-0", A], "--ranks '1-0'")
one_line_error(["--bogus", A], "unknown option --bogus")
# Usage errors: status 2, one line ending with where the usage is.
for args, why in ((["--bogus", A], "unknown option --bogus"),
                  ([A, "--top"], "--top needs a value"),
                  ([A, "--sor"], "--sort needs a value"),
                  (["--tree=1", A], "--tree takes no value"),
                  (["--top", "0", A], "--top needs a positive number"),
                  (["--diff", "--by-rank", A, A], "--diff takes --top, "
                   "--include, --exclude, --ranks, --events and -o, not "
                   "--by-rank, --by-thread or --sort"),
                  (["--diff", "--by-thread", A, A], "--diff takes --top, "
                   "--include, --exclude, --ranks, --events and -o, not "
                   "--by-rank, --by-thread or --sort"),
                  (["--diff", "--sort", "calls", A, A], "--diff takes --top, "
                   "--include, --exclude, --ranks, --events and -o, not "
                   "--by-rank, --by-thread or --sort"),
                  (["--window", "0:1", A], "--window is for --svg timeline, "
                   "--export otf2 and --export chrome only"),
                  (["--min-duration", "5", A], "--min-duration is for --export chrome only"),
                  (["--export", "chrome", "--min-duration", "0", A],
                   "--min-duration needs a positive number of ns"),
                  (["--with-metadata", A], "--with-metadata is for --export chrome and otf2 only"),
                  (["--metric", "avg", A], "--metric is for --svg compare only"),
                  ([], "no profile given")):
    p = run(*args, ok=False)
    check(p.returncode == 2 and
          p.stderr == f"sp-report: {why} (see sp-report --help)\n",
          f"usage error {args}: {p.returncode} {p.stderr!r}")
one_line_error(["--diff", A], "two profiles")
p = run("--by-rank", "--by-thread", A, ok=False)
check(p.returncode == 2 and p.stderr == "sp-report: one of --by-rank and "
      "--by-thread at a time (see sp-report --help)\n", p.stderr)
one_line_error(["--ranks", "5", A], "no regions")
shutil.copy(R0, WORK + "/copy.spt")
one_line_error([A, WORK + "/copy.spt"], "rank 0")  # one rank, two files
check(run(A, R0).stdout == run(A).stdout.replace(A, A + " " + R0, 1),
      "a file named twice is read once")
out = WORK + "/out.csv"
p = run("--include", "nothing", "--export", "csv", "-o", out, A)
with open(out) as f:
    check(f.read().count("\n") == 1, "csv with no rows has the header only")
os.remove(out)
p = run("--svg", "flame", "-o", out, WORK + "/bad.spt", ok=False)
check(p.returncode != 0 and not os.path.exists(out) and
      not [n for n in os.listdir(WORK) if n.startswith("out.csv")],
      f"failed output left a file: {os.listdir(WORK)}")

# ---- chrome: every call of the profile, nothing else ----------------------
c = json.loads(run("--export", "chrome", A).stdout)
check(c["otherData"]["origin_ns"] == 1000000000, c["otherData"])
X = sorted((e["pid"], e["tid"], e["name"], round(float(e["ts"]) * 1000),
            round(float(e["dur"]) * 1000)) for e in c["traceEvents"]
           if e["ph"] == "X")
WANT = sorted([(0, 0, "main", 0, 1000), (0, 0, "solve", 100, 300),
               (0, 0, "solve", 500, 400), (0, 0, "io", 600, 100),
               (0, 1, "main", 0, 500), (0, 1, "io", 100, 100),
               (1, 0, "main", 0, 2000), (1, 0, "solve", 100, 1000),
               (1, 0, "io", 1200, 100), (1, 0, "io", 1400, 200)])
check(X == WANT, f"chrome events {X}")
M = sorted((e["name"], e["pid"], e["tid"], e["args"]["name"])
           for e in c["traceEvents"] if e["ph"] == "M")
check(M == [("process_name", 0, 0, "rank 0"), ("process_name", 1, 0, "rank 1"),
            ("thread_name", 0, 0, "thread 0"),
            ("thread_name", 0, 1, "thread 1"),
            ("thread_name", 1, 0, "thread 0")], f"chrome names {M}")
for e in c["traceEvents"]:
    if e["ph"] == "X" and e["name"] == "solve":
        check(e["args"]["file"] == "s.c" and e["args"]["line"] == 20, e)
check(not [e for e in c["traceEvents"] if e["ph"] not in "XM"],
      "chrome: no flow events without OpenMP")
c = json.loads(run("--export", "chrome", "--ranks", "1", "--include",
                   "io", A).stdout)
check(sorted(e["ts"] for e in c["traceEvents"] if e["ph"] == "X") ==
      [1.2, 1.4], "chrome filtered")
# --window keeps the calls overlapping it (from the first call: 0.45 us
# to 0.65 us), --min-duration the calls at least that long
c = json.loads(run("--export", "chrome", "--window", "0.00000045:0.00000065",
                   A).stdout)
got = sorted((e["pid"], e["tid"], e["name"], round(float(e["ts"]) * 1000))
             for e in c["traceEvents"] if e["ph"] == "X")
check(got == [(0, 0, "io", 600), (0, 0, "main", 0), (0, 0, "solve", 500),
              (0, 1, "main", 0), (1, 0, "main", 0), (1, 0, "solve", 100)],
      f"chrome --window {got}")
c = json.loads(run("--export", "chrome", "--min-duration", "400", A).stdout)
got = sorted((e["pid"], e["tid"], e["name"], round(float(e["dur"]) * 1000))
             for e in c["traceEvents"] if e["ph"] == "X")
check(got == [(0, 0, "main", 1000), (0, 0, "solve", 400), (0, 1, "main", 500),
              (1, 0, "main", 2000), (1, 0, "solve", 1000)],
      f"chrome --min-duration {got}")
c = json.loads(run("--export", "chrome", WORK + "/bad.spt").stdout)
check(len([e for e in c["traceEvents"] if e["ph"] == "X"]) == 2,
      "chrome shows improperly nested calls")

# ---- events: one row per call, times from the first call -----------------
E = list(csv.DictReader(io.StringIO(run("--export", "events", A).stdout)))
got = sorted((int(r["rank"]), int(r["thread"]), r["region"],
              int(r["start_ns"]), int(r["duration_ns"])) for r in E)
check(got == WANT, f"events {got}")
check(all(int(r["end_ns"]) - int(r["start_ns"]) == int(r["duration_ns"])
          for r in E), "events end - start")
check([(r["region"], r["depth"]) for r in E][:4] ==
      [("main", "0"), ("solve", "1"), ("solve", "1"), ("io", "2")],
      f"events depth {E[:4]}")

# ---- --suggest-filter's rule on a hand-made profile -----------------------
# 10 ms of main: validate once (50 ns: short, but 23 ns of recording is
# nothing to the run: kept); 10,000 calls of mid (300 ns) each holding 10
# calls of leaf (20 ns). leaf is out; mid's 300 ns hold 10 x 23 ns of
# recording leaf, 70 ns without: out in the same round (the old rule kept
# it, and the next round's profile then excluded it). big: 5 x 1 ms, kept.
def spt_v2(blocks):
    img = b"SCOPEPRF" + struct.pack("<iiq", 2, 0, len(blocks))
    for name, st, en in blocks:
        nb = name.encode()
        img += (struct.pack("<i", len(nb)) + nb + struct.pack("<i", 3) + b"r.c" +
                struct.pack("<iq", 1, len(st)) + struct.pack("<%dq" % len(st), *st) +
                struct.pack("<%dq" % len(en), *en))
    return img


mids = [1000 + k * 400 for k in range(10000)]
leaves = [t + 5 + j * 29 for t in mids for j in range(10)]
bigs = [4100000 + k * 1100000 for k in range(5)]
with open(NM + "/rule.spt", "wb") as fh:
    fh.write(spt_v2([("main", [0], [10000000]), ("validate", [100], [150]),
                     ("mid", mids, [t + 300 for t in mids]),
                     ("leaf", leaves, [t + 20 for t in leaves]),
                     ("big", bigs, [t + 1000000 for t in bigs])]))
text = run("--suggest-filter", NM + "/rule.spt").stdout
check([l for l in text.splitlines() if l and not l.startswith("#")] ==
      ["exclude function leaf", "exclude function mid"], f"the rule: {text}")
check("# 10000 calls, mean 300 ns (70 ns without the calls excluded below it)"
      in text, f"mid's own mean: {text}")

# ---- --tree: the call tree by call path ------------------------------------
T = run("--tree", A).stdout.splitlines()
got = [(l[:10].strip(), len(l[41:]) - len(l[41:].lstrip()), l[41:].strip(),
        l[22:32].strip(), l[33:39].strip()) for l in T[2:]]
check(got == [("3", 0, "main", "1.4 us", "100.0"), ("3", 2, "io", "400 ns", "11.4"),
              ("3", 2, "solve", "1.6 us", "48.6"), ("1", 4, "io", "100 ns", "2.9")],
      f"tree {got}")
# --depth, --min-percent and --top prune it, and say so
for args, want in ((["--depth", "2"], ["main", "io", "solve"]),
                   (["--min-percent", "40"], ["main", "solve"]),
                   (["--top", "1"], ["main", "solve", "io"])):
    T = run("--tree", *args, A).stdout.splitlines()
    names = [l[41:].strip() for l in T[2:] if not l.startswith("(")]
    check(names == want and T[-1].startswith("(") and "not shown" in T[-1],
          f"--tree {args}: {T}")
one_line_error(["--depth", "2", A], "--depth and --min-percent are for --tree only")
one_line_error(["--tree", "--depth", "0", A], "--depth needs a number")
one_line_error(["--tree", "--min-percent", "101", A], "--min-percent needs a percentage")
one_line_error(["--tree", WORK + "/bad.spt"], "overlaps alpha")

# ---- folded: weights are exclusive times ----------------------------------
F = {}
for line in run("--export", "folded", A).stdout.splitlines():
    stack, w = line.rsplit(" ", 1)
    F[stack] = int(w)
check(F == {"main": 1400, "main;io": 400, "main;solve": 1600,
            "main;solve;io": 100}, f"folded {F}")
excl = {n: int(r["exclusive_ns"]) for n, r in csv_rows(A).items()}
leaf = {}
for stack, w in F.items():
    leaf[stack.split(";")[-1]] = leaf.get(stack.split(";")[-1], 0) + w
check(leaf == excl, f"folded leaves {leaf} vs exclusive {excl}")
F2 = run("--export", "folded", "--exclude", "^solve$", A).stdout.split("\n")
check(sorted(F2) == ["", "main 3000", "main;io 500"], f"folded {F2}")
one_line_error(["--export", "folded", WORK + "/bad.spt"],
               "rank 3 thread 0: call of beta at 1000000050 overlaps alpha")

# ---- SVG pictures: valid XML with the values in their titles ---------------
NS = "{http://www.w3.org/2000/svg}"


def svg(*args):
    out = WORK + "/pic.svg"
    run(*args, "-o", out)
    root = ET.parse(out).getroot()
    check(root.tag == NS + "svg", f"{args}: root {root.tag}")
    titles = [t.text for t in root.iter(NS + "title")]
    return root, titles


root, titles = svg("--svg", "flame", A)
ms = [t for t in titles if t.startswith("main > solve\n")]
check(len(ms) == 1 and "total 1.7 us" in ms[0] and "3 calls" in ms[0] and
      "exclusive 1.6 us" in ms[0] and "source s.c:20" in ms[0], ms)
check(any(t.startswith("main > solve > io\n") for t in titles), titles)
widths = [float(g.find(NS + "rect").get("width")) for g in root.iter(NS + "g")
          if g.find(NS + "title").text.startswith(("main\n", "main > solve\n"))]
check(len(widths) == 2 and abs(widths[1] / widths[0] - 1700 / 3500) < 1e-3,
      f"flame widths {widths}")
one_line_error(["--svg", "flame", WORK + "/bad.spt"], "overlaps alpha")

root, titles = svg("--svg", "timeline", A)
labels = [t.text for t in root.iter(NS + "text")]
for lane in ["rank 0 thread 0", "rank 0 thread 1", "rank 1 thread 0"]:
    check(lane in labels, f"timeline lane {lane}: {labels}")
for name in ["main", "solve", "io"]:
    check(any(t.startswith(name + " (rank 1 thread 0") for t in titles),
          f"timeline {name}")
root, titles = svg("--svg", "timeline", "--window", "0:0.0000005", A)
head = [t.text for t in root.iter(NS + "text")][0]
check(head == f"Timeline: {A} (0 ns to 500 ns)", f"window title {head!r}")
check(not any(t.startswith("io (rank 1") for t in titles),
      "window leaves out later calls")
# A file of a rank with no call beside the rank's calls: left out with a
# warning, not a clash.
os.makedirs(NM + "/beside", exist_ok=True)
with open(NM + "/beside/app_rank00000.spt", "wb") as fh:
    fh.write(spt_v2([("main", [0], [100])]))
with open(NM + "/beside/sh_rank00000.spt", "wb") as fh:
    fh.write(spt_v2([]))
p = run(NM + "/beside", ok=False)
check(p.returncode == 0 and p.stderr == f"sp-report: warning: {NM}/beside/"
      f"sh_rank00000.spt: rank 0 recorded no calls; left out (rank 0 is in "
      f"{NM}/beside/app_rank00000.spt)\n" and "main" in p.stdout,
      f"empty file beside: {p.returncode} {p.stderr!r}")
# A window colours each region as the whole timeline does: in the first
# 4 ms of rule.spt mid and leaf outweigh big, which comes later.


def legend_fills(root):
    fills = {}
    for g in root.iter(NS + "g"):
        t, r = g.find(NS + "title"), g.find(NS + "rect")
        if t is not None and r is not None and "calls, total" in t.text:
            fills[t.text.split("\n")[0]] = r.get("fill")
    return fills


whole = legend_fills(svg("--svg", "timeline", NM + "/rule.spt")[0])
part = legend_fills(svg("--svg", "timeline", "--window", "0:0.004",
                        NM + "/rule.spt")[0])
check("big" in whole and "big" not in part and "mid" in part and
      all(part[k] == whole[k] for k in part),
      f"timeline colours: whole {whole}, window {part}")
# A run whose MPI_Init takes a fifth of the span or more: the default
# view starts where the last rank left it, and says so.
ini = spt_v2([("main", [0], [10000]), ("MPI_Init", [10], [6000]),
              ("work", [6500], [9000])])
with open(NM + "/init.spt", "wb") as fh:
    fh.write(ini)
root, titles = svg("--svg", "timeline", NM + "/init.spt")
head = [t.text for t in root.iter(NS + "text")][0]
check(head == f"Timeline: {NM}/init.spt (6 us to 10 us, after MPI_Init; "
      "--window 0:1e-05 for all)", f"timeline after MPI_Init: {head!r}")
root, titles = svg("--svg", "timeline", "--window", "0:0.00001", NM + "/init.spt")
head = [t.text for t in root.iter(NS + "text")][0]
check(head == f"Timeline: {NM}/init.spt (0 ns to 10 us)", f"whole: {head!r}")
root, titles = svg("--svg", "timeline", WORK + "/big.spt")
nrect = len(list(root.iter(NS + "rect")))
check(100 < nrect <= 1 + 8 * 1260,
      f"timeline of 200k calls: {nrect} rectangles")
check(os.path.getsize(WORK + "/pic.svg") < 4 << 20, "timeline file size")
check(any(t.startswith("even") for t in titles) and
      any(t.startswith("odd") for t in titles), "big timeline names")

root, titles = svg("--svg", "compare", WORK + "/s1.h5", WORK + "/s4.h5")
check(f"main in {WORK}/s1.h5: avg 8 us\n1 calls, total 8 us" in titles and
      f"solve in {WORK}/s4.h5: avg 750 ns\n2 calls, total 1.5 us" in titles,
      titles)
root, titles = svg("--svg", "compare", "--metric", "total", WORK + "/s1.h5",
                   WORK + "/s4.h5")
check(f"solve in {WORK}/s1.h5: total 6 us\n2 calls, total 6 us" in titles,
      titles)
head = [t.text for t in root.iter(NS + "text")][0]
check("log scale" not in head, f"compare within two decades is linear: {head}")
# rule.spt's means span 20 ns (leaf) to 10 ms (main): a log axis, on
# which leaf's bar is still a bar (linear, 20 ns of 10 ms is 0.002 px).
root, titles = svg("--svg", "compare", NM + "/rule.spt", NM + "/rule.spt")
head = [t.text for t in root.iter(NS + "text")][0]
bars = {}
for g in root.iter(NS + "g"):
    t, r = g.find(NS + "title"), g.find(NS + "rect")
    if t is not None and r is not None and " in " in t.text:
        bars[t.text.split(" in ")[0]] = float(r.get("width"))
check(head.endswith("(log scale)") and bars["main"] == max(bars.values()) and
      bars["leaf"] > 0.04 * bars["main"] and bars["leaf"] < bars["mid"] < bars["main"],
      f"log compare: {head} {bars}")
# Row labels of names alike at both ends stay distinct.
root, titles = svg("--svg", "compare", NM + "/mid.spt", NM + "/mid.spt")
rowl = [t.text for t in root.iter(NS + "text")
        if t.get("text-anchor") == "end" and t.text and t.text.startswith("sim:")]
check(len(rowl) == 3 and len(set(rowl)) == 3, f"compare row labels {rowl}")
root, titles = svg("--svg", "speedup", WORK + "/s4.h5", WORK + "/s1.h5")
check("main on 4 ranks: speedup 4.000\navg 2 us per call\n"
      "1 calls, total 2 us" in titles and
      "solve on 4 ranks: speedup 4.000\navg 750 ns per call\n"
      "2 calls, total 1.5 us" in titles and
      "main on 1 rank: speedup 1.000\navg 8 us per call\n"
      "1 calls, total 8 us" in titles, titles)
one_line_error(["--svg", "speedup", WORK + "/s1.h5", WORK + "/s1.h5"],
               "same mpi_size")
# Names that need quoting (and one that is not UTF-8) survive every format.
N = WORK + "/names.spt"
U = "\u00fcnicode f<int>(a, \"b\") & c;d"
rows = list(csv.DictReader(io.StringIO(run("--export", "csv", N).stdout)))
check([r["region"] for r in rows] == [U, "bad\ufffd byte"] and
      rows[0]["file"] == 'x".c', f"csv names {rows}")
j = json.loads(run("--export", "json", N).stdout)
check(U in j["files"][0]["regions"] and
      "bad\ufffd byte" in j["files"][0]["regions"], j["files"][0]["regions"])
c = json.loads(run("--export", "chrome", N).stdout)
check(sorted(e["name"] for e in c["traceEvents"] if e["ph"] == "X") ==
      sorted([U, "bad\ufffd byte"]), "chrome names")
F = run("--export", "folded", N).stdout.splitlines()
check(F[0] == U.replace(";", ":") + " 90", f"folded names {F}")
for kind in ["flame", "timeline"]:
    root, titles = svg("--svg", kind, N)
    check(any(t.startswith(U) for t in titles), f"{kind} names {titles}")

one_line_error(["--svg", "flame", "-o", WORK + "/no/such/dir/x.svg", A],
               "no/such/dir/x.svg")

# ---- OpenMP: workers' implicit tasks under their parallel call -------------
# report_gen.c's "omp" profile: rank 0, threads 0-3 (layout there).
O = WORK + "/omp"
PA, TA = "omp parallel @ a.c:10", "omp implicit task @ a.c:10"
PB, TB = "omp parallel @ b.c:20", "omp implicit task @ b.c:20"


def ns(v):  # sp-report's rp_time for these sizes
    return f"{v:.0f} ns" if v < 999.5 else f"{v / 1e3:.3g} us"


def tree_lines(rows):
    """The tree's lines; % is of the roots' time."""
    roots = sum(t for c, t, x, d, n in rows if d == 0)
    return [f"{c:>10} {ns(t):>10} {ns(x):>10} {100 * t / roots:6.1f}  {'  ' * d}{n}"
            for c, t, x, d, n in rows]


# By hand. main: 10000, minus parallel a (2000), solve (1000), parallel b
# (800) = 6200. The first a.c:10 team: thread 0's task 1800 (excl 1400)
# and three workers' 1800 each (excl 1000, 600, 200); work 400 + 800 +
# 1200 + 1600. The second call of a.c:10 (under solve): tasks of threads
# 0-2, 800 each, work 200 + 300 + 400. b.c:20: threads 0 and 1, 700 each,
# work 100 + 300. Thread 3's tasks at 7200 (inside b.c:20's parallel call:
# another LOC) and 9500 (inside no parallel call) stay roots.
TREE = tree_lines([
    (1, 10000, 6200, 0, "main"),
    (1, 2000, 200, 1, PA),
    (4, 7200, 3200, 2, TA),
    (4, 4000, 4000, 3, "work"),
    (1, 800, 100, 1, PB),
    (2, 1400, 1000, 2, TB),
    (2, 400, 400, 3, "work"),
    (1, 1000, 100, 1, "solve"),
    (1, 900, 100, 2, PA),
    (3, 2400, 1500, 3, TA),
    (3, 900, 900, 4, "work"),
    (2, 400, 250, 0, TA),
    (2, 150, 150, 1, "work")])
T = run("--tree", O).stdout.splitlines()
check(T[0] == f"{O}: 1 rank, call tree over ranks and threads", T[0])
check(T[2:] == TREE, "omp tree:\n" + "\n".join(T[2:]) + "\nwanted:\n" +
      "\n".join(TREE))

FOLDED = {
    "main": 6200,
    f"main;{PA}": 200,
    f"main;{PA};{TA}": 3200,
    f"main;{PA};{TA};work": 4000,
    f"main;{PB}": 100,
    f"main;{PB};{TB}": 1000,
    f"main;{PB};{TB};work": 400,
    "main;solve": 100,
    f"main;solve;{PA}": 100,
    f"main;solve;{PA};{TA}": 1500,
    f"main;solve;{PA};{TA};work": 900,
    TA: 250,
    f"{TA};work": 150}


def folded(*args):
    out = run("--export", "folded", *args).stdout.splitlines()
    return {l.rsplit(" ", 1)[0]: int(l.rsplit(" ", 1)[1]) for l in out}, out


F, lines = folded(O)
check(F == FOLDED, f"omp folded {F}")
check(f"main;{PA};{TA};work 4000" in lines, lines)
# The weights ending in a region still add up to its exclusive time.
excl = {n: int(r["exclusive_ns"]) for n, r in csv_rows(O).items()}
leaf = {}
for stack, w in F.items():
    leaf[stack.split(";")[-1]] = leaf.get(stack.split(";")[-1], 0) + w
check(leaf == excl, f"omp folded leaves {leaf} vs exclusive {excl}")
# Another rank's task inside rank 0's parallel call by time: a root.
F, _ = folded(O, WORK + "/omp_rank1.spt")
check(F == dict(FOLDED, **{TA: 250 + 1700, f"{TA};work": 150 + 100}),
      f"omp folded with rank 1 {F}")
# A filtered-out parallel region: its workers' tasks join its nearest kept
# caller, as its own thread's task does.
F, _ = folded("--exclude", "^omp parallel", O)
check(F == {"main": 6500, f"main;{TA}": 3200, f"main;{TA};work": 4000,
            f"main;{TB}": 1000, f"main;{TB};work": 400, "main;solve": 200,
            f"main;solve;{TA}": 1500, f"main;solve;{TA};work": 900,
            TA: 250, f"{TA};work": 150}, f"omp folded, parallel excluded {F}")

# Nested teams, the inner one opened by a worker of the outer one whose
# thread comes after its own worker's: main 1000 - 980; P1 980 - 960; T1
# thread 0 960, thread 2 940 - 800; P2 800 - 780; T2 thread 2 780 - 100,
# thread 1 760 - 500; work 100 + 500.
N1 = "main;omp parallel @ n.c:1;omp implicit task @ n.c:1"
N2 = N1 + ";omp parallel @ n.c:2;omp implicit task @ n.c:2"
F, _ = folded(WORK + "/nest.spt")
check(F == {"main": 20, "main;omp parallel @ n.c:1": 20, N1: 1100,
            N1 + ";omp parallel @ n.c:2": 20, N2: 940, N2 + ";work": 600},
      f"nested teams {F}")

# --by-thread: exact per-thread times of work; timbal = max / mean of the
# thread totals 700, 1400, 1600, 1750 (mean 1362.5).
out = run("--by-thread", "--include", "^work$", "--export", "csv", O).stdout
W = {r["thread"]: r for r in csv.DictReader(io.StringIO(out))}
check({t: (r["rank"], r["calls"], r["total_ns"], r["min_ns"], r["max_ns"])
       for t, r in W.items()} ==
      {"0": ("0", "3", "700", "100", "400"),
       "1": ("0", "3", "1400", "300", "800"),
       "2": ("0", "2", "1600", "400", "1200"),
       "3": ("0", "3", "1750", "50", "1600")}, f"omp --by-thread {W}")
for t, total in [("0", 700), ("1", 1400), ("2", 1600), ("3", 1750)]:
    check(abs(float(W[t]["thread_imbalance"]) - total / 1362.5) < 1e-4 and
          float(W[t]["imbalance"]) == 1.0, W[t])
rows = csv_rows(O)
check(abs(float(rows["work"]["thread_imbalance"]) - 140 / 109) < 1e-4,
      rows["work"])
# Tasks of a.c:10: threads 0-2 2600 each, thread 3 1800 + 200 + 200.
check(abs(float(rows[TA]["thread_imbalance"]) - 2600 / 2500) < 1e-4,
      rows[TA])
t = run("--include", "^work$", O).stdout.splitlines()
check(t[2].split()[-2:] == ["1.00", "1.28"], f"omp table {t}")
t = run("--by-thread", "--include", "^work$", O).stdout.splitlines()
check([l.split()[1:4] for l in t[2:]] ==
      [["0", "3", "3"], ["0", "2", "2"], ["0", "1", "3"], ["0", "0", "3"]] and
      t[2].split()[-1] == "1.28" and t[5].split()[-1] == "0.51", t)

# chrome: the threads stay lanes; a flow from each parallel call (at its
# start, on the encountering thread) to each worker's task (at its start).
c = json.loads(run("--export", "chrome", O).stdout)
ev = c["traceEvents"]
S = {e["id"]: e for e in ev if e["ph"] == "s"}
Fl = {e["id"]: e for e in ev if e["ph"] == "f"}
check(sorted(S) == sorted(Fl) and len(S) == 6, f"flows {S} {Fl}")
got = sorted((S[i]["tid"], round(S[i]["ts"] * 1000), Fl[i]["tid"],
              round(Fl[i]["ts"] * 1000)) for i in S)
check(got == [(0, 1000, 1, 1150), (0, 1000, 2, 1150), (0, 1000, 3, 1150),
              (0, 6050, 1, 6100), (0, 6050, 2, 6100), (0, 7100, 1, 7150)],
      f"flows {got}")
X = {(e["pid"], e["tid"], e["ts"], e["cat"]): e["name"] for e in ev
     if e["ph"] == "X" and e["name"].startswith("omp")}
for i in S:
    check(X.get((S[i]["pid"], S[i]["tid"], S[i]["ts"], S[i]["cat"])) in
          (PA, PB) and Fl[i].get("bp") == "e" and
          X.get((Fl[i]["pid"], Fl[i]["tid"], Fl[i]["ts"], Fl[i]["cat"])) in
          (TA, TB), f"flow {i} binds to its slices: {S[i]} {Fl[i]}")
check(len([e for e in ev if e["ph"] == "X"]) == 27, "omp chrome: every call")
c = json.loads(run("--export", "chrome", "--exclude", "^omp parallel",
                   O).stdout)
check(not [e for e in c["traceEvents"] if e["ph"] in "sf"],
      "no flow without the parallel calls")

# Flame graph: a frame is as wide as its subtree's exclusive time, so the
# team's threads fit under their parallel call: main 17700, parallel a.c:10
# 200 + 3200 + 4000.
root, titles = svg("--svg", "flame", O)
wid = {g.find(NS + "title").text.split("\n")[0]:
       float(g.find(NS + "rect").get("width")) for g in root.iter(NS + "g")}
check(abs(wid[f"main > {PA}"] / wid["main"] - 7400 / 17700) < 1e-3 and
      abs(wid[f"main > {PA} > {TA}"] / wid["main"] - 7200 / 17700) < 1e-3,
      f"omp flame widths {wid}")
pt = [t for t in titles if t.startswith(f"main > {PA}\n")]
check(len(pt) == 1 and "total 2 us, with its team's threads 7.4 us" in pt[0],
      pt)

finish()
