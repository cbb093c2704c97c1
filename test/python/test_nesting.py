#!/usr/bin/python3
# test_nesting.py - scopeprof._nesting.stack_tree (build_call_arrays' call
# stack without a loop per call) against the stack walk of format/stats.c
# written out call by call, on random and adversarial inputs: ties
# everywhere, all stamps equal, zero-length calls at a parent's end, one
# call of a proper forest moved, chains past the int8 and int16 depths,
# pieces and search windows of a few calls so that every boundary is
# crossed. Where the stack walk meets an improper overlap, stack_tree must
# refuse (return False); elsewhere parent, depth and exclusive time must be
# equal. usage: test_nesting.py [SEED] [CASES]
import sys

import numpy as np

from scopeprof import _nesting
from sptest import failures


def walk(s, e):
    """Walk order: start ascending, end descending, row ascending."""
    o = np.lexsort((np.arange(s.size), -e, s))
    return s[o], e[o]


def stack_walk(s, e):
    """format/stats.c's walk: (proper, parent, depth, exclusive)."""
    n = s.size
    par = np.full(n, -1, np.int64)
    dep = np.zeros(n, np.int64)
    excl = (e - s).astype(np.int64)
    stack, proper = [], True
    for i, (si, ei) in enumerate(zip(s.tolist(), e.tolist())):
        while stack:
            t = stack[-1]
            if si >= s[t] and ei <= e[t]:
                excl[t] -= ei - si
                par[i], dep[i] = t, dep[t] + 1
                break
            if si >= e[t]:
                stack.pop()
                continue
            proper = False
            break
        stack.append(i)
    return proper, par, dep, excl


def case(s, e, what):
    s, e = walk(np.asarray(s, np.int64), np.asarray(e, np.int64))
    n = s.size
    par, dep, excl = np.full(n, -7, np.int64), np.full(n, -7, np.int32), np.full(n, -7, np.int64)
    ok = _nesting.stack_tree(s, e, par, dep, excl)
    proper, rp, rd, rx = stack_walk(s, e)
    if (e < s).any():
        return ok  # nothing promised but no crash: the caller falls back
    if proper != ok:
        failures.append("%s: stack_tree says %s, the stack walk %s (n=%d)" % (what, ok, proper, n))
    elif ok and not (np.array_equal(par, rp) and np.array_equal(dep, rd)
                     and np.array_equal(excl, rx)):
        bad = np.flatnonzero((par != rp) | (dep != rd) | (excl != rx))[0]
        failures.append("%s: call %d of %d: parent %d depth %d excl %d, stack walk %d %d %d"
                        % (what, bad, n, par[bad], dep[bad], excl[bad], rp[bad], rd[bad],
                           rx[bad]))
    return ok


def forest(rng, n, hi, maxdepth, zero_p, tie_p):
    """Properly nested calls inside [0, hi]."""
    out_s, out_e = [], []

    def rec(lo, hi, budget, depth):
        k, t = 0, lo
        while k < budget and t <= hi:
            a = t if rng.random() < tie_p else int(rng.integers(t, hi + 1))
            if rng.random() < zero_p:
                b = a
            elif rng.random() < tie_p:
                b = hi
            else:
                b = int(rng.integers(a, hi + 1))
            out_s.append(a)
            out_e.append(b)
            k += 1
            if depth < maxdepth and b > a:
                sub = min(int(rng.integers(0, max(1, budget - k) + 1)), budget - k)
                rec(a, b, sub, depth + 1)
                k += sub
            t = b
        return k

    rec(0, hi, n, 0)
    return np.array(out_s, np.int64), np.array(out_e, np.int64)


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    cases = int(sys.argv[2]) if len(sys.argv) > 2 else 600
    print("test_nesting: seed %d, %d cases per layout" % (seed, cases))
    rng = np.random.default_rng(seed)
    piece, window = _nesting._PIECE, _nesting._WINDOW
    counts = [0, 0]
    try:
        for _nesting._PIECE, _nesting._WINDOW in ((3, 1), (3, 4), (7, 2), (64, 5),
                                                  (64, 64), (piece, window)):
            for it in range(cases):
                kind, n = it % 5, int(rng.integers(0, 60))
                if kind == 0:  # a tiny grid: ties everywhere
                    s = rng.integers(0, 8, n)
                    e = s + rng.integers(0, 4, n)
                elif kind == 1:  # proper, many ties and zero-length calls
                    s, e = forest(rng, n, int(rng.integers(0, 30)), 12, 0.3, 0.4)
                elif kind == 2:  # proper, a wide grid
                    s, e = forest(rng, n, 10 ** 6, 40, 0.05, 0.05)
                elif kind == 3:  # proper, then one call's end moved
                    s, e = forest(rng, n, 40, 12, 0.2, 0.3)
                    if s.size:
                        e[int(rng.integers(0, s.size))] += int(rng.integers(-3, 4))
                else:  # every start equal
                    s = np.full(n, 5)
                    e = np.where(rng.random(n) < 0.5, 5, 5 + rng.integers(0, 2, n))
                counts[case(s, e, "piece %d window %d case %d" % (
                    _nesting._PIECE, _nesting._WINDOW, it))] += 1
    finally:
        _nesting._PIECE, _nesting._WINDOW = piece, window
    for depth in (7, 8, 9, 127, 128, 200, 32767, 32768):
        k = np.arange(depth)
        case(k, 2 * depth - k, "chain %d" % depth)
        case(np.zeros(depth), np.zeros(depth), "equal chain %d" % depth)
        case(np.r_[k, 2 * depth - k], np.r_[2 * depth - k, 2 * depth - k],
             "chain %d with zero-length calls at each end" % depth)
    n = 150000  # past one piece and one window
    k = np.arange(n)
    case(np.r_[0, 10 + 10 * k], np.r_[10 * n + 20, 15 + 10 * k], "flat 150,001")
    s, e = forest(rng, 150000, 10 ** 9, 60, 0.05, 0.2)
    case(s, e, "forest of %d" % s.size)
    # a call ending before it starts: no crash, and build_call_arrays'
    # fallback takes over
    case(np.arange(300), np.arange(300) - 300, "ends before starts")
    print("accepted %d, refused %d" % (counts[1], counts[0]))
    check = counts[0] > 0 and counts[1] > 0
    if not check:
        failures.append("the random inputs are all of one kind")
    for f in failures[:20]:
        print("FAIL:", f)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("test_nesting: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
