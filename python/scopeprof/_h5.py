# Reader of schema-2 HDF5 profiles (docs/format-hdf5.md): the per-rank
# files of the runtime and the merged profile of sp-import alike.
import h5py
import numpy as np

from ._columns import Columns, empty_stats

SCHEMA = 2
REQUIRED = ["region_table/names", "rank_region_index/region_ids",
            "rank_region_index/ranks", "rank_region_index/event_offsets",
            "rank_region_index/event_counts", "events/start_times",
            "events/end_times"]


def is_h5(path):
    with open(path, "rb") as f:
        return f.read(8) == b"\x89HDF\r\n\x1a\n"


def _strings(ds):
    return [s for s in ds.asstr()[()]] if ds.shape != (0,) else []


def _attr(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, np.ndarray):
        return [x.decode("utf-8", "replace") if isinstance(x, bytes) else
                (x.item() if hasattr(x, "item") else x) for x in v.tolist()]
    if isinstance(v, np.generic):
        return v.item()
    return v


def read(path, events=True):
    """Columns of one .h5 file; without events, the event columns are
    never read (their lengths are checked from the dataset shapes)."""
    with h5py.File(path, "r") as f:
        if "scope_profiler_schema" not in f.attrs:
            raise ValueError("%s: not a ScopeProf profile (no "
                             "scope_profiler_schema attribute)" % path)
        schema = int(f.attrs["scope_profiler_schema"])
        if schema > SCHEMA:
            raise ValueError("%s: schema %d is newer than this reader" % (path, schema))
        if schema != SCHEMA:
            raise ValueError("%s: schema %d is not supported" % (path, schema))
        for name in REQUIRED:
            if name not in f:
                raise ValueError("%s: missing %s" % (path, name))
        names = _strings(f["region_table/names"])
        ix = f["rank_region_index"]
        region = ix["region_ids"][()]
        n = region.size
        cols = {"ranks": None, "event_offsets": None, "event_counts": None}
        for k in cols:
            cols[k] = ix[k][()]
            if cols[k].size != n:
                raise ValueError("%s: rank_region_index columns differ in length" % path)
        thread = ix["threads"][()] if "threads" in ix else np.zeros(n, np.int32)
        files = _strings(ix["source_files"]) if "source_files" in ix else [""] * n
        lines = ix["source_lines"][()] if "source_lines" in ix else np.full(n, -1)
        stats = None
        if "summary_statistics" in ix:
            raw = ix["summary_statistics"][()]
            stats = empty_stats(n)
            # outer_total_ns is absent from files written before it: -1
            for field in stats.dtype.names:
                if field in raw.dtype.names:
                    stats[field] = raw[field]
        nev = f["events/start_times"].shape[0]
        if f["events/end_times"].shape[0] != nev:
            raise ValueError("%s: event columns differ in length" % path)
        off, cnt = cols["event_offsets"], cols["event_counts"]
        if n and (region.min() < 0 or region.max() >= len(names)):
            raise ValueError("%s: region id outside the name table" % path)
        if n and (cols["ranks"].min() < 0 or thread.min() < 0 or off.min() < 0
                  or cnt.min() < 0):
            raise ValueError("%s: negative rank, thread, offset or count" % path)
        if n and (off + cnt).max() > nev:
            raise ValueError("%s: a row's calls go beyond the stored events" % path)
        # The checks of ScopeProf's own readers: one row per (rank,
        # thread, region), and summary call counts that are the rows'.
        if n > 1:
            key = np.stack([cols["ranks"].astype(np.int64), thread.astype(np.int64),
                            region.astype(np.int64)])
            order = np.lexsort(key[::-1])
            same = np.all(key[:, order[1:]] == key[:, order[:-1]], axis=0)
            if same.any():
                k = int(np.argmax(same))
                a, b = sorted((int(order[k]), int(order[k + 1])))
                raise ValueError("%s: rows %d and %d: two rows for rank %d "
                                 "thread %d region %s" %
                                 (path, a, b, cols["ranks"][a], thread[a],
                                  names[region[a]]))
        # A profile (SP_MODE=profile: call_paths, no events) has the
        # statistics of calls it never stored.
        profile = nev == 0 and "call_paths" in f
        if stats is not None and n and not profile and (stats["calls"] != cnt).any():
            i = int(np.argmax(stats["calls"] != cnt))
            raise ValueError("%s: row %d: summary_statistics says %d calls, "
                             "the row has %d events" %
                             (path, i, stats["calls"][i], cnt[i]))
        starts = ends = None
        if events:
            starts = f["events/start_times"][()].astype(np.int64, copy=False)
            ends = f["events/end_times"][()].astype(np.int64, copy=False)
        meta = {}
        if "metadata" in f:
            meta = {k: _attr(v) for k, v in f["metadata"].attrs.items()}
            # string lists too long for an attribute are datasets there
            for k, d in f["metadata"].items():
                if isinstance(d, h5py.Dataset) and d.ndim == 1 and \
                        d.dtype.kind in "OSU":
                    meta[k] = _attr(d[()])
    if events and stats is None:
        stats = empty_stats(n)
        stats["calls"] = cnt
        stats_known = False
    else:
        stats_known = stats is not None
    c = Columns(names, region, cols["ranks"], thread, off, cnt, files, lines,
                stats, starts, ends, meta, [path])
    c.stats_known = stats_known
    return c
