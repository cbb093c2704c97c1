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
_WINDOW = 1 << 16


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


def _leave(s, e, f):
    """f[j] = F(j), the walk position where call j leaves the stack (see
    stack_tree). A call that leaves at the next call (a leaf, most calls)
    needs no search; the others search the starts of a window beginning at
    their piece, which stays in cache, and only those whose answer lies
    outside it search the whole column."""
    n = s.size
    for a in range(0, n, _PIECE):
        b = min(a + _PIECE, n)
        k = min(b + 1, n) - a - 1
        ea, sa = e[a:b], s[a:b]
        nx = s[a + 1:a + 1 + k]
        ek = ea[:k]
        # The next call starts after this one ends (which does not end
        # before it starts), or exactly at its end with both durations
        # positive (see stack_tree).
        sk = sa[:k]
        leaf = ((nx > ek) & (sk <= ek)) | ((nx == ek) & (sk < ek) & (e[a + 1:a + 1 + k] > nx))
        fa = f[a:b]
        fa[:k] = np.arange(a + 1, a + 1 + k)
        rest = np.flatnonzero(~leaf)
        if k < b - a:
            rest = np.r_[rest, k]
        if rest.size == 0:
            continue
        er, sr = ea[rest], sa[rest]
        hi = min(b + _WINDOW, n)
        fr = np.searchsorted(s[a:hi], er, side="right")
        # 0: the answer may lie before the window (a call ending before
        # it starts); hi - a: after it, unless the window ends the column.
        out = np.flatnonzero(((fr == 0) & (a > 0)) | ((fr == hi - a) & (hi < n)))
        fr += a
        if out.size:
            fr[out] = np.searchsorted(s, er[out], side="right")
        # Only a call ending where another starts can leave earlier: one
        # more search for those few (every call when stamps are equal).
        at = np.maximum(fr - 1, 0)
        eq = np.flatnonzero((fr > 0) & (s[at] == er) & (sr < er))
        if eq.size:
            lo = np.searchsorted(s, er[eq], side="left")
            take = e[lo] > s[lo]
            fr[eq[take]] = lo[take]
        fa[rest] = fr


def _closes(f, cnt):
    """cnt[i] = #{j: f[j] = i} for i < n, without numpy's bincount of the
    whole column (a fresh zeroed array of n + 1 counts, whose page faults
    cost as much as the counting): values near their call are counted per
    piece, the few far ones at the end."""
    n = f.size
    cnt.fill(0)
    far = []
    for a in range(0, n, _PIECE):
        b = min(a + _PIECE, n)
        hi = min(b + _WINDOW, n)
        fa = f[a:b]
        near = (fa >= a) & (fa < hi)
        cnt[a:hi] += np.bincount(fa[near] - a, minlength=hi - a)
        if not near.all():
            x = fa[~near]
            far.append(x[x < n])
    far = np.concatenate(far) if far else np.empty(0, np.int64)
    if far.size > n // 8:
        cnt += np.bincount(far, minlength=n + 1)[:n]
    elif far.size:
        u, c = np.unique(far, return_counts=True)
        cnt[u] += c


def _tree_pieces(s, e, parent_out, depth_out, excl_out, top):
    """Parents, checks and exclusive times of stack_tree, piece by piece in
    walk order, for depths that never go below 0 (so every call deeper
    than 0 that does not open a level has an earlier call on its level).
    Each piece is ordered by depth on its own, in cache: the calls of one
    level are then together, in walk order, and a call's parent is the
    call before it when it opens a level, else the parent of the previous
    call of its level, within the piece or carried over from the last
    call of that level before it (last[d], -1 for none)."""
    n = s.size
    last = np.full(top + 1, -1, dtype=np.int64)
    for a in range(0, n, _PIECE):
        b = min(a + _PIECE, n)
        m = b - a
        d = depth_out[a:b].astype(np.int64)
        lo, hi = int(d.min()), int(d.max())
        rel = d - lo
        if hi - lo < 1 << 7:
            rel = rel.astype(np.int8)
        elif hi - lo < 1 << 15:
            rel = rel.astype(np.int16)
        o = np.argsort(rel, kind="stable")
        ds = d[o]
        idx = o + a
        prev = np.empty(m, dtype=np.int64)
        prev[1:] = d[:-1]
        prev[0] = depth_out[a - 1] if a > 0 else -2
        opens = (d == prev + 1)[o]
        heads = np.flatnonzero(np.r_[True, ds[1:] != ds[:-1]])
        hl = ds[heads]
        before = last[hl]
        # the parent carried into each level's first call of the piece
        hpar = np.where(before >= 0, parent_out[np.maximum(before, 0)], -1)
        val = np.where(opens, idx - 1, -1)
        val[heads] = np.where(opens[heads], idx[heads] - 1, hpar)
        src = np.zeros(m, dtype=np.int64)
        src[heads] = heads
        src[opens] = np.flatnonzero(opens)
        np.maximum.accumulate(src, out=src)
        par = np.where(ds > 0, val[src], -1)
        parent_out[idx] = par
        tails = np.r_[heads[1:] - 1, m - 1]
        # Checks: a child ends by its parent's end; siblings (consecutive
        # calls of one level with one parent, here or across the piece's
        # start) follow one another, the later ending later.
        es, ss = e[idx], s[idx]
        kids = np.flatnonzero(par >= 0)
        pk = par[kids]
        if np.any(es[kids] > e[pk]):
            return False
        same = (ds[:-1] == ds[1:]) & (par[:-1] == par[1:])
        if np.any(same & ((es[:-1] > ss[1:]) | (es[:-1] == es[1:]))):
            return False
        had = np.flatnonzero(before >= 0)
        if had.size:
            pb, nb = before[had], idx[heads[had]]
            sib = hpar[had] == par[heads[had]]
            if np.any(sib & ((e[pb] > s[nb]) | (e[pb] == e[nb]))):
                return False
        last[hl] = idx[tails]
        # Exclusive: the children of one parent lie together here (one
        # child each, the common case, needs no sums).
        if kids.size:
            dk = es[kids] - ss[kids]
            kh = np.flatnonzero(np.r_[True, pk[1:] != pk[:-1]])
            if kh.size == kids.size:
                excl_out[pk] -= dk
            else:
                excl_out[pk[kh]] -= np.add.reduceat(dk, kh)
    return True


def _tree_by_depth(s, e, parent_out, depth_out, excl_out, top, low):
    """stack_tree's parents, checks and exclusive times when some depths
    are negative (a call ending before it starts), along all the calls
    ordered by depth at once (an int64 column more, and gathers that
    miss the cache when the calls of one level lie far apart)."""
    by = _by_depth(depth_out, top, low)
    # The parent of a call one deeper than the call before it is that
    # call; any other call has the parent of the previous call of its
    # level (all calls between them lie deeper). Along `by`, that is a
    # forward fill of the first kind, done by a running maximum on
    # depth * (n + 1) + parent, which grows along `by` (piece by piece,
    # carrying the maximum so far).
    n = s.size
    step = n + 1
    carry = -1
    for a in range(0, n, _PIECE):
        b = min(a + _PIECE, n)
        ba = by[a:b]
        db = depth_out[ba].astype(np.int64)
        opens = (ba > 0) & (depth_out[np.maximum(ba - 1, 0)] == db - 1)
        key = np.where(opens, db * step + ba - 1, carry)
        key[0] = max(int(key[0]), carry)
        np.maximum.accumulate(key, out=key)
        carry = int(key[-1])
        key -= db * step
        parent_out[ba] = np.where(db > 0, key, -1)
    # Checks: a child ends by its parent's end; siblings (consecutive along
    # `by` with one parent) follow one another, the later ending later.
    # Exclusive: each call less its direct children, which lie together
    # along `by` (one level, one parent); a parent's children may span two
    # pieces, each subtracting its part. One pass along `by`, each piece
    # with the first call of the next for the sibling check.
    for a in range(0, n, _PIECE):
        b = min(a + _PIECE, n)
        bb = by[a:b + 1]
        pb = parent_out[bb]
        eb, sb = e[bb], s[bb]
        m = b - a
        kids = np.flatnonzero(pb[:m] >= 0)
        pk = pb[kids]
        if np.any(eb[kids] > e[pk]):
            return False
        same = pb[:-1] == pb[1:]
        if np.any(same & ((eb[:-1] > sb[1:]) | (eb[:-1] == eb[1:]))):
            return False
        if kids.size:
            heads = np.flatnonzero(np.r_[True, pk[1:] != pk[:-1]])
            d = eb[kids] - sb[kids]
            excl_out[pk[heads]] -= np.add.reduceat(d, heads)
    return True


def stack_tree(s, e, parent_out, depth_out, excl_out):
    """The C library's stack walk (format/stats.c) over one thread's calls
    in walk order, without a loop per call: fills parent, depth and
    exclusive time and returns True, or returns False when the calls do not
    nest properly (then nothing is promised about the outputs).
    parent_out and excl_out are int64 (they serve as scratch), depth_out
    any integer type.

    A call j leaves the stack at the first later call that starts after
    its end, or at its end with a positive duration (walk order is start
    ascending, end descending): _leave finds that call F(j), and depth[i] = i - #{j: F(j) <= i}. Depths in preorder give the forest:
    a call's parent is the last earlier call one level up. That forest is
    the stack walk's exactly when every call ends by its parent's end and
    each call ends by the start of its next sibling (a zero-length call at
    a sibling's very end would be that sibling's child), which is checked."""
    n = s.size
    if n == 0:
        return True
    # parent_out and excl_out (int64) serve as scratch until they are
    # filled: F(j) in parent_out, then #{j: F(j) = i} counted in excl_out.
    # The rest is done in pieces (the memory bound of build_call_arrays):
    # no other full-size temporary, but for one int64 per level (at most
    # one per call, for a chain) and, when depths go negative, the calls
    # ordered by depth.
    f, cnt = parent_out, excl_out
    _leave(s, e, f)
    _closes(f, cnt)
    np.cumsum(cnt, out=cnt)
    top, low = 0, 0
    for a in range(0, n, _PIECE):
        b = min(a + _PIECE, n)
        da = np.arange(a, b, dtype=np.int64)
        da -= cnt[a:b]
        top, low = max(top, int(da.max())), min(low, int(da.min()))
        depth_out[a:b] = da
    np.subtract(e, s, out=excl_out)
    if low >= 0:
        return _tree_pieces(s, e, parent_out, depth_out, excl_out, top)
    return _tree_by_depth(s, e, parent_out, depth_out, excl_out, top, low)
