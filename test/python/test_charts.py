#!/usr/bin/python3
# test_charts.py - what a reader of the charts relies on, on profiles with
# exact timestamps (.spt written here) and on runtime profiles: flame frame
# labels, per-panel thresholds, integer depth ticks, distinct colours,
# Gantt height per lane; files written through a temporary; the statistics
# JSON against sp-report; the scope-profiler command.
import csv
import io
import json
import os
import shutil
import struct
import subprocess
import sys

import numpy as np

REPORT, IMPORT, PROG, WORK = sys.argv[1:5]
from sptest import check, eq, failures  # noqa: E402

import scopeprof  # noqa: E402
from scopeprof import read_h5  # noqa: E402
from scopeprof.plotting_scripts import _common  # noqa: E402
from scopeprof.plotting_scripts import (plot_duration_timeseries, plot_flame_chart,  # noqa: E402
                                        plot_flame_graph, plot_gantt)

FIGS = []
_save = _common.save


def _keep(fig, filepath, show=False):
    FIGS.append(fig)
    return _save(fig, filepath, show)


_common.save = _keep


def write_spt(path, rank, blocks):
    """Version 3 .spt; blocks: (thread, name, starts, ends)."""
    out = [b"SCOPEPRF", struct.pack("<iiq", 3, rank, len(blocks))]
    for thread, name, s, e in blocks:
        nb = name.encode()
        out.append(struct.pack("<ii", thread, len(nb)) + nb + struct.pack("<i", 0)
                   + struct.pack("<i", -1) + struct.pack("<q", len(s)))
        out.append(struct.pack("<%dq" % len(s), *s) + struct.pack("<%dq" % len(e), *e))
    with open(path, "wb") as f:
        f.write(b"".join(out))


def png_height(path):
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">I", head[20:24])[0]


def texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def bars(ax):
    return sum(len(c.get_paths()) for c in ax.collections)


MS = 1_000_000


def flame_checks():
    p = os.path.join(WORK, "exact.spt")
    # Thread 0: 1 s of timestep, two solves, a kernel in the first solve.
    # Thread 1: ten 50 us calls inside one millisecond: its own panel must
    # show them (a threshold of the whole run's span, 333 us, drops them).
    write_spt(p, 0, [
        (0, "timestep", [0], [1000 * MS]),
        (0, "solve", [100 * MS, 500 * MS], [400 * MS, 800 * MS]),
        (0, "kernel", [150 * MS], [350 * MS]),
        (1, "worker", [200 * MS + i * 100_000 for i in range(10)],
         [200 * MS + i * 100_000 + 50_000 for i in range(10)])])
    run = read_h5(p)
    FIGS.clear()
    plot_flame_chart(run, ranks=[0], filepath=os.path.join(WORK, "flame.png"))
    fig = FIGS[-1]
    ax0, ax1 = fig.axes[0], fig.axes[1]
    t = texts(fig)
    for lab in ("timestep", "timestep > solve", "timestep > solve > kernel"):
        check(lab in t, "flame chart: frame label %r in %s" % (lab, t))
    eq(t.count("timestep > solve"), 2, "flame chart: both solves labelled")
    eq(bars(ax1), 10, "flame chart: the short thread's panel draws its 10 calls")
    eq([x.get_text() for x in ax0.get_yticklabels()], ["0", "1", "2"],
       "flame chart: integer depth ticks")
    eq([x.get_text() for x in ax1.get_yticklabels()], ["0"],
       "flame chart: one depth, one tick")
    lo, hi = ax1.get_xlim()
    check(abs((hi - lo) - 0.00095) < 1e-9, "flame chart: panel 2 framed on its calls %r"
          % ((lo, hi),))
    h, labels = ax0.get_legend_handles_labels()
    cols = [tuple(x.get_facecolor()[0]) for x in h]
    eq(len(set(cols)), len(cols), "flame chart: legend colours distinct")

    FIGS.clear()
    plot_flame_graph(run, ranks=[0], filepath=os.path.join(WORK, "graph.png"))
    fig = FIGS[-1]
    from scopeprof.plotting_scripts.flame_graph import flame_graph_frames
    frames = [(f["path"], f["depth"], round(f["start"], 9), round(f["width"], 9), f["calls"])
              for f in flame_graph_frames(run, 0)]
    eq(frames, [("timestep", 0, 0.0, 1.0, 1), ("worker", 0, 1.0, 0.0005, 10),
                ("timestep > solve", 1, 0.0, 0.6, 2),
                ("timestep > solve > kernel", 2, 0.0, 0.2, 1)], "flame graph frames")
    t = texts(fig)
    for lab in ("timestep", "timestep > solve", "timestep > solve > kernel"):
        check(lab in t, "flame graph: frame label %r in %s" % (lab, t))
    eq([x.get_text() for x in fig.axes[0].get_yticklabels()], ["0", "1", "2"],
       "flame graph: integer depth ticks")


def colour_checks():
    p = os.path.join(WORK, "many.spt")
    names = ["region_%02d" % i for i in range(40)]
    write_spt(p, 0, [(0, n, [i * MS, i * MS + 10 * MS], [i * MS + MS // 2, i * MS + 10 * MS + MS])
                     for i, n in enumerate(names)])
    run = read_h5(p)
    FIGS.clear()
    plot_duration_timeseries(run, filepath=os.path.join(WORK, "ts.png"))
    h, labels = FIGS[-1].axes[0].get_legend_handles_labels()
    eq(sorted(labels), names, "timeseries legend")
    from matplotlib.colors import to_rgb
    rgb = np.array([to_rgb(x.get_color()) for x in h])
    d = np.sqrt(((rgb[:, None, :] - rgb[None, :, :]) ** 2).sum(-1))
    d[np.diag_indices(len(rgb))] = 9
    check(d.min() > 0.08, "timeseries: nearest legend colours %.3f apart (> 0.08)" % d.min())
    pal = _common.palette(["r%d" % i for i in range(200)])
    eq(len(set(pal.values())), 200, "palette: 200 regions, 200 colours")


def gantt_checks():
    heights = []
    for n in (2, 42):
        p = os.path.join(WORK, "lanes%d.spt" % n)
        write_spt(p, 0, [(0, "lane_%02d" % i, [i * MS], [i * MS + MS]) for i in range(n)])
        out = os.path.join(WORK, "gantt%d.png" % n)
        plot_gantt(read_h5(p), filepath=out)
        heights.append(png_height(out))
        ax = FIGS[-1].axes[0]
        eq(len(ax.get_yticklabels()), n, "gantt: %d lanes" % n)
        # Lanes do not overlap: a lane's labels 7 points (9.7 px) apart at least.
        px_per_lane = ax.get_window_extent().height / n
        check(px_per_lane >= 12, "gantt: %d lanes get %.1f px each" % (n, px_per_lane))
    check(heights[1] > heights[0] * 3, "gantt: height grows with lanes %s" % heights)


def atomic_checks():
    run = read_h5(os.path.join(WORK, "exact.spt"))
    # A symlink at the requested name is replaced, its target untouched.
    victim = os.path.join(WORK, "victim.txt")
    with open(victim, "w") as f:
        f.write("keep")
    link = os.path.join(WORK, "linked.png")
    os.symlink(victim, link)
    plot_gantt(run, filepath=link)
    eq(open(victim).read(), "keep", "atomic: symlink's target untouched")
    check(not os.path.islink(link) and open(link, "rb").read(8) == b"\x89PNG\r\n\x1a\n",
          "atomic: a PNG in place of the symlink")
    # A symlink planted at the temporary's name is never followed.
    import secrets
    real = secrets.token_hex
    names = iter(["aaaa", "bbbb"])
    secrets.token_hex = lambda n: next(names)
    out = os.path.join(WORK, "stats.json")
    os.symlink(victim, os.path.join(WORK, ".stats.json.aaaa.tmp"))
    try:
        scopeprof.write_region_statistics_json(run, out)
    finally:
        secrets.token_hex = real
    eq(open(victim).read(), "keep", "atomic: planted temporary not followed")
    eq(json.load(open(out))["common_regions"], ["timestep", "solve", "kernel", "worker"],
       "atomic: JSON written under another temporary")
    # A failed write leaves the old file and no temporary.
    before = open(out).read()

    def boom(f):
        f.write(b"{")
        raise OSError("disk full")
    from scopeprof import _atomic
    try:
        _atomic.write(out, boom)
        check(False, "atomic: failure raised")
    except OSError:
        pass
    eq(open(out).read(), before, "atomic: old file kept")
    eq(sorted(n for n in os.listdir(WORK) if n.startswith(".stats")),
       [".stats.json.aaaa.tmp"], "atomic: no temporary left")
    # Non-root results (ProfileManager off rank 0) draw and write nothing.
    empty = scopeprof.ProfilingResults(run._cols, ranks=[99], is_root=False)
    eq(plot_gantt(empty, filepath=os.path.join(WORK, "no.png")), None, "non-root gantt")
    check(not os.path.exists(os.path.join(WORK, "no.png")), "non-root: no file")


def profile(out, ranks):
    d = out + ".d"
    os.makedirs(d)
    for rank in range(ranks):
        env = dict(os.environ, SP_RANK=str(rank), SP_FORMAT="h5",
                   SP_OUTPUT=os.path.join(d, "run"))
        subprocess.run([PROG], env=env, check=True)
    subprocess.run([IMPORT, "-o", out, d], check=True, capture_output=True)


def stats_and_cli_checks():
    os.chdir(WORK)
    profile("run_1.h5", 1)
    profile("run_2.h5", 2)
    runs = [read_h5("run_1.h5"), read_h5("run_2.h5")]
    # As documented ("Statistics JSON from Python").
    from scopeprof.plotting_scripts import (
        collect_region_statistics,
        write_region_statistics_json,
    )

    stats = collect_region_statistics(runs)                    # dict, nothing written
    stats = write_region_statistics_json(runs, "stats.json")   # same dict, and a file
    eq(json.load(open("stats.json")), stats, "stats: file is the dict")
    eq(collect_region_statistics(runs), stats, "stats: collect is the same")
    eq(stats["common_regions"], [g.name for g in runs[0].get_regions()], "stats: common")
    eq([f["label"] for f in stats["files"]], ["run_1", "run_2"], "stats: labels")
    rows = list(csv.DictReader(io.StringIO(subprocess.run(
        [REPORT, "--export", "csv", "run_2.h5"], capture_output=True, text=True,
        check=True).stdout)))
    f2 = stats["files"][1]
    eq(f2["num_ranks"], 2, "stats: ranks")
    for r in rows:
        s = f2["region_statistics"][r["region"]]
        eq(s["count"], int(r["calls"]), "stats %s calls" % r["region"])
        eq(round(s["total_duration_seconds"] * 1e9), int(r["total_ns"]),
           "stats %s total" % r["region"])
        eq(sum(v["count"] for v in s["per_rank"].values()), int(r["calls"]),
           "stats %s per-rank calls" % r["region"])
    eq(f2["region_statistics"]["solve"]["per_rank"]["1"]["count"], 3 * 3 + 4,
       "stats: solve on rank 1")

    env = dict(os.environ)
    py = [sys.executable, "-m", "scopeprof"]
    p = subprocess.run(py + ["plot", "default", "run_2.h5", "-o", "figures/"],
                       capture_output=True, text=True, env=env)
    eq(p.returncode, 0, "plot: exit (%s)" % p.stderr)
    want = ["gantt_plot.png", "flame_plot.png", "flame_graph_plot.png",
            "durations_plot.png", "duration_timeseries_plot.png",
            "region_statistics.json"]
    eq(sorted(os.listdir("figures")), sorted(want), "plot: files")
    doc = json.load(open("figures/region_statistics.json"))
    eq(doc["files"][0]["region_statistics"], f2["region_statistics"], "plot: the JSON")
    for w in want:
        check(("figures/" + w) in p.stdout, "plot: lists %s" % w)
    p = subprocess.run(py + ["plot", "run_1.h5", "run_2.h5", "-o", "two", "--ranks", "0-1",
                             "--include", "solve", "timestep"],
                       capture_output=True, text=True, env=env)
    eq(p.returncode, 0, "plot two: exit (%s)" % p.stderr)
    check(os.path.exists("two/speedup_plot.png") and
          os.path.exists("two/flame_plot_run_2.png"), "plot two: %s" % os.listdir("two"))
    doc = json.load(open("two/region_statistics.json"))
    eq(sorted(doc["common_regions"]), ["solve", "timestep"], "plot two: filtered JSON")
    p = subprocess.run(py + ["inspect", "run_2.h5", "--source", "solve"],
                       capture_output=True, text=True, env=env)
    check(p.returncode == 0 and "solve  (py_prog.c:40)" in p.stdout,
          "inspect --source: %r %r" % (p.stdout, p.stderr))
    p = subprocess.run(py + ["inspect", "run_2.h5", "--sort", "calls"],
                       capture_output=True, text=True, env=env)
    lines = p.stdout.splitlines()
    eq(lines[2].split()[:3], ["fib", "2", str(runs[1]["fib"].num_calls)],
       "inspect --sort calls: first row")
    p = subprocess.run(py + ["inspect", "missing.h5"], capture_output=True, text=True)
    eq((p.returncode, p.stderr), (1, "scope-profiler: missing.h5: No such file or directory\n"),
       "inspect: missing file")
    with open("bad.h5", "wb") as f:
        f.write(b"not a profile at all")
    p = subprocess.run(py + ["plot", "default", "bad.h5", "-o", "bad"],
                       capture_output=True, text=True)
    check(p.returncode == 1 and p.stderr.count("\n") == 1 and "bad.h5" in p.stderr,
          "plot: bad input %r" % p.stderr)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    flame_checks()
    colour_checks()
    gantt_checks()
    atomic_checks()
    stats_and_cli_checks()
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("test_charts: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
