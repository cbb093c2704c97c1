# Call stacks: build_call_arrays (numpy columns, for millions of calls) and
# the helpers that walk call_stack()'s list of dicts as a tree.
import bisect

import numpy as np

from . import _nesting
from ._nesting import NestingError


class CallArrays:
    """Reconstructed calls of one rank, thread after thread, each thread in
    walk order (start ascending, end descending). Every column is indexed
    by call id: region (index into `names`), thread, call_index (within
    its region's row), start_ns, end_ns, duration_ns, depth (0 = no
    caller), parent (call id, -1 = none), exclusive_ns."""

    def __init__(self, names, **cols):
        self.names = names
        for k, v in cols.items():
            setattr(self, k, v)

    def __len__(self):
        return self.depth.size


def build_call_arrays(regions, rank=0, threads=None):
    """The call stack of `rank` over the calls of `regions` (Region objects,
    e.g. results.get_regions()): calls of other regions are left out and
    their children attach to the nearest kept caller. Raises NestingError
    when two calls of one thread overlap without nesting."""
    regions = list(regions)
    names = [r.name for r in regions]
    empty = np.empty(0, dtype=np.int64)
    if not regions:
        return CallArrays(names, region=empty.astype(np.int32), thread=empty.astype(np.int32),
                          call_index=empty, start_ns=empty, end_ns=empty,
                          duration_ns=empty, depth=empty.astype(np.int32),
                          parent=empty, exclusive_ns=empty)
    res = regions[0]._results
    cols = res._cols
    if not cols.has_events:
        raise RuntimeError("call stacks need read_h5(), not read_h5_summary()")
    sel, owner = [], []
    for k, r in enumerate(regions):
        rows = r._rows[cols.rank[r._rows] == rank]
        if threads is not None:
            rows = rows[np.isin(cols.thread[rows], list(np.atleast_1d(threads)))]
        sel.append(rows)
        owner.append(np.full(rows.size, k, dtype=np.int32))
    rows = np.concatenate(sel)
    owner = np.concatenate(owner)
    # Threads in turn, each thread's rows in row order.
    o = np.lexsort((rows, cols.thread[rows]))
    rows, owner = rows[o], owner[o]
    total = int(cols.count[rows].sum())
    out = {"region": np.empty(total, np.int32), "thread": np.empty(total, np.int32),
           "call_index": np.empty(total, np.int64), "start_ns": np.empty(total, np.int64),
           "end_ns": np.empty(total, np.int64), "depth": np.empty(total, np.int32),
           "parent": np.empty(total, np.int64), "exclusive_ns": np.empty(total, np.int64)}
    tcol = cols.thread[rows]
    cut = (np.flatnonzero(np.r_[True, tcol[1:] != tcol[:-1], True]) if rows.size
           else np.zeros(1, np.int64))
    base = 0
    for lo, hi in zip(cut[:-1].tolist(), cut[1:].tolist()):
        trows, towner, t = rows[lo:hi], owner[lo:hi], int(tcol[lo])
        counts = cols.count[trows]
        s, e = cols.row_calls(trows)
        m = s.size
        if m == 0:
            continue
        tie = np.repeat(np.arange(trows.size, dtype=np.int32), counts)
        order = _nesting.walk_order(s, e, tie)
        sl = slice(base, base + m)
        np.take(s, order, out=out["start_ns"][sl])
        np.take(e, order, out=out["end_ns"][sl])
        # call_index: the call's place in its row; region: the row's
        # owner (in pieces: no full-size temporary)
        first = np.cumsum(counts) - counts
        ci, reg = out["call_index"][sl], out["region"][sl]
        for a in range(0, m, _nesting._PIECE):
            b = min(a + _nesting._PIECE, m)
            tw = tie[order[a:b]]
            np.subtract(order[a:b], first[tw], out=ci[a:b])
            np.take(towner, tw, out=reg[a:b])
        del tie, order
        out["thread"][sl] = t
        ws, we = out["start_ns"][sl], out["end_ns"][sl]
        if not _nesting.stack_tree(ws, we, out["parent"][sl], out["depth"][sl],
                                   out["exclusive_ns"][sl]):
            tie = np.repeat(np.arange(trows.size, dtype=np.int64), counts)
            w = _nesting.Walk(s, e, tie, strict=True)
            if w.bad is not None:
                a, b = w.order[w.bad[0]], w.order[w.bad[1]]
                raise NestingError(
                    "rank %d thread %d: call of %s at %d overlaps %s at %d without "
                    "nesting" % (rank, t, cols.names[cols.region[trows[tie[b]]]], s[b],
                                 cols.names[cols.region[trows[tie[a]]]], s[a]))
            out["parent"][sl] = w.parent
            out["depth"][sl] = w.depth()
            out["exclusive_ns"][sl] = w.exclusive
        par = out["parent"][sl]
        np.add(par, base, out=par, where=par >= 0)
        base += m
    out["duration_ns"] = out["end_ns"] - out["start_ns"]
    return CallArrays(names, **out)


_PAR, _TASK = "omp parallel @ ", "omp implicit task @ "


def join_teams(c):
    """OpenMP teams joined across threads, as sp-report's call tree does
    (docs/report.md, "OpenMP regions"): each worker's call of
    `omp implicit task @ LOC` (one whose caller on its own thread is not
    `omp parallel @ LOC`) gets as parent the call of `omp parallel @ LOC`
    on another thread of the rank whose [start, end] holds it, the latest
    started, then the earliest ended, of those that do; a task no such call
    holds stays where it was. Returns (parent, depth) as new arrays;
    exclusive times are left per thread."""
    parent = c.parent.copy()
    names = c.names
    loc_par = {n[len(_PAR):]: k for k, n in enumerate(names) if n.startswith(_PAR)}
    task_loc = {k: n[len(_TASK):] for k, n in enumerate(names)
                if n.startswith(_TASK) and n[len(_TASK):] in loc_par}
    if not task_loc:
        return parent, c.depth.copy()
    region = c.region.tolist()
    thread = c.thread.tolist()
    pars = {}  # parallel region -> (call ids, starts, ends by start; maxdur)
    for k in set(loc_par.values()):
        ids = np.flatnonzero(c.region == k)
        if ids.size:
            ids = ids[np.argsort(c.start_ns[ids], kind="stable")]
            st, en = c.start_ns[ids], c.end_ns[ids]
            pars[k] = (ids.tolist(), st.tolist(), en.tolist(), int((en - st).max()))
    for i, r in enumerate(region):
        loc = task_loc.get(r)
        if loc is None:
            continue
        pk = loc_par[loc]
        p = parent[i]
        if p >= 0 and region[p] == pk:
            continue  # the encountering thread's own task
        if pk not in pars:
            continue
        js, st, en, maxdur = pars[pk]
        s, e, t = int(c.start_ns[i]), int(c.end_ns[i]), int(c.thread[i])
        # latest start first; a call that started before s - maxdur ends
        # before e and holds nothing
        best = -1
        for k in range(bisect.bisect_right(st, s) - 1, -1, -1):
            if st[k] < s - maxdur or (best >= 0 and st[k] < st[best]):
                break
            j = js[k]
            if en[k] >= e and thread[j] != t and (best < 0 or en[k] < en[best]):
                best = k
        if best >= 0:
            parent[i] = js[best]
    depth = np.full(parent.size, -1, dtype=np.int32)
    for i in range(parent.size):
        chain = []
        k = i
        while k >= 0 and depth[k] == -1:
            depth[k] = -2  # on the chain: a cycle (equal times) ends here
            chain.append(k)
            k = parent[k]
        if k >= 0 and depth[k] == -2:
            parent[chain[-1]] = k = -1
        d = depth[k] if k >= 0 else -1
        for k in reversed(chain):
            d += 1
            depth[k] = d
    return parent, depth


def call_stack_children(calls):
    """For call_stack()'s list: the indices of each call's direct children."""
    children = [[] for _ in calls]
    for i, c in enumerate(calls):
        if c["parent"] >= 0:
            children[c["parent"]].append(i)
    return children


def call_stack_roots(calls):
    """Indices of the calls that have no caller."""
    return [i for i, c in enumerate(calls) if c["parent"] < 0]


__all__ = ["CallArrays", "NestingError", "build_call_arrays",
           "call_stack_children", "call_stack_roots", "join_teams"]
