# plot_flame_chart: the reconstructed call stack over time, one panel per
# (rank, thread), depth upwards.
import numpy as np

from . import _common
from ..callstack import build_call_arrays

NS = 1e9


def plot_flame_chart(profiling_data, ranks=(0,), threads=None, include=None,
                     exclude=None, filepath=None, show=False):
    """Flame chart of the given ranks (default rank 0), one panel per rank
    and thread; time from the first region entry. Calls narrower than a
    pixel are not drawn (their time shows in their caller's bar)."""
    run = _common.runs(profiling_data)[0]
    regions = run.get_regions(include, exclude)
    lo = int(round(run.minimum_start_time * NS))
    panels = []
    for r in np.atleast_1d(ranks).tolist():
        calls = build_call_arrays(regions, rank=r, threads=threads)
        for t in np.unique(calls.thread).tolist():
            panels.append((r, t, calls))
    fig = _common.figure(12, 1 + 2.5 * max(len(panels), 1))
    axes = fig.subplots(max(len(panels), 1), 1, squeeze=False)[:, 0]
    min_w = run.time_span * NS / 3000
    for ax, (r, t, c) in zip(axes, panels):
        keep = (c.thread == t) & (c.duration_ns >= min_w)
        for k, g in enumerate(regions):
            sel = keep & (c.region == k)
            for d in np.unique(c.depth[sel]).tolist():
                m = sel & (c.depth == d)
                ax.broken_barh(list(zip((c.start_ns[m] - lo) / NS, c.duration_ns[m] / NS)),
                               (d, 0.9), color=_common.colour(g.name),
                               label=g.name if d == c.depth[sel].min() else None)
        ax.set_ylabel("depth")
        ax.set_title("rank %d thread %d" % (r, t), fontsize=9)
        ax.legend(fontsize=7, loc="upper right")
    axes[-1].set_xlabel("time since first region entry (s)")
    return _common.save(fig, filepath, show)
