#!/usr/bin/env python3
"""test_report_mpi.py - sp-report --mpi against report_gen.c's "mpi" profile
(3 ranks, values worked out by hand below): the text view, json and csv,
filters, --top, --ranks, a merged file, a profile without MPI, refusals.
usage: test_report_mpi.py SP_REPORT REPORT_GEN SP_IMPORT WORKDIR"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys

from rptest import check, finish, tool

REPORT, GEN, IMPORT, WORK = sys.argv[1:5]


run = tool(REPORT)


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK + "/a")
subprocess.run([GEN, WORK], check=True)
M = WORK + "/mpi"
MERGED = WORK + "/mpi.h5"
subprocess.run([IMPORT, "-o", MERGED, M], check=True, capture_output=True)

# By hand (report_gen.c): time in MPI per rank = the union of its MPI calls
# per thread, summed over threads.
#   rank 0: t0 Init 1000 + Barrier 100 + Allreduce 500 (its MPI_Send inside
#           counts once) + PMPI_Wait 200; t1 Recv 300 -> 2100 of span 10000;
#           mpi_helper and my_MPI_sum are no MPI regions. 6 calls.
#   rank 1: 900 + 1100 + 300 = 2300 of 9000, 3 calls.
#   rank 2: 1100 + 600 + 400 + 100 = 2200 of 8000, 4 calls.
# Per function (total; least, most: rank and its total; ties to the lower
# rank; a rank without a call counts 0):
FUNCS = [  # name, calls, total, min rank, min, max rank, max
    ("MPI_Init", 3, 3000, 1, 900, 2, 1100),
    ("MPI_Barrier", 3, 1800, 0, 100, 1, 1100),
    ("MPI_Allreduce", 3, 1200, 1, 300, 0, 500),
    ("MPI_Recv", 1, 300, 1, 0, 0, 300),
    ("MPI_Send", 2, 200, 1, 0, 0, 100),
    ("PMPI_Wait", 1, 200, 1, 0, 0, 200),
]
RANKS = [(0, 6, 2100, 10000), (1, 3, 2300, 9000), (2, 4, 2200, 8000)]


def ns(v):  # sp-report's rp_time for these sizes
    return f"{v} ns" if v < 1000 else f"{v / 1000:.3g} us"


def text(label, ranks, funcs):
    out = [f"{label}: {len(ranks)} ranks, time inside MPI (outermost MPI_* "
           "calls per thread)",
           "%6s %10s %10s %10s %6s" % ("rank", "calls", "in MPI", "span",
                                       "%span")]
    out += ["%6d %10d %10s %10s %6.1f" % (r, c, ns(m), ns(s), 100 * m / s)
            for r, c, m, s in ranks]
    w = max([12] + [len(f[0]) for f in funcs])  # the names' column
    out += ["", "%-*s %10s %10s %10s %8s %10s %8s" % (
        w, "MPI function", "calls", "total", "min", "min at", "max", "max at")]
    out += ["%-*s %10d %10s %10s %8d %10s %8d" % (
        w, n, c, ns(t), ns(lo), lr, ns(hi), hr)
        for n, c, t, lr, lo, hr, hi in funcs]
    return "\n".join(out) + "\n"


for src in (M, MERGED):
    got = run("--mpi", src).stdout
    check(got == text(src, RANKS, FUNCS), f"--mpi {src}:\n{got}")

# json: the same in integer ns, every rank's cell of every function
j = json.loads(run("--mpi", "--export", "json", M).stdout)
check([(x["rank"], x["calls"], x["mpi_ns"], x["span_ns"]) for x in j["ranks"]]
      == RANKS, f"json ranks {j['ranks']}")
check([(f["name"], f["calls"], f["total_ns"], f["min_rank"], f["min_ns"],
        f["max_rank"], f["max_ns"]) for f in j["functions"]] == FUNCS,
      f"json functions {j['functions']}")
# (no MPI layer messages in these files: their bytes and waits are 0)
none = {"bytes_sent": 0, "bytes_recv": 0, "late_sender_ns": 0,
        "coll_wait_ns": 0, "late_receiver_ns": 0, "waiting_ns": 0}
check(j["functions"][1]["per_rank"] == {
    "0": {"calls": 1, "total_ns": 100, **none},
    "1": {"calls": 1, "total_ns": 1100, **none},
    "2": {"calls": 1, "total_ns": 600, **none}},
    f"json per_rank {j['functions'][1]}")

# csv: one row per rank and function (long form), the rank's figures on
# each; what the text shows follows from it.
rows = list(csv.DictReader(io.StringIO(run("--mpi", "--export", "csv",
                                           M).stdout)))
check(len(rows) == 3 * len(FUNCS), f"csv {len(rows)} rows")
cell = {(int(r["rank"]), r["region"]): (int(r["calls"]), int(r["total_ns"]))
        for r in rows}
for name, calls, total, lr, lo, hr, hi in FUNCS:
    per = {r: cell[(r, name)] for r in range(3)}
    check(sum(c for c, _ in per.values()) == calls and
          sum(t for _, t in per.values()) == total and
          per[lr][1] == lo and per[hr][1] == hi, f"csv {name}: {per}")
for r, _, mpi, span in RANKS:
    check({(int(x["rank_mpi_ns"]), int(x["rank_span_ns"])) for x in rows
           if int(x["rank"]) == r} == {(mpi, span)}, f"csv rank {r}")

# Filters choose the MPI functions counted, in the ranks' time too.
got = run("--mpi", "--include", "^MPI_(Barrier|Allreduce)$", M).stdout
check(got == text(M, [(0, 2, 600, 10000), (1, 2, 1400, 9000),
                      (2, 2, 1000, 8000)], FUNCS[1:3]), f"--include:\n{got}")
got = run("--mpi", "--exclude", "Init|Send", M).stdout
check(got == text(M, [(0, 4, 1100, 10000), (1, 2, 1400, 9000),
                      (2, 2, 1000, 8000)],
                  [FUNCS[1], FUNCS[2], FUNCS[3], FUNCS[5]]),
      f"--exclude:\n{got}")
# Without the outer MPI_Allreduce, rank 0's nested MPI_Send counts.
j = json.loads(run("--mpi", "--export", "json", "--exclude", "Allreduce",
                   M).stdout)
check(j["ranks"][0]["mpi_ns"] == 1700, f"nested call alone {j['ranks'][0]}")
# --top cuts the function rows, not the ranks' time.
got = run("--mpi", "--top", "2", M).stdout
check(got == text(M, RANKS, FUNCS[:2]), f"--top 2:\n{got}")
# --ranks: rank 0 is never read; MPI_Recv and PMPI_Wait (rank 0 only) go.
got = run("--mpi", "--ranks", "1-2", MERGED).stdout
check(got == text(MERGED, RANKS[1:], [
    ("MPI_Init", 2, 2000, 1, 900, 2, 1100),
    ("MPI_Barrier", 2, 1700, 2, 600, 1, 1100),
    ("MPI_Allreduce", 2, 700, 1, 300, 2, 400),
    ("MPI_Send", 1, 100, 1, 0, 2, 100)]), f"--ranks 1-2:\n{got}")
# -o writes the same.
run("--mpi", "-o", WORK + "/mpi.txt", M)
with open(WORK + "/mpi.txt") as fh:
    check(fh.read() == text(M, RANKS, FUNCS), "-o")

# A profile without MPI: one line, exit 0.
p = run("--mpi", WORK + "/a")
check(p.stdout == WORK + "/a: no MPI calls (no region named MPI_* or "
      "PMPI_*)\n" and p.stderr == "", f"no MPI: {p.stdout!r} {p.stderr!r}")
p = run("--mpi", "--include", "nothing", M)
check(p.stdout == M + ": no MPI calls (no region named MPI_* or PMPI_* "
      "passes the filters)\n", f"filtered out: {p.stdout!r}")
j = json.loads(run("--mpi", "--export", "json", WORK + "/a").stdout)
check(j["functions"] == [] and [x["mpi_ns"] for x in j["ranks"]] == [0, 0],
      f"no MPI json {j}")

# What --mpi does not honour is refused, one line, status 2.
for args, needle in (
        (["--export", "chrome"], "--mpi exports as csv or json only"),
        (["--svg", "flame"], "one of --tree, --region, --mpi"),
        (["--tree"], "one of --tree, --region, --mpi"),
        (["--region", "MPI_Init"], "one of --tree, --region, --mpi"),
        (["--by-rank"], "not --by-rank, --by-thread or --sort"),
        (["--sort", "calls"], "not --by-rank, --by-thread or --sort"),
        (["--mpi=1"], "--mpi takes no value")):
    p = run("--mpi", *args, M, ok=False)
    check(p.returncode == 2 and p.stdout == "" and
          p.stderr.count("\n") == 1 and needle in p.stderr and
          p.stderr.endswith("(see sp-report --help)\n"),
          f"refused {args}: {p.returncode} {p.stderr!r}")

# --suggest-filter never writes the MPI layer's regions (the plugin does not
# instrument them): at 1 us a record every region is short enough, and only
# the plugin's functions are excluded.
p = run("--suggest-filter", "--record-cost", "1000", M)
dirs = [l for l in p.stdout.splitlines() if l and not l.startswith("#")]
check(dirs == ["exclude function main", "exclude function mpi_helper",
             "exclude function my_MPI_sum"], f"suggest-filter directives {dirs}")

finish()
