#!/usr/bin/env python3
"""test_report_omp.py - sp-report on a real OpenMP program (omp_teams.c,
built with sp-cc -fopenmp, 4 threads): every worker's implicit task under
its parallel call in --tree and the folded export, none left a root, one
chrome flow per worker task, --by-thread rows for the 4 threads.
usage: test_report_omp.py SP_CC SP_REPORT SOURCE WORKDIR"""
import collections
import json
import os
import shutil
import subprocess
import sys

from rptest import check, finish, tool

CC, REPORT, SRC, WORK = sys.argv[1:5]


run = tool(REPORT, stdout_only=True)


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
env = dict(os.environ, OMP_NUM_THREADS="4", OMP_WAIT_POLICY="passive",
           OMP_DYNAMIC="false", SP_FORMAT="spt", SP_OUTPUT=WORK + "/p")
subprocess.run([CC, "-fopenmp", "-O0", "-g", SRC, "-o", WORK + "/prog"],
               check=True, env=env)
subprocess.run([WORK + "/prog"], check=True, env=env, stdout=subprocess.DEVNULL)
P = WORK + "/p_rank00000.spt"

base = os.path.basename(SRC)
with open(SRC) as f:
    lines = f.read().splitlines()
A = next(i for i, l in enumerate(lines, 1) if "team A" in l)
B = next(i for i, l in enumerate(lines, 1) if "team B" in l)
PA, TA = f"omp parallel @ {base}:{A}", f"omp implicit task @ {base}:{A}"
PB, TB = f"omp parallel @ {base}:{B}", f"omp implicit task @ {base}:{B}"

# --tree: (path, calls) of every node; times vary from run to run.
tree = {}
stack = []
for l in run("--tree", P).splitlines()[2:]:
    name = l[41:]
    depth = (len(name) - len(name.lstrip(" "))) // 2
    stack[depth:] = [name.strip()]
    tree[" > ".join(stack)] = int(l[:10])
want = {"main": 1, f"main > {PA}": 2, f"main > {PA} > {TA}": 8,
        f"main > {PA} > {TA} > work": 8, "main > solve": 1,
        f"main > solve > {PB}": 1, f"main > solve > {PB} > {TB}": 4,
        f"main > solve > {PB} > {TB} > work": 4}
for path, calls in want.items():
    check(tree.get(path) == calls, f"tree {path}: {tree.get(path)}, "
          f"want {calls}; tree {tree}")
roots = [p for p in tree if " > " not in p]
check(roots == ["main"], f"roots {roots}")

# folded: every work call is under a parallel call.
folded = {}
for l in run("--export", "folded", P).splitlines():
    stack, w = l.rsplit(" ", 1)
    folded[stack] = int(w)
work = [s for s in folded if s.endswith(";work")]
check(sorted(work) == sorted([f"main;{PA};{TA};work",
                              f"main;solve;{PB};{TB};work"]),
      f"folded work paths {work}")

# chrome: one flow per worker task (3 workers, 3 teams), each binding
# a parallel call's slice to a task's slice on another thread.
ev = json.loads(run("--export", "chrome", P))["traceEvents"]
X = {(e["tid"], e["ts"]): e["name"] for e in ev if e["ph"] == "X"}
S = {e["id"]: e for e in ev if e["ph"] == "s"}
F = {e["id"]: e for e in ev if e["ph"] == "f"}
check(len(S) == 9 and sorted(S) == sorted(F), f"flows {len(S)} {len(F)}")
for i, s in S.items():
    f = F.get(i, {})
    check(X.get((s["tid"], s["ts"])) in (PA, PB) and
          X.get((f.get("tid"), f.get("ts"))) in (TA, TB) and
          s["tid"] != f.get("tid"), f"flow {s} {f}")

# --by-thread: work on 4 threads, 3 calls each (two of team A, one of B).
rows = collections.Counter()
for l in run("--by-thread", "--include", "^work$", "--export", "csv",
             P).splitlines()[1:]:
    r = l.split(",")
    rows[r[2]] = int(r[3])
check(len(rows) == 4 and set(rows.values()) == {3}, f"--by-thread {rows}")

finish()
