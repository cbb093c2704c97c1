# scopeprof.native_trace: the per-rank files native (C, Fortran) programs
# write - .spt traces and per-rank .h5 - read, merged and written as one
# schema-2 profile; and the C and Fortran sources shipped in the package.
"""Reading the per-rank output written by the native (C and Fortran) APIs.

A program records regions with no Python involved and writes one file per
rank at ``sp_finalize()`` (or at exit): a ``.spt`` binary trace
(``<prefix>_rank<NNNNN>.spt``, versions 1 to 4 of docs/format.md, either
byte order), or with ``SP_FORMAT=h5`` a schema-2 ``.h5`` holding that one
rank. This module reads both kinds, mixed, into the
:class:`~scopeprof.results.ProfilingResults` :func:`scopeprof.read_h5`
returns, and writes them out as one schema-2 profile, as ``sp-import``
does.

The runtime's sources ship inside the package (``c/`` and ``fortran/``),
so a program builds and records with no installed ScopeProf::

    cc -c $(python3 -c "import scopeprof.native_trace as t; print(t.c_source_path())") \\
       -I$(python3 -c "import scopeprof.native_trace as t; print(t.c_include_dir())")
"""
import os
import re
from pathlib import Path

import numpy as np

from . import _h5, _h5write, _inputs, _spt
from .results import ProfilingResults

FORTRAN_DIR = Path(__file__).resolve().parent / "fortran"
C_DIR = Path(__file__).resolve().parent / "c"

MAGIC = b"SCOPEPRF"
"""First eight bytes of every trace file."""

FORMAT_VERSION = 4
"""Newest .spt layout: what ``sp_finalize`` writes (with
``SP_SPT_VERSION=3``, version 3 when several threads recorded and 2 when one
did). Version 1 (the seed's Fortran API) has no source locations, version 2
adds one per region, version 3 a thread per region block, version 4 stores
each call as two variable-length integers (2-4 bytes a call in a loop)."""

KNOWN_FORMAT_VERSIONS = (1, 2, 3, 4)
"""Trace format versions this reader accepts."""

TRACE_SUFFIX = ".spt"
"""Extension ``sp_finalize`` gives a binary trace."""

HDF5_SUFFIX = ".h5"
"""Extension ``sp_finalize`` gives a directly-written HDF5 profile."""

RANK_HDF5_GLOB = "*_rank[0-9]*" + HDF5_SUFFIX
"""How :func:`find_traces` recognizes per-rank HDF5 output in a directory
(``_rank`` and digits only, as ``sp-import``): a merged profile lying in
the same directory is not taken as an input. A file named explicitly is
always read."""

_RANK_H5 = re.compile(r"_rank[0-9]+" + re.escape(HDF5_SUFFIX) + "$")
_HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"


class TraceFormatError(ValueError):
    """A file is not a ScopeProf trace or profile, is truncated, or two
    files claim the same rank. The message is one line naming the file
    (and, for a .spt, the byte offset)."""


class TraceRegion(tuple):
    """One region's calls on one rank: unpacks as ``(start_times,
    end_times)``, int64 ns; ``source_file`` / ``source_lineno`` are None
    when unknown; ``threads`` is each call's thread (int32 array)."""

    source_file = None
    source_lineno = None
    threads = None


def _region(starts, ends, file, line, threads):
    r = TraceRegion((starts, ends))
    r.source_file = file or None
    r.source_lineno = line if line is not None and line >= 0 else None
    r.threads = threads
    return r


def fortran_source_path():
    """Path to ``scope_profiler.f90``, the Fortran module to compile into a
    program (with the C runtime of :func:`c_source_path`)::

        gfortran -c $(python3 -c "import scopeprof.native_trace as t; print(t.fortran_source_path())")

    Raises FileNotFoundError when the package was not built (a source
    tree's python/ directory has no c/ or fortran/: use the CMake build's
    or an installed package)."""
    return _shipped(FORTRAN_DIR / "scope_profiler.f90")


def c_source_path():
    """Path to ``scope_profiler.c``: the whole runtime (libscopeprof) as
    one C file, to compile beside a program; its header is in
    :func:`c_include_dir`::

        cc -c $(python3 -c "import scopeprof.native_trace as t; print(t.c_source_path())") \\
           -I$(python3 -c "import scopeprof.native_trace as t; print(t.c_include_dir())")

    Link with ``-lpthread -ldl``. It writes ``.spt`` (``SP_FORMAT=h5``
    needs the installed HDF5 module, see docs/python.md)."""
    return _shipped(C_DIR / "scope_profiler.c")


def c_include_dir():
    """Directory holding ``scope_profiler.h``, for the compiler's ``-I``."""
    _shipped(C_DIR / "scope_profiler.h")
    return C_DIR


def _shipped(path):
    if not path.is_file():
        raise FileNotFoundError(
            "%s: not in this copy of scopeprof (the C and Fortran sources are "
            "added by the CMake build, cmake --install and pip install)" % path)
    return path


# -- reading ---------------------------------------------------------------
def _spt_rank(path):
    """(rank, {name: TraceRegion}) of a .spt: a name's blocks of several
    threads (version 3) are one region, thread after thread."""
    try:
        rank, blocks = _spt.read(os.fspath(path))
    except ValueError as e:
        raise TraceFormatError(str(e)) from None
    by = {}
    for b in sorted(blocks, key=lambda b: b["thread"]):
        by.setdefault(b["name"], []).append(b)
    regions = {}
    for name, bs in by.items():
        # the first block that has a location gives it, as the runtime keeps
        # the first location of a name
        loc = next(((b["file"], b["line"]) for b in bs
                    if b["file"] or b["line"] != -1), ("", -1))
        regions[name] = _region(
            np.concatenate([b["starts"] for b in bs]),
            np.concatenate([b["ends"] for b in bs]), loc[0], loc[1],
            np.concatenate([np.full(b["starts"].size, b["thread"], np.int32)
                            for b in bs]))
    return rank, regions


def read_trace(path):
    """Read one rank's trace file.

    Parameters
    ----------
    path : str or Path
        A ``.spt`` file written by ``sp_finalize()`` (version 1 to 4,
        either byte order).

    Returns
    -------
    tuple
        ``(rank, regions)``, where ``regions`` maps a region name to
        ``(start_times, end_times)`` int64 arrays in nanoseconds. Each value
        also carries ``.source_file`` / ``.source_lineno`` (None when
        unknown: a version-1 trace, or a region registered without
        ``sp_region_at()``) and ``.threads`` (each call's thread; a region
        several threads ran has their calls thread after thread).

    Raises
    ------
    TraceFormatError
        If the file is not a trace, is truncated, or was written by a newer
        format version.
    """
    return _spt_rank(path)


def read_native_h5(path):
    """Read a schema-2 HDF5 profile written by ``sp_finalize()``
    (``SP_FORMAT=h5``), or a merged one.

    Returns
    -------
    tuple
        ``(ranks, metadata)``: ``ranks`` maps each rank the file holds to
        its ``{region name: TraceRegion}``; ``metadata`` is the run's
        metadata dict.

    Raises
    ------
    TraceFormatError
        If the file is not a ScopeProf schema-2 profile.
    """
    path = os.fspath(path)
    if not _magic(path, _HDF5_MAGIC):
        raise TraceFormatError("%s: not an HDF5 file" % path)
    try:
        c = _h5.read(path, events=True)
    except ValueError as e:
        raise TraceFormatError(str(e)) from None
    except OSError as e:
        raise TraceFormatError("%s: %s" % (path, e)) from None
    ranks = {}
    for r in sorted(set(c.rank.tolist())):
        rows = np.flatnonzero(c.rank == r)
        by = {}
        for i in sorted(rows.tolist(), key=lambda i: c.thread[i]):
            by.setdefault(c.names[c.region[i]], []).append(i)
        regs = {}
        for name, idx in by.items():
            s, e = c.row_calls(idx)
            regs[name] = _region(
                np.array(s, np.int64), np.array(e, np.int64), c.files[idx[0]],
                int(c.lines[idx[0]]),
                np.repeat(c.thread[idx], c.count[idx]).astype(np.int32))
        ranks[r] = regs
    return ranks, dict(c.metadata)


def read_native_ranks(path):
    """Read one native output file, whichever of the two formats it holds
    (decided by its content, not its name).

    Returns
    -------
    tuple
        ``(ranks, metadata)`` as :func:`read_native_h5`: a ``.spt`` trace
        contributes exactly one rank and no metadata (``{}``).

    Raises
    ------
    TraceFormatError
        If the file is neither, or is damaged.
    """
    path = os.fspath(path)
    if _magic(path, MAGIC):
        rank, regions = _spt_rank(path)
        return {rank: regions}, {}
    if _magic(path, _HDF5_MAGIC):
        return read_native_h5(path)
    raise TraceFormatError("%s: neither a .spt trace nor an HDF5 profile" % path)


def _magic(path, magic):
    with open(path, "rb") as f:
        return f.read(len(magic)) == magic


def find_traces(inputs):
    """Collect native output files from paths, directories, or a mix.

    Parameters
    ----------
    inputs : path or sequence of paths
        Files to read (whatever their names), and/or directories to search
        (non-recursively) for ``*.spt`` traces and ``*_rank<NNNNN>.h5``
        per-rank profiles.

    Returns
    -------
    list of Path
        The files, sorted, each once however it was spelled.

    Raises
    ------
    FileNotFoundError
        If an input does not exist, or a directory holds neither kind of
        file.
    """
    if isinstance(inputs, (str, bytes, os.PathLike)):
        inputs = [inputs]
    found = {}
    for p in inputs:
        p = Path(os.fsdecode(p))
        if p.is_dir():
            files = [q for q in p.iterdir() if q.is_file() and
                     (q.name.endswith(TRACE_SUFFIX) or _RANK_H5.search(q.name))]
            if not files:
                raise FileNotFoundError(
                    "%s: no %s trace or %s file in this directory"
                    % (p, TRACE_SUFFIX, RANK_HDF5_GLOB))
        elif p.exists():
            files = [p]
        else:
            raise FileNotFoundError("%s: No such file or directory" % p)
        for q in files:
            found.setdefault(os.path.realpath(q), q)
    return sorted(found.values())


def _merged(inputs, label):
    """The Columns of every file of inputs, merged, with sp-import's
    metadata: the lowest rank's, label, mpi_size, and the per-rank lists."""
    files = find_traces(inputs)
    parts = []
    for f in files:
        try:
            parts.append(_inputs.read_one(os.fspath(f), events=True))
        except ValueError as e:
            raise TraceFormatError(str(e)) from None
        except OSError as e:
            raise TraceFormatError("%s: %s" % (f, e)) from None
    owner = {}
    for c in parts:
        for r in np.unique(c.rank).tolist():
            if r in owner:
                raise TraceFormatError("%s: rank %d is also in %s"
                                       % (c.paths[0], r, owner[r]))
            owner[r] = c.paths[0]
    cols = _inputs.merge(parts, True) if len(parts) > 1 else parts[0]
    meta = {}
    for c in sorted(parts, key=lambda c: int(c.rank.min()) if c.nrows else 1 << 31):
        if c.metadata:
            meta = dict(c.metadata)
            break
    meta.update(_per_rank_meta(parts))
    if label is not None:
        meta["label"] = str(label)
    meta["mpi_size"] = len(owner)
    cols.metadata = meta
    return cols


# Kept for every rank of a merged profile (format/meta.c, sp-import).
PER_RANK_KEYS = ("hostname", "clock_sync_method", "clock_offset_init_ns",
                 "clock_rtt_init_ns", "clock_sync_init_ns",
                 "clock_offset_fin_ns", "clock_rtt_fin_ns",
                 "clock_sync_fin_ns", "clock_sync_init_failed",
                 "clock_sync_fin_failed")


def _per_rank_meta(parts):
    """rank_ids and rank_<key> lists, one entry per rank in rank order,
    "" where a rank lacks the key; nothing when no rank has any."""
    values = {}
    for c in parts:
        m = c.metadata or {}
        ids = m.get("rank_ids")
        for r in sorted(set(c.rank.tolist())):
            at = ids.index(str(r)) if isinstance(ids, list) and str(r) in ids else -1
            row = {}
            for k in PER_RANK_KEYS:
                if at >= 0:
                    lst = m.get("rank_" + k)
                    v = lst[at] if isinstance(lst, list) and at < len(lst) else ""
                else:
                    v = m.get(k, "")
                    v = str(v) if isinstance(v, (str, int, np.integer)) and \
                        not isinstance(v, bool) else ""
                row[k] = v
            values[r] = row
    ranks = sorted(values)
    out = {}
    for k in PER_RANK_KEYS:
        col = [values[r][k] for r in ranks]
        if any(col):
            out["rank_" + k] = col
    if out:
        out = dict([("rank_ids", [str(r) for r in ranks])] + list(out.items()))
    return out


def load_traces(inputs, label=None):
    """Read native output into the standard post-processing API.

    ``.spt`` traces and per-rank (or merged) ``.h5`` profiles mix freely;
    every rank lands in one result, with ``sp-import``'s metadata (the
    lowest rank's, ``mpi_size``, the per-rank ``rank_*`` lists, ``label``
    when given).

    Parameters
    ----------
    inputs : path or sequence of paths
        Files and/or directories containing them (see :func:`find_traces`).
    label : str, optional
        Name for the run (metadata ``label``).

    Returns
    -------
    ProfilingResults
        What :func:`scopeprof.read_h5` returns: every summary, export and
        chart works on it.

    Raises
    ------
    TraceFormatError
        If a file is damaged, or two files claim the same rank.
    FileNotFoundError
        As :func:`find_traces`.
    """
    return ProfilingResults(_merged(inputs, label))


def write_results(results, output_path):
    """Write any :class:`ProfilingResults` (read with ``read_h5`` or
    :func:`load_traces`) as a schema-2 HDF5 profile: the regions and ranks
    it selects, rows in schema order, statistics computed from the calls,
    its metadata. The file is written under a temporary name created
    exclusively beside it and renamed into place; on failure nothing is
    left under either name.

    Returns
    -------
    Path
        The file that was written.
    """
    cols = _h5write.layout(results._cols, np.flatnonzero(results._mask))
    return Path(_h5write.write(cols, output_path))


def convert_traces(inputs, output_path, label=None):
    """Convert native output into one schema-2 HDF5 profile, as
    ``sp-import -o output_path [--label label] inputs`` does.

    Parameters
    ----------
    inputs : path or sequence of paths
        Trace files, per-rank ``.h5`` files and/or directories of them.
    output_path : str or Path
        HDF5 file to write.
    label : str, optional
        Name for the run; defaults to the output file's stem.

    Returns
    -------
    Path
        The file that was written.
    """
    if label is None:
        name = os.path.basename(os.fspath(output_path))
        label = name[:-len(HDF5_SUFFIX)] if name.endswith(HDF5_SUFFIX) else name
    return write_results(load_traces(inputs, label=label), output_path)


__all__ = ["C_DIR", "FORTRAN_DIR", "FORMAT_VERSION", "KNOWN_FORMAT_VERSIONS",
           "MAGIC", "HDF5_SUFFIX", "TRACE_SUFFIX", "RANK_HDF5_GLOB",
           "TraceFormatError", "TraceRegion", "read_trace", "load_traces",
           "find_traces", "read_native_h5", "read_native_ranks",
           "convert_traces", "write_results", "c_include_dir",
           "c_source_path", "fortran_source_path"]
