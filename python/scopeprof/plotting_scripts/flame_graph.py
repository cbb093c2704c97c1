# plot_flame_graph: the call stacks of a rank aggregated by call path (no
# time axis): a frame's width is the time spent in that path, children
# stacked on their caller, one panel per rank.
import numpy as np

from . import _common
from .flame import (CHAR_PX, MIN_FRAC, PANEL_PX, call_paths, depth_ticks,
                    frame_label, path_label)
from ..callstack import build_call_arrays

NS = 1e9


def flame_graph_frames(run, rank=0, threads=None, include=None, exclude=None):
    """The frames of one rank's flame graph, as dicts: path (names from the
    root), name, depth, start and width in seconds (x), calls; threads
    pooled. Siblings are ordered by name, as flame graphs order them."""
    regions = run.get_regions(include, exclude)
    names = [g.name for g in regions]
    c = build_call_arrays(regions, rank=rank, threads=threads)
    pid, paths = call_paths(c)
    if not paths:
        return []
    total = np.bincount(pid, weights=c.duration_ns, minlength=len(paths))
    ncalls = np.bincount(pid, minlength=len(paths))
    kids = {}
    for p, (par, reg) in enumerate(paths):
        kids.setdefault(par, []).append(p)
    out = []
    stack = [(p, 0.0, 0) for p in sorted(kids.get(-1, []),
                                         key=lambda p: names[paths[p][1]])]
    # Roots side by side: each starts where the previous one ended.
    x = 0.0
    for i, (p, _, d) in enumerate(stack):
        stack[i] = (p, x, d)
        x += total[p]
    while stack:
        p, x0, d = stack.pop()
        reg = paths[p][1]
        out.append({"path": path_label(paths, names, p), "name": names[reg],
                    "depth": d, "start": x0 / NS, "width": total[p] / NS,
                    "calls": int(ncalls[p])})
        x = x0
        for k in sorted(kids.get(p, []), key=lambda q: names[paths[q][1]]):
            stack.append((k, x, d + 1))
            x += total[k]
    out.sort(key=lambda f: (f["depth"], f["start"]))
    return out


def plot_flame_graph(profiling_data, ranks=(0,), threads=None, include=None,
                     exclude=None, filepath=None, show=False):
    """Flame graph of the given ranks (default rank 0), one panel each:
    x is inclusive time summed over the calls of a call path, depth upwards;
    frames narrower than 1/3000 of their panel are left out. Frames carry
    their call path where it fits, else their region's name."""
    runs = _common.runs(profiling_data)
    if not runs:
        return None
    run = runs[0]
    colours = _common.palette([run])
    panels = [(r, flame_graph_frames(run, r, threads, include, exclude))
              for r in np.atleast_1d(ranks).tolist()]
    fig = _common.figure(12, 1 + 2.5 * max(len(panels), 1))
    axes = fig.subplots(max(len(panels), 1), 1, squeeze=False)[:, 0]
    for ax, (r, frames) in zip(axes, panels):
        span = sum(f["width"] for f in frames if f["depth"] == 0) or 1e-9
        shown = set()
        for f in frames:
            if f["width"] < span * MIN_FRAC:
                continue
            lab = f["name"] if f["name"] not in shown else None
            shown.add(f["name"])
            ax.broken_barh([(f["start"], f["width"])], (f["depth"], 0.9),
                           color=colours.get(f["name"], "#7f7f7f"), label=lab,
                           edgecolor="white", linewidth=0.5)
            px = f["width"] / span * PANEL_PX
            text = frame_label(f["path"], f["name"], px) if px >= 4 * CHAR_PX else None
            if text:
                ax.text(f["start"] + f["width"] / 2, f["depth"] + 0.45, text,
                        ha="center", va="center", fontsize=7, clip_on=True)
        ax.set_xlim(0, span)
        depth_ticks(ax, max([f["depth"] for f in frames] or [0]))
        ax.set_ylabel("depth")
        ax.set_title("rank %d" % r, fontsize=9)
        if frames:
            ax.legend(fontsize=7, loc="upper right")
    axes[-1].set_xlabel("time in the call path, summed over its calls (s)")
    return _common.save(fig, filepath, show)
