# Writer of schema-2 HDF5 profiles (docs/format-hdf5.md) from Columns, for
# native_trace: the layout sp-import writes, under a temporary name.
import os

import h5py
import numpy as np

from . import _stats
from ._columns import STATS_DTYPE, Columns

SCHEMA = 2
MAX_TEXT = 60000
TRUNCATED = "...[truncated]"
ATTR_LIST_MAX = 2048
_STR = h5py.string_dtype("utf-8")


def _text(s):
    """s cut to MAX_TEXT bytes on a character boundary, as the C writer."""
    b = s.encode("utf-8", "surrogateescape")
    if len(b) <= MAX_TEXT:
        return s
    return b[:MAX_TEXT].decode("utf-8", "ignore") + TRUNCATED


def layout(cols, rows=None):
    """A new Columns of cols' rows (all, or those listed), in schema order
    (rank, thread, rows with calls first by their first start), region ids
    by first appearance, each region's first known location on every row,
    calls back to back and statistics computed from them."""
    if not cols.has_events:
        raise ValueError("writing a profile needs its calls: read it with "
                         "read_h5(), not read_h5_summary()")
    rows = np.arange(cols.nrows) if rows is None else np.asarray(rows, np.int64)
    # a row's place among its thread's: by the start of its first call
    cnt = cols.count[rows]
    first = np.zeros(rows.size, np.int64)
    full = cnt > 0
    first[full] = cols.starts[cols.offset[rows][full]]
    order = np.lexsort((first, ~full, cols.thread[rows],
                        cols.rank[rows]))
    rows = rows[order]
    names, ids, loc = [], {}, {}
    for i in rows.tolist():
        name = cols.names[cols.region[i]]
        if name not in ids:
            ids[name] = len(names)
            names.append(name)
        if name not in loc and (cols.files[i] or cols.lines[i] != -1):
            loc[name] = (cols.files[i], int(cols.lines[i]))
    rnames = [cols.names[cols.region[i]] for i in rows.tolist()]
    count = cols.count[rows]
    offset = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
    starts, ends = cols.row_calls(rows)
    out = Columns(names, [ids[n] for n in rnames], cols.rank[rows],
                  cols.thread[rows], offset, count,
                  [loc.get(n, ("", -1))[0] for n in rnames],
                  [loc.get(n, ("", -1))[1] for n in rnames], None,
                  np.ascontiguousarray(starts, np.int64),
                  np.ascontiguousarray(ends, np.int64),
                  dict(cols.metadata), cols.paths)
    out.stats = _stats.compute(out)
    out.stats_known = True
    return out


def _put_meta(group, meta):
    for k, v in meta.items():
        if isinstance(v, (bool, np.bool_)):
            v = int(v)
        if isinstance(v, (int, np.integer)):
            group.attrs.create(k, np.int64(v), dtype="<i8")
        elif isinstance(v, (float, np.floating)):
            # the C reader's rule: whole numbers as integers, else text
            if float(v).is_integer():
                group.attrs.create(k, np.int64(v), dtype="<i8")
            else:
                group.attrs.create(k, "%.17g" % v, dtype=_STR)
        elif isinstance(v, str):
            group.attrs.create(k, _text(v), dtype=_STR)
        elif isinstance(v, (list, tuple, np.ndarray)):
            items = np.array([_text(str(x)) for x in v], dtype=object)
            if len(items) > ATTR_LIST_MAX:
                group.create_dataset(k, data=items, dtype=_STR)
            else:
                group.attrs.create(k, items, shape=(len(items),), dtype=_STR)


def _strings(group, name, values):
    group.create_dataset(name, data=np.array(values, dtype=object),
                         shape=(len(values),), dtype=_STR)


def _fill(f, cols):
    f.attrs.create("scope_profiler_schema", np.int64(SCHEMA), dtype="<i8")
    _strings(f.create_group("region_table"), "names", cols.names)
    ix = f.create_group("rank_region_index")
    n = cols.nrows
    ix.create_dataset("region_ids", data=cols.region.astype("<i4"))
    ix.create_dataset("ranks", data=cols.rank.astype("<i4"))
    ix.create_dataset("threads", data=cols.thread.astype("<i4"))
    ix.create_dataset("event_offsets", data=cols.offset.astype("<i8"))
    ix.create_dataset("event_counts", data=cols.count.astype("<i8"))
    _strings(ix, "source_files", cols.files)
    ix.create_dataset("source_lines", data=cols.lines.astype("<i4"))
    _strings(ix, "source_texts", [""] * n)
    _strings(ix, "tags", [""] * n)
    ix.create_dataset("summary_statistics",
                      data=np.asarray(cols.stats, dtype=STATS_DTYPE))
    ev = f.create_group("events")
    ev.create_dataset("start_times", data=cols.starts.astype("<i8"))
    ev.create_dataset("end_times", data=cols.ends.astype("<i8"))
    _put_meta(f.create_group("metadata"), cols.metadata)


def write(cols, path):
    """cols (laid out by layout()) into the file path: created as
    <path>.tmp.<pid>.<n> with O_EXCL | O_NOFOLLOW (never through a link
    planted at that name), renamed over path when complete; on any failure
    the temporary is removed and path is left as it was. The file's image
    is held in memory once while it is written."""
    path = os.fspath(path)
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | \
        getattr(os, "O_CLOEXEC", 0)
    for n in range(100):
        tmp = "%s.tmp.%d.%d" % (path, os.getpid(), n)
        try:
            fd = os.open(tmp, flags, 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError("%s: no free temporary name beside it" % path)
    try:
        # The file is made in memory, then written with write(): HDF5 that
        # fails to write a file (a full disk) cannot close it, and h5py
        # then crashes the interpreter at exit.
        with h5py.File("%s (in memory)" % path, "w", driver="core",
                       backing_store=False) as f:
            _fill(f, cols)
            f.flush()
            image = memoryview(f.id.get_file_image())
        done = 0
        while done < len(image):
            done += os.write(fd, image[done:done + (1 << 24)])
        del image
        os.close(fd)
        fd = -1
        os.replace(tmp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path
