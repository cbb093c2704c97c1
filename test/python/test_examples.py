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
from doc_examples import example, from_line  # noqa: E402
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
# "Walking the reconstructed call stack", and the charts), from
# doc_examples.py; between them, what this test keeps in OUT or adds.
EXAMPLES = "".join([
    example("Reading data with read_h5"),
    example("Reading summaries without loading events"),
    example("Reading summaries: regions and ranks"),
    'OUT["summary_regions"] = [g.name for g in results.get_regions()]\n',
    'results = read_h5("profiling_data.h5")\n',
    example("Filtering regions"),
    'OUT["no_io"] = [g.name for g in results.get_regions(exclude="io.*")]\n',
    from_line(example("Where a region is defined"), "region = "),
    'OUT["solve_src"] = (region.source_file, region.source_lineno, region.has_source)\n',
    from_line(example("Post-processing in the script that produced the data"),
              "results.print_summary()"),
    "df = results.to_dataframe()\n",
    'def my_report(results):\n    OUT["root"] = True\n',
    example("Under MPI"),
    example("One row per call"),
    'for event in results.events(include="solve.*", ranks=0):\n'
    '    plt.barh(event["name"], event["duration"], left=event["start"])\n',
    example("One row per call: pandas"),
    'OUT["pivot"] = events.pivot_table(index="rank", columns="name", values="duration",'
    ' aggfunc="sum")\n',
    'OUT["solve_events"] = len(results["solve"].events())\n'
    'OUT["ns"] = (results["solve"].start_times_ns, results["solve"].end_times_ns,\n'
    '             results["solve"].durations_ns)\n',
    example("Useful timeline anchors"),
    'OUT["fraction"] = frame\n',
    example("Useful timeline anchors: startup_time"),
    example("Which zero the timeline uses"),
    'OUT["origin_events"] = results.events(origin=results.minimum_start_time)\n',
    example("Walking the reconstructed call stack"),
    'OUT["roots"] = [(calls[r]["name"], len(children[r])) for r in call_stack_roots(calls)]\n',
    example("Walking the reconstructed call stack: arrays"),
    'OUT["arrays"] = calls\n',
    example("Gantt chart from Python"),
    example("Comparison bar charts from Python"),
    'OUT["saved"] = saved_paths\n',
    example("Comparison bar charts from Python: metrics"),
    example("Flame chart"),
    example("Duration over time"),
    example("Speedup graph from Python"),
])


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
