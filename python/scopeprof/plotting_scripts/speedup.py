# plot_speedup: per region, average duration per call against the run with
# the fewest ranks, over the runs' rank counts.
import numpy as np

from . import _common


def speedups(runs, include=None, exclude=None):
    """(sizes, {region: [speedup per run]}) with runs sorted by mpi_size;
    a region missing from a run has nan there."""
    runs = sorted(_common.runs(runs), key=_common.mpi_size)
    if not runs:
        return [], {}
    sizes = [_common.mpi_size(r) for r in runs]
    if len(set(sizes)) != len(sizes):
        raise ValueError("two runs have the same mpi_size %s" % sizes)
    base = runs[0]
    out = {}
    for g in base.get_regions(include, exclude):
        if g.average_duration <= 0:
            continue
        out[g.name] = [g.average_duration / r[g.name].average_duration
                       if g.name in r and r[g.name].average_duration > 0 else np.nan
                       for r in runs]
    return sizes, out


def plot_speedup(profiling_data, include=None, exclude=None, filepath=None,
                 show=False):
    if not _common.runs(profiling_data):
        return None
    sizes, curves = speedups(profiling_data, include, exclude)
    colours = _common.palette(list(curves))
    fig = _common.figure(8, 6)
    ax = fig.subplots()
    for name, ys in curves.items():
        ax.plot(sizes, ys, marker="o", color=colours[name], label=name)
    ax.plot(sizes, [s / sizes[0] for s in sizes], "k--", label="ideal")
    ax.set_xlabel("MPI ranks")
    ax.set_ylabel("speedup (average duration per call)")
    ax.set_xticks(sizes)
    ax.legend(fontsize=7)
    return _common.save(fig, filepath, show)
