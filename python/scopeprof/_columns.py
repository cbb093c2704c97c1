# The in-memory form of a profile: one entry per (rank, thread, region) row
# and the calls of every row, row after row, as numpy columns.
import numpy as np

# summary_statistics as schema 2 stores it (docs/format-hdf5.md).
STATS_DTYPE = np.dtype([
    ("calls", "<i8"), ("total_ns", "<i8"), ("min_ns", "<i8"), ("max_ns", "<i8"),
    ("first_start_ns", "<i8"), ("last_end_ns", "<i8"), ("exclusive_ns", "<i8"),
    ("gpu_total_ns", "<i8"), ("mean_ns", "<f8"), ("std_ns", "<f8"),
    ("outer_total_ns", "<i8"),
])


class Columns:
    """A profile as arrays. Rows are ordered by rank, then thread; row i's
    calls are starts/ends[offset[i]:offset[i] + count[i]]. starts and ends
    are None when only the summary records were read."""

    def __init__(self, names, region, rank, thread, offset, count, files,
                 lines, stats, starts, ends, metadata, paths):
        self.names = list(names)
        self.region = np.asarray(region, dtype=np.int32)
        self.rank = np.asarray(rank, dtype=np.int32)
        self.thread = np.asarray(thread, dtype=np.int32)
        self.offset = np.asarray(offset, dtype=np.int64)
        self.count = np.asarray(count, dtype=np.int64)
        self.files = list(files)
        self.lines = np.asarray(lines, dtype=np.int32)
        self.stats = stats
        self.starts = starts
        self.ends = ends
        self.metadata = metadata
        self.paths = list(paths)

    @property
    def nrows(self):
        return len(self.region)

    @property
    def has_events(self):
        return self.starts is not None

    def row_calls(self, rows):
        """(starts, ends) of the given rows, in row order; views when the rows
        are one contiguous stretch of the columns."""
        rows = np.asarray(rows, dtype=np.int64)
        if rows.size == 0:
            empty = np.empty(0, dtype=np.int64)
            return empty, empty
        lo = self.offset[rows]
        hi = lo + self.count[rows]
        if rows.size == 1 or (np.all(lo[1:] == hi[:-1])):
            return self.starts[lo[0]:hi[-1]], self.ends[lo[0]:hi[-1]]
        return (np.concatenate([self.starts[a:b] for a, b in zip(lo, hi)]),
                np.concatenate([self.ends[a:b] for a, b in zip(lo, hi)]))


def empty_stats(n):
    """Statistics records that know only the call counts (an .h5 without
    summary_statistics read summary-only cannot exist: it falls back)."""
    st = np.zeros(n, dtype=STATS_DTYPE)
    st["gpu_total_ns"] = -1
    st["outer_total_ns"] = -1
    return st
