#!/usr/bin/python3
"""check_omp.py MODE PROFILE.h5 SOURCE - checks the OpenMP regions of one
run of test/unit/omp's programs (written by the runtime as .h5).
MODE c: omp_prog.c on 4 threads; fortran: omp_prog.f90 on 4 threads (and
sp-report's views of it, $REPORT, and the Python package's per-thread
rows against them); off: a run under SP_OMPT=0; noomp:
no_omp.c (no OpenMP runtime)."""
import os
import re
import subprocess
import sys
from collections import defaultdict

import h5py

mode, path, source = sys.argv[1], sys.argv[2], sys.argv[3]
base = source.rsplit("/", 1)[-1]


def fail(msg):
    sys.exit("%s: %s: %s" % (mode, path, msg))


with h5py.File(path, "r") as f:
    names = [x.decode() if isinstance(x, bytes) else x for x in f["region_table/names"][()]]
    idx = f["rank_region_index"]
    starts, ends = f["events/start_times"][()], f["events/end_times"][()]
    calls = defaultdict(list)  # (name, thread) -> [(start, end)]
    for i in range(len(idx["region_ids"])):
        o, c = int(idx["event_offsets"][i]), int(idx["event_counts"][i])
        key = (names[int(idx["region_ids"][i])], int(idx["threads"][i]))
        calls[key] += [(int(starts[k]), int(ends[k])) for k in range(o, o + c)]
    meta = dict(f["metadata"].attrs)

omp_names = sorted({n for (n, _) in calls if n.startswith("omp ")})
for n, _ in calls:  # an "omp " region may be named after one (func+0xOFF)
    if not n.startswith("omp ") and ("omp_outlined" in n or "omp_par" in n):
        fail("an outlined OpenMP body is a region: %s" % n)
nthreads = int(meta["omp_num_threads"])

if mode in ("off", "noomp"):
    if omp_names:
        fail("omp regions: %s" % omp_names)
    if mode == "noomp" and nthreads != 1:
        fail("omp_num_threads %d, want 1" % nthreads)
    print("%s: no omp region, omp_num_threads %d" % (mode, nthreads))
    sys.exit(0)

if nthreads != 4:
    fail("omp_num_threads %d, want 4" % nthreads)
lines = open(source).read().split("\n")


def line_of(pattern):
    for i, l in enumerate(lines):
        if re.search(pattern, l):
            return i + 1
    fail("no line matches %r in %s" % (pattern, source))


def per_thread(name):
    return {t: len(v) for (n, t), v in calls.items() if n == name}


def expect_counts(name, want):
    got = per_thread(name)
    if got != want:
        fail("%s: calls per thread %s, want %s (omp regions: %s)" % (name, got, want, omp_names))


threads = sorted({t for (_, t) in calls})
# output thread -> OpenMP thread number, from the program's own regions
omp_num = {}
for (n, t) in calls:
    m = re.fullmatch(r"omp_thread_(\d+)", n)
    if m:
        omp_num[t] = int(m.group(1))
if sorted(omp_num.values()) != [0, 1, 2, 3]:
    fail("threads %s" % omp_num)
master = [t for t, k in omp_num.items() if k == 0][0]
each = {t: 1 for t in omp_num}


def check_unbalanced(unbal):
    """The loop at line unbal, run three times, where OpenMP thread i did
    (i+1) units of work: the less work, the longer the wait at its barrier.
    On a loaded machine with fewer cores than threads, the scheduler may
    swap neighbours (2 and 3), never halves: the two threads with the least
    work each wait longer than each of the two with the most."""
    expect_counts("omp for @ %s:%d" % (base, unbal), {t: 3 for t in omp_num})
    bar = "omp barrier (implicit) @ %s:%d" % (base, unbal)
    expect_counts(bar, {t: 3 for t in omp_num})
    wait = {omp_num[t]: sum(e - s for s, e in calls[(bar, t)]) for t in omp_num}
    if min(wait[0], wait[1]) <= max(wait[2], wait[3]) or wait[0] <= wait[3]:
        fail("barrier wait by OpenMP thread %s: want threads 0 and 1 (least "
             "work) each to wait longer than threads 2 and 3" % wait)


if mode == "c":
    par = line_of(r"#pragma omp parallel$")
    expect_counts("omp parallel @ %s:%d" % (base, par), {master: 1})
    expect_counts("omp implicit task @ %s:%d" % (base, par), each)
    expect_counts("omp barrier (implicit) @ %s:%d" % (base, par), each)
    for marker in ("LOOP", "REDUCTION"):
        expect_counts("omp for @ %s:%d" % (base, line_of(r"/\* %s \*/" % marker)), each)
    expect_counts("omp barrier @ %s:%d" % (base, line_of(r"/\* BARRIER \*/")), each)
    expect_counts("omp critical @ %s:%d" % (base, line_of(r"/\* CRITICAL \*/")), each)
    expect_counts("omp single @ %s:%d" % (base, line_of(r"/\* SINGLE \*/")), each)
    tw = per_thread("omp taskwait @ %s:%d" % (base, line_of(r"/\* TASKWAIT \*/")))
    if sorted(tw.values()) != [1]:
        fail("taskwait calls %s, want one on one thread" % tw)
    task = per_thread("omp task @ %s:%d" % (base, line_of(r"/\* TASK \*/")))
    if sum(task.values()) != 8:
        fail("task calls %s, want 8 in all" % task)
    expect_counts("omp sections @ %s:%d" % (base, line_of(r"/\* SECTIONS \*/")), each)
    expect_counts("omp masked @ %s:%d" % (base, line_of(r"/\* MASKED \*/")), {master: 1})
    expect_counts("omp lock @ %s:%d" % (base, line_of(r"/\* LOCK \*/")), each)
    # a nest lock's owner taking it again waits too (a short wait)
    for marker in ("NEST1", "NEST2"):
        expect_counts("omp lock @ %s:%d" % (base, line_of(r"/\* %s \*/" % marker)), each)
    expect_counts("omp ordered @ %s:%d" % (base, line_of(r"/\* ORDERED \*/")), each)
    tg = per_thread("omp taskgroup @ %s:%d" % (base, line_of(r"/\* TASKGROUP \*/")))
    if sorted(tg.values()) != [1]:
        fail("taskgroup calls %s, want one on one thread" % tg)
    gt = per_thread("omp task @ %s:%d" % (base, line_of(r"/\* GROUPTASK \*/")))
    if sum(gt.values()) != 1:
        fail("taskgroup's task calls %s, want 1" % gt)
    check_unbalanced(line_of(r"/\* UNBALANCED \*/"))
else:
    # Flang: every construct of omp_prog.f90 has a line. Flang's line table
    # has rows for the directives with a body (parallel, single, do, task),
    # none for barrier, critical and taskwait: it gives their calls the
    # line of the code before them (line 0 for the barrier, which comes
    # right after the reduction's own code; the runtime takes the last
    # line before it). Those lines are Flang's, checked here as it gives
    # them so that a change shows.
    par = line_of(r"!\$omp parallel private")
    if len(threads) != 4:
        fail("threads %s, want 4" % threads)
    for n in omp_names:
        if "+0x" in n or n.endswith("@ ?"):
            fail("a construct without a line: %s (omp regions: %s)" % (n, omp_names))
    expect_counts("omp parallel @ %s:%d" % (base, par), {master: 1})
    expect_counts("omp implicit task @ %s:%d" % (base, par), each)
    expect_counts("omp barrier (implicit) @ %s:%d" % (base, par), each)
    first_single = line_of(r"!\$omp single$")
    expect_counts("omp single @ %s:%d" % (base, first_single), each)
    expect_counts("omp barrier (implicit) @ %s:%d" % (base, first_single), each)
    loop, red = line_of(r"! LOOP"), line_of(r"! REDUCTION")
    expect_counts("omp for @ %s:%d" % (base, loop), each)
    expect_counts("omp for @ %s:%d" % (base, red), each)
    expect_counts("omp barrier (implicit) @ %s:%d" % (base, loop), each)
    # the reduction's barrier of the OpenMP runtime's own
    expect_counts("omp barrier (implementation) @ %s:%d" % (base, red), each)
    # the explicit barrier: Flang's line 0, after the reduction's code
    expect_counts("omp barrier @ %s:%d" % (base, red), each)
    # the critical section: at the reduction loop's "end do" (Flang's)
    bar = line_of(r"! BARRIER")
    red_end = max(i + 1 for i, l in enumerate(lines[:bar]) if l.strip() == "end do")
    expect_counts("omp critical @ %s:%d" % (base, red_end), each)
    expect_counts("omp single @ %s:%d" % (base, line_of(r"! SINGLE")), each)
    task = per_thread("omp task @ %s:%d" % (base, line_of(r"! TASK$")))
    if sum(task.values()) != 8:
        fail("task calls %s, want 8 in all" % task)
    # the taskwait: at the loop that created the tasks (Flang's)
    tw = per_thread("omp taskwait @ %s:%d" % (base, line_of(r"do t = 1, 8")))
    if sorted(tw.values()) != [1]:
        fail("taskwait calls %s, want one on one thread" % tw)
    check_unbalanced(line_of(r"! UNBALANCED"))

# Linkage: each implicit task lies within the parallel call of the same
# location on the encountering thread.
pname = "omp parallel @ %s:%d" % (base, par)
(ps, pe), = calls[(pname, master)]
for t in threads:
    for s, e in calls.get(("omp implicit task @ %s:%d" % (base, par), t), []):
        if not (ps <= s <= e <= pe):
            fail("implicit task [%d, %d] on thread %d not within %s [%d, %d]"
                 % (s, e, t, pname, ps, pe))

if mode == "fortran":
    # sp-report's views: the workers' calls under the parallel call in the
    # call tree and the folded stacks; --by-thread and timbal show the
    # unbalanced loop.
    report = os.environ["REPORT"]

    def run(*args):
        p = subprocess.run([report, *args, path], capture_output=True, text=True)
        if p.returncode != 0:
            fail("sp-report %s: %s" % (" ".join(args), p.stderr.strip()))
        return p.stdout

    P = "omp parallel @ %s:%d" % (base, par)
    T = "omp implicit task @ %s:%d" % (base, par)
    U = "omp for @ %s:%d" % (base, line_of(r"! UNBALANCED"))
    W = "omp_work::work"
    tree, stack = {}, []
    for l in run("--tree").splitlines()[2:]:
        name = l[41:]
        depth = (len(name) - len(name.lstrip(" "))) // 2
        stack[depth:] = [name.strip()]
        tree[" > ".join(stack)] = int(l[:10])
    want = {"omp_prog": 1, "omp_prog > " + P: 1, "omp_prog > %s > %s" % (P, T): 4,
            "omp_prog > %s > %s > %s" % (P, T, U): 12,
            "omp_prog > %s > %s > %s > %s" % (P, T, U, W): 12}
    for k, v in want.items():
        if tree.get(k) != v:
            fail("--tree %s: %s calls, want %d; tree %s" % (k, tree.get(k), v, tree))
    roots = [k for k in tree if " > " not in k]
    if roots != ["omp_prog"]:
        fail("--tree roots %s, want omp_prog only" % roots)
    folded = [l.rsplit(" ", 1)[0] for l in run("--export", "folded").splitlines()]
    work = [f for f in folded if f.endswith(";" + W)]
    if work != ["omp_prog;%s;%s;%s;%s" % (P, T, U, W)]:
        fail("folded stacks of %s: %s" % (W, work))
    rows = [l.split(",") for l in run("--by-thread", "--include", "^%s$" % W,
                                      "--export", "csv").splitlines()[1:]]
    by = {omp_num[int(r[2])]: (int(r[3]), int(r[4]), float(r[12])) for r in rows}
    if sorted(by) != [0, 1, 2, 3] or {c for c, _, _ in by.values()} != {3}:
        fail("--by-thread %s: %s, want 3 calls on each of 4 threads" % (W, by))
    tot = {k: v[1] for k, v in by.items()}
    # thread i did (i+1) units; time slicing on a loaded machine stretches
    # each thread's calls unevenly, so only ratios of 2 and more are asked
    if tot[0] >= min(tot[2], tot[3]) or tot[3] <= max(tot[0], tot[1]):
        fail("%s total by OpenMP thread %s: want thread 0 (1 unit) below "
             "threads 2 and 3, thread 3 (4 units) above threads 0 and 1" % (W, tot))
    mean = sum(tot.values()) / 4
    for k, (_, t, tb) in by.items():
        if abs(tb - t / mean) > 1e-4:
            fail("--by-thread timbal of thread %d: %s, want %.4f" % (k, tb, t / mean))
    r = run("--include", "^%s$" % W, "--export", "csv").splitlines()[1].split(",")
    if abs(float(r[11]) - max(tot.values()) / mean) > 1e-4:
        fail("timbal of %s: %s, want %.4f" % (W, r[11], max(tot.values()) / mean))
    # The Python package's per-thread rows and timbal, on every region
    from scopeprof import read_h5
    res = read_h5(path)
    mine = {(d["name"], d["thread"]): d for d in res.by_thread()}
    rows = [l.split(",") for l in run("--by-thread", "--export", "csv").splitlines()[1:]]
    if len(rows) != len(mine):
        fail("by_thread(): %d rows, sp-report --by-thread %d" % (len(mine), len(rows)))
    for r in rows:  # names hold no comma or quote here
        d = mine.get((r[0], int(r[2])), {})
        if (d.get("num_calls"), round(d.get("total_duration", -1) * 1e9)) != \
                (int(r[3]), int(r[4])) or abs(d["thread_imbalance"] - float(r[12])) > 5e-5:
            fail("by_thread() %s, sp-report --by-thread %s" % (d, r))
    for r in (l.split(",") for l in run("--export", "csv").splitlines()[1:]):
        if abs(res[r[0]].thread_imbalance - float(r[11])) > 5e-5:
            fail("%s: thread_imbalance %s, sp-report %s"
                 % (r[0], res[r[0]].thread_imbalance, r[11]))
print("%s: %d omp regions as expected on %d threads" % (mode, len(omp_names), len(threads)))
