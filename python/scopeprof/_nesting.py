# Call stacks reconstructed by containment, vectorised with numpy, with the
# rules of the C format library (format/stats.c): per rank and thread, calls
# in the order start ascending, end descending, row ascending; a call's
# parent is the innermost earlier call that contains it.
import numpy as np


class NestingError(ValueError):
    """Two calls of one rank and thread overlap without one containing the
    other, so they have no call stack."""


def walk_order(starts, ends, tie):
    """Permutation putting one thread's calls in walk order. The calls come
    row after row, each row in start order (as every writer keeps them), so
    a stable sort by start is a cheap merge and already breaks ties by row;
    only runs of equal starts need the end-descending rule applied."""
    order = np.argsort(starts, kind="stable")
    s = starts[order]
    if s.size > 1:
        eq = np.flatnonzero(s[1:] == s[:-1])
        if eq.size:
            slots = np.unique(np.concatenate([eq, eq + 1]))
            sub = order[slots]
            # Slots of one start value are contiguous, so sorting the subset
            # by start first keeps every run in its own slots.
            k = np.lexsort((sub, tie[sub], -ends[sub], starts[sub]))
            order[slots] = sub[k]
    return order


def parents(e):
    """Parent of each call in walk order (-1 for none): the nearest earlier
    call whose end is not before this one's. For properly nested calls this
    is exactly the innermost containing call; check() verifies that."""
    n = e.size
    parent = np.full(n, -1, dtype=np.int64)
    if n < 2:
        return parent
    prev_max = np.maximum.accumulate(e)
    has = np.zeros(n, dtype=bool)
    has[1:] = prev_max[:-1] >= e[1:]
    # cand[i]: every call strictly between cand[i] and i ends before e[i];
    # jumping to cand[cand[i]] keeps that true and doubles the distance.
    cand = np.arange(-1, n - 1, dtype=np.int64)
    act = np.flatnonzero(has)
    while act.size:
        c = cand[act]
        done = e[c] >= e[act]
        parent[act[done]] = c[done]
        act = act[~done]
        cand[act] = cand[cand[act]]
    return parent


def depths(parent):
    """Depth of each call (0 = no parent), by pointer jumping."""
    depth = (parent >= 0).astype(np.int32)
    anc = parent.copy()
    act = np.flatnonzero(anc >= 0)
    while act.size:
        a = anc[act]
        d = depth[act] + depth[a]
        up = anc[a]
        depth[act] = d
        anc[act] = up
        act = act[up >= 0]
    return depth


def siblings(parent):
    """Calls grouped by parent, in walk order within a group: (order, the
    group's parent per entry)."""
    order = np.argsort(parent, kind="stable")
    return order, parent[order]


def check(s, e, parent, sib_order, sib_parent):
    """Index pair (earlier, later) of the first improper overlap in walk
    order, or None. With parents as above, the calls nest properly iff each
    call starts at or after the end of its previous sibling."""
    same = sib_parent[1:] == sib_parent[:-1]
    prev = sib_order[:-1][same]
    cur = sib_order[1:][same]
    bad = np.flatnonzero(e[prev] > s[cur])
    if bad.size == 0:
        return None
    k = bad[np.argmin(cur[bad])]
    return int(prev[k]), int(cur[k])


def child_time(d, sib_order, sib_parent, n):
    """Per call, the summed durations of its direct children (exact int64)."""
    out = np.zeros(n, dtype=np.int64)
    keep = sib_parent >= 0
    if not keep.any():
        return out
    par = sib_parent[keep]
    dur = d[sib_order[keep]]
    heads = np.flatnonzero(np.r_[True, par[1:] != par[:-1]])
    out[par[heads]] = np.add.reduceat(dur, heads)
    return out


def exclusive_stack(s, e):
    """Per call exclusive time when nesting is improper, by the C library's
    stack walk: an improperly overlapping call is nobody's child."""
    n = s.size
    child = np.zeros(n, dtype=np.int64)
    stack = []
    sl, el = s.tolist(), e.tolist()
    for i in range(n):
        si, ei = sl[i], el[i]
        while stack:
            t = stack[-1]
            if si >= sl[t] and ei <= el[t]:
                child[t] += ei - si
                break
            if si >= el[t]:
                stack.pop()
                continue
            break
        stack.append(i)
    return (e - s) - child


class Walk:
    """One thread's calls in walk order with their call stack."""

    def __init__(self, starts, ends, tie, strict=True):
        self.order = walk_order(starts, ends, tie)
        self.s = starts[self.order]
        self.e = ends[self.order]
        self.parent = parents(self.e)
        sib_order, sib_parent = siblings(self.parent)
        self.bad = check(self.s, self.e, self.parent, sib_order, sib_parent)
        if self.bad is None:
            d = self.e - self.s
            self.exclusive = d - child_time(d, sib_order, sib_parent, d.size)
        elif strict:
            self.exclusive = None
        else:
            self.exclusive = exclusive_stack(self.s, self.e)

    def depth(self):
        return depths(self.parent)
