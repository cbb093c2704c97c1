# Views of one region: over all ranks (Region), on one rank (RankRegion,
# every thread of the rank pooled) and on one rank and thread.
import numpy as np

from ._stats import Pooled
from .events import EventTable

NS = 1e9


class SummaryOnlyError(RuntimeError):
    """Per-call data asked of results read by read_h5_summary."""


class RegionData:
    """Statistics and calls of a set of rows of one region. Durations and
    times are in seconds; the *_ns arrays are the stored integers."""

    def __init__(self, results, name, rows):
        self._results = results
        self._cols = results._cols
        self.name = name
        self._rows = np.asarray(rows, dtype=np.int64)
        self._p = None

    def _pooled(self):
        if self._p is None:
            self._p = Pooled(self._cols.stats[self._rows])
        return self._p

    def _calls(self):
        if not self._cols.has_events:
            raise SummaryOnlyError("%s: per-call data needs read_h5(), not "
                                   "read_h5_summary()" % self.name)
        return self._cols.row_calls(self._rows)

    # -- statistics, exact from the summary records -------------------------
    @property
    def num_calls(self):
        return self._pooled().calls

    def __len__(self):
        return self.num_calls

    @property
    def has_timing(self):
        return self.num_calls > 0

    @property
    def total_duration(self):
        """Time in the region: its outermost calls' durations (a recursive
        call inside another call of the region on its rank and thread is
        not added again), as sp-report's total."""
        return self._pooled().total_ns / NS

    @property
    def average_duration(self):
        p = self._pooled()
        return p.sum_ns / p.calls / NS if p.calls else 0.0

    @property
    def min_duration(self):
        return self._pooled().min_ns / NS

    @property
    def max_duration(self):
        return self._pooled().max_ns / NS

    @property
    def std_duration(self):
        return self._pooled().std_ns / NS

    @property
    def exclusive_duration(self):
        """Total minus the time of calls nested directly inside, on the same
        rank and thread."""
        return self._pooled().exclusive_ns / NS

    @property
    def first_start_time(self):
        p = self._pooled()
        return p.first_start_ns / NS if p.calls else 0.0

    @property
    def last_end_time(self):
        p = self._pooled()
        return p.last_end_ns / NS if p.calls else 0.0

    # -- per call ------------------------------------------------------------
    @property
    def start_times_ns(self):
        return self._calls()[0]

    @property
    def end_times_ns(self):
        return self._calls()[1]

    @property
    def durations_ns(self):
        s, e = self._calls()
        return e - s

    @property
    def start_times(self):
        return self.start_times_ns / NS

    @property
    def end_times(self):
        return self.end_times_ns / NS

    @property
    def durations(self):
        return self.durations_ns / NS

    @property
    def first_duration(self):
        d = self.durations_ns
        return d[0] / NS if d.size else 0.0

    @property
    def last_duration(self):
        d = self.durations_ns
        return d[-1] / NS if d.size else 0.0

    def percentile_duration(self, percentile):
        """numpy.percentile of the call durations in seconds; None on
        summary-only results."""
        if not 0 <= percentile <= 100:
            raise ValueError("percentile must be between 0 and 100")
        if not self._cols.has_events:
            return None
        d = self.durations_ns
        return float(np.percentile(d, percentile)) / NS if d.size else 0.0

    @property
    def p50_duration(self):
        return self.percentile_duration(50)

    @property
    def p95_duration(self):
        return self.percentile_duration(95)

    @property
    def p99_duration(self):
        return self.percentile_duration(99)

    @property
    def percentiles(self):
        """{50: ..., 95: ..., 99: ...} in seconds, or None when summary-only."""
        if not self._cols.has_events:
            return None
        d = self.durations_ns
        if not d.size:
            return {50: 0.0, 95: 0.0, 99: 0.0}
        v = np.percentile(d, [50, 95, 99]) / NS
        return {50: float(v[0]), 95: float(v[1]), 99: float(v[2])}

    def events(self, relative=True, origin=None):
        """This region's calls as an EventTable (see ProfilingResults.events)."""
        if not self._cols.has_events:
            raise SummaryOnlyError("events need read_h5(), not read_h5_summary()")
        return EventTable(self._cols, self._rows,
                          self._results._origin_ns(relative, origin))

    # -- where it is defined -------------------------------------------------
    @property
    def _loc_row(self):
        loc = getattr(self, "_loc", self._rows)
        return int(loc[0]) if loc.size else None

    @property
    def source_file(self):
        if self._loc_row is None:
            return None
        f = self._cols.files[self._loc_row]
        return f or None

    @property
    def source_lineno(self):
        if self._loc_row is None:
            return None
        line = int(self._cols.lines[self._loc_row])
        return line if line >= 0 else None

    @property
    def source_text(self):
        return None  # the native runtime captures no source text

    @property
    def has_source(self):
        """True when the file the region was registered in is known."""
        return self.source_file is not None

    @property
    def threads(self):
        return sorted(set(self._cols.thread[self._rows].tolist()))

    def _thread_totals(self, rows=None):
        """{rank: {thread: total_ns}} of the rows that have calls."""
        rows = self._rows if rows is None else rows
        st = self._cols.stats[rows]
        out = {}
        for r, t, c, tot in zip(self._cols.rank[rows].tolist(),
                                self._cols.thread[rows].tolist(),
                                st["calls"].tolist(), st["total_ns"].tolist()):
            if c > 0:
                th = out.setdefault(r, {})
                th[t] = th.get(t, 0) + tot
        return out

    @property
    def thread_imbalance(self):
        """sp-report's timbal: within each rank, the largest per-thread
        total (inclusive) over the mean of the threads of that rank that
        ran the region; the worst rank's value. 1.0 with one thread per
        rank, 0.0 without calls. On a ThreadRegion: this thread's total
        over that mean."""
        return max([_timbal(list(th.values()))
                    for th in self._thread_totals().values()] or [0.0])

    def get_summary(self):
        return {"num_calls": self.num_calls, "total_duration": self.total_duration,
                "average_duration": self.average_duration,
                "min_duration": self.min_duration, "max_duration": self.max_duration,
                "std_duration": self.std_duration,
                "exclusive_duration": self.exclusive_duration}

    def __repr__(self):
        return "<%s %r: %d calls, %.6g s>" % (type(self).__name__, self.name,
                                              self.num_calls, self.total_duration)


def _timbal(totals):
    mean = sum(totals) / len(totals) if totals else 0
    return max(totals) / mean if mean > 0 else 0.0


class ThreadRegion(RegionData):
    """One region on one rank and thread: one row of the profile."""

    def __init__(self, results, name, rows, rank, thread, rank_rows=None):
        super().__init__(results, name, rows)
        self.rank, self.thread = rank, thread
        self._rank_rows = rows if rank_rows is None else rank_rows

    @property
    def thread_imbalance(self):
        """This thread's total over the mean total of the threads of its
        rank that ran the region (sp-report --by-thread's timbal)."""
        th = self._thread_totals(self._rank_rows).get(self.rank, {})
        mine = self._pooled()
        if not th or mine.calls <= 0:
            return 0.0
        mean = sum(th.values()) / len(th)
        return mine.total_ns / mean if mean > 0 else 0.0


class RankRegion(RegionData):
    """One region on one rank, all its threads pooled: statistics over the
    calls of every thread; the per-call arrays hold thread 0's calls, then
    thread 1's, ... (each in recorded order)."""

    def __init__(self, results, name, rows, rank, loc_rows=None):
        super().__init__(results, name, rows)
        self.rank = rank
        if loc_rows is not None:
            self._loc = loc_rows

    def thread(self, thread):
        rows = self._rows[self._cols.thread[self._rows] == thread]
        if not rows.size:
            raise KeyError("%s: no calls on rank %d thread %d" % (self.name, self.rank, thread))
        return ThreadRegion(self._results, self.name, rows, self.rank, thread,
                            self._rows)

    def per_thread(self):
        """ThreadRegion of each thread of this rank that has the region."""
        return [self.thread(t) for t in self.threads]


class Region(RegionData):
    """One region over every selected rank and thread; region[rank] is its
    RankRegion."""

    @property
    def ranks(self):
        return sorted(set(self._cols.rank[self._rows].tolist()))

    @property
    def num_ranks(self):
        return len(self.ranks)

    def __getitem__(self, rank):
        rows = self._rows[self._cols.rank[self._rows] == rank]
        if not rows.size and rank not in self._results.ranks:
            raise KeyError("%s: rank %r is not in the profile" % (self.name, rank))
        # A rank of the run that never called the region: no calls, as in
        # scope-profiler, where every region has an entry on every rank.
        return RankRegion(self._results, self.name, rows, rank, self._rows[:1])

    def __contains__(self, rank):
        return bool(np.any(self._cols.rank[self._rows] == rank))

    def items(self):
        return [(r, self[r]) for r in self.ranks]

    def per_rank(self):
        return [self[r] for r in self.ranks]

    def per_thread(self):
        """ThreadRegion of every (rank, thread) that has the region, rank
        by rank, thread by thread."""
        return [t for r in self.ranks for t in self[r].per_thread()]
