#!/usr/bin/python3
"""check_omp.py MODE PROFILE.h5 SOURCE - checks the OpenMP regions of one
run of test/unit/omp's programs (written by the runtime as .h5).
MODE c: omp_prog.c on 4 threads; fortran: omp_prog.f90 on 4 threads;
off: a run under SP_OMPT=0; noomp: no_omp.c (no OpenMP runtime)."""
import re
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
if mode == "c":
    par = line_of(r"#pragma omp parallel$")
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
    unbal = line_of(r"/\* UNBALANCED \*/")
    expect_counts("omp for @ %s:%d" % (base, unbal), {t: 3 for t in omp_num})
    bar = "omp barrier (implicit) @ %s:%d" % (base, unbal)
    expect_counts(bar, {t: 3 for t in omp_num})
    # thread i did (i+1) units: the less work, the longer the wait. On a
    # loaded machine with fewer cores than threads, the scheduler may swap
    # neighbours (2 and 3), never halves: the two threads with the least
    # work each wait longer than each of the two with the most.
    wait = {omp_num[t]: sum(e - s for s, e in calls[(bar, t)]) for t in omp_num}
    if min(wait[0], wait[1]) <= max(wait[2], wait[3]) or wait[0] <= wait[3]:
        fail("barrier wait by OpenMP thread %s: want threads 0 and 1 (least "
             "work) each to wait longer than threads 2 and 3" % wait)
else:
    par = line_of(r"!\$omp parallel do")
    if len(threads) != 4:
        fail("threads %s, want 4" % threads)
    pcalls = per_thread("omp parallel @ %s:%d" % (base, par))
    if list(pcalls.values()) != [1]:
        fail("parallel calls %s" % pcalls)
    master = list(pcalls)[0]
    each = {t: 1 for t in threads}
    expect_counts("omp implicit task @ %s:%d" % (base, par), each)
    loops = [n for n in omp_names if n.startswith("omp for @ %s:" % base)]
    if len(loops) != 1:
        fail("loops %s" % omp_names)
    expect_counts(loops[0], each)

# Linkage: each implicit task lies within the parallel call of the same
# location on the encountering thread.
pname = "omp parallel @ %s:%d" % (base, par)
(ps, pe), = calls[(pname, master)]
for t in threads:
    for s, e in calls.get(("omp implicit task @ %s:%d" % (base, par), t), []):
        if not (ps <= s <= e <= pe):
            fail("implicit task [%d, %d] on thread %d not within %s [%d, %d]"
                 % (s, e, t, pname, ps, pe))
print("%s: %d omp regions as expected on %d threads" % (mode, len(omp_names), len(threads)))
