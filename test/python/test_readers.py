#!/usr/bin/python3
# test_readers.py - the Python readers on damaged and crafted files (one
# error of the package's own class, one line naming the file; never a crash,
# a hang or h5py's exception), schema 1 and newer schemas, duplicate region
# names, to_dataframe and build_call_arrays by whole columns (deep
# recursion against an obvious reference), and files
# written through an O_EXCL temporary and a rename.
# usage: test_readers.py WORKDIR   (PYTHONPATH: python/)
import os
import shutil
import struct
import subprocess
import sys
import tracemalloc
import warnings

import h5py
import numpy as np

WORK = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(HERE, "..", "fuzz", "corpus_h5")
import scopeprof  # noqa: E402
from scopeprof import FormatError, build_call_arrays, read_h5, read_h5_summary  # noqa: E402

from sptest import check, eq, failures  # noqa: E402


def refused(path, want, what, readers=(read_h5, read_h5_summary)):
    """Each reader raises FormatError, one line, naming path, saying want."""
    for fn in readers:
        try:
            fn(path)
            check(False, "%s: %s read %s" % (what, fn.__name__, path))
        except FormatError as e:
            msg = str(e)
            check(msg.startswith(path + ": ") and "\n" not in msg and want in msg,
                  "%s: %s: %r (want %r)" % (what, fn.__name__, msg, want))
        except Exception as e:  # noqa: BLE001  (what the test is about)
            check(False, "%s: %s raised %s: %s" % (what, fn.__name__, type(e).__name__, e))


def in_child(path, want, what):
    """refused() in a child process: a crash or a hang of the reader fails
    the test instead of ending it."""
    code = ("import sys, scopeprof\n"
            "try:\n    scopeprof.read_h5(sys.argv[1])\n    print('READ')\n"
            "except scopeprof.FormatError as e:\n    print('FormatError', e)\n")
    try:
        p = subprocess.run([sys.executable, "-c", code, path], capture_output=True,
                           text=True, timeout=120)
    except subprocess.TimeoutExpired:
        check(False, "%s: the reader hung on %s" % (what, path))
        return
    out = p.stdout.strip()
    check(p.returncode == 0 and out.startswith("FormatError " + path + ": ") and want in out,
          "%s: exit %d, %r %r" % (what, p.returncode, out, p.stderr.strip()[-300:]))


def copy(name, to):
    dst = os.path.join(WORK, to)
    shutil.copy(os.path.join(SEEDS, name), dst)
    return dst


def heap_objects(data):
    """(offset of the object's size field, size) of every object of the
    first global heap collection of a file."""
    at = data.index(b"GCOL")
    size = struct.unpack_from("<Q", data, at + 8)[0]
    pos, out = at + 16, []
    while pos + 16 <= at + size:
        idx, _, _, osize = struct.unpack_from("<HHIQ", data, pos)
        if idx == 0:
            break
        out.append((pos + 8, osize))
        pos += 16 + (osize + 7) // 8 * 8
    return out


def h5py_profile(path, names=("main", "solve"), schema=2, region=(0, 1), **over):
    """A small profile written by h5py: rank 0, one call per row."""
    n = len(region)
    with h5py.File(path, "w") as f:
        if schema is not None:
            f.attrs["scope_profiler_schema"] = np.int64(schema)
        f.create_dataset("region_table/names", data=list(names), dtype=h5py.string_dtype())
        ix = f.create_group("rank_region_index")
        cols = {"region_ids": np.array(region, np.int32), "ranks": np.zeros(n, np.int32),
                "event_offsets": np.arange(n, dtype=np.int64),
                "event_counts": np.ones(n, np.int64)}
        cols.update(over)
        for k, v in cols.items():
            ix[k] = v
        f["events/start_times"] = np.array([100 + 10 * i for i in range(n)], np.int64)
        f["events/end_times"] = np.array([105 + 10 * i for i in range(n)], np.int64)
        f.create_group("metadata").attrs["hostname"] = "node"


def damaged_heaps():
    """Variable-length strings whose heap objects do not match: HDF5 follows
    them unchecked (an endless loop, or a copy past its buffer)."""
    # The size of a region name's heap object grown past its collection:
    # HDF5 1.10 loops for ever opening that collection (the C tools too).
    p = copy("merged.h5", "heap_size.h5")
    with open(p, "r+b") as f:
        data = f.read()
        at, _ = heap_objects(data)[0]
        f.seek(at + 1)
        f.write(bytes([data[at + 1] ^ 0xFF]))
    in_child(p, "global heap collection", "heap object beyond its collection")
    # A string's recorded length shorter than its heap object: HDF5 copies
    # the object into a buffer of the recorded length.
    p = copy("h5py_schema2.h5", "heap_len.h5")
    with h5py.File(p, "r") as f:
        ds = f["region_table/names"]
        off = ds.id.get_offset()
    with open(p, "r+b") as f:
        f.seek(off)
        ln = struct.unpack("<I", f.read(4))[0]
        f.seek(off)
        f.write(struct.pack("<I", ln - 3))
    in_child(p, "region_table/names: string 0: 1 bytes, its heap object 4",
             "string shorter than its heap object")
    # A reference to an object the collection does not hold.
    p = copy("h5py_schema2.h5", "heap_idx.h5")
    with open(p, "r+b") as f:
        f.seek(off + 12)
        f.write(struct.pack("<I", 999))
    in_child(p, "no object 999", "reference to a missing heap object")


def damaged_files():
    """Damage that h5py reports with its own exceptions, without the name."""
    p = copy("merged.h5", "truncated.h5")
    with open(p, "r+b") as f:
        f.truncate(os.path.getsize(p) // 2)
    refused(p, "cannot read the HDF5 file", "truncated .h5")
    p = os.path.join(WORK, "float_ids.h5")
    h5py_profile(p, region_ids=np.array([0.0, 1.0]))
    refused(p, "rank_region_index/region_ids has the wrong type", "float region ids")
    p = os.path.join(WORK, "group_events.h5")
    h5py_profile(p)
    with h5py.File(p, "r+") as f:
        del f["events/end_times"]
        f.create_group("events/end_times")
    refused(p, "events/end_times is not a dataset", "a group where a dataset belongs")
    p = os.path.join(WORK, "two_d.h5")
    h5py_profile(p, ranks=np.zeros((2, 1), np.int32))
    refused(p, "rank_region_index/ranks is not a one-dimensional dataset", "2-D ranks")
    p = os.path.join(WORK, "stats_type.h5")
    h5py_profile(p, summary_statistics=np.zeros(2, np.int64))
    refused(p, "summary_statistics has the wrong type", "stats not a compound")
    p = os.path.join(WORK, "schema_str.h5")
    h5py_profile(p)
    with h5py.File(p, "r+") as f:
        f.attrs["scope_profiler_schema"] = "2"
    refused(p, "scope_profiler_schema is not one integer", "schema as a string")
    p = os.path.join(WORK, "notes.txt")
    with open(p, "w") as f:
        f.write("not a profile\n")
    refused(p, "neither a schema-2 .h5 profile nor an .spt trace", "a text file")


def duplicate_names():
    p = os.path.join(WORK, "dup_names.h5")
    h5py_profile(p, names=("solve", "solve"))
    refused(p, 'region_table/names holds "solve" twice', "duplicate region names")


def schemas():
    """Schema 1 (no attribute, scope-profiler's files before it) is read;
    a newer schema is refused with an upgrade hint."""
    p = os.path.join(WORK, "schema1.h5")
    h5py_profile(p, schema=None)
    for fn in (read_h5, read_h5_summary):
        r = fn(p)
        eq(r.region_names, ["main", "solve"], "schema 1 %s: regions" % fn.__name__)
        eq(r["solve"].num_calls, 1, "schema 1 %s: calls" % fn.__name__)
        eq(round(r["solve"].total_duration * 1e9), 5, "schema 1 %s: total" % fn.__name__)
    eq(read_h5(p).metadata, {"hostname": "node"}, "schema 1: metadata")
    p = os.path.join(WORK, "schema3.h5")
    h5py_profile(p, schema=3)
    refused(p, "schema 3 is newer than this reader (schema 2): upgrade scopeprof", "schema 3")
    p = os.path.join(WORK, "schema0.h5")
    h5py_profile(p, schema=0)
    refused(p, "unsupported schema 0", "schema 0")


def frame_by_columns():
    """to_dataframe() has region[rank]'s values and builds no per-(region,
    rank) object (a million rows took 48 s that way)."""
    p = os.path.join(WORK, "frame.spt")
    rng = np.random.default_rng(3)
    out = [b"SCOPEPRF", struct.pack("<iiq", 3, 0, 0)]
    nblocks = 0
    for t in (0, 1, 2):
        for r in range(40):
            k = int(rng.integers(0, 4)) if t else 1 + r % 3
            s = [10 ** 9 + r * 10 ** 6 + t * 10 ** 8 + 1000 * i for i in range(k)]
            nm = ("reg%02d" % r).encode()
            out += [struct.pack("<i", t), struct.pack("<i", len(nm)) + nm,
                    struct.pack("<i", 3) + b"f.c" + struct.pack("<iq", r, k)]
            out += [struct.pack("<%dq" % k, *s), struct.pack("<%dq" % k, *[x + 7 + i * 3 for i, x in enumerate(s)])]
            nblocks += 1
    out[1] = struct.pack("<iiq", 3, 0, nblocks)
    with open(p, "wb") as f:
        f.write(b"".join(out))
    made = [0]
    orig = scopeprof.region.RankRegion.__init__

    def counting(self, *a, **k):
        made[0] += 1
        orig(self, *a, **k)
    res = read_h5(p)
    scopeprof.region.RankRegion.__init__ = counting
    try:
        df = res.to_dataframe()
    finally:
        scopeprof.region.RankRegion.__init__ = orig
    eq(made[0], 0, "to_dataframe builds no RankRegion per row")
    eq(len(df), 40, "frame rows")
    for row in df.itertuples():
        rr = res[row.name][row.rank]
        for col in ("num_calls", "threads", "total_duration", "average_duration",
                    "min_duration", "max_duration", "std_duration", "exclusive_duration"):
            want = len(rr.threads) if col == "threads" else getattr(rr, col)
            got = getattr(row, col)
            check(abs(got - want) <= 1e-12 * max(1.0, abs(want)),
                  "frame %s %s: %r != %r" % (row.name, col, got, want))
        eq(row.source_file, rr.source_file, "frame source_file")
        eq(row.source_lineno, rr.source_lineno, "frame source_lineno")
    eq(list(df.dtypes.astype(str)), ["object", "int64", "int64", "int64"] + ["float64"] * 6
       + ["object", "int64"], "frame dtypes")


def write_spt(path, regions):
    """An .spt v2 trace of rank 0: regions as (name, starts, ends)."""
    with open(path, "wb") as f:
        f.write(b"SCOPEPRF" + struct.pack("<iiq", 2, 0, len(regions)))
        for name, s, e in regions:
            s, e = np.asarray(s, np.int64), np.asarray(e, np.int64)
            f.write(struct.pack("<i", len(name)) + name.encode() + struct.pack("<i", 1)
                    + b"b" + struct.pack("<iq", 1, s.size))
            s.astype("<i8").tofile(f)
            e.astype("<i8").tofile(f)


def measured_call_arrays(regs):
    """build_call_arrays of regs, and the peak bytes it allocated beyond its
    result."""
    tracemalloc.start()
    c = build_call_arrays(regs, rank=0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    result = sum(getattr(c, a).nbytes for a in (
        "region", "thread", "call_index", "start_ns", "end_ns", "duration_ns",
        "depth", "parent", "exclusive_ns"))
    return c, peak - result


def call_arrays_memory():
    """build_call_arrays of a million calls: beyond its result, less than
    twice the bytes of the event columns it reads (tracemalloc counts
    numpy's allocations exactly; the pointer jumping it replaced took ten
    times that)."""
    n = 1 << 20
    k = np.arange(n // 2, dtype=np.int64)
    regions = [("main", np.array([0]), np.array([1000 * (n // 2) + 20])),
               ("step", 10 + 1000 * k, 10 + 1000 * k + 900 + k % 7),
               ("kernel", 110 + 1000 * k, 110 + 1000 * k + 500 + k % 11)]
    p = os.path.join(WORK, "calls.spt")
    write_spt(p, regions)
    res = read_h5(p)
    regs = res.get_regions()
    inputs = res._cols.starts.nbytes + res._cols.ends.nbytes
    c, beyond = measured_call_arrays(regs)
    check(beyond < 2 * inputs, "build_call_arrays: %d bytes beyond its result "
          "for %d bytes of event columns" % (beyond, inputs))
    eq(len(c), n + 1, "calls")
    eq(np.bincount(c.depth).tolist(), [1, n // 2, n // 2], "depths")
    eq(int(c.exclusive_ns[0]), 1000 * (n // 2) + 20 - int((c.duration_ns[c.depth == 1]).sum()),
       "main's exclusive time")
    kern = np.flatnonzero(c.region == 2)
    check(np.array_equal(c.region[c.parent[kern]], np.full(kern.size, 1)), "kernels under steps")


def recursion(depths):
    """Calls of main, recurse and leaf (rows 0, 1, 2): main around
    recursions of the given depths, one after another; a leaf opens every
    third level at the very start of its recurse call, and a zero-length
    leaf sits at the very end of every fifth (its recurse call's child by
    the stack walk). Each row in start order, as writers keep them."""
    rows = ([], [], [])
    t = [10]

    def rec(level, top):
        s = t[0]
        if level % 3 == 0:
            rows[2].append((s, s + 2))
            t[0] += 2
        if level < top:
            t[0] += 1
            rec(level + 1, top)
        t[0] += 1
        if level % 5 == 0:
            rows[2].append((t[0], t[0]))
        rows[1].append((s, t[0]))

    for d in depths:
        rec(1, d)
        t[0] += 3
    rows[0].append((0, t[0] + 10))
    return [sorted(r) for r in rows]


def reference_calls(rows):
    """The call stack the obvious way: calls in walk order (start
    ascending, end descending, row, place in row); a call's parent is the
    last call before it whose [start, end] holds its own, its depth the
    length of its chain of parents, its exclusive time its duration less
    its children's."""
    calls = sorted((s, -e, k, i) for k, r in enumerate(rows) for i, (s, e) in enumerate(r))
    parent = []
    for j, (s, me, _, _) in enumerate(calls):
        p = -1
        for q in range(j - 1, -1, -1):
            if calls[q][0] <= s and -calls[q][1] >= -me:
                p = q
                break
        parent.append(p)
    depth = []
    for j in range(len(calls)):
        d, q = 0, parent[j]
        while q >= 0:
            d, q = d + 1, parent[q]
        depth.append(d)
    excl = [-me - s for s, me, _, _ in calls]
    for j, (s, me, _, _) in enumerate(calls):
        if parent[j] >= 0:
            excl[parent[j]] -= -me - s
    return {"region": [c[2] for c in calls], "call_index": [c[3] for c in calls],
            "start_ns": [c[0] for c in calls], "end_ns": [-c[1] for c in calls],
            "duration_ns": [-c[1] - c[0] for c in calls], "depth": depth,
            "parent": parent, "exclusive_ns": excl, "thread": [0] * len(calls)}


def call_arrays_deep():
    """build_call_arrays on deep recursion (40 levels again and again, one
    past int8's depths, a few shallow ones) against the obvious reference,
    column by column, with its pieces and search windows as they are and
    a few calls long (so every carry between pieces is used); then its
    memory on a million calls of 40-deep recursion."""
    from scopeprof import _nesting
    rows = recursion([40, 40, 1, 3, 130, 40, 2, 40, 40])
    p = os.path.join(WORK, "deep.spt")
    write_spt(p, [(name, [c[0] for c in r], [c[1] for c in r])
                  for name, r in zip(("main", "recurse", "leaf"), rows)])
    regs = read_h5(p).get_regions()
    want = reference_calls(rows)
    eq(max(want["depth"]), 131, "the reference's deepest call")
    piece, window = _nesting._PIECE, _nesting._WINDOW
    try:
        for _nesting._PIECE, _nesting._WINDOW in ((piece, window), (7, 3), (64, 16), (200, 5)):
            c = build_call_arrays(regs, rank=0)
            eq(c.names, ["main", "recurse", "leaf"], "deep: names")
            for k, v in want.items():
                got = getattr(c, k).tolist()
                bad = [j for j, (x, y) in enumerate(zip(got, v)) if x != y][:1]
                check(len(got) == len(v) and not bad,
                      "deep, pieces of %d: %s: %d calls (want %d), first difference at %s: %s"
                      % (_nesting._PIECE, k, len(got), len(v), bad,
                         [(got[j], v[j]) for j in bad]))
    finally:
        _nesting._PIECE, _nesting._WINDOW = piece, window
    reps, depth = 25000, 40
    lev = np.arange(depth, dtype=np.int64)
    base = 10 * depth * np.arange(reps, dtype=np.int64)
    s = (base[:, None] + lev[None, :]).ravel()
    e = (base[:, None] + 4 * depth - lev[None, :]).ravel()
    p = os.path.join(WORK, "deep_big.spt")
    write_spt(p, [("recurse", s, e)])
    res = read_h5(p)
    regs = res.get_regions()
    inputs = s.nbytes + e.nbytes
    c, beyond = measured_call_arrays(regs)
    check(beyond < 2 * inputs, "build_call_arrays, deep: %d bytes beyond its result "
          "for %d bytes of event columns" % (beyond, inputs))
    eq(np.bincount(c.depth).tolist(), [reps] * depth, "deep: calls per depth")
    i = np.arange(s.size)
    eq(c.parent.tolist(), np.where(i % depth == 0, -1, i - 1).tolist(), "deep: parents")
    eq(c.exclusive_ns.tolist(), np.where(i % depth == depth - 1, 2 * depth + 2, 2).tolist(),
       "deep: exclusive times")


def atomic_writes():
    """A chart is written through a fresh temporary and a rename: a link
    planted at the temporary's name or at the target is never followed."""
    res = read_h5(os.path.join(SEEDS, "merged.h5"))
    victim = os.path.join(WORK, "victim.txt")
    with open(victim, "w") as f:
        f.write("keep me")
    target = os.path.join(WORK, "chart.png")
    os.symlink(victim, "%s.tmp.%d.0" % (target, os.getpid()))
    os.symlink(victim, target)
    scopeprof.plot_durations([res], metrics=("avg",), filepath=target)
    with open(victim) as f:
        eq(f.read(), "keep me", "the planted links' target untouched")
    check(not os.path.islink(target), "the chart replaced the link at its name")
    with open(target, "rb") as f:
        eq(f.read(8), b"\x89PNG\r\n\x1a\n", "the chart is a PNG")
    left = sorted(n for n in os.listdir(WORK) if n.startswith("chart.png.tmp."))
    eq(left, ["chart.png.tmp.%d.0" % os.getpid()], "no temporary left but the planted one")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    warnings.simplefilter("ignore")
    for part in (damaged_heaps, damaged_files, duplicate_names, schemas,
                 frame_by_columns, call_arrays_memory, call_arrays_deep,
                 atomic_writes):
        try:
            part()
        except Exception as e:  # noqa: BLE001  (the next part still runs)
            check(False, "%s raised %s: %s" % (part.__name__, type(e).__name__, e))
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("test_readers: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
