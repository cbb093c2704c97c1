# ProfilingResults, what read_h5 and read_h5_summary return: regions,
# statistics, calls and call stacks of one profile.
import sys

import numpy as np

from . import _filters, _inputs, _likwid, _mpi
from .callstack import build_call_arrays, join_teams
from .events import EventTable
from .region import Region, SummaryOnlyError

NS = 1e9


def read_h5(path, include_likwid=True):
    """Every call of a profile: a schema-2 .h5 (merged or per-rank), an
    .spt trace, a list of such files, or a directory of one run's per-rank
    files (its *.spt and *_rank<N>.h5). include_likwid: the counters per
    region (SP_COUNTERS) as results.likwid, a DataFrame."""
    res = ProfilingResults(_inputs.load(path, events=True))
    if include_likwid:
        res.likwid = _likwid.read(path)
    return res


def read_h5_summary(path, regions=None, ranks=None, fallback=True,
                    include_likwid=True, **_ignored):
    """Statistics only, from rank_region_index/summary_statistics; the
    event columns are never read. regions/ranks restrict what is kept. An
    .h5 without summary records is read in full unless fallback=False (then
    ValueError); .spt traces have no such records and are always read in
    full. include_likwid: the counters per region (SP_COUNTERS, the files'
    rank<N>/likwid groups) as results.likwid, a DataFrame (docs/python.md),
    restricted as regions and ranks say; else results.likwid is None.
    include_line_profile, for a payload ScopeProf does not write, is
    accepted and ignored."""
    cols = _inputs.load(path, events=False, fallback=fallback)
    res = ProfilingResults(cols, regions=regions, ranks=ranks)
    if include_likwid:
        res.likwid = _likwid.read(path, regions=regions, ranks=ranks)
    return res


_FRAME_COLUMNS = ["name", "rank", "threads", "num_calls", "total_duration",
                  "average_duration", "min_duration", "max_duration",
                  "std_duration", "exclusive_duration", "source_file",
                  "source_lineno"]


def _optional_ints(values):
    """The column pandas makes of ints and Nones: int64 without a None,
    float64 with NaN for them when mixed, objects when all None."""
    if all(v is None for v in values):
        return np.array(values, dtype=object)
    if any(v is None for v in values):
        return np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    return np.array(values, dtype=np.int64)


class ProfilingResults:
    """One profile. Statistics come from the summary records; per-call data
    (events, percentiles, call stacks) is there when read by read_h5."""

    # The counters per region (SP_COUNTERS) as a DataFrame, when read with
    # include_likwid; None otherwise.
    likwid = None

    def __init__(self, cols, regions=None, ranks=None, is_root=True):
        self._cols = cols
        self._is_root = is_root
        mask = np.ones(cols.nrows, dtype=bool)
        if regions is not None:
            wanted = set([regions] if isinstance(regions, str) else regions)
            mask &= np.array([cols.names[r] in wanted for r in cols.region], dtype=bool)
        if ranks is not None:
            mask &= np.isin(cols.rank, _filters.id_list(ranks))
        self._mask = mask
        self._regions = None

    # -- the run ---------------------------------------------------------------
    @property
    def metadata(self):
        return self._cols.metadata

    @property
    def is_root(self):
        """True for a profile read from files (the whole run) and for rank
        0's ProfileManager.finalize() results; False on the other ranks,
        whose results are empty."""
        return self._is_root

    @property
    def summary_only(self):
        return not self._cols.has_events

    @property
    def ranks(self):
        return sorted(set(self._cols.rank[self._mask].tolist()))

    @property
    def num_ranks(self):
        return len(self.ranks)

    def threads(self, rank=None):
        sel = self._mask if rank is None else self._mask & (self._cols.rank == rank)
        return sorted(set(self._cols.thread[sel].tolist()))

    # -- regions ---------------------------------------------------------------
    def _all_regions(self):
        if self._regions is None:
            cols, rows = self._cols, np.flatnonzero(self._mask)
            reg = cols.region[rows]
            o = np.argsort(reg, kind="stable")
            heads = np.flatnonzero(np.r_[True, reg[o][1:] != reg[o][:-1]]) \
                if rows.size else np.empty(0, np.int64)
            regs = [Region(self, cols.names[k], v) for k, v in
                    zip(reg[o][heads].tolist(), np.split(rows[o], heads[1:]))]
            # First start order; regions without calls last, by name (the
            # Pooled figures, by whole columns).
            calls = cols.stats["calls"][rows[o]]
            has = calls > 0
            first = np.where(has, cols.stats["first_start_ns"][rows[o]],
                             np.iinfo(np.int64).max)
            if rows.size:
                calls = np.add.reduceat(np.where(has, calls, 0), heads).tolist()
                first = np.minimum.reduceat(first, heads).tolist()
            key = {g.name: (n == 0, f if n else 0, g.name)
                   for g, n, f in zip(regs, calls, first)}
            regs.sort(key=lambda g: key[g.name])
            self._regions = {g.name: g for g in regs}
        return self._regions

    def get_regions(self, include=None, exclude=None):
        """Regions sorted by first start time, filtered by regexes."""
        keep = _filters.name_matcher(include, exclude)
        return [g for n, g in self._all_regions().items() if keep(n)]

    def get_region(self, name):
        return self._all_regions()[name]

    __getitem__ = get_region

    def __contains__(self, name):
        return name in self._all_regions()

    @property
    def region_names(self):
        return list(self._all_regions())

    @property
    def results(self):
        """{name: Region}, as scope-profiler's results mapping."""
        return dict(self._all_regions())

    # -- timeline anchors (seconds of the raw clock) ---------------------------
    def _window_ns(self):
        st = self._cols.stats[self._mask]
        st = st[st["calls"] > 0]
        if not st.size:
            return None, None
        return int(st["first_start_ns"].min()), int(st["last_end_ns"].max())

    @property
    def minimum_start_time(self):
        lo, _ = self._window_ns()
        return lo / NS if lo is not None else 0.0

    @property
    def maximum_end_time(self):
        _, hi = self._window_ns()
        return hi / NS if hi is not None else 0.0

    @property
    def time_span(self):
        lo, hi = self._window_ns()
        return (hi - lo) / NS if lo is not None else 0.0

    @property
    def run_start_time(self):
        """The runtime's start (metadata start_time_ns), or None."""
        v = self.metadata.get("start_time_ns")
        return v / NS if isinstance(v, (int, np.integer)) else None

    @property
    def startup_time(self):
        if self.run_start_time is None:
            return 0.0
        lo, _ = self._window_ns()
        return (lo - int(self.metadata["start_time_ns"])) / NS if lo is not None else 0.0

    def _time_origin_ns(self):
        v = self.metadata.get("start_time_ns")
        if isinstance(v, (int, np.integer)):
            return int(v)
        lo, _ = self._window_ns()
        return lo or 0

    @property
    def time_origin(self):
        return self._time_origin_ns() / NS

    def _origin_ns(self, relative, origin):
        if not relative:
            return 0
        if origin is None:
            return self._time_origin_ns()
        return int(round(origin * NS))

    # -- calls -----------------------------------------------------------------
    def _rows(self, include, exclude, ranks, threads):
        m = self._mask & _filters.row_mask(self._cols, include, exclude, ranks, threads)
        return np.flatnonzero(m)

    def events(self, include=None, exclude=None, ranks=None, threads=None,
               relative=True, origin=None):
        """Every selected call as an EventTable (one dict per call when
        iterated): name, rank, thread, call_index, start, end, duration in
        seconds from time_origin (origin= another zero in raw clock seconds,
        relative=False the raw clock). Rows of the profile in order (rank,
        thread, then region), each region's calls in recorded order."""
        if self.summary_only:
            raise SummaryOnlyError("events need read_h5(), not read_h5_summary()")
        return EventTable(self._cols, self._rows(include, exclude, ranks, threads),
                          self._origin_ns(relative, origin))

    def to_events_dataframe(self, include=None, exclude=None, ranks=None,
                            threads=None, relative=True, origin=None):
        return self.events(include, exclude, ranks, threads, relative,
                           origin).to_dataframe()

    def to_dataframe(self):
        """One row per region and rank (threads pooled), in seconds."""
        import pandas as pd
        cols = self._cols
        regs = self.get_regions()
        if not regs:
            return pd.DataFrame([], columns=_FRAME_COLUMNS)
        # Rows grouped by region (get_regions order), then rank; each
        # group's statistics pooled as Pooled pools them, by reduceat.
        rows = np.concatenate([g._rows for g in regs])
        gpos = np.repeat(np.arange(len(regs)), [g._rows.size for g in regs])
        # Rows come by rank within a region: a stable sort of that key is
        # a pass over sorted runs.
        o = np.argsort((gpos.astype(np.int64) << 32) | cols.rank[rows], kind="stable")
        rows, gpos = rows[o], gpos[o]
        rank = cols.rank[rows]
        new = np.ones(rows.size, dtype=bool)
        new[1:] = (gpos[1:] != gpos[:-1]) | (rank[1:] != rank[:-1])
        heads = np.flatnonzero(new)
        st = {k: cols.stats[k][rows] for k in (
            "calls", "total_ns", "outer_total_ns", "exclusive_ns", "min_ns",
            "max_ns", "std_ns", "mean_ns")}
        has = st["calls"] > 0

        def add(v):
            return np.add.reduceat(np.where(has, v, 0), heads)
        calls = add(st["calls"])
        sum_ns = add(st["total_ns"])
        outer = st["outer_total_ns"]
        total_ns = add(np.where(outer >= 0, outer, st["total_ns"]))
        excl = add(st["exclusive_ns"])
        big = np.iinfo(np.int64)
        lo = np.minimum.reduceat(np.where(has, st["min_ns"], big.max), heads)
        hi = np.maximum.reduceat(np.where(has, st["max_ns"], big.min), heads)
        some = calls > 0
        lo, hi = np.where(some, lo, 0), np.where(some, hi, 0)
        n = np.maximum(calls, 1).astype(np.float64)
        mean = np.where(some, sum_ns / n, 0.0)
        rn = st["calls"].astype(np.float64)
        dev = np.repeat(mean, np.diff(np.r_[heads, rows.size]))
        m2 = add(st["std_ns"] ** 2 * rn + rn * (st["mean_ns"] - dev) ** 2)
        std = np.where(some, np.sqrt(np.maximum(m2, 0.0) / n), 0.0)
        # Threads: distinct threads of each group (rows without calls too).
        group = np.cumsum(new) - 1
        t = np.lexsort((cols.thread[rows], group))
        tg, tt = group[t], cols.thread[rows][t]
        first = np.ones(rows.size, dtype=bool)
        first[1:] = (tg[1:] != tg[:-1]) | (tt[1:] != tt[:-1])
        threads = np.add.reduceat(first.astype(np.int64), heads)
        g = gpos[heads]
        files = [r.source_file for r in regs]
        lines = [r.source_lineno for r in regs]
        return pd.DataFrame({
            "name": np.array([r.name for r in regs], dtype=object)[g],
            "rank": rank[heads].astype(np.int64), "threads": threads,
            "num_calls": calls, "total_duration": total_ns / NS,
            "average_duration": mean / NS, "min_duration": lo / NS,
            "max_duration": hi / NS, "std_duration": std / NS,
            "exclusive_duration": excl / NS,
            "source_file": np.array(files, dtype=object)[g],
            "source_lineno": _optional_ints(lines)[g]}, columns=_FRAME_COLUMNS)

    def by_thread(self, include=None, exclude=None):
        """One dict per region, rank and thread, as sp-report --by-thread's
        rows: name, rank, thread, num_calls, total_duration,
        average_duration, min_duration, max_duration, std_duration,
        exclusive_duration (seconds) and thread_imbalance (this thread's
        total over the mean of its rank's threads that ran the region).
        Regions in first start order, then rank, then thread."""
        out = []
        for g in self.get_regions(include, exclude):
            for t in g.per_thread():
                d = {"name": g.name, "rank": t.rank, "thread": t.thread}
                d.update(t.get_summary())
                d["thread_imbalance"] = t.thread_imbalance
                out.append(d)
        return out

    def to_thread_dataframe(self, include=None, exclude=None):
        """by_thread() as a pandas DataFrame."""
        import pandas as pd
        return pd.DataFrame(self.by_thread(include, exclude), columns=[
            "name", "rank", "thread", "num_calls", "total_duration",
            "average_duration", "min_duration", "max_duration", "std_duration",
            "exclusive_duration", "thread_imbalance"])

    def call_stack(self, rank=0, threads=None, include=None, exclude=None,
                   teams=False):
        """The reconstructed calls of one rank as dicts (name, rank, thread,
        call_index, start, end, duration, exclusive in seconds from
        time_origin; depth; parent = index in the list, -1 = none), thread
        after thread. teams=True: OpenMP workers' implicit tasks under
        their parallel call on the encountering thread (join_teams). Raises
        NestingError on improperly nested calls."""
        c = build_call_arrays(self.get_regions(include, exclude), rank=rank,
                              threads=threads)
        if teams:
            c.parent, c.depth = join_teams(c)
        o = self._time_origin_ns()
        start = ((c.start_ns - o) / NS).tolist()
        end = ((c.end_ns - o) / NS).tolist()
        dur = (c.duration_ns / NS).tolist()
        excl = (c.exclusive_ns / NS).tolist()
        out = []
        for i, (reg, t, ci, d, p) in enumerate(zip(c.region.tolist(), c.thread.tolist(),
                                                   c.call_index.tolist(), c.depth.tolist(),
                                                   c.parent.tolist())):
            out.append({"name": c.names[reg], "rank": rank, "thread": t,
                        "call_index": ci, "start": start[i], "end": end[i],
                        "duration": dur[i], "exclusive": excl[i], "depth": d,
                        "parent": p})
        return out

    # -- printing --------------------------------------------------------------
    # -- MPI messages ----------------------------------------------------------
    def mpi_messages(self):
        """The MPI layer's messages (.h5 inputs, the .spt.mpi beside a
        .spt) as a pandas DataFrame, one row per message, in each rank's
        order:
        rank, thread, function (the MPI call that made it), start_ns (that
        call's start), kind ("send", "isend", "recv", "irecv", "wait_recv",
        "collective", "wait_send"), peer (partner's MPI_COMM_WORLD rank; -1
        none, -2 any source), tag, comm (the rank's communicator id, 0
        MPI_COMM_WORLD), root, bytes_sent, bytes_recv, origin_function and
        origin_ns (a wait_recv's MPI_Irecv, a wait_send's MPI_Isend; None
        and -1 otherwise)."""
        import pandas as pd
        cols = _mpi.read(self._cols.paths, set(self.ranks))
        return pd.DataFrame({k: cols[k] for k in _mpi.COLUMNS},
                            columns=_mpi.COLUMNS)

    def mpi_matrix(self, value="bytes"):
        """The point-to-point matrix as a DataFrame, sender (index) x
        receiver (columns), over ranks 0..n-1: value "bytes" or
        "messages". Counts each message once, at its sender (kinds send
        and isend with a partner), as sp-report --matrix does."""
        import pandas as pd
        if value not in ("bytes", "messages"):
            raise ValueError("value is 'bytes' or 'messages', not %r" % value)
        cols = _mpi.read(self._cols.paths, set(self.ranks))
        sel = np.isin(cols["kind"].astype(str), ["send", "isend"]) & \
            (cols["peer"] >= 0)
        src, dst = cols["rank"][sel], cols["peer"][sel]
        n = max([int(self.metadata.get("mpi_size", 0) or 0)] +
                [int(x) + 1 for x in self.ranks] +
                [int(x) + 1 for x in src.tolist() + dst.tolist()])
        m = np.zeros((n, n), dtype=np.int64)
        w = cols["bytes_sent"][sel] if value == "bytes" else \
            np.ones(int(sel.sum()), np.int64)
        np.add.at(m, (src, dst), w)
        df = pd.DataFrame(m, index=pd.RangeIndex(n, name="sender"),
                          columns=pd.RangeIndex(n, name="receiver"))
        return df

    def mpi_communicators(self):
        """{rank: {comm id: [MPI_COMM_WORLD ranks of its members]}}."""
        return _mpi.communicators(self._cols.paths, set(self.ranks))

    def print_summary(self, columns=None, file=None):
        if not self._is_root:
            return  # off rank 0 of an MPI run: printed once, by rank 0
        from ._table import summary_table
        print(summary_table(self, columns), file=file or sys.stdout)
