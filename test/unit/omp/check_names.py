#!/usr/bin/python3
"""check_names.py LANG PROFILE.h5 SOURCE - the names of the OpenMP regions
of one run of omp_names.c (LANG c) or omp_names.f90 (LANG fortran) on 4
threads: each construct named at the line of its marker comment in SOURCE
(/* PAR1 */, ! PAR1, ...), whatever the optimisation, and no name that
holds another line, an OpenMP runtime's symbol or an offset (+0x). The one
region whose line may be unknown: INNER, a parallel region that is the
last statement of OUTER's body (at -O2 a tail call, which leaves no
location of its own); it is then named by its file alone."""
import re
import sys
from collections import defaultdict

import h5py

lang, path, source = sys.argv[1], sys.argv[2], sys.argv[3]
base = source.rsplit("/", 1)[-1]


def fail(msg):
    sys.exit("%s: %s: %s" % (lang, path, msg))


with h5py.File(path, "r") as f:
    names = [x.decode() if isinstance(x, bytes) else x for x in f["region_table/names"][()]]
    idx = f["rank_region_index"]
    calls = defaultdict(int)  # (name, thread) -> calls
    for i in range(len(idx["region_ids"])):
        calls[(names[int(idx["region_ids"][i])], int(idx["threads"][i]))] += \
            int(idx["event_counts"][i])

lines = open(source).read().split("\n")
mark = "/\\* %s \\*/" if lang == "c" else "! %s$"


def line_of(marker):
    hits = [i + 1 for i, l in enumerate(lines) if re.search(mark % marker, l)]
    if len(hits) != 1:
        fail("marker %s on lines %s of %s, want one" % (marker, hits, source))
    return hits[0]


at = {m: line_of(m) for m in ("PAR1", "PAR2", "PAR3", "FOR", "SINGLE", "TASK",
                               "OUTER", "INNER")}
omp = sorted({n for (n, _) in calls if n.startswith("omp ")})
inner_kinds = ("parallel", "implicit task", "barrier (implicit)")
unknown = {"omp %s @ %s" % (k, base) for k in inner_kinds}
for n in omp:
    m = re.fullmatch(r"omp [a-z ()]+ @ (.*):(\d+)", n)
    if n in unknown:
        continue
    if not m or m.group(1) != base or int(m.group(2)) not in at.values():
        fail("%r: not at a construct's line of %s (%s); omp regions %s"
             % (n, base, sorted(at.items(), key=lambda x: x[1]), omp))
    if "+0x" in n or "kmp" in n or "omp_outlined" in n or "omp_par" in n:
        fail("%r names code, not a construct" % n)

threads = sorted({t for (_, t) in calls})
if len(threads) != 4:
    fail("threads %s, want 4" % threads)


def expect(name, per_thread=None, total=None):
    got = {t: c for (n, t), c in calls.items() if n == name}
    if per_thread is not None and sorted(got.values()) != per_thread:
        fail("%s: calls per thread %s, want %s; omp regions %s" % (name, got, per_thread, omp))
    if total is not None and sum(got.values()) != total:
        fail("%s: %d calls in all, want %d; omp regions %s"
             % (name, sum(got.values()), total, omp))


def nm(what, marker):
    return "omp %s @ %s:%d" % (what, base, at[marker])


each = [1, 1, 1, 1]
for p, n in (("PAR1", 2), ("PAR2", 1), ("PAR3", 1)):
    expect(nm("parallel", p), [n])
    expect(nm("implicit task", p), [n] * 4)
    expect(nm("barrier (implicit)", p), [n] * 4)
expect(nm("parallel", "OUTER"), [1])
expect(nm("implicit task", "OUTER"), [1, 1])
# INNER: started once by each of OUTER's 2 threads (a team of one each,
# nesting being off), at its line or at none
got = [n for n in ("omp parallel @ %s" % base, nm("parallel", "INNER"))
       if any(k == n for (k, _) in calls)]
if len(got) != 1:
    fail("INNER named %s, want one name; omp regions %s" % (got, omp))
expect(got[0], [1, 1])
expect(nm("for", "FOR"), each)
# the loop's end barrier; Flang's reduction adds a barrier of its own after
# the loop's (two calls of __kmpc_barrier in its outlined body, both the
# construct's), and libomp's reduction one of the implementation
if lang == "c":
    expect(nm("barrier (implicit)", "FOR"), each)
else:
    expect(nm("barrier (implicit)", "FOR"), [2, 2, 2, 2])
    expect(nm("barrier (implementation)", "FOR"), each)
expect(nm("single", "SINGLE"), each)
# the single's end barrier: its last call, a tail call at -O2
expect(nm("barrier (implicit)", "SINGLE"), each)
expect(nm("task", "TASK"), total=8)
print("%s: %d omp regions, each at its construct's line" % (lang, len(omp)))
