# From the paths a user names to one Columns: the inputs sp-import and
# sp-report take (docs/report.md, "Inputs"), merged in memory.
import os
import re

import numpy as np

from . import _h5, _spt, _stats
from ._columns import Columns
from ._errors import FormatError

_RANK_H5 = re.compile(r"_rank\d+\.h5$")


def expand(paths):
    """Files to read: named files whatever their names, and the *.spt and
    *_rank<N>.h5 files of named directories; each file once."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out, seen = [], set()
    for p in paths:
        p = os.fspath(p)
        if os.path.isdir(p):
            found = sorted(os.path.join(p, n) for n in os.listdir(p)
                           if n.endswith(".spt") or _RANK_H5.search(n))
        else:
            if not os.path.exists(p):
                raise FileNotFoundError("%s: No such file or directory" % p)
            found = [p]
        for f in found:
            key = os.path.realpath(f)
            if key not in seen:
                seen.add(key)
                out.append(f)
    if not out:
        raise ValueError("%s: no profile found" % ", ".join(map(str, paths)))
    return out


def _row_key(rows):
    """sp-import's row order within a rank: thread, rows with calls first,
    start of the first call, name."""
    return sorted(range(len(rows)), key=lambda i: (
        rows[i]["thread"], rows[i]["starts"].size == 0,
        int(rows[i]["starts"][0]) if rows[i]["starts"].size else 0,
        rows[i]["name"].encode()))


def spt_columns(path):
    rank, blocks = _spt.read(path)
    blocks = [blocks[i] for i in _row_key(blocks)]
    names, ids, loc = [], {}, {}
    for b in blocks:
        if b["name"] not in ids:
            ids[b["name"]] = len(names)
            names.append(b["name"])
        if b["name"] not in loc and (b["file"] or b["line"] != -1):
            loc[b["name"]] = (b["file"], b["line"])
    count = np.array([b["starts"].size for b in blocks], dtype=np.int64)
    offset = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
    empty = np.empty(0, np.int64)
    c = Columns(
        names, [ids[b["name"]] for b in blocks], [rank] * len(blocks),
        [b["thread"] for b in blocks], offset, count,
        [loc.get(b["name"], ("", -1))[0] for b in blocks],
        [loc.get(b["name"], ("", -1))[1] for b in blocks], None,
        np.concatenate([b["starts"] for b in blocks] or [empty]),
        np.concatenate([b["ends"] for b in blocks] or [empty]), {}, [path])
    c.stats = _stats.compute(c)
    c.stats_known = True
    return c


def _is_h5(path):
    try:
        return _h5.is_h5(path)
    except OSError as e:
        raise FormatError("%s: cannot open: %s" % (path, e.strerror or e)) from None


def read_one(path, events, fallback=True, probed=False):
    if _is_h5(path):
        c = _h5.read(path, events=events, probed=probed)
        if not c.stats_known:
            if not events and not fallback:
                raise ValueError("%s: no summary_statistics (written before "
                                 "summary records; use read_h5)" % path)
            if not events:
                c = _h5.read(path, events=True, probed=True)
            c.stats = _stats.compute(c)
            c.stats_known = True
        elif events and (c.stats["outer_total_ns"] < 0).any():
            _stats.outer_totals(c, c.stats)
        return c
    if _spt.is_spt(path):
        return spt_columns(path)
    raise FormatError("%s: neither a schema-2 .h5 profile nor an .spt trace" % path)


def merge(parts, events):
    """One Columns of several inputs, rows ordered by rank (each input's
    own order kept within a rank), names numbered by first appearance."""
    if len(parts) == 1:
        c = parts[0]
        if not events:
            c.starts = c.ends = None
        return c
    owner = {}
    for c in parts:
        for r in np.unique(c.rank).tolist():
            if r in owner:
                raise FormatError("%s: rank %d is also in %s" % (c.paths[0], r, owner[r]))
            owner[r] = c.paths[0]
    rows = [(int(c.rank[i]), k, i) for k, c in enumerate(parts) for i in range(c.nrows)]
    rows.sort()
    names, ids, loc = [], {}, {}
    region, rank, thread, count, files, lines, stats, st_, en_ = ([] for _ in range(9))
    for r, k, i in rows:
        c = parts[k]
        name = c.names[c.region[i]]
        if name not in ids:
            ids[name] = len(names)
            names.append(name)
        if name not in loc and (c.files[i] or c.lines[i] != -1):
            loc[name] = (c.files[i], int(c.lines[i]))
        region.append(ids[name])
        rank.append(r)
        thread.append(int(c.thread[i]))
        count.append(int(c.count[i]))
        stats.append(c.stats[i])
        if events:
            a = c.offset[i]
            st_.append(c.starts[a:a + c.count[i]])
            en_.append(c.ends[a:a + c.count[i]])
    for r, k, i in rows:
        c = parts[k]
        files.append(loc.get(c.names[c.region[i]], ("", -1))[0])
        lines.append(loc.get(c.names[c.region[i]], ("", -1))[1])
    count = np.array(count, dtype=np.int64)
    offset = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
    empty = np.empty(0, np.int64)
    meta = {}
    for c in sorted(parts, key=lambda c: int(c.rank.min()) if c.nrows else 1 << 31):
        if c.metadata:
            meta = dict(c.metadata)
            break
    out = Columns(names, region, rank, thread, offset, count, files, lines,
                  np.array(stats, dtype=parts[0].stats.dtype),
                  np.concatenate(st_ or [empty]) if events else None,
                  np.concatenate(en_ or [empty]) if events else None,
                  meta, [p for c in parts for p in c.paths])
    out.stats_known = True
    return out


def load(paths, events=True, fallback=True):
    files = expand(paths)
    _h5.probe([f for f in files if _is_h5(f)])
    parts = [read_one(f, events, fallback, probed=True) for f in files]
    # A fallen-back summary read keeps the events it had to read anyway.
    keep = events or all(c.has_events for c in parts)
    return merge(parts, keep)
