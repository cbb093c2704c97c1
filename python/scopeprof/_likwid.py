# Counters per region (SP_COUNTERS): a schema-2 file's rank<N>/likwid
# groups (docs/format-hdf5.md) as one pandas DataFrame.
import re

import h5py
import numpy as np

from . import _inputs
from ._errors import FormatError, one_line

_RANK = re.compile(r"^rank(\d+)$")

# Derived metrics: the column, numerator and denominator counters (None:
# the calls). Present when the counters they need were recorded.
DERIVED = (("ipc", "instructions", "cycles"),
           ("miss_rate", "cache-misses", "cache-references"),
           ("branch_miss_rate", "branch-misses", "branches"),
           ("faults_per_call", "page-faults", None))

BASE_COLUMNS = ["name", "rank", "thread", "calls"]


def _text(x):
    if isinstance(x, bytes):
        return x.split(b"\0", 1)[0].decode("utf-8", "replace")
    return str(x).split("\0", 1)[0]


def _group(path, rank, g):
    """One rank's table: (counter names, rows as tuples, inclusive and
    exclusive arrays)."""
    try:
        names = [_text(x) for x in np.atleast_1d(g.attrs["counters"])]
        region = [_text(x) for x in g["region"][()]]
        thread = np.asarray(g["thread"][()], dtype=np.int64)
        calls = np.asarray(g["calls"][()], dtype=np.int64)
        incl = np.asarray(g["inclusive"][()], dtype=np.int64)
        excl = np.asarray(g["exclusive"][()], dtype=np.int64)
    except (KeyError, OSError, RuntimeError, ValueError, TypeError) as e:
        raise FormatError("%s: rank%d/likwid: %s" % (path, rank, one_line(e)))
    n, k = len(region), len(names)
    if (thread.shape != (n,) or calls.shape != (n,) or
            incl.reshape(-1).size != n * k or excl.reshape(-1).size != n * k):
        raise FormatError("%s: rank%d/likwid: datasets of %d rows and %d "
                          "counters disagree" % (path, rank, n, k))
    return names, region, thread, calls, incl.reshape(n, k), excl.reshape(n, k)


def _groups(path, h, want_ranks):
    """(rank, group) of every rank<N>/likwid of the open file h, ascending;
    a damaged file's errors as FormatError."""
    try:
        out = []
        for key in h:
            m = _RANK.match(key)
            if not m or not isinstance(h[key], h5py.Group) or "likwid" not in h[key]:
                continue
            rank = int(m.group(1))
            if want_ranks is None or rank in want_ranks:
                out.append((rank, h[key]["likwid"]))
        return sorted(out, key=lambda x: x[0])
    except (KeyError, OSError, RuntimeError, ValueError, TypeError) as e:
        raise FormatError("%s: %s" % (path, one_line(e)))


def read(paths, regions=None, ranks=None):
    """Every rank<N>/likwid group of the .h5 inputs among paths: one row per
    (region, rank, thread); the counters' inclusive sums under their names,
    exclusive ones as NAME_excl, derived metrics where their inputs exist."""
    import pandas as pd
    want_regions = None
    if regions is not None:
        want_regions = set([regions] if isinstance(regions, str) else regions)
    want_ranks = None
    if ranks is not None:
        want_ranks = set([ranks] if isinstance(ranks, int) else ranks)
    counters, rows = [], []
    for path in _inputs.expand(paths):
        if not h5py.is_hdf5(path):
            continue
        try:
            h = h5py.File(path, "r")
        except OSError as e:
            raise FormatError("%s: %s" % (path, one_line(e)))
        with h:
            for rank, g in _groups(path, h, want_ranks):
                names, region, thread, calls, incl, excl = _group(path, rank, g)
                for c in names:
                    if c not in counters:
                        counters.append(c)
                for i, r in enumerate(region):
                    if want_regions is not None and r not in want_regions:
                        continue
                    v = {"name": r, "rank": rank, "thread": int(thread[i]),
                         "calls": int(calls[i])}
                    for j, c in enumerate(names):
                        v[c] = int(incl[i, j])
                        v[c + "_excl"] = int(excl[i, j])
                    rows.append(v)
    cols = list(BASE_COLUMNS)
    for c in counters:
        cols += [c, c + "_excl"]
    derived = [d for d in DERIVED if d[1] in counters and (d[2] is None or d[2] in counters)]
    frame = pd.DataFrame(rows, columns=cols)
    for c in counters:  # a rank without the counter: missing, not 0
        for col in (c, c + "_excl"):
            frame[col] = frame[col].astype("Int64") if frame[col].isna().any() \
                else frame[col].astype(np.int64)
    for name, num, den in derived:
        top = frame[num].astype(np.float64)
        bottom = frame["calls" if den is None else den].astype(np.float64)
        frame[name] = np.where(bottom > 0, top / bottom.where(bottom > 0, 1), np.nan)
    frame = frame.sort_values(["rank", "thread", "name"], kind="stable")
    return frame.reset_index(drop=True)
