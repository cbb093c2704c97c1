# What every plot shares: a figure drawn with the Agg canvas (no display,
# no pyplot state), saving, region colours and the run list argument.
import os

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .. import _atomic
from ..results import ProfilingResults


def figure(width=10, height=5):
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save(fig, filepath, show=False):
    """Writes the picture, in the format its extension names (PNG without
    one), through a temporary renamed into place (the Agg backend cannot
    display: `show` is accepted for scope-profiler's signatures and does
    nothing). Returns filepath."""
    if filepath:
        d = os.path.dirname(os.fspath(filepath))
        if d:
            os.makedirs(d, exist_ok=True)
        # Through a fresh temporary renamed into place (_atomic); the
        # format from the name, as savefig(filepath) would choose it.
        ext = os.path.splitext(os.fspath(filepath))[1][1:].lower()
        with _atomic.replace(filepath) as f:
            fig.savefig(f, format=ext or None, dpi=100)
    return filepath


# A qualitative palette: Tableau's 10, then the 10 lighter partners, then
# ColorBrewer's Dark2 and Set1; none two alike.
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
           "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
           "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5",
           "#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02",
           "#a6761d", "#4daf4a", "#984ea3", "#ffff33"]


def palette(runs_or_names):
    """{region name: colour}: one colour per region, in first-start order
    over the given runs (or names), so a region keeps its colour in every
    chart of a run whatever the filters. Past the fixed palette, hues at
    the golden angle in three lightness bands."""
    from matplotlib.colors import hsv_to_rgb, to_hex
    names = []
    for x in runs_or_names:
        if isinstance(x, ProfilingResults):
            names += [g.name for g in x.get_regions()]
        else:
            names.append(x)
    out = {}
    for n in names:
        if n in out:
            continue
        k = len(out)
        if k < len(PALETTE):
            out[n] = PALETTE[k]
        else:
            j = k - len(PALETTE)
            out[n] = to_hex(hsv_to_rgb(((j * 0.618033988749895) % 1.0,
                                        0.55 + 0.2 * (j // 7 % 2),
                                        0.95 - 0.25 * (j // 3 % 3))))
    return out


def runs(data):
    """One ProfilingResults or a list of them, as a list, without the empty
    results of ranks other than 0 (so a chart is drawn once per MPI job)."""
    if isinstance(data, ProfilingResults):
        data = [data]
    return [r for r in data if getattr(r, "is_root", True)]


def label(run, i):
    m = run.metadata
    return str(m.get("label") or (run._cols.paths[0] if run._cols.paths else "run %d" % i))


def mpi_size(run):
    v = run.metadata.get("mpi_size")
    return int(v) if isinstance(v, int) else run.num_ranks


def merge_intervals(s, e, gap):
    """Intervals closer than `gap` merged (a million calls drawn as the few
    thousand bars a picture can show); s, e in start order."""
    if s.size < 2:
        return s, e
    import numpy as np
    run_max = np.maximum.accumulate(e)
    new = np.r_[True, s[1:] > run_max[:-1] + gap]
    heads = np.flatnonzero(new)
    ends = np.maximum.reduceat(e, heads)
    return s[heads], ends
