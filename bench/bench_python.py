#!/usr/bin/python3
# bench_python.py - the Python package on a large merged profile:
# to_events_dataframe() (time, and memory against the event columns) and
# read_h5_summary(), each in several separate processes (median and best).
# usage: bench_python.py SP_IMPORT DIR [CALLS] [RUNS]  (PYTHONPATH: python/)
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


def child(mode, path):
    """One measurement in this fresh process; prints a JSON line."""
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
    os.makedirs(os.path.join(d, "in"), exist_ok=True)
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
    sm = runs("summary", prof, n)
    assert all(s["calls"] == total for s in sm)
    ts = [s["t"] for s in sm]
    print("read_h5_summary(): median %.3f s, best %.3f s over %d processes"
          % (statistics.median(ts), min(ts), n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
