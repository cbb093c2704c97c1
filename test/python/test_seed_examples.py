#!/usr/bin/python3
# test_seed_examples.py - the Python examples of scope-profiler's reference
# pages ("HDF5 output & post-processing from Python", and the module page of
# scope_profiler.native_trace), each run as the page writes it (only the
# import names scopeprof) on profiles that the runtime writes for
# seed_prog.c and sp-import merges, then every value it printed, returned
# or wrote checked against h5py reading the same file. --venv-source: the
# same, run by a venv's interpreter into which pip installed the package
# (offline, --system-site-packages for numpy, h5py, pandas, matplotlib).
import argparse
import ast
import contextlib
import glob
import io
import json
import os
import re
import shutil
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--import", dest="imp", required=True)
ap.add_argument("--prog", required=True, help="seed_prog")
ap.add_argument("--work", required=True)
ap.add_argument("--venv-source", help="source tree to pip install into a venv")
ap.add_argument("--inner", action="store_true", help="(run by the venv's python)")
ap.add_argument("--pm-return-results", action="store_true",
                help="(child: the finalize(return_results=True) example)")
args = ap.parse_args()

from doc_examples import example, renamed  # noqa: E402
from sptest import check, eq, failures, near  # noqa: E402


def finish(name):
    if failures:
        print("%s: %d failure(s)" % (name, len(failures)))
        sys.exit(1)
    print("%s: all checks passed" % name)
    sys.exit(0)


WORK = os.path.abspath(args.work)

# -- the venv: pip install, then this script again under its python -------
if args.venv_source:
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    venv = os.path.join(WORK, "venv")
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv],
                   check=True)
    py = os.path.join(venv, "bin", "python")
    src = os.path.join(WORK, "src")  # a copy: pip's build leaves the tree alone
    for part in ("pyproject.toml", "setup.py", "MANIFEST.in", "python",
                 "scripts/amalgamate.py", "runtime", "format",
                 "fortran/scope_profiler.f90", "docs/python.md"):
        a, b = os.path.join(args.venv_source, part), os.path.join(src, part)
        if not os.path.exists(a):
            continue
        os.makedirs(os.path.dirname(b), exist_ok=True)
        if os.path.isdir(a):
            shutil.copytree(a, b, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(a, b)
    p = subprocess.run([py, "-m", "pip", "--disable-pip-version-check", "--no-cache-dir",
                        "install", "--no-build-isolation", "--no-index", src],
                       capture_output=True, text=True)
    check(p.returncode == 0, "pip install: " + p.stdout[-2000:] + p.stderr[-2000:])
    if failures:
        finish("test_seed_examples_venv")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    p = subprocess.run([py, os.path.abspath(__file__), "--inner", "--import", args.imp,
                        "--prog", args.prog, "--work", os.path.join(WORK, "run")], env=env)
    sys.exit(p.returncode)

import h5py  # noqa: E402
import numpy as np  # noqa: E402

import scopeprof  # noqa: E402

if args.inner:
    check("/venv/" in scopeprof.__file__, "the venv's scopeprof: " + scopeprof.__file__)


def run(code, ns):
    """Runs an example statement by statement, as an interactive session
    would: returns the value of each expression statement and the lines
    it printed."""
    vals, buf = [], io.StringIO()
    with contextlib.redirect_stdout(buf):
        for node in ast.parse(code).body:
            if isinstance(node, ast.Expr):
                vals.append(eval(compile(ast.Expression(node.value), "example", "eval"), ns))
            else:
                exec(compile(ast.Module([node], []), "example", "exec"), ns)
    sys.stdout.write(buf.getvalue())
    return vals, buf.getvalue().splitlines()


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


class H5:
    """What h5py reads from a schema-2 file, the reference for every check."""

    def __init__(self, path):
        with h5py.File(path, "r") as f:
            self.names = [text(x) for x in f["region_table/names"][()]]
            ix = f["rank_region_index"]
            self.reg = ix["region_ids"][()].astype(int)
            self.rank = ix["ranks"][()].astype(int)
            self.thread = (ix["threads"][()].astype(int) if "threads" in ix
                           else np.zeros(self.reg.size, int))
            self.off = ix["event_offsets"][()]
            self.cnt = ix["event_counts"][()]
            self.files = [text(x) for x in ix["source_files"][()]]
            self.lines = ix["source_lines"][()].astype(int)
            self.texts = [text(x) for x in ix["source_texts"][()]]
            self.stats = ix["summary_statistics"][()]
            self.s = f["events/start_times"][()]
            self.e = f["events/end_times"][()]
            self.meta = {k: f["metadata"].attrs[k] for k in f["metadata"].attrs}

    def rows(self, name=None, ranks=None):
        m = np.ones(self.reg.size, bool)
        if name is not None:
            m &= np.array([self.names[r] == name for r in self.reg], bool)
        if ranks is not None:
            m &= np.isin(self.rank, ranks)
        return np.flatnonzero(m)

    def calls(self, name=None, ranks=None):
        rows = self.rows(name, ranks)
        if not rows.size:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        return (np.concatenate([self.s[self.off[r]:self.off[r] + self.cnt[r]] for r in rows]),
                np.concatenate([self.e[self.off[r]:self.off[r] + self.cnt[r]] for r in rows]))

    def region_order(self, keep=lambda n: True):
        """Region names present, by first start (the order get_regions gives)."""
        first = {}
        for k in range(self.reg.size):
            n = self.names[self.reg[k]]
            if self.stats["calls"][k] > 0 and keep(n):
                first[n] = min(first.get(n, 1 << 62), int(self.stats["first_start_ns"][k]))
        return sorted(first, key=lambda n: (first[n], self.names.index(n)))

    def window(self):
        live = self.stats["calls"] > 0
        return (int(self.stats["first_start_ns"][live].min()),
                int(self.stats["last_end_ns"][live].max()))

    def stack(self, rank):
        """Rank's calls by the stack walk (one thread each here): list of
        (name, start, end, depth, parent index, exclusive ns) in walk order."""
        rows = self.rows(ranks=[rank])
        calls = []
        for r in rows:
            for k in range(self.off[r], self.off[r] + self.cnt[r]):
                calls.append((int(self.s[k]), -int(self.e[k]), int(self.thread[r]),
                              self.names[self.reg[r]]))
        calls.sort(key=lambda c: (c[2], c[0], c[1]))
        out, stack = [], []
        for s, ne, t, n in calls:
            e = -ne
            while stack and not (out[stack[-1]][6] == t and s >= out[stack[-1]][1]
                                 and e <= out[stack[-1]][2]):
                stack.pop()
            p = stack[-1] if stack else -1
            out.append([n, s, e, len(stack), p, e - s, t])
            if p >= 0:
                out[p][5] -= e - s
            stack.append(len(out) - 1)
        return out


def png(path, what):
    data = open(path, "rb").read() if os.path.exists(path) else b""
    check(data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000,
          "%s: %s is a PNG (%d bytes)" % (what, path, len(data)))


def profile(out, ranks):
    """seed_prog on `ranks` ranks, each writing its .h5, merged by sp-import."""
    d = out + ".d"
    os.makedirs(d)
    for rank in range(ranks):
        env = dict(os.environ, SP_RANK=str(rank), SP_FORMAT="h5",
                   SP_OUTPUT=os.path.join(d, "run"))
        for k in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"):
            env.pop(k, None)
        subprocess.run([args.prog], env=env, check=True)
    subprocess.run([args.imp, "-o", out, d], check=True, capture_output=True)
    return d


# -- the child for finalize(return_results=True): one run per process -------
if args.pm_return_results:
    from scopeprof import ProfileManager
    from scopeprof.plotting_scripts import plot_gantt
    os.chdir(WORK)
    ProfileManager.setup()
    for step in range(3):
        with ProfileManager.profile_region("timestep"):
            with ProfileManager.profile_region("solve"):
                sum(range(20000))
    ns = {"ProfileManager": ProfileManager, "plot_gantt": plot_gantt}
    # "Getting the results without touching disk"
    vals, out = run(example("Getting the results without touching disk"), ns)
    h = H5(os.path.join(WORK, "profiling_data.h5"))
    df = ns["df"]
    for name in ("timestep", "solve"):
        s, e = h.calls(name)
        eq(int(df[df["name"] == name]["num_calls"].sum()), int(s.size),
           "return_results frame: %s calls" % name)
        near(float(ns["results"][name].total_duration), int((e - s).sum()) / 1e9,
             "return_results: %s total" % name)
        check(any(ln.split()[:1] == [name] for ln in out), "summary row for " + name)
    finish("return_results child")

# -- the inputs -------------------------------------------------------------
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
os.chdir(WORK)
for name, ranks in (("run_1.h5", 1), ("run_2.h5", 2), ("run_4.h5", 4)):
    profile(os.path.join(WORK, name), ranks)
for link, target in (("profiling_data.h5", "run_2.h5"), ("run_a.h5", "run_1.h5"),
                     ("run_b.h5", "run_2.h5")):
    os.symlink(target, link)
H = H5("profiling_data.h5")
RUNS = {n: H5(n) for n in ("run_1.h5", "run_2.h5", "run_4.h5")}
ns = {"__name__": "examples"}

# == "HDF5 output & post-processing from Python" ============================

# -- Run metadata ----------------------------------------------------------
vals, out = run(example("Run metadata"), ns)
md = ns["metadata"]
eq(sorted(md), sorted(H.meta), "metadata keys")
for k, v in H.meta.items():
    want = [text(x) for x in v] if isinstance(v, np.ndarray) else (
        text(v) if isinstance(v, (str, bytes)) else v)
    got = list(md[k]) if isinstance(md[k], (list, tuple, np.ndarray)) else md[k]
    eq(got, want, "metadata[%r]" % k)
eq(out, [text(H.meta["chip_information"]), str([text(x) for x in H.meta["modules"]]),
         str(H.meta.get("SLURM_JOB_ID"))], "metadata example's lines")
check(isinstance(md["modules"], list), "modules is a list")

# -- Reading data with read_h5 ----------------------------------------------
vals, out = run(example("Reading data with read_h5"), ns)
want = [str(len(set(H.rank.tolist())))]
for n in H.region_order():
    s, e = H.calls(n, [0])
    want.append(f"{n}: {s.size} calls, avg {(e - s).mean() / 1e9:.6f} s")
eq(out, want, "read_h5 example's lines")

# -- Reading summaries without loading events -------------------------------
vals, out = run(example("Reading summaries without loading events"), ns)
eq(len(out), len(H.region_order()), "summary example: one line per region")
for ln, n in zip(out, H.region_order()):
    rows = H.rows(n)
    name, calls, total = ln.split()
    eq((name, int(calls)), (n, int(H.stats["calls"][rows].sum())), "summary " + n)
    near(float(total), int(H.stats["total_ns"][rows].sum()) / 1e9, "summary total " + n)

vals, out = run(example("Reading summaries: regions and ranks"), ns)
got = ns["results"]
eq([g.name for g in got.get_regions()], H.region_order(lambda n: n in ("solve", "exchange")),
   "summary regions=")
for n in ("solve", "exchange"):
    eq(got[n].num_calls, int(H.stats["calls"][H.rows(n, [0, 1])].sum()), "summary calls " + n)

# -- Filtering regions --------------------------------------------------------
ns["results"] = scopeprof.read_h5("profiling_data.h5")
vals, out = run(example("Filtering regions"), ns)
eq([g.name for g in vals[0]], H.region_order(lambda n: re.match("solver.*", n)), "include=")
eq([g.name for g in vals[1]], H.region_order(lambda n: not re.match("io.*", n)), "exclude=")
check(len(vals[0]) == 1 and len(vals[1]) == len(H.region_order()) - 1, "filters select")

# -- Where a region is defined (the profile read above; setup() starts the
# ProfileManager run that the next examples finalize, in a directory of its
# own so that its profiling_data.h5 is not the one read here) ---------------
from scopeprof import ProfileManager  # noqa: E402
ns["ProfileManager"] = ProfileManager
os.makedirs("pm")
os.chdir("pm")
vals, out = run(example("Where a region is defined"), ns)
k = H.rows("solve")[0]
eq(out, ["%s:%d" % (H.files[k], H.lines[k]), str(H.texts[k] or None)], "source example")
eq((H.files[k], int(H.lines[k])), ("seed_prog.c", 30), "solve's source (h5py)")

# the run: a few Python regions, then "Post-processing in the script that
# produced the data"
for step in range(3):
    with ProfileManager.profile_region("timestep"):
        with ProfileManager.profile_region("solve"):
            sum(range(20000))
vals, out = run(example("Post-processing in the script that produced the data"), ns)
PM = H5("profiling_data.h5")
eq(sorted(PM.names), ["solve", "timestep"], "ProfileManager run's regions (h5py)")
for n in ("timestep", "solve"):
    s, e = PM.calls(n)
    eq(s.size, 3, "ProfileManager run: %s calls (h5py)" % n)
    eq(ns["results"][n].num_calls, 3, "read_results: %s calls" % n)
    eq(ns["results"][n].start_times_ns.tolist(), s.tolist(), "read_results: %s starts" % n)
    rows = [ln.split() for ln in out if ln.split()[:1] == [n]]
    eq([r[2] for r in rows], ["3", "3"], "both summaries: %s calls" % n)
head = [ln.split() for ln in out if ln.startswith("region")]
eq(head[1] if len(head) > 1 else None, ["region", "ranks", "calls", "total", "avg"],
   "columns= header")
os.chdir(WORK)

# -- Getting the results without touching disk: a process of its own ------
os.makedirs("pm2")
p = subprocess.run([sys.executable, os.path.abspath(__file__), "--pm-return-results",
                    "--import", args.imp, "--prog", args.prog,
                    "--work", os.path.join(WORK, "pm2")])
eq(p.returncode, 0, "finalize(return_results=True) example (its own process)")

# -- Under MPI (one process: results.is_root) ---------------------------------
ns["results"] = scopeprof.read_h5("profiling_data.h5")
reported = []
ns["my_report"] = reported.append
vals, out = run(example("Under MPI"), ns)
eq(reported, [ns["results"]], "is_root: my_report called once")

# -- One row per call -----------------------------------------------------------
vals, out = run(example("One row per call"), ns)
origin = int(H.meta["start_time_ns"])
s, e = H.calls("solver.iterate", [0])
bars = [b for b in ns["plt"].gca().patches]
eq(len(bars), s.size, "one bar per solver.iterate call on rank 0")
got = sorted((round(b.get_x(), 9), round(b.get_width(), 9)) for b in bars)
want = sorted((round((a - origin) / 1e9, 9), round((b - a) / 1e9, 9)) for a, b in zip(s, e))
eq(got, want, "bars: start and duration of each call")
ev = ns["event"]
eq((ev["name"], ev["rank"]), ("solver.iterate", 0), "last event")
ns["plt"].close("all")

vals, out = run(example("One row per call: pandas"), ns)
std, piv, ax = vals
eq(len(ns["events"]), int(H.cnt.sum()), "events frame: one row per call")
for n in H.region_order():
    s, e = H.calls(n)
    near(float(std[n]), float(np.std((e - s) / 1e9, ddof=1)), "std of " + n, rel=1e-6)
    for r in sorted(set(H.rank.tolist())):
        s, e = H.calls(n, [r])
        if s.size:
            near(float(piv.loc[r, n]), int((e - s).sum()) / 1e9, "pivot %s rank %d" % (n, r))
check(list(std.values) == sorted(std.values, reverse=True), "std sorted descending")
s, e = H.calls("solve")
eq((len(ax.patches), int(sum(p.get_height() for p in ax.patches))), (50, s.size),
   "hist: 50 bins holding every solve call")

# -- Useful timeline anchors ----------------------------------------------------
vals, out = run(example("Useful timeline anchors"), ns)
lo, hi = H.window()
near(ns["results"].time_span, (hi - lo) / 1e9, "time_span")
fr = ns["frame"]
near(float(fr["fraction_of_run"].sum()), int(H.stats["total_ns"].sum()) / 1e9 / ((hi - lo) / 1e9),
     "fraction_of_run summed")
for n in H.region_order():
    near(float(fr[fr["name"] == n]["total_duration"].sum()),
         int(H.stats["total_ns"][H.rows(n)].sum()) / 1e9, "frame total " + n)

vals, out = run(example("Useful timeline anchors: startup_time"), ns)
eq(out, [f"{(lo - origin) / 1e9:.3f} s elapsed before the first region was entered"],
   "startup_time line")

# -- Which zero the timeline uses -------------------------------------------------
vals, out = run(example("Which zero the timeline uses"), ns)
raw, zero = vals
eq(sorted(np.round(raw["start"] * 1e9).astype(np.int64).tolist())[:3],
   sorted(H.s.tolist())[:3], "relative=False: raw clock (first starts)")
near(float(np.min(raw["start"])), lo / 1e9, "relative=False: first start")
near(float(np.min(zero["start"])), 0.0, "origin=minimum_start_time: zero", tol=1e-9)
near(float(np.max(zero["end"])), (hi - lo) / 1e9, "origin=minimum_start_time: last end",
     tol=1e-9)

# -- Walking the reconstructed call stack -----------------------------------------
vals, out = run(example("Walking the reconstructed call stack"), ns)
ref = H.stack(0)
want = [f"{'  ' * c[3]}{c[0]}: {(c[2] - c[1]) / 1e9:.6f} s" for c in ref]
kids = [sum(1 for d in ref if d[4] == i) for i in range(len(ref))]
want += ["%s has %d direct children" % (c[0], kids[i]) for i, c in enumerate(ref) if c[4] < 0]
eq(out, want, "call stack lines")
eq(len(ns["calls"]), int(H.cnt[H.rows(ranks=[0])].sum()), "call_stack: every rank-0 call")

vals, out = run(example("Walking the reconstructed call stack: arrays"), ns)
c = ns["calls"]
eq(c.depth.tolist(), [r[3] for r in ref], "build_call_arrays depth")
eq(c.parent.tolist(), [r[4] for r in ref], "build_call_arrays parent")
eq(c.exclusive_ns.tolist(), [r[5] for r in ref], "build_call_arrays exclusive_ns")
eq(c.start_ns.tolist(), [r[1] for r in ref], "build_call_arrays start_ns")
eq([c.names[k] for k in c.region], [r[0] for r in ref], "build_call_arrays region")

# -- Gantt chart from Python --------------------------------------------------------
vals, out = run(example("Gantt chart from Python"), ns)
png("gantt.png", "plot_gantt")

# -- Comparison bar charts from Python -----------------------------------------------
vals, out = run(example("Comparison bar charts from Python"), ns)
eq(ns["saved_paths"], ["durations_%s.png" % m for m in ("avg", "min", "max", "total")],
   "plot_durations' paths")
for f in ns["saved_paths"]:
    png(f, "plot_durations")
for f in ns["saved_paths"]:
    os.unlink(f)
vals, out = run(example("Comparison bar charts from Python: metrics"), ns)
eq(sorted(glob.glob("durations_*.png")), ["durations_avg.png", "durations_total.png"],
   "metrics= writes two charts")
for f in ("durations_avg.png", "durations_total.png"):
    png(f, "plot_durations metrics=")

# -- Flame chart, duration over time ---------------------------------------------------
vals, out = run(example("Flame chart"), ns)
png("flame_chart.png", "plot_flame_chart")
vals, out = run(example("Duration over time"), ns)
png("duration_timeseries.png", "plot_duration_timeseries")

# -- Statistics JSON from Python ---------------------------------------------------------
vals, out = run(example("Statistics JSON from Python"), ns)
with open("stats.json") as f:
    eq(json.load(f), json.loads(json.dumps(ns["stats"])), "stats.json holds the dict")
eq(ns["stats"], json.loads(json.dumps(ns["collect_region_statistics"](ns["runs"]))),
   "the same dict both ways")
for i, path in enumerate(("run_1.h5", "run_2.h5")):
    h = RUNS[path]
    doc = ns["stats"]["files"][i]
    eq(doc["num_ranks"], len(set(h.rank.tolist())), "stats %s num_ranks" % path)
    for n in h.region_order():
        s, e = h.calls(n)
        d = (e - s) / 1e9
        st = doc["region_statistics"][n]
        near(st["total_duration_seconds"], int((e - s).sum()) / 1e9, "stats %s %s total" % (path, n))
        near(st["min_duration_seconds"], float(d.min()), "stats %s %s min" % (path, n))
        near(st["max_duration_seconds"], float(d.max()), "stats %s %s max" % (path, n))
        near(st["average_duration_seconds"], float(d.mean()), "stats %s %s avg" % (path, n))
        eq(st["count"], s.size, "stats %s %s count" % (path, n))
        near(st["std_duration_seconds"], float(d.std()), "stats %s %s std" % (path, n),
             rel=1e-6, tol=1e-15)

# -- Speedup graph from Python -----------------------------------------------------------
vals, out = run(example("Speedup graph from Python"), ns)
png("speedup.png", "plot_speedup")
eq([r.num_ranks for r in ns["runs"]], [1, 2, 4], "speedup runs' ranks")

# == scope_profiler.native_trace ============================================
import scopeprof.native_trace as nt  # noqa: E402
from pathlib import Path  # noqa: E402

# The module's attributes as the page defines them (FORMAT_VERSION and
# KNOWN_FORMAT_VERSIONS extend the page's 2 and (1, 2) with versions 3 and 4).
eq(nt.C_DIR, Path(nt.__file__).resolve().parent / 'c', "C_DIR")
eq(nt.FORTRAN_DIR, Path(nt.__file__).resolve().parent / 'fortran', "FORTRAN_DIR")
eq(nt.HDF5_SUFFIX, '.h5', "HDF5_SUFFIX")
eq(nt.TRACE_SUFFIX, '.spt', "TRACE_SUFFIX")
eq(nt.MAGIC, b'SCOPEPRF', "MAGIC")
eq(nt.RANK_HDF5_GLOB, "*_rank[0-9]*" + nt.HDF5_SUFFIX, "RANK_HDF5_GLOB")
check(set((1, 2)) <= set(nt.KNOWN_FORMAT_VERSIONS) and nt.FORMAT_VERSION >= 2,
      "format versions %r, %r" % (nt.FORMAT_VERSION, nt.KNOWN_FORMAT_VERSIONS))
check(issubclass(nt.TraceFormatError, ValueError), "TraceFormatError(ValueError)")
# The page's shell commands' Python part.
for fn, name in (("c_source_path", "scope_profiler.c"),
                 ("fortran_source_path", "scope_profiler.f90")):
    p = subprocess.run([sys.executable, "-c", renamed(
        "import scope_profiler.native_trace as t; print(t.%s())" % fn)],
        capture_output=True, text=True)
    path = p.stdout.strip()
    check(p.returncode == 0 and os.path.isfile(path) and path.endswith(name),
          "python -c ... %s(): %r %s" % (fn, path, p.stderr[-500:]))
p = subprocess.run([sys.executable, "-c", renamed(
    "import scope_profiler.native_trace as t; print(t.c_include_dir())")],
    capture_output=True, text=True)
check(os.path.isfile(os.path.join(p.stdout.strip(), "scope_profiler.h")),
      "c_include_dir() holds scope_profiler.h")

# The functions, on run_2's per-rank files (the .h5 the runtime wrote), each
# against h5py.
d2 = "run_2.h5.d"
found = nt.find_traces(d2)
eq(found, sorted(Path(d2, "run_rank%05d.h5" % r) for r in (0, 1)), "find_traces")
for r, path in enumerate(found):
    h = H5(path)
    ranks, meta = nt.read_native_h5(path)
    eq(sorted(ranks), [r], "read_native_h5 ranks " + str(path))
    for n in h.region_order():
        s, e = h.calls(n)
        # the (rank, regions) shape read_trace returns: (starts, ends) pairs
        gs, ge = ranks[r][n]
        eq((gs.tolist(), ge.tolist()), (s.tolist(), e.tolist()), "read_native_h5 " + n)
        k = h.rows(n)[0]
        eq((ranks[r][n].source_file, ranks[r][n].source_lineno),
           (h.files[k] or None, int(h.lines[k]) if h.lines[k] >= 0 else None),
           "read_native_h5 %s source" % n)
    eq(meta.get("chip_information"), text(h.meta["chip_information"]), "read_native_h5 meta")
    ranks2, meta2 = nt.read_native_ranks(path)
    eq(sorted(ranks2), [r], "read_native_ranks")
    eq({n: len(g[0]) for n, g in ranks2[r].items()},
       {n: h.calls(n)[0].size for n in h.region_order()}, "read_native_ranks calls")
res = nt.load_traces(d2, label="two")
eq(res.metadata.get("label"), "two", "load_traces label")
for n in H.region_order():
    eq(res[n].num_calls, int(H.cnt[H.rows(n)].sum()), "load_traces %s calls" % n)
out_h5 = nt.convert_traces(d2, "converted.h5", label="conv")
eq(Path(out_h5).name, "converted.h5", "convert_traces returns its file")
C = H5("converted.h5")
eq(text(C.meta["label"]), "conv", "convert_traces label (h5py)")
eq(C.s.tolist(), H.s.tolist(), "convert_traces: sp-import's starts (h5py)")
eq(C.e.tolist(), H.e.tolist(), "convert_traces: sp-import's ends (h5py)")
eq(C.names, H.names, "convert_traces names")
w = nt.write_results(scopeprof.read_h5("profiling_data.h5"), "written.h5")
W = H5(w)
eq((W.s.tolist(), W.e.tolist(), W.names, W.cnt.tolist()),
   (H.s.tolist(), H.e.tolist(), H.names, H.cnt.tolist()), "write_results (h5py)")
# read_trace: a .spt of the same program (SP_FORMAT=spt), against sp-import's
# file of it read by h5py.
os.makedirs("spt")
env = dict(os.environ, SP_RANK="1", SP_FORMAT="spt", SP_OUTPUT=os.path.join(WORK, "spt", "t"))
subprocess.run([args.prog], env=env, check=True)
subprocess.run([args.imp, "-o", "spt.h5", "spt"], check=True, capture_output=True)
S = H5("spt.h5")
rank, regions = nt.read_trace(os.path.join("spt", "t_rank00001.spt"))
eq(rank, 1, "read_trace rank")
eq(sorted(regions), sorted(S.region_order()), "read_trace regions")
for n, (s, e) in regions.items():
    hs, he = S.calls(n)
    eq((s.tolist(), e.tolist()), (hs.tolist(), he.tolist()), "read_trace %s (h5py)" % n)
k = S.rows("solve")[0]
eq((regions["solve"].source_file, regions["solve"].source_lineno),
   (S.files[k], int(S.lines[k])), "read_trace source")
eq((regions["exchange"].source_file, regions["exchange"].source_lineno), (None, None),
   "read_trace: no location")

finish("test_seed_examples" + ("_venv" if args.inner else ""))
