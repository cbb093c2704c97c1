"""doc_examples.py - the Python examples of scope-profiler's reference pages
("HDF5 output & post-processing from Python"), each as the page writes it,
keyed by its section (and what it shows, where a section has several):
the one copy that test_seed_examples.py and test_examples.py run."""
import re

EXAMPLES = {}

EXAMPLES['Getting the results without touching disk'] = '''
results = ProfileManager.finalize(return_results=True)

results.print_summary()
df = results.to_dataframe()
plot_gantt(results)
'''

EXAMPLES['Run metadata'] = '''
from scope_profiler import read_h5

metadata = read_h5("profiling_data.h5").metadata

print(metadata["chip_information"])   # 'AMD EPYC 9654 96-Core Processor'
print(metadata["modules"])            # ['profile/base', 'gcc/12.3.0', ...]
print(metadata.get("SLURM_JOB_ID"))   # '1234567', or None outside a job
'''

EXAMPLES['Reading data with read_h5'] = '''
from scope_profiler import read_h5

results = read_h5("profiling_data.h5")

# Number of MPI ranks in the file
print(results.num_ranks)

# Get all regions (sorted by first start time)
for region in results.get_regions():
    r0 = region[0]  # Region data for rank 0
    print(f"{region.name}: {r0.num_calls} calls, "
          f"avg {r0.average_duration:.6f} s")
'''

EXAMPLES['Reading summaries without loading events'] = '''
from scope_profiler import read_h5_summary

results = read_h5_summary("profiling_data.h5")
for region in results.get_regions():
    print(region.name, region.num_calls, region.total_duration)
'''

EXAMPLES['Reading summaries: regions and ranks'] = '''
results = read_h5_summary(
    "profiling_data.h5",
    regions=["solve", "exchange"],
    ranks=[0, 1],
    include_likwid=False,
    include_line_profile=False,
)
'''

EXAMPLES['Filtering regions'] = '''
# Only regions whose name starts with "solver"
results.get_regions(include="solver.*")

# Everything except IO regions
results.get_regions(exclude="io.*")
'''

EXAMPLES['Where a region is defined'] = '''
ProfileManager.setup(capture_region_source=True)
...
region = results.get_region("solve")
print(f"{region.source_file}:{region.source_lineno}")
print(region.source_text)
'''

EXAMPLES['Post-processing in the script that produced the data'] = '''
ProfileManager.finalize()
results = ProfileManager.read_results()
results.print_summary()
results.print_summary(columns=["region", "ranks", "calls", "total", "avg"])
'''

EXAMPLES['Under MPI'] = '''
if results.is_root:
    my_report(results)
'''

EXAMPLES['One row per call'] = '''
import matplotlib.pyplot as plt

results = read_h5("profiling_data.h5")

for event in results.events(include="solver.*", ranks=0):
    plt.barh(event["name"], event["duration"], left=event["start"])
'''

EXAMPLES['One row per call: pandas'] = '''
events = results.to_events_dataframe()

# Which region has the most variable calls?
events.groupby("name")["duration"].std().sort_values(ascending=False)

# Per-rank load imbalance in one line
events.pivot_table(index="rank", columns="name", values="duration", aggfunc="sum")

# Distribution of a single region's call durations
events.query("name == 'solve'")["duration"].hist(bins=50)
'''

EXAMPLES['Useful timeline anchors'] = '''
frame = results.to_dataframe()
frame["fraction_of_run"] = frame["total_duration"] / results.time_span
'''

EXAMPLES['Useful timeline anchors: startup_time'] = '''
print(f"{results.startup_time:.3f} s elapsed before the first region was entered")
'''

EXAMPLES['Which zero the timeline uses'] = '''
results.events(relative=False)                        # raw clock timestamps
results.events(origin=results.minimum_start_time)      # zero on the first region
'''

EXAMPLES['Walking the reconstructed call stack'] = '''
from scope_profiler import call_stack_children, call_stack_roots

calls = results.call_stack(rank=0)

for call in calls:
    print(f"{'  ' * call['depth']}{call['name']}: {call['duration']:.6f} s")

# Or walk it as a tree
children = call_stack_children(calls)
for root in call_stack_roots(calls):
    print(calls[root]["name"], "has", len(children[root]), "direct children")
'''

EXAMPLES['Walking the reconstructed call stack: arrays'] = '''
from scope_profiler import build_call_arrays

calls = build_call_arrays(results.get_regions(), rank=0)
print(calls.depth, calls.parent, calls.exclusive_ns)  # all indexed by call id
'''

EXAMPLES['Gantt chart from Python'] = '''
from scope_profiler import read_h5
from scope_profiler.plotting_scripts import plot_gantt

results = read_h5("profiling_data.h5")

plot_gantt(
    profiling_data=results,
    include=["solver.*", "rhs.*"],
    exclude=["io"],
    ranks=[0, 1],
    filepath="gantt.png",
    show=True,
)
'''

EXAMPLES['Comparison bar charts from Python'] = '''
from scope_profiler import read_h5
from scope_profiler.plotting_scripts import plot_durations

runs = [
    read_h5("run_a.h5"),
    read_h5("run_b.h5"),
]

saved_paths = plot_durations(
    runs,
    filepath="durations.png",
    show=True,
)
'''

EXAMPLES['Comparison bar charts from Python: metrics'] = '''
plot_durations(
    runs,
    metrics=["avg", "total"],
    filepath="durations.png",
    show=True,
)
'''

EXAMPLES['Flame chart'] = '''
from scope_profiler.plotting_scripts import plot_flame_chart

plot_flame_chart(results, ranks=[0], filepath="flame_chart.png", show=True)
'''

EXAMPLES['Duration over time'] = '''
from scope_profiler.plotting_scripts import plot_duration_timeseries

plot_duration_timeseries(results, filepath="duration_timeseries.png", show=True)
'''

EXAMPLES['Statistics JSON from Python'] = '''
from scope_profiler.plotting_scripts import (
    collect_region_statistics,
    write_region_statistics_json,
)

stats = collect_region_statistics(runs)                    # dict, nothing written
stats = write_region_statistics_json(runs, "stats.json")   # same dict, and a file
'''

EXAMPLES['Speedup graph from Python'] = '''
from scope_profiler import read_h5
from scope_profiler.plotting_scripts import plot_speedup

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



def renamed(code):
    """Code as a page writes it, but its import lines: scope_profiler is
    scopeprof here."""
    return re.sub(r"^(\s*(?:from|import)\s+)scope_profiler\b", r"\1scopeprof", code,
                  flags=re.M)


def example(key):
    """The example of section `key`, runnable here."""
    return renamed(EXAMPLES[key])


def from_line(code, first):
    """code from its first line that starts with `first` (the part of an
    example that does not need what comes before it); KeyError if no line
    does, so that a page's example changed under a test fails it."""
    lines = code.splitlines(keepends=True)
    for i, ln in enumerate(lines):
        if ln.startswith(first):
            return "".join(lines[i:])
    raise KeyError("no line starts with %r in:\n%s" % (first, code))
