# plot_flame_chart: the reconstructed call stack over time, one panel per
# (rank, thread), depth upwards, frames labelled with their call path.
import numpy as np

from . import _common
from ..callstack import build_call_arrays

NS = 1e9
PANEL_PX = 1000      # the axes' width in pixels (12 inch figure, 100 dpi)
CHAR_PX = 5.0        # one 7-point character, for deciding what label fits
MIN_FRAC = 1 / 3000  # calls narrower than this share of a panel: not drawn


def call_paths(c):
    """(path id of every call, [(parent path id, region index)] per path id)
    for CallArrays c: calls of one region under the same chain of callers
    share an id. Depth by depth, each call's parent's id being known."""
    pid = np.full(len(c), -1, dtype=np.int64)
    paths = []
    if not len(c):
        return pid, paths
    for d in range(int(c.depth.max()) + 1):
        m = np.flatnonzero(c.depth == d)
        if not m.size:
            continue
        par = c.parent[m]
        ppid = np.where(par >= 0, pid[np.maximum(par, 0)], -1)
        keys = np.stack([ppid, c.region[m].astype(np.int64)], axis=1)
        uniq, inv = np.unique(keys, axis=0, return_inverse=True)
        pid[m] = len(paths) + inv.reshape(-1)
        paths.extend((int(a), int(b)) for a, b in uniq)
    return pid, paths


def path_label(paths, names, p, sep=" > "):
    parts = []
    while p >= 0:
        p, reg = paths[p]
        parts.append(names[reg])
    return sep.join(reversed(parts))


def frame_label(full, name, px):
    """The call path when it fits the frame's px, else the region's name,
    else the name cut with an ellipsis, else nothing."""
    fit = int(px / CHAR_PX)
    if len(full) <= fit:
        return full
    if len(name) <= fit:
        return name
    return name[:fit - 1] + "\u2026" if fit >= 4 else None


def depth_ticks(ax, max_depth, bar=0.9):
    """One tick per depth (every k-th past 20 levels), labelled by the
    integer depth, in the middle of that level's bars."""
    step = max(1, int(np.ceil((max_depth + 1) / 20)))
    ds = list(range(0, max_depth + 1, step))
    ax.set_yticks([d + bar / 2 for d in ds])
    ax.set_yticklabels([str(d) for d in ds])
    ax.set_ylim(-0.1, max_depth + 1)


def plot_flame_chart(profiling_data, ranks=(0,), threads=None, include=None,
                     exclude=None, filepath=None, show=False):
    """Flame chart of the given ranks (default rank 0), one panel per rank
    and thread; time from the first region entry. Each panel is framed on
    its own calls, and calls narrower than 1/3000 of that panel are not
    drawn (their time shows in their caller's frame). Frames carry their
    call path ("timestep > solve") where it fits, else their name."""
    runs = _common.runs(profiling_data)
    if not runs:
        return None
    run = runs[0]
    regions = run.get_regions(include, exclude)
    names = [g.name for g in regions]
    colours = _common.palette([run])
    lo = int(round(run.minimum_start_time * NS))
    panels = []
    for r in np.atleast_1d(ranks).tolist():
        calls = build_call_arrays(regions, rank=r, threads=threads)
        pid, paths = call_paths(calls)
        for t in np.unique(calls.thread).tolist():
            panels.append((r, t, calls, pid, paths))
    fig = _common.figure(12, 1 + 2.5 * max(len(panels), 1))
    axes = fig.subplots(max(len(panels), 1), 1, squeeze=False)[:, 0]
    for ax, (r, t, c, pid, paths) in zip(axes, panels):
        mine = c.thread == t
        t0, t1 = int(c.start_ns[mine].min()), int(c.end_ns[mine].max())
        span = max(t1 - t0, 1)
        keep = mine & (c.duration_ns >= span * MIN_FRAC)
        shown = set()
        for k in np.unique(c.region[keep]).tolist():
            sel = keep & (c.region == k)
            for d in np.unique(c.depth[sel]).tolist():
                m = sel & (c.depth == d)
                lab = names[k] if names[k] not in shown else None
                shown.add(names[k])
                ax.broken_barh(list(zip((c.start_ns[m] - lo) / NS, c.duration_ns[m] / NS)),
                               (d, 0.9), color=colours[names[k]], label=lab)
        labels = {}
        for i in np.flatnonzero(keep).tolist():
            px = c.duration_ns[i] / span * PANEL_PX
            if px < 4 * CHAR_PX:
                continue
            p = int(pid[i])
            if p not in labels:
                labels[p] = path_label(paths, names, p)
            text = frame_label(labels[p], names[c.region[i]], px)
            if text:
                ax.text((c.start_ns[i] + c.duration_ns[i] / 2 - lo) / NS,
                        c.depth[i] + 0.45, text, ha="center", va="center",
                        fontsize=7, clip_on=True)
        ax.set_xlim((t0 - lo) / NS, (t0 + span - lo) / NS)
        depth_ticks(ax, int(c.depth[mine].max()))
        ax.set_ylabel("depth")
        ax.set_title("rank %d thread %d" % (r, t), fontsize=9)
        ax.legend(fontsize=7, loc="upper right")
    axes[-1].set_xlabel("time since first region entry (s)")
    return _common.save(fig, filepath, show)
