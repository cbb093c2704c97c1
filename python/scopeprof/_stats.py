# Statistics of rows computed from their calls (inputs without summary
# records, i.e. .spt traces), and pooled over several rows, as sp-report
# pools them.
import warnings

import numpy as np

from . import _nesting
from ._columns import STATS_DTYPE


def _row_stats(starts, ends, offset, count, out):
    full = np.flatnonzero(count > 0)
    if full.size == 0:
        return
    d = ends - starts
    heads = offset[full]
    # Rows lie back to back, so reduceat over their first calls covers them.
    total = np.add.reduceat(d, heads) if d.size else np.zeros(0, np.int64)
    if heads.size and heads[0] != 0:
        raise ValueError("rows do not start at the first call")
    n = count[full]
    out["calls"][full] = n
    out["total_ns"][full] = total
    out["min_ns"][full] = np.minimum.reduceat(d, heads)
    out["max_ns"][full] = np.maximum.reduceat(d, heads)
    out["first_start_ns"][full] = np.minimum.reduceat(starts, heads)
    out["last_end_ns"][full] = np.maximum.reduceat(ends, heads)
    mean = total / n
    out["mean_ns"][full] = mean
    dev = d - np.repeat(mean, n)
    np.multiply(dev, dev, out=dev)
    out["std_ns"][full] = np.sqrt(np.add.reduceat(dev, heads) / n)


def outer_totals(cols, st):
    """outer_total_ns of every row: total_ns less its calls nested inside
    another of its own calls (recursion). A row's calls are in start order,
    so a call is inside an earlier one exactly when it ends by the latest
    end before it."""
    for i in range(cols.nrows):
        n = int(cols.count[i])
        if n == 0:
            st["outer_total_ns"][i] = 0
            continue
        lo = int(cols.offset[i])
        s, e = cols.starts[lo:lo + n], cols.ends[lo:lo + n]
        nested = np.zeros(n, dtype=bool)
        if n > 1:
            nested[1:] = e[1:] <= np.maximum.accumulate(e[:-1])
        st["outer_total_ns"][i] = int((e - s)[~nested].sum())


def compute(cols):
    """summary_statistics records for every row of cols (events needed);
    exclusive times from each (rank, thread)'s reconstructed call stack."""
    st = np.zeros(cols.nrows, dtype=STATS_DTYPE)
    st["gpu_total_ns"] = -1
    if cols.nrows == 0:
        return st
    base = cols.offset[0]
    starts = cols.starts[base:]
    ends = cols.ends[base:]
    _row_stats(starts, ends, cols.offset - base, cols.count, st)
    warned = False
    for lo, hi in thread_groups(cols):
        a = cols.offset[lo] - base
        b = cols.offset[hi - 1] + cols.count[hi - 1] - base
        if b == a:
            continue
        tie = np.repeat(np.arange(hi - lo, dtype=np.int64), cols.count[lo:hi])
        w = _nesting.Walk(starts[a:b], ends[a:b], tie, strict=False)
        if w.bad is not None and not warned:
            warned = True
            warnings.warn("rank %d thread %d: calls overlap without nesting; "
                          "exclusive times count only nested calls"
                          % (cols.rank[lo], cols.thread[lo]))
        excl = np.empty_like(w.exclusive)
        excl[w.order] = w.exclusive
        heads = np.flatnonzero(cols.count[lo:hi] > 0)
        sums = np.add.reduceat(excl, cols.offset[lo:hi][heads] - cols.offset[lo])
        st["exclusive_ns"][lo + heads] = sums
    outer_totals(cols, st)
    return st


def thread_groups(cols):
    """(first row, end row) of each (rank, thread) in row order."""
    if cols.nrows == 0:
        return []
    key_change = np.flatnonzero((cols.rank[1:] != cols.rank[:-1]) |
                                (cols.thread[1:] != cols.thread[:-1])) + 1
    bounds = np.r_[0, key_change, cols.nrows]
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))


class Pooled:
    """Statistics of several rows taken together (exact counts and sums;
    std by Chan's combination of each row's mean and std)."""

    def __init__(self, st):
        st = st[st["calls"] > 0]
        self.calls = int(st["calls"].sum())
        # every call's duration (the mean's); total_ns: the outermost calls'
        # (a recursive call inside another of its region is not added again;
        # rows without the figure, -1, count all their calls)
        self.sum_ns = int(st["total_ns"].sum())
        outer = st["outer_total_ns"]
        self.total_ns = int(np.where(outer >= 0, outer, st["total_ns"]).sum())
        self.exclusive_ns = int(st["exclusive_ns"].sum())
        if self.calls == 0:
            self.min_ns = self.max_ns = 0
            self.first_start_ns = self.last_end_ns = None
            self.mean_ns = self.std_ns = 0.0
            return
        self.min_ns = int(st["min_ns"].min())
        self.max_ns = int(st["max_ns"].max())
        self.first_start_ns = int(st["first_start_ns"].min())
        self.last_end_ns = int(st["last_end_ns"].max())
        self.mean_ns = self.sum_ns / self.calls
        n = st["calls"].astype(np.float64)
        m2 = (st["std_ns"] ** 2 * n + n * (st["mean_ns"] - self.mean_ns) ** 2).sum()
        self.std_ns = float(np.sqrt(max(m2, 0.0) / self.calls))
