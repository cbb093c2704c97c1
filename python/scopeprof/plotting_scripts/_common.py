# What every plot shares: a figure drawn with the Agg canvas (no display,
# no pyplot state), saving, region colours and the run list argument.
import os
import zlib

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .. import _atomic
from ..results import ProfilingResults


def figure(width=10, height=5):
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save(fig, filepath, show=False):
    """Writes the PNG (the Agg backend cannot display: `show` is accepted
    for scope-profiler's signatures and does nothing). Returns filepath."""
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


def colour(name):
    """A region has the same colour in every chart (hash of its name)."""
    from matplotlib.colors import hsv_to_rgb
    h = zlib.crc32(name.encode())
    return hsv_to_rgb(((h % 997) / 997.0, 0.45 + (h >> 10) % 4 * 0.1,
                       0.95 - (h >> 14) % 3 * 0.15))


def runs(data):
    """One ProfilingResults or a list of them, as a list."""
    if isinstance(data, ProfilingResults):
        return [data]
    return list(data)


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
