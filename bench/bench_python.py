#!/usr/bin/python3
# bench_python.py - the Python package on a large merged profile:
# to_events_dataframe() (time, and memory against the event columns) and
# read_h5_summary(), each in several separate processes (median and best);
# build_call_arrays() on one rank and to_dataframe() on a profile of many
# (region, rank) rows, each against hand-written numpy/pandas code doing
# the core of the same job in the same process (the ratio is what a loaded
# machine does not blur).
# usage: bench_python.py SP_IMPORT DIR [CALLS] [RUNS] [STACK_CALLS]
#        [FRAME_ROWS] [PARTS]   (PYTHONPATH: python/; PARTS: a comma list
#        of events,summary,stack,deep,frame; all by default)
import json
import os
import statistics
import struct
import subprocess
import sys
import time

import numpy as np

RANKS = 4


def write_rank(path, rank, steps):
    """One rank as .spt v2: main holding `steps` steps, each holding one
    kernel (the layout of bench_report.c)."""
    base = rank * 10 ** 12
    k = np.arange(steps, dtype=np.int64)
    regions = [("main", np.array([base]), np.array([base + 1000 * steps + 20])),
               ("step", base + 10 + 1000 * k, base + 10 + 1000 * k + 900 + k % 7),
               ("kernel", base + 110 + 1000 * k, base + 110 + 1000 * k + 500 + k % 11)]
    with open(path, "wb") as f:
        f.write(b"SCOPEPRF" + struct.pack("<iiq", 2, rank, len(regions)))
        for name, s, e in regions:
            f.write(struct.pack("<i", len(name)) + name.encode() +
                    struct.pack("<i", 7) + b"bench.c" + struct.pack("<iq", 1, s.size))
            s.astype("<i8").tofile(f)
            e.astype("<i8").tofile(f)


def write_stack(path, calls):
    """One rank, one thread: main holding calls/2 steps, each holding a
    kernel."""
    write_rank(path, 0, (calls - 1) // 2)


def write_deep(path, calls, depth=40):
    """One rank, one thread: recursion `depth` deep, again and again (one
    region, one row), then a flat tail of leaves to make up `calls`."""
    reps = calls // depth
    lev = np.arange(depth, dtype=np.int64)
    base = 10 ** 9 + 10 * depth * np.arange(reps, dtype=np.int64)
    s = (base[:, None] + lev[None, :]).ravel()
    e = (base[:, None] + 4 * depth - lev[None, :]).ravel()
    tail = calls - s.size
    t0 = (base[-1] if reps else 10 ** 9) + 10 * depth
    s = np.r_[s, t0 + 2 * np.arange(tail, dtype=np.int64)]
    e = np.r_[e, t0 + 2 * np.arange(tail, dtype=np.int64) + 1]
    with open(path, "wb") as f:
        f.write(b"SCOPEPRF" + struct.pack("<iiq", 2, 0, 1))
        f.write(struct.pack("<i", 7) + b"recurse" + struct.pack("<i", 7) + b"bench.c"
                + struct.pack("<iq", 1, s.size))
        s.astype("<i8").tofile(f)
        e.astype("<i8").tofile(f)


def cpu():
    """CPU seconds of this process so far (user + system: the page faults
    of fresh memory are system time)."""
    import resource
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def write_frame(path, rows):
    """A schema-2 file of `rows` rows, 1000 regions on rows/1000 ranks, one
    call each, with summary records (written with h5py)."""
    import h5py
    from scopeprof._columns import STATS_DTYPE
    nreg = 1000
    nrank = max(1, rows // nreg)
    n = nreg * nrank
    reg = np.tile(np.arange(nreg, dtype=np.int32), nrank)
    rank = np.repeat(np.arange(nrank, dtype=np.int32), nreg)
    s = 10 ** 9 + rank.astype(np.int64) * 10 ** 7 + reg * 1000
    e = s + 500 + reg % 7
    st = np.zeros(n, STATS_DTYPE)
    for k in ("total_ns", "min_ns", "max_ns", "exclusive_ns", "outer_total_ns", "mean_ns"):
        st[k] = e - s
    st["calls"], st["gpu_total_ns"] = 1, -1
    st["first_start_ns"], st["last_end_ns"] = s, e
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int64(2)
        f.create_dataset("region_table/names", dtype=h5py.string_dtype(),
                         data=["region%04d" % i for i in range(nreg)])
        ix = f.create_group("rank_region_index")
        ix["region_ids"], ix["ranks"] = reg, rank
        ix["threads"] = np.zeros(n, np.int32)
        ix["event_offsets"] = np.arange(n, dtype=np.int64)
        ix["event_counts"] = np.ones(n, np.int64)
        ix["source_lines"] = np.full(n, 3, np.int32)
        ix["summary_statistics"] = st
        f["events/start_times"], f["events/end_times"] = s, e
    return n


def child_stack(path):
    """build_call_arrays of rank 0 against the sort every call-stack
    reconstruction needs (np.lexsort by start, then end descending, and
    the two gathers), in this process; memory by tracemalloc."""
    import tracemalloc

    import scopeprof
    r = scopeprof.read_h5(path)
    regs = r.get_regions()
    s, e = r._cols.starts, r._cols.ends
    t0, c0 = time.perf_counter(), cpu()
    c = scopeprof.build_call_arrays(regs, rank=0)
    t, tc = time.perf_counter() - t0, cpu() - c0
    depth = int(c.depth.max())
    del c
    t0, c0 = time.perf_counter(), cpu()
    o = np.lexsort((-e, s))
    ws, we = s[o], e[o]
    base, basec = time.perf_counter() - t0, cpu() - c0
    del o, ws, we
    tracemalloc.start()
    t0 = time.perf_counter()
    c = scopeprof.build_call_arrays(regs, rank=0)
    t_again = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    result = sum(getattr(c, k).nbytes for k in (
        "region", "thread", "call_index", "start_ns", "end_ns", "duration_ns",
        "depth", "parent", "exclusive_ns"))
    print(json.dumps({"t": t, "again": t_again, "base": base, "calls": len(c),
                      "cpu": tc, "base_cpu": basec, "depth": depth,
                      "in_bytes": s.nbytes + e.nbytes, "result": result,
                      "peak": peak}))


def child_frame(path):
    """to_dataframe() against pandas code computing the core of the same
    table from the summary records: a DataFrame of the rows' figures,
    grouped by (name, rank) with sum/min/max."""
    import pandas as pd

    import scopeprof
    r = scopeprof.read_h5_summary(path)
    t0 = time.perf_counter()
    df = r.to_dataframe()
    t = time.perf_counter() - t0
    c = r._cols
    t0 = time.perf_counter()
    st = c.stats
    raw = pd.DataFrame({"name": np.asarray(c.names, dtype=object)[c.region],
                        "rank": c.rank, "thread": c.thread, "calls": st["calls"],
                        "total": st["total_ns"], "min": st["min_ns"],
                        "max": st["max_ns"], "excl": st["exclusive_ns"]})
    hand = raw.groupby(["name", "rank"], sort=False).agg(
        threads=("thread", "nunique"), calls=("calls", "sum"),
        total=("total", "sum"), min=("min", "min"), max=("max", "max"),
        excl=("excl", "sum")).reset_index()
    base = time.perf_counter() - t0
    assert len(hand) == len(df)
    print(json.dumps({"t": t, "base": base, "rows": len(df)}))


def child(mode, path):
    """One measurement in this fresh process; prints a JSON line."""
    if mode == "stack":
        return child_stack(path)
    if mode == "frame":
        return child_frame(path)
    import resource

    import numpy

    import pandas  # noqa: F401  (imported once per session, not per call)
    import scopeprof

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    if mode == "summary":
        t0 = time.perf_counter()
        r = scopeprof.read_h5_summary(path)
        t = time.perf_counter() - t0
        calls = sum(g.num_calls for g in r.get_regions())
        print(json.dumps({"t": t, "calls": calls}))
        return
    t0 = time.perf_counter()
    r = scopeprof.read_h5(path)
    t_read = time.perf_counter() - t0
    cols = r._cols
    ev_bytes = cols.starts.nbytes + cols.ends.nbytes
    before = rss()
    t0 = time.perf_counter()
    df = r.to_events_dataframe()
    t = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    rows, frame_ratio = len(df), int(df.memory_usage(deep=True).sum()) / ev_bytes
    # This machine's cost of memory never touched before (page faults of a
    # VM whose freed pages go back to the host), for reading the figures.
    probe = numpy.empty(32 << 20)
    t0 = time.perf_counter()
    probe.fill(1)
    touch = probe.nbytes / (time.perf_counter() - t0)
    del probe
    # Again in the same process, into the memory the first frame just freed:
    # the cost of the code without the first touch of fresh memory.
    del df
    t0 = time.perf_counter()
    df = r.to_events_dataframe()
    t_again = time.perf_counter() - t0
    print(json.dumps({"t": t, "again": t_again, "read": t_read, "rows": rows,
                      "frame_ratio": frame_ratio, "touch_mb_s": touch / 1e6,
                      "peak_ratio": (max(peak, before) - before) / ev_bytes,
                      "ev_bytes": ev_bytes}))


def runs(mode, path, n):
    out = []
    for _ in range(n):
        p = subprocess.run([sys.executable, __file__, "--child", mode, path],
                           capture_output=True, text=True, check=True)
        out.append(json.loads(p.stdout))
    return out


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child(sys.argv[2], sys.argv[3])
    if len(sys.argv) < 3:
        print("usage: bench_python.py SP_IMPORT DIR [CALLS] [RUNS]", file=sys.stderr)
        return 2
    imp, d = sys.argv[1], sys.argv[2]
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 60000000
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    stack_calls = int(sys.argv[5]) if len(sys.argv) > 5 else 20000000
    frame_rows = int(sys.argv[6]) if len(sys.argv) > 6 else 1000000
    parts = sys.argv[7].split(",") if len(sys.argv) > 7 else [
        "events", "summary", "stack", "deep", "frame"]
    os.makedirs(os.path.join(d, "in"), exist_ok=True)
    for part, write in (("stack", write_stack), ("deep", write_deep)):
        if part not in parts:
            continue
        p = os.path.join(d, part + ".spt")
        write(p, stack_calls)
        st = runs("stack", p, n)
        med = statistics.median
        ts, tb = [x["t"] for x in st], [x["base"] for x in st]
        tc, tbc = [x["cpu"] for x in st], [x["base_cpu"] for x in st]
        ratio = [x["t"] / x["base"] for x in st]
        cratio = [x["cpu"] / x["base_cpu"] for x in st]
        print("build_call_arrays() [%s, depth %d]: %d calls, median %.2f s, best %.2f s "
              "over %d processes (again: median %.2f s); CPU median %.2f s, best %.2f s; "
              "hand-written lexsort and gathers: median %.2f s, CPU %.2f s; ratio median "
              "%.2f, best %.2f; CPU ratio median %.2f, best %.2f" % (
                  part, st[0]["depth"], st[0]["calls"], med(ts), min(ts), n,
                  med(x["again"] for x in st), med(tc), min(tc), med(tb), med(tbc),
                  med(ratio), min(ratio), med(cratio), min(cratio)))
        x = st[0]
        print("  memory: event columns %.0f MB, result %.0f MB, peak while building "
              "%.0f MB = result + %.2fx the event columns" % (
                  x["in_bytes"] / 1e6, x["result"] / 1e6, x["peak"] / 1e6,
                  (x["peak"] - x["result"]) / x["in_bytes"]))
        sys.stdout.flush()
        os.unlink(p)
    if "frame" in parts:
        p = os.path.join(d, "frame.h5")
        rows = write_frame(p, frame_rows)
        fr = runs("frame", p, n)
        ratio = [x["t"] / x["base"] for x in fr]
        print("to_dataframe(): %d rows, median %.2f s, best %.2f s over %d processes; "
              "hand-written pandas groupby: median %.2f s; ratio median %.2f, best %.2f"
              % (rows, statistics.median(x["t"] for x in fr), min(x["t"] for x in fr), n,
                 statistics.median(x["base"] for x in fr), statistics.median(ratio),
                 min(ratio)))
        sys.stdout.flush()
        os.unlink(p)
    if "events" not in parts and "summary" not in parts:
        return 0
    prof = os.path.join(d, "profile.h5")
    steps = (calls - RANKS) // (2 * RANKS)
    t0 = time.perf_counter()
    for r in range(RANKS):
        write_rank(os.path.join(d, "in", "b_rank%05d.spt" % r), r, steps)
    subprocess.run([imp, "-o", prof, os.path.join(d, "in")], check=True)
    total = RANKS * (2 * steps + 1)
    print("profile: %d ranks, %d calls (%.0f MB of event columns), made in %.1f s"
          % (RANKS, total, total * 16 / 1e6, time.perf_counter() - t0))
    sys.stdout.flush()
    if "events" in parts:
        ev = runs("events", prof, n)
        assert all(e["rows"] == total for e in ev)
        ts = [e["t"] for e in ev]
        print("to_events_dataframe(): median %.2f s, best %.2f s over %d processes "
              "(read_h5 before it: median %.2f s)" % (
                  statistics.median(ts), min(ts), n, statistics.median(e["read"] for e in ev)))
        ta = [e["again"] for e in ev]
        print("  again in the same process (memory recycled): median %.2f s, best %.2f s; "
              "first touch of fresh memory: median %.0f MB/s" % (
                  statistics.median(ta), min(ta), statistics.median(e["touch_mb_s"] for e in ev)))
        print("  frame size / event columns: %.2fx; peak RSS growth while building / "
              "event columns: median %.2fx, worst %.2fx" % (
                  ev[0]["frame_ratio"], statistics.median(e["peak_ratio"] for e in ev),
                  max(e["peak_ratio"] for e in ev)))
    if "summary" in parts:
        sm = runs("summary", prof, n)
        assert all(s["calls"] == total for s in sm)
        ts = [s["t"] for s in sm]
        print("read_h5_summary(): median %.3f s, best %.3f s over %d processes"
              % (statistics.median(ts), min(ts), n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
