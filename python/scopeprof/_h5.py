# Reader of schema-2 HDF5 profiles (docs/format-hdf5.md): the per-rank
# files of the runtime and the merged profile of sp-import alike, with the
# checks of the C reader (format/h5_read.c); schema 1 (no attribute) too.
import os
import select
import signal

import h5py
import numpy as np

from ._columns import Columns, empty_stats
from ._errors import FormatError, one_line

SCHEMA = 2
MAGIC = b"\x89HDF\r\n\x1a\n"
INDEX = "rank_region_index/"


def is_h5(path):
    with open(path, "rb") as f:
        return f.read(8) == MAGIC


class _File:
    """One open file and its name, for checks that fail with one line."""

    def __init__(self, path, f):
        self.path, self.f = path, f
        self.size = os.path.getsize(path)

    def fail(self, what):
        raise FormatError("%s: %s" % (self.path, what))

    def dataset(self, name, optional=False):
        obj = self.f.get(name)
        if obj is None:
            if optional:
                return None
            self.fail("not a schema-2 profile: %s is missing" % name)
        if not isinstance(obj, h5py.Dataset):
            self.fail("%s is not a dataset" % name)
        if obj.ndim != 1:
            self.fail("%s is not a one-dimensional dataset" % name)
        self.fits(obj, name)
        return obj

    def ints(self, name, n, optional=False):
        """An integer column as int64 (values out of the writer's range are
        caught by the range checks that follow)."""
        ds = self.dataset(name, optional)
        if ds is None:
            return None
        if ds.dtype.kind not in "iu":
            self.fail("%s has the wrong type" % name)
        self.length(ds, name, n)
        v = ds[()]
        if v.dtype.kind == "u" and v.size and v.max() > np.iinfo(np.int64).max:
            self.fail("%s holds a value beyond int64" % name)
        return v.astype(np.int64, copy=False)

    def fits(self, ds, name):
        """A dataset claiming more entries than the file could hold (a
        damaged dimension) is refused before anything is allocated."""
        if ds.id.get_create_plist().get_nfilters() == 0 and \
                ds.shape[0] * ds.dtype.itemsize > self.size:
            self.fail("%s claims %d entries, more than the file's %d bytes hold"
                      % (name, ds.shape[0], self.size))

    def length(self, ds, name, n):
        if n is not None and ds.shape[0] != n:
            self.fail("%s has %d entries, expected %d" % (name, ds.shape[0], n))

    def strings(self, name, n, optional=False):
        ds = self.dataset(name, optional)
        if ds is None:
            return None
        self.length(ds, name, n)
        return self.text(ds, name)

    def text(self, obj, name, attr=None):
        """Strings of a dataset (or of attribute `attr` of obj), vlen or
        fixed-size, as str (bytes that are not UTF-8 replaced). A vlen
        string is a reference into the file's global heap that HDF5
        follows unchecked (a damaged one crashes it), so vlen strings are
        read from the file's bytes by _heap, which checks them."""
        tid = obj.id.get_type() if attr is None else obj.attrs.get_id(attr).get_type()
        if tid.get_class() != h5py.h5t.STRING:
            self.fail("%s does not hold strings" % name)
        if tid.is_variable_str():
            shape = obj.shape if attr is None else obj.attrs.get_id(attr).shape
            n = int(np.prod(shape)) if shape else 1
            got = _heap.read(self, obj, attr, name, n)
            if got is not _heap.UNSUPPORTED:
                got = [_decode(x) for x in got]
                return got if shape else got[0]
        raw = obj[()] if attr is None else obj.attrs[attr]
        if isinstance(raw, np.ndarray):
            return [_decode(x) for x in raw.tolist()]
        return _decode(raw)


def _decode(x):
    if isinstance(x, bytes):
        return x.split(b"\0", 1)[0].decode("utf-8", "replace")
    if isinstance(x, str):
        return x.split("\0", 1)[0]
    return x


def _attr(v):
    if isinstance(v, bytes):
        return _decode(v)
    if isinstance(v, np.ndarray):
        return [_decode(x) if isinstance(x, (bytes, str)) else
                (x.item() if hasattr(x, "item") else x) for x in v.tolist()]
    if isinstance(v, np.generic):
        return v.item()
    return v


def _schema(h):
    """The schema of the file: its scope_profiler_schema attribute, or 1
    for files written before the attribute existed (the same layout, as
    scope-profiler reads them)."""
    if "scope_profiler_schema" not in h.f.attrs:
        return 1
    a = h.f.attrs.get_id("scope_profiler_schema")
    if a.get_type().get_class() != h5py.h5t.INTEGER or a.shape not in ((), (1,)):
        h.fail("scope_profiler_schema is not one integer")
    v = int(np.asarray(h.f.attrs["scope_profiler_schema"]).reshape(-1)[0])
    if v > SCHEMA:
        h.fail("schema %d is newer than this reader (schema %d): upgrade "
               "scopeprof to read it" % (v, SCHEMA))
    if v < 1:
        h.fail("unsupported schema %d (expected 1 or %d)" % (v, SCHEMA))
    return v


def _check_rows(h, names, region, rank, thread, off, cnt, stats, nev):
    """The C reader's row checks, vectorised; the first bad row is named."""
    n = region.size
    if not n:
        return

    def first(bad, what):
        if bad.any():
            i = int(np.argmax(bad))
            h.fail("row %d: %s" % (i, what(i)))
    first((region < 0) | (region >= len(names)),
          lambda i: "region id %d outside region_table (%d names)"
          % (region[i], len(names)))
    first((rank < 0) | (thread < 0), lambda i: "negative rank or thread")
    first((cnt < 0) | (off < 0), lambda i: "negative event offset or count")
    first((off > nev) | (cnt > nev - off),
          lambda i: "events [%d, +%d) beyond the %d stored" % (off[i], cnt[i], nev))
    if stats is not None:
        first(stats["calls"] != cnt,
              lambda i: "summary_statistics says %d calls, the row has %d events"
              % (stats["calls"][i], cnt[i]))
    if n > 1:
        # One row per (rank, thread, region): a second would count its
        # calls twice in a summary read and split them in a full one.
        order = np.lexsort((region, thread, rank))
        k = order
        same = ((rank[k[1:]] == rank[k[:-1]]) & (thread[k[1:]] == thread[k[:-1]])
                & (region[k[1:]] == region[k[:-1]]))
        if same.any():
            j = int(np.argmax(same))
            a, b = sorted((int(k[j]), int(k[j + 1])))
            h.fail("rows %d and %d: two rows for rank %d thread %d region %s"
                   % (a, b, rank[a], thread[a], names[region[a]]))


def _unique_names(h, names):
    """A region is its name: one name under two ids would merge two
    regions' rows downstream."""
    if len(set(names)) != len(names):
        seen = set()
        for s in sorted(names):
            if s in seen:
                h.fail('region_table/names holds "%s" twice' % s[:200])
            seen.add(s)


def _stats(h, n):
    ds = h.dataset(INDEX + "summary_statistics", optional=True)
    if ds is None:
        return None
    if ds.dtype.names is None:
        h.fail("%ssummary_statistics has the wrong type" % INDEX)
    h.length(ds, INDEX + "summary_statistics", n)
    raw = ds[()]
    stats = empty_stats(n)
    # outer_total_ns is absent from files written before it: -1
    for field in stats.dtype.names:
        if field in raw.dtype.names:
            if raw.dtype[field].kind not in "iuf" or raw.dtype[field].shape:
                h.fail("%ssummary_statistics: %s has the wrong type" % (INDEX, field))
            stats[field] = raw[field]
    return stats


def _metadata(h):
    meta = {}
    g = h.f.get("metadata")
    if not isinstance(g, h5py.Group):
        return meta
    for k in g.attrs.keys():
        tid = g.attrs.get_id(k).get_type()
        if tid.get_class() == h5py.h5t.STRING:
            meta[k] = h.text(g, "metadata/" + k, attr=k)
        else:
            meta[k] = _attr(g.attrs[k])
    # string lists too long for an attribute are datasets there
    for k in g.keys():
        d = g.get(k)
        if isinstance(d, h5py.Dataset) and d.ndim == 1 and \
                d.id.get_type().get_class() == h5py.h5t.STRING:
            meta[k] = h.text(d, "metadata/" + k)
    return meta


def _read(h, events):
    _schema(h)
    names = h.strings("region_table/names", None)
    _unique_names(h, names)
    region = h.ints(INDEX + "region_ids", None)
    n = region.size
    rank = h.ints(INDEX + "ranks", n)
    off = h.ints(INDEX + "event_offsets", n)
    cnt = h.ints(INDEX + "event_counts", n)
    thread = h.ints(INDEX + "threads", n, optional=True)
    if thread is None:
        thread = np.zeros(n, np.int64)
    lines = h.ints(INDEX + "source_lines", n, optional=True)
    if lines is None:
        lines = np.full(n, -1, np.int64)
    files = h.strings(INDEX + "source_files", n, optional=True)
    if files is None:
        files = [""] * n
    stats = _stats(h, n)
    ev = [h.dataset("events/start_times"), h.dataset("events/end_times")]
    for d in ev:
        if d.dtype.kind not in "iu":
            h.fail("%s has the wrong type" % d.name.lstrip("/"))
    nev = ev[0].shape[0]
    if ev[1].shape[0] != nev:
        h.fail("events/start_times has %d entries but end_times %d"
               % (nev, ev[1].shape[0]))
    # A profile (SP_MODE=profile: call_paths, no events) has the
    # statistics of calls it never stored.
    profile = nev == 0 and "call_paths" in h.f
    _check_rows(h, names, region, rank, thread, off, cnt,
                None if profile else stats, nev)
    for v, what in ((rank, "ranks"), (thread, "threads"), (region, "region_ids")):
        if v.size and v.max() > np.iinfo(np.int32).max:
            h.fail("%s%s holds a value beyond int32" % (INDEX, what))
    starts = ends = None
    if events:
        starts = ev[0][()].astype(np.int64, copy=False)
        ends = ev[1][()].astype(np.int64, copy=False)
    meta = _metadata(h)
    lines = np.where((lines < -1) | (lines > np.iinfo(np.int32).max), -1, lines)
    return names, region, rank, thread, off, cnt, files, lines, stats, starts, ends, meta


# What any read of the file does to its structure, without the event
# columns: run first in a child process, so that a damaged file on which
# the HDF5 library itself crashes or loops (HDF5 1.10 does, on some damaged
# object headers, heaps and B-trees; so do the C tools) is refused.
PROBE_SECONDS = 60


def _open(path):
    try:
        return h5py.File(path, "r")
    except OSError as e:
        raise FormatError("%s: cannot read the HDF5 file (damaged or not "
                          "HDF5): %s" % (path, one_line(e))) from None


def _touch(path):
    with _open(path) as f:
        h = _File(path, f)
        _read(h, events=False)
        for name in ("events/start_times", "events/end_times"):
            ds = f[name]
            if ds.id.get_create_plist().get_layout() == h5py.h5d.CHUNKED:
                for k in range(ds.id.get_num_chunks()):
                    ds.id.get_chunk_info(k)


def probe(paths):
    """Runs _touch on each of paths in one forked child (one fork for a
    run's many per-rank files); raises the FormatError of the first file
    refused, or of the file on which the child died or stopped."""
    if not paths or not hasattr(os, "fork"):
        return
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: "k" before file k, "k<TAB>text" if refused
        code = 0
        try:
            os.close(r)
            for k, path in enumerate(paths):
                os.write(w, b"%d\n" % k)
                try:
                    _touch(path)
                except FormatError as e:
                    msg = str(e)
                except BaseException as e:
                    msg = "%s: cannot read: %s" % (path, one_line(e))
                else:
                    continue
                code = 1
                os.write(w, ("%d\t%s\n" % (k, msg)).encode("utf-8", "replace")[:8192])
                break
        finally:
            os._exit(code)
    os.close(w)
    buf, at, dead, stuck = b"", 0, False, False
    try:
        while True:
            ready, _, _ = select.select([r], [], [], PROBE_SECONDS)
            if not ready:
                stuck = True
                break
            chunk = os.read(r, 65536)
            if not chunk:
                dead = True
                break
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                k, _, msg = line.decode("utf-8", "replace").partition("\t")
                at = int(k)
                if msg:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    raise FormatError(msg)
    finally:
        os.close(r)
    if stuck:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    if stuck:
        raise FormatError("%s: the HDF5 library did not finish reading its "
                          "structure in %d s (a damaged file)" % (paths[at], PROBE_SECONDS))
    if dead and os.WIFSIGNALED(status):
        raise FormatError("%s: the HDF5 library crashed reading its structure "
                          "(signal %d): a damaged file" % (paths[at], os.WTERMSIG(status)))


def read(path, events=True, probed=False):
    """Columns of one .h5 file; without events, the event columns are
    never read (their lengths are checked from the dataset shapes). Any
    failure is a FormatError of one line naming the file. probed: probe()
    has already passed the file."""
    if not probed:
        probe([path])
    f = _open(path)
    try:
        with f:
            parts = _read(_File(path, f), events)
    except FormatError:
        raise
    except (OSError, KeyError, TypeError, AttributeError, ValueError,
            IndexError, RuntimeError, OverflowError, SystemError,
            MemoryError) as e:
        # h5py's own errors on damaged structures, named after the file.
        raise FormatError("%s: cannot read: %s" % (path, one_line(e))) from None
    names, region, rank, thread, off, cnt, files, lines, stats, starts, ends, meta = parts
    n = region.size
    if events and stats is None:
        stats = empty_stats(n)
        stats["calls"] = cnt
        stats_known = False
    else:
        stats_known = stats is not None
    c = Columns(names, region, rank, thread, off, cnt, files, lines,
                stats, starts, ends, meta, [path])
    c.stats_known = stats_known
    return c


from . import _heap  # noqa: E402  (uses _File's interface only)
