# plot_gantt: one lane per (region, rank, thread), a bar per call interval.
import numpy as np

from . import _common

NS = 1e9
LANE_IN = 0.22  # inches per lane: 7-point labels that do not overlap
MAX_IN = 600    # Agg draws at most 2^16 pixels (655 inches at 100 dpi)


def _lanes(run, include, exclude, ranks, threads):
    out = []
    for g in run.get_regions(include, exclude):
        for r in g.ranks:
            if ranks is not None and r not in np.atleast_1d(ranks):
                continue
            for t in g[r].threads:
                if threads is not None and t not in np.atleast_1d(threads):
                    continue
                out.append((g, r, t))
    return out


def plot_gantt(profiling_data, include=None, exclude=None, ranks=None,
               threads=None, filepath=None, show=False, title=None):
    """Gantt chart of the calls; one subplot per run when several are given,
    each as tall as its lanes need. Time axis in seconds from each run's
    first region entry."""
    runs = _common.runs(profiling_data)
    if not runs:
        return None
    lanes = [_lanes(run, include, exclude, ranks, threads) for run in runs]
    heights = [max(2.0, 0.8 + LANE_IN * len(ls)) for ls in lanes]
    total = min(MAX_IN, 0.5 + sum(heights))
    fig = _common.figure(12, total)
    axes = fig.subplots(len(runs), 1, squeeze=False,
                        gridspec_kw={"height_ratios": heights})[:, 0]
    for i, (run, ax, ls) in enumerate(zip(runs, axes, lanes)):
        colours = _common.palette([run])
        lo = int(round(run.minimum_start_time * NS))
        span = max(run.time_span, 1e-9)
        labels = []
        for g, r, t in ls:
            tr = g[r].thread(t)
            s, e = tr.start_times_ns, tr.end_times_ns
            o = np.argsort(s, kind="stable")
            s, e = _common.merge_intervals(s[o], e[o], span * NS / 4000)
            y = len(labels)
            ax.broken_barh(list(zip((s - lo) / NS, (e - s) / NS)),
                           (y - 0.4, 0.8), color=colours[g.name])
            labels.append("%s r%d t%d" % (g.name, r, t))
        ax.set_yticks(range(len(labels)))
        ax.set_yticklabels(labels, fontsize=7)
        ax.set_ylim(max(len(labels), 1) - 0.5, -0.5)
        ax.set_xlabel("time since first region entry (s)")
        ax.set_title(title or _common.label(run, i), fontsize=9)
    return _common.save(fig, filepath, show)
