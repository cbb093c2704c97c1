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
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

REPORT, GEN, IMPORT, WORK = sys.argv[1:5]
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def run(*args, ok=True):
    p = subprocess.run([REPORT, *args], capture_output=True, text=True)
    if ok and p.returncode != 0:
        raise SystemExit(f"sp-report {' '.join(args)} failed: {p.stderr}")
    return p


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

# The table: units, names, ranks.
t = run(A).stdout.splitlines()
check(t[0] == f"{A}: 2 ranks, span 2 us", f"table head {t[0]!r}")
check(t[1].split() == ["region", "ranks", "calls", "total", "avg", "min",
                       "max", "std", "excl", "%span", "imbal"], t[1])
check(t[2].split() == ["main", "2", "3", "3.5", "us", "1.17", "us", "500",
                       "ns", "2", "us", "624", "ns", "1.4", "us", "87.5",
                       "1.14"], f"table main {t[2]!r}")
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

# ---- json: the seed's region_statistics.json layout ------------------------
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
check(j["common_regions"] == ["main", "solve"], j["common_regions"])
check(j["files"][1]["mpi_size"] == 1, j["files"][1])

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
one_line_error(["--include", "(unclosed", A], "--include '(unclosed'")
one_line_error(["--exclude", "[z-a]", A], "--exclude")
one_line_error(["--include", "nothing-matches", A], "no region matches")
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

if os.environ.get("SP_REPORT_STAGE") != "1":
    exec(open(os.path.join(os.path.dirname(__file__), "checks_events.py")).read())

print(f"{len(FAILS)} failures")
sys.exit(1 if FAILS else 0)
