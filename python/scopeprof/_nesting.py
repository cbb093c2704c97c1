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


_PIECE = 1 << 16


_LEVELS = 8


def _by_depth(depth, top, low):
    """Calls by depth, each level in walk order. A few levels are gathered
    one after another, piece by piece (a pass per level, no temporary of
    full size); more take numpy's radix sort on the narrowest type. (A
    call ending before it starts gives negative depths.)"""
    n = depth.size
    if top >= _LEVELS or low < 0:
        kind = (np.int8 if -(1 << 7) <= low and top < 1 << 7 else
                np.int16 if -(1 << 15) <= low and top < 1 << 15 else None)
        return np.argsort(depth.astype(kind) if kind else depth, kind="stable")
    by = np.empty(n, dtype=np.int64)
    at = np.cumsum(np.bincount(depth, minlength=top + 1))
    at = np.r_[0, at[:-1]]
    for a in range(0, n, _PIECE):
        b = min(a + _PIECE, n)
        da = depth[a:b]
        for lev in range(top + 1):
            idx = np.flatnonzero(da == lev)
            if idx.size:
                k = int(at[lev])
                np.add(idx, a, out=by[k:k + idx.size])
                at[lev] = k + idx.size
    return by


def stack_tree(s, e, parent_out, depth_out, excl_out):
    """The C library's stack walk (format/stats.c) over one thread's calls
    in walk order, without a loop per call: fills parent, depth and
    exclusive time and returns True, or returns False when the calls do not
    nest properly (then nothing is promised about the outputs).

    A call j leaves the stack at the first later call that starts after
    its end, or at its end with a positive duration (walk order is start
    ascending, end descending): two binary searches give that call F(j),
    and depth[i] = i - #{j: F(j) <= i}. Depths in preorder give the forest:
    a call's parent is the last earlier call one level up. That forest is
    the stack walk's exactly when every call ends by its parent's end and
    each call ends by the start of its next sibling (a zero-length call at
    a sibling's very end would be that sibling's child), which is checked."""
    n = s.size
    if n == 0:
        return True
    # Every full-size temporary is one int64 column at most: the rest is
    # done in pieces (the memory bound of build_call_arrays).
    f = np.empty(n, dtype=np.int64)
    for a in range(0, n, _PIECE):
        b = min(a + _PIECE, n)
        ea, sa = e[a:b], s[a:b]
        fa = f[a:b]
        fa[:] = np.searchsorted(s, ea, side="right")
        # Only a call ending where another starts can leave earlier: one
        # more search for those few (every call when stamps are equal).
        at = np.maximum(fa - 1, 0)
        eq = np.flatnonzero((fa > 0) & (s[at] == ea) & (sa < ea))
        if eq.size:
            lo = np.searchsorted(s, ea[eq], side="left")
            take = e[lo] > s[lo]
            fa[eq[take]] = lo[take]
    depth = np.bincount(f, minlength=n + 1)[:n]
    del f
    np.cumsum(depth, out=depth)
    np.subtract(np.arange(n, dtype=np.int64), depth, out=depth)
    top, low = int(depth.max()), int(depth.min())
    depth_out[:] = depth
    del depth
    by = _by_depth(depth_out, top, low)
    # The parent of a call one deeper than the call before it is that
    # call; any other call has the parent of the previous call of its
    # level (all calls between them lie deeper). Along `by`, that is a
    # forward fill of the first kind, done by a running maximum on
    # depth * (n + 1) + parent, which grows along `by`.
    step = n + 1
    key = np.empty(n, dtype=np.int64)
    for a in range(0, n, _PIECE):
        b = min(a + _PIECE, n)
        ba = by[a:b]
        db = depth_out[ba].astype(np.int64)
        opens = (ba > 0) & (depth_out[np.maximum(ba - 1, 0)] == db - 1)
        key[a:b] = np.where(opens, db * step + ba - 1, -1)
    np.maximum.accumulate(key, out=key)
    for a in range(0, n, _PIECE):
        b = min(a + _PIECE, n)
        ba = by[a:b]
        db = depth_out[ba].astype(np.int64)
        parent_out[ba] = np.where(db > 0, key[a:b] - db * step, -1)
    del key
    # Checks: a child ends by its parent's end; siblings (consecutive along
    # `by` with one parent) follow one another, the later ending later.
    # Exclusive: each call less its direct children, which lie together
    # along `by` (one level, one parent); a parent's children may span two
    # pieces, each subtracting its part.
    np.subtract(e, s, out=excl_out)
    for a in range(0, n, _PIECE):
        b = min(a + _PIECE, n)
        pa = parent_out[a:b]
        if np.any((pa >= 0) & (e[a:b] > e[np.maximum(pa, 0)])):
            return False
        prev, cur = by[a:min(b, n - 1)], by[a + 1:b + 1]
        same = parent_out[prev] == parent_out[cur]
        if np.any(same & ((e[prev] > s[cur]) | (e[prev] == e[cur]))):
            return False
    for a in range(0, n, _PIECE):
        b = min(a + _PIECE, n)
        bb = by[a:b]
        pb = parent_out[bb]
        kids = np.flatnonzero(pb >= 0)
        if kids.size:
            pk = pb[kids]
            heads = np.flatnonzero(np.r_[True, pk[1:] != pk[:-1]])
            sums = np.add.reduceat(e[bb[kids]] - s[bb[kids]], heads)
            excl_out[pk[heads]] -= sums
    return True
