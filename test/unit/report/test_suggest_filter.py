#!/usr/bin/env python3
"""test_suggest_filter.py - sp-report --suggest-filter on a real program
(hot_tiny.c built with sp-cc): the filter file excludes the hot tiny
function only, and the program rebuilt with that file records no call of it
and exactly its calls fewer; the estimates' bytes and times against the call
counts; option errors.
usage: test_suggest_filter.py SP_CC SP_REPORT SOURCE WORKDIR"""
import csv
import io
import os
import re
import shutil
import subprocess
import sys

from rptest import check, eq, finish, tool

CC, REPORT, SRC, WORK = sys.argv[1:5]


run = tool(REPORT)


def build_and_run(tag, filt=None):
    # the trace bytes --suggest-filter counts are the 16 bytes a call of
    # the fixed-size layout
    env = dict(os.environ, SP_FORMAT="spt", SP_SPT_VERSION="3",
               SP_OUTPUT=f"{WORK}/{tag}")
    env.pop("SP_FILTER", None)
    if filt:
        env["SP_FILTER"] = filt
    subprocess.run([CC, "-O0", "-g", SRC, "-o", f"{WORK}/{tag}"], check=True,
                   env=env)
    subprocess.run([f"{WORK}/{tag}"], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    prof = f"{WORK}/{tag}_rank00000.spt"
    calls = {r["region"]: int(r["calls"]) for r in csv.DictReader(
        io.StringIO(run("--export", "csv", prof).stdout))}
    return prof, calls


def directives(text):
    return [l for l in text.splitlines() if l and not l.startswith("#")]


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
P, before = build_and_run("all")
eq(before, {"main": 1, "big": 3, "tiny": 200000}, "calls recorded")

# The file, named: only tiny excluded; the estimates on stdout. The verdicts
# compare mean durations with 230 ns: tiny's calls last ~20 ns, big's ~1 ms.
F = WORK + "/suggested.txt"
out = run("--suggest-filter=" + F, P).stdout
with open(F) as f:
    text = f.read()
eq(directives(text), ["exclude function tiny"], "filter directives")
saved = 200000 * 16
eq(re.findall(r"saves (\d+) of (\d+) trace bytes \((\d+) of (\d+) calls\)",
              text), [(str(saved), str(200004 * 16), "200000", "200004")],
   "savings in the file")
rows = {l.split()[0]: l.split() for l in out.splitlines()[2:-1]}
eq(sorted(rows), ["big", "main", "tiny"], "estimate rows")
eq(rows["tiny"][-1], "exclude", "tiny verdict")
eq(rows["big"][-1], "keep", "big verdict")
eq(rows["main"][-1], "keep", "main verdict")
eq(rows["tiny"][1], "200000", "tiny calls")
eq(rows["tiny"][4], str(saved), "tiny trace bytes")
eq(rows["tiny"][5:7], ["4.6", "ms"], "tiny record cost 200000 x 23 ns")
check(out.splitlines()[-1].startswith(
    F + ": 1 region excluded: saves %d of %d trace bytes" % (saved, 200004 * 16)),
    out.splitlines()[-1])

# Unnamed: the same file on stdout (-o too); --record-cost scales the time.
same = run("--suggest-filter", P).stdout
eq(same, text, "the filter on stdout")
run("--suggest-filter", "-o", WORK + "/o.txt", P)
with open(WORK + "/o.txt") as f:
    eq(f.read(), text, "the filter through -o")
cheap = run("--suggest-filter", "--record-cost", "0.001", P).stdout
eq(directives(cheap), [], "nothing excluded when recording costs 1 ps")
costly = run("--suggest-filter", "--record-cost", "1000", P).stdout
eq(directives(costly), ["exclude function tiny"], "1 us per call: tiny only")
check("and 200 ms of recording" in costly, "200000 x 1 us: " + costly)

# Rebuilt with the file: no call of tiny, exactly its calls fewer.
P2, after = build_and_run("filtered", F)
eq(after, {"main": 1, "big": 3}, "calls recorded with the filter")
eq(sum(before.values()) - sum(after.values()), 200000, "events dropped")
size = os.path.getsize(P) - os.path.getsize(P2)
check(size >= saved, f".spt shrank by {size}, expected at least {saved}")

# Usage errors: one line each.
for args, needle in (
        (["--suggest-filter", "--top", "1", P], "not --by-rank"),
        (["--suggest-filter", "--by-rank", P], "not --by-rank"),
        (["--record-cost", "5", P], "--record-cost is for --suggest-filter"),
        (["--suggest-filter", "--record-cost", "x", P], "positive number"),
        (["--suggest-filter", "--tree", P], "one of --tree"),
        (["--suggest-filter=", P], "needs a file name")):
    p = run(*args, ok=False)
    eq(p.returncode, 2, f"{args} status")
    eq(len(p.stderr.strip().splitlines()), 1, f"{args} one line")
    check(needle in p.stderr, f"{args}: {p.stderr!r}")

finish()
