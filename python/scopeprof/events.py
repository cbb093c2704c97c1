# One row per call as numpy columns (EventTable) and as a pandas DataFrame,
# built without a Python object per call.
import numpy as np

NS = 1e9
_CHUNK = 1 << 20


def _small_int(values, n_out):
    """The narrowest signed integer type holding values (keeps per-call
    columns of rank, thread and region small)."""
    top = int(values.max()) if values.size else 0
    low = int(values.min()) if values.size else 0
    for t in (np.int8, np.int16, np.int32):
        if np.iinfo(t).min <= low and top <= np.iinfo(t).max:
            return t
    return np.int64


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


def _call_index(counts, n, dtype):
    """0, 1, ... restarting at every row: a cumulative sum of ones with each
    row's first entry stepping back by the previous row's length."""
    idx = np.ones(n, dtype=dtype)
    if n == 0:
        return idx
    full = counts[counts > 0]
    heads = np.cumsum(full)[:-1]
    idx[0] = 0
    idx[heads] = 1 - full[:-1]
    np.cumsum(idx, out=idx)
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
            reg = self._cols.region[self._rows]
            self._cache["codes"] = np.repeat(
                reg.astype(_small_int(reg, self._n)), self._counts)
        return self._cache["codes"]

    def _per_row(self, key, values):
        if key not in self._cache:
            self._cache[key] = np.repeat(values.astype(_small_int(values, self._n)),
                                         self._counts)
        return self._cache[key]

    def column(self, key):
        if key == "name":
            return np.asarray(self.names, dtype=object)[self.codes]
        if key == "rank":
            return self._per_row("rank", self._cols.rank[self._rows])
        if key == "thread":
            return self._per_row("thread", self._cols.thread[self._rows])
        if key == "call_index":
            if "call_index" not in self._cache:
                big = self._counts.max(initial=0) >= 2 ** 31
                self._cache["call_index"] = _call_index(
                    self._counts, self._n, np.int64 if big else np.int32)
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
        """A DataFrame with the columns above; name is categorical. The three
        float columns are filled in one 2-D block, which pandas takes as it
        is instead of copying the columns into a block of its own."""
        import pandas as pd
        block = np.empty((3, self._n))
        starts, ends = self._raw()
        _seconds(starts, self._origin, block[0])
        _seconds(ends, self._origin, block[1])
        _durations(starts, ends, block[2])
        frame = pd.DataFrame(block.T, columns=["start", "end", "duration"], copy=False)
        del block
        # insert() copies its column: each per-call array is dropped as soon
        # as it is in, so at most one column exists twice at a time.
        codes = self._cache.pop("codes", None)
        if codes is None:
            codes = self.codes
            self._cache.pop("codes")
        frame.insert(0, "name", pd.Categorical.from_codes(
            codes, categories=pd.Index(self.names)))
        del codes
        for i, key in enumerate(("rank", "thread", "call_index"), start=1):
            frame.insert(i, key, self.column(key))
            self._cache.pop(key, None)
        return frame

