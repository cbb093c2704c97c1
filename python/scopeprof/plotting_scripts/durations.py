# plot_durations: bar charts comparing each region's duration statistics
# across runs, one figure per metric.
import os

import numpy as np

from . import _common

METRICS = {"avg": ("average_duration", "average duration per call (s)"),
           "min": ("min_duration", "shortest call (s)"),
           "max": ("max_duration", "longest call (s)"),
           "total": ("total_duration", "total duration (s)")}


def plot_durations(profiling_data, metrics=("avg", "min", "max", "total"),
                   include=None, exclude=None, filepath=None, show=False):
    """Grouped bars, one group per region, one bar per run; returns the
    paths written (the metric goes before the extension when there are
    several metrics), empty without filepath."""
    runs = _common.runs(profiling_data)
    if not runs:
        return []
    names = []
    for run in runs:
        for g in run.get_regions(include, exclude):
            if g.name not in names:
                names.append(g.name)
    written = []
    for m in metrics:
        attr, ylabel = METRICS[m]
        fig = _common.figure(max(6, 0.6 * len(names) * len(runs) + 2), 5)
        ax = fig.subplots()
        width = 0.8 / max(len(runs), 1)
        x = np.arange(len(names))
        for i, run in enumerate(runs):
            vals = [getattr(run[n], attr) if n in run else np.nan for n in names]
            ax.bar(x + i * width - 0.4 + width / 2, vals, width,
                   label=_common.label(run, i))
        ax.set_xticks(x)
        ax.set_xticklabels(names, rotation=45, ha="right", fontsize=8)
        ax.set_ylabel(ylabel)
        if len(runs) > 1:
            ax.legend(fontsize=8)
        path = filepath
        if filepath and len(metrics) > 1:
            root, ext = os.path.splitext(os.fspath(filepath))
            path = "%s_%s%s" % (root, m, ext or ".png")
        if _common.save(fig, path, show):
            written.append(path)
    return written
