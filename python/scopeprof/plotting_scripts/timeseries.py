# plot_duration_timeseries: each region's mean call duration over the run,
# shaded between the smallest and largest per-rank mean.
import numpy as np

from . import _common

NS = 1e9


def plot_duration_timeseries(profiling_data, include=None, exclude=None,
                             ranks=None, bins=100, filepath=None, show=False):
    """Time (from the first region entry) cut into `bins` windows; per
    region, the mean duration of the calls starting in each window on each
    rank; the line is the mean over ranks, the band their min to max."""
    runs = _common.runs(profiling_data)
    if not runs:
        return None
    run = runs[0]
    colours = _common.palette([run])
    lo = int(round(run.minimum_start_time * NS))
    span = max(run.time_span, 1e-9)
    edges = np.linspace(0, span, bins + 1)
    mid = (edges[1:] + edges[:-1]) / 2
    fig = _common.figure(12, 5)
    ax = fig.subplots()
    for g in run.get_regions(include, exclude):
        per_rank = []
        for r in g.ranks:
            if ranks is not None and r not in np.atleast_1d(ranks):
                continue
            rr = g[r]
            when = (rr.start_times_ns - lo) / NS
            b = np.clip((when / span * bins).astype(np.int64), 0, bins - 1)
            n = np.bincount(b, minlength=bins)
            tot = np.bincount(b, weights=rr.durations_ns / NS, minlength=bins)
            with np.errstate(invalid="ignore", divide="ignore"):
                per_rank.append(np.where(n > 0, tot / n, np.nan))
        if not per_rank:
            continue
        a = np.vstack(per_rank)
        ok = ~np.all(np.isnan(a), axis=0)
        if not ok.any():
            continue
        c = colours[g.name]
        ax.plot(mid[ok], np.nanmean(a[:, ok], axis=0), color=c, label=g.name)
        ax.fill_between(mid[ok], np.nanmin(a[:, ok], axis=0),
                        np.nanmax(a[:, ok], axis=0), color=c, alpha=0.25)
    ax.set_xlabel("time since first region entry (s)")
    ax.set_ylabel("mean duration per call (s)")
    ax.set_yscale("log")
    ax.legend(fontsize=7)
    return _common.save(fig, filepath, show)
