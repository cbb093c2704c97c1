# One row per call as numpy columns (EventTable) and as a pandas DataFrame,
# built without a Python object per call.
import numpy as np

NS = 1e9
_CHUNK = 1 << 15
# A column is filled one stretch (rows with one value, or one row) at a time
# when stretches hold this many calls on average; else it is vectorised.
_LONG = 1024


def _small_int(values, n_out):
    """The narrowest signed integer type holding values (keeps per-call
    columns of rank, thread and region small)."""
    top = int(values.max()) if values.size else 0
    low = int(values.min()) if values.size else 0
    for t in (np.int8, np.int16, np.int32):
        if np.iinfo(t).min <= low and top <= np.iinfo(t).max:
            return t
    return np.int64


def _codes_dtype(ncategories):
    """The type pandas gives the codes of that many categories, so that
    Categorical.from_codes keeps the array it is given."""
    for t in (np.int8, np.int16, np.int32):
        if ncategories < np.iinfo(t).max:
            return t
    return np.int64


def _segments(cols, rows):
    """(first call, number of calls) of the stretches of the event columns
    that the rows cover, consecutive rows that are adjacent in the columns
    merged: the calls of the rows, in row order, without a copy."""
    lo = cols.offset[rows]
    cnt = cols.count[rows]
    keep = cnt > 0
    lo, cnt = lo[keep], cnt[keep]
    if lo.size == 0:
        return []
    new = np.ones(lo.size, dtype=bool)
    new[1:] = lo[1:] != lo[:-1] + cnt[:-1]
    first = np.flatnonzero(new)
    return list(zip(lo[first].tolist(), np.add.reduceat(cnt, first).tolist()))


def _fill_times(starts, ends, segments, origin_ns, block):
    """block[0], block[1] = (starts, ends) - origin_ns in s; block[2] =
    ends - starts in s. Subtracted in int64 (exact), divided once, in
    cache-sized pieces: no full-size temporary."""
    tmp = np.empty(_CHUNK, dtype=np.int64)
    pos = 0
    for lo, n in segments:
        for a in range(0, n, _CHUNK):
            m = min(_CHUNK, n - a)
            s = starts[lo + a:lo + a + m]
            e = ends[lo + a:lo + a + m]
            t = tmp[:m]
            np.subtract(s, origin_ns, out=t)
            np.divide(t, NS, out=block[0, pos:pos + m])
            np.subtract(e, origin_ns, out=t)
            np.divide(t, NS, out=block[1, pos:pos + m])
            np.subtract(e, s, out=t)
            np.divide(t, NS, out=block[2, pos:pos + m])
            pos += m


def _seconds(ns, origin_ns, out):
    """out[:] = (ns - origin_ns) / 1e9, subtracting in int64 first (exact)
    and in cache-sized pieces so no full-size temporary is made."""
    tmp = np.empty(min(_CHUNK, ns.size), dtype=np.int64)
    for a in range(0, ns.size, _CHUNK):
        b = min(a + _CHUNK, ns.size)
        t = tmp[:b - a]
        np.subtract(ns[a:b], origin_ns, out=t)
        np.divide(t, NS, out=out[a:b])


def _durations(starts, ends, out):
    tmp = np.empty(min(_CHUNK, starts.size), dtype=np.int64)
    for a in range(0, starts.size, _CHUNK):
        b = min(a + _CHUNK, starts.size)
        t = tmp[:b - a]
        np.subtract(ends[a:b], starts[a:b], out=t)
        np.divide(t, NS, out=out[a:b])


def _repeat(values, counts, out):
    """out[:] = np.repeat(values, counts) without a temporary: a fill per
    stretch of rows with one value when stretches are long (rows come
    grouped by rank and thread), else a scatter of the steps and a running
    sum (in out's type: the values fit it, so every partial sum does)."""
    if out.size == 0:
        return out
    values = np.asarray(values, dtype=np.int64)
    new = np.ones(values.size, dtype=bool)
    new[1:] = values[1:] != values[:-1]
    first = np.flatnonzero(new)
    vals = values[first]
    cnt = np.add.reduceat(counts, first)
    keep = cnt > 0
    vals, cnt = vals[keep], cnt[keep]
    ends = np.cumsum(cnt)
    if vals.size * _LONG <= out.size:
        for v, a, b in zip(vals.tolist(), (ends - cnt).tolist(), ends.tolist()):
            out[a:b] = v
        return out
    out[:] = 0
    out[0] = vals[0]
    out[ends[:-1]] = np.diff(vals)
    np.add.accumulate(out, dtype=out.dtype, out=out)
    return out


def _call_index(counts, n, dtype, out=None):
    """0, 1, ... restarting at every row: per long row, a ramp from one
    shared arange; for many short rows, a running sum of ones with each
    row's first entry stepping back by the previous row's length."""
    idx = np.empty(n, dtype=dtype) if out is None else out
    if n == 0:
        return idx
    full = counts[counts > 0]
    if full.size * _LONG <= n:
        ramp = np.arange(min(int(full.max()), 1 << 20), dtype=dtype)
        pos = 0
        for c in full.tolist():
            for k in range(0, c, ramp.size):
                m = min(ramp.size, c - k)
                np.add(ramp[:m], k, out=idx[pos + k:pos + k + m])
            pos += c
        return idx
    idx.fill(1)
    heads = np.cumsum(full)[:-1]
    idx[0] = 0
    idx[heads] = 1 - full[:-1]
    np.add.accumulate(idx, dtype=idx.dtype, out=idx)
    return idx


class EventTable:
    """The calls of a selection, one entry per call, as numpy columns:
    name (via `codes` into `names`), rank, thread, call_index (the call's
    index among the calls of its region on its rank and thread), start and
    end (seconds from the origin, or raw clock seconds), duration (s).
    Iterating yields one dict per call; table["start"] gives a column."""

    COLUMNS = ("name", "rank", "thread", "call_index", "start", "end", "duration")

    def __init__(self, cols, rows, origin_ns):
        rows = np.asarray(rows, dtype=np.int64)
        self.names = list(cols.names)
        self._cols, self._rows, self._origin = cols, rows, origin_ns
        self._counts = cols.count[rows]
        self._n = int(self._counts.sum())
        self._cache = {}

    def __len__(self):
        return self._n

    @property
    def origin_ns(self):
        return self._origin

    def _raw(self):
        if "raw" not in self._cache:
            self._cache["raw"] = self._cols.row_calls(self._rows)
        return self._cache["raw"]

    @property
    def codes(self):
        """Per call, its region's index into self.names."""
        if "codes" not in self._cache:
            self._cache["codes"] = _repeat(
                self._cols.region[self._rows], self._counts,
                np.empty(self._n, dtype=_codes_dtype(len(self.names))))
        return self._cache["codes"]

    def _per_row(self, key, values):
        if key not in self._cache:
            self._cache[key] = _repeat(values, self._counts, np.empty(
                self._n, dtype=_small_int(values, self._n)))
        return self._cache[key]

    def _call_index_dtype(self):
        return np.int64 if self._counts.max(initial=0) >= 2 ** 31 else np.int32

    def column(self, key):
        if key == "name":
            return np.asarray(self.names, dtype=object)[self.codes]
        if key == "rank":
            return self._per_row("rank", self._cols.rank[self._rows])
        if key == "thread":
            return self._per_row("thread", self._cols.thread[self._rows])
        if key == "call_index":
            if "call_index" not in self._cache:
                self._cache["call_index"] = _call_index(
                    self._counts, self._n, self._call_index_dtype())
            return self._cache["call_index"]
        if key in ("start", "end"):
            out = np.empty(self._n)
            _seconds(self._raw()[0 if key == "start" else 1], self._origin, out)
            return out
        if key == "duration":
            out = np.empty(self._n)
            _durations(*self._raw(), out)
            return out
        if key in ("start_ns", "end_ns"):
            return self._raw()[0 if key == "start_ns" else 1]
        raise KeyError(key)

    __getitem__ = column

    def __iter__(self):
        cols = [self.column(k) for k in self.COLUMNS[1:]]
        codes = self.codes
        names = self.names
        for a in range(0, self._n, 65536):
            b = min(a + 65536, self._n)
            parts = [c[a:b].tolist() for c in cols]
            for i, code in enumerate(codes[a:b].tolist()):
                yield {"name": names[code], "rank": parts[0][i],
                       "thread": parts[1][i], "call_index": parts[2][i],
                       "start": parts[3][i], "end": parts[4][i],
                       "duration": parts[5][i]}

    def to_dataframe(self):
        """A DataFrame with the columns above; name is categorical. Every
        column is written once, straight into the array the frame keeps:
        the three float columns into one 2-D block, the integer columns into
        one 2-D block per type, assembled as the consolidated blocks pandas
        would make, so nothing is copied (with pandas 1.x; other versions
        get the same frame through the public constructor)."""
        import pandas as pd
        cols, rows, n = self._cols, self._rows, self._n
        floats = np.empty((3, n))
        _fill_times(cols.starts, cols.ends, _segments(cols, rows), self._origin, floats)
        codes = self._cache.pop("codes", None)
        if codes is None:
            codes = self.codes
            self._cache.pop("codes")
        name = pd.Categorical.from_codes(codes, categories=pd.Index(self.names))
        del codes
        ints = [("rank", cols.rank[rows]), ("thread", cols.thread[rows]),
                ("call_index", None)]
        types = [_small_int(v, n) for _, v in ints[:2]] + [self._call_index_dtype()]
        blocks = {}
        for t in types:
            blocks.setdefault(np.dtype(t), None)
        for t in blocks:
            blocks[t] = np.empty((types.count(t), n), dtype=t)
        arrays, row_of = {}, {t: 0 for t in blocks}
        for (key, values), t in zip(ints, types):
            t = np.dtype(t)
            out = blocks[t][row_of[t]]
            row_of[t] += 1
            self._cache.pop(key, None)
            if values is None:
                _call_index(self._counts, n, t, out)
            else:
                _repeat(values, self._counts, out)
            arrays[key] = out
        return _frame(pd, name, arrays, floats, blocks)



def _frame(pd, name, ints, floats, blocks):
    """The events DataFrame over the given arrays. pandas 1.x: blocks made
    by hand (no copy, consolidated); else DataFrame(dict), which may copy."""
    n = floats.shape[1]
    if pd.__version__.split(".")[0] == "1":
        from pandas.core.internals import BlockManager
        from pandas.core.internals.api import make_block
        mgr_blocks = [make_block(name, placement=[0], ndim=2),
                      make_block(floats, placement=[4, 5, 6], ndim=2)]
        for t, block in blocks.items():
            where = [EventTable.COLUMNS.index(k) for k, a in ints.items() if a.dtype == t]
            mgr_blocks.append(make_block(block, placement=where, ndim=2))
        mgr = BlockManager(mgr_blocks, [pd.Index(list(EventTable.COLUMNS)), pd.RangeIndex(n)])
        return pd.DataFrame(mgr)
    data = {"name": name}
    data.update(ints)
    data.update(zip(EventTable.COLUMNS[4:], floats))
    return pd.DataFrame(data, columns=list(EventTable.COLUMNS), copy=False)
