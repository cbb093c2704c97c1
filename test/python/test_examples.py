#!/usr/bin/python3
# test_examples.py - scope-profiler's documented examples for reading,
# analysing and plotting, run unchanged (only the import line names
# scopeprof) on a runtime profile; then their results and every chart
# checked (real values; PNG magic and size).
import os
import shutil
import subprocess
import sys

IMPORT, PROG, WORK = sys.argv[1:4]
from sptest import check, failures  # noqa: E402


def profile(out, ranks):
    d = out + ".d"
    os.makedirs(d)
    for rank in range(ranks):
        env = dict(os.environ, SP_RANK=str(rank), SP_FORMAT="h5",
                   SP_OUTPUT=os.path.join(d, "run"))
        for k in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"):
            env.pop(k, None)
        subprocess.run([PROG], env=env, check=True)
    subprocess.run([IMPORT, "-o", out, d], check=True, capture_output=True)


# The examples, as documented (sections "Reading data with read_h5" to
# "Walking the reconstructed call stack", and the charts).
EXAMPLES = r'''
from scopeprof import read_h5

results = read_h5("profiling_data.h5")

# Number of MPI ranks in the file
print(results.num_ranks)

# Get all regions (sorted by first start time)
for region in results.get_regions():
    r0 = region[0]  # Region data for rank 0
    print(f"{region.name}: {r0.num_calls} calls, "
          f"avg {r0.average_duration:.6f} s")

from scopeprof import read_h5_summary

results = read_h5_summary("profiling_data.h5")
for region in results.get_regions():
    print(region.name, region.num_calls, region.total_duration)

results = read_h5_summary(
    "profiling_data.h5",
    regions=["solve", "exchange"],
    ranks=[0, 1],
    include_likwid=False,
    include_line_profile=False,
)
OUT["summary_regions"] = [g.name for g in results.get_regions()]

results = read_h5("profiling_data.h5")
# Only regions whose name starts with "solver"
results.get_regions(include="solver.*")

# Everything except IO regions
results.get_regions(exclude="io.*")
OUT["no_io"] = [g.name for g in results.get_regions(exclude="io.*")]

region = results.get_region("solve")
print(f"{region.source_file}:{region.source_lineno}")
print(region.source_text)
OUT["solve_src"] = (region.source_file, region.source_lineno, region.has_source)

results.print_summary()
results.print_summary(columns=["region", "ranks", "calls", "total", "avg"])
df = results.to_dataframe()

if results.is_root:
    OUT["root"] = True

import matplotlib.pyplot as plt

results = read_h5("profiling_data.h5")

for event in results.events(include="solver.*", ranks=0):
    plt.barh(event["name"], event["duration"], left=event["start"])
for event in results.events(include="solve.*", ranks=0):
    plt.barh(event["name"], event["duration"], left=event["start"])

events = results.to_events_dataframe()

# Which region has the most variable calls?
events.groupby("name")["duration"].std().sort_values(ascending=False)

# Per-rank load imbalance in one line
events.pivot_table(index="rank", columns="name", values="duration", aggfunc="sum")
OUT["pivot"] = events.pivot_table(index="rank", columns="name", values="duration", aggfunc="sum")

# Distribution of a single region's call durations
events.query("name == 'solve'")["duration"].hist(bins=50)

OUT["solve_events"] = len(results["solve"].events())
OUT["ns"] = (results["solve"].start_times_ns, results["solve"].end_times_ns,
             results["solve"].durations_ns)

frame = results.to_dataframe()
frame["fraction_of_run"] = frame["total_duration"] / results.time_span
OUT["fraction"] = frame

print(f"{results.startup_time:.3f} s elapsed before the first region was entered")

results.events(relative=False)                        # raw clock timestamps
results.events(origin=results.minimum_start_time)      # zero on the first region
OUT["origin_events"] = results.events(origin=results.minimum_start_time)

from scopeprof import call_stack_children, call_stack_roots

calls = results.call_stack(rank=0)

for call in calls:
    print(f"{'  ' * call['depth']}{call['name']}: {call['duration']:.6f} s")

# Or walk it as a tree
children = call_stack_children(calls)
for root in call_stack_roots(calls):
    print(calls[root]["name"], "has", len(children[root]), "direct children")
OUT["roots"] = [(calls[r]["name"], len(children[r])) for r in call_stack_roots(calls)]

from scopeprof import build_call_arrays

calls = build_call_arrays(results.get_regions(), rank=0)
print(calls.depth, calls.parent, calls.exclusive_ns)  # all indexed by call id
OUT["arrays"] = calls

from scopeprof import read_h5
from scopeprof.plotting_scripts import plot_gantt

results = read_h5("profiling_data.h5")

plot_gantt(
    profiling_data=results,
    include=["solver.*", "rhs.*"],
    exclude=["io"],
    ranks=[0, 1],
    filepath="gantt.png",
    show=True,
)

from scopeprof import read_h5
from scopeprof.plotting_scripts import plot_durations

runs = [
    read_h5("run_a.h5"),
    read_h5("run_b.h5"),
]

saved_paths = plot_durations(
    runs,
    filepath="durations.png",
    show=True,
)
OUT["saved"] = saved_paths

plot_durations(
    runs,
    metrics=["avg", "total"],
    filepath="durations.png",
    show=True,
)

from scopeprof.plotting_scripts import plot_flame_chart

plot_flame_chart(results, ranks=[0], filepath="flame_chart.png", show=True)

from scopeprof.plotting_scripts import plot_duration_timeseries

plot_duration_timeseries(results, filepath="duration_timeseries.png", show=True)

from scopeprof import read_h5
from scopeprof.plotting_scripts import plot_speedup

runs = [
    read_h5("run_1.h5"),
    read_h5("run_2.h5"),
    read_h5("run_4.h5"),
]

plot_speedup(
    runs,
    filepath="speedup.png",
    show=True,
)
'''


def png(path, what):
    ok = os.path.exists(path)
    data = open(path, "rb").read() if ok else b""
    check(data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000,
          "%s: %s is a PNG of %d bytes" % (what, path, len(data)))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    os.chdir(WORK)
    for name, ranks in (("run_1.h5", 1), ("run_2.h5", 2), ("run_4.h5", 4)):
        profile(os.path.join(WORK, name), ranks)
    for link, target in (("profiling_data.h5", "run_2.h5"), ("run_a.h5", "run_1.h5"),
                         ("run_b.h5", "run_2.h5")):
        os.symlink(target, link)
    out = {}
    exec(compile(EXAMPLES, "examples", "exec"), {"OUT": out, "__name__": "examples"})
    from scopeprof import read_h5
    res = read_h5("profiling_data.h5")
    check(out["summary_regions"] == ["solve"], "summary regions=: %s" % out["summary_regions"])
    check("io" not in out["no_io"] and "solve" in out["no_io"], "exclude io.*")
    check(out["solve_src"] == ("py_prog.c", 40, True), "solve source %s" % (out["solve_src"],))
    check(out["root"], "is_root")
    piv = out["pivot"]
    for rank in (0, 1):
        got = piv.loc[rank, "solve"]
        want = res["solve"][rank].total_duration
        check(abs(got - want) <= 1e-12 + 1e-9 * want, "pivot solve rank %d" % rank)
    check(out["solve_events"] == 3 * 2 + 3 * 3 + 4, "solve events %s" % out["solve_events"])
    s, e, d = out["ns"]
    check((e - s == d).all() and int(d.sum()) == round(res["solve"].total_duration * 1e9),
          "ns arrays")
    fr = out["fraction"]
    check(abs(fr["fraction_of_run"].sum() - sum(g.total_duration for g in res.get_regions())
              / res.time_span) < 1e-9, "fraction_of_run")
    check(min(out["origin_events"]["start"]) == 0.0, "origin at the first region")
    check(out["roots"] == [("timestep", 5), ("timestep", 5)], "roots %s" % out["roots"])
    a = out["arrays"]
    check(len(a) == len(res.call_stack(rank=0)) and a.depth.max() >= 5, "call arrays")
    check(out["saved"] == ["durations_%s.png" % m for m in ("avg", "min", "max", "total")],
          "saved paths %s" % out["saved"])
    for f in ["gantt.png", "flame_chart.png", "duration_timeseries.png", "speedup.png"] + \
            out["saved"]:
        png(os.path.join(WORK, f), "chart")
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("test_scopeprof_examples: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
