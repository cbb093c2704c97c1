# The MPI layer's messages of a profile's .h5 files (rank<N>/mpi/, as
# docs/format-hdf5.md gives them) and of the .spt.mpi file beside a .spt
# (docs/format.md, "Messages beside a .spt"), for
# ProfilingResults.mpi_messages().
import os
import re
import struct
import warnings

import numpy as np

from . import _h5

KINDS = {1: "send", 2: "isend", 3: "recv", 4: "irecv", 5: "wait_recv",
         6: "collective", 7: "wait_send"}
COLUMNS = ["rank", "thread", "function", "start_ns", "kind", "peer", "tag",
           "comm", "root", "bytes_sent", "bytes_recv", "origin_function",
           "origin_ns"]
_INT = ("thread", "region", "kind", "peer", "tag", "comm", "root",
        "origin_region")
_WIDE = ("start_ns", "bytes_sent", "bytes_recv", "origin_ns")


_SIDE_MAGIC = b"SPTMPI\r\n"
_SIDE_MSG = np.dtype([("start_ns", "<i8"), ("origin_ns", "<i8"),
                      ("thread", "<i4"), ("region", "<i4"),
                      ("origin_region", "<i4"), ("kind", "<i4"),
                      ("peer", "<i4"), ("tag", "<i4"), ("comm", "<i4"),
                      ("root", "<i4"), ("bytes_sent", "<i8"),
                      ("bytes_recv", "<i8")])


class _Damaged(Exception):
    pass


def _fnv(b):
    h = 1469598103934665603
    for c in b:
        h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def _spt_rank(path):
    """The rank in a .spt's header (either byte order)."""
    with open(path, "rb") as f:
        head = f.read(16)
    if len(head) < 16 or head[:8] != b"SCOPEPRF":
        return None
    version, rank = struct.unpack("<ii", head[8:16])
    if not 1 <= version <= 4:
        version, rank = struct.unpack(">ii", head[8:16])
    return rank


def _side_parse(side, b, rank, spt_size):
    """names, {comm id: members}, messages (a _SIDE_MSG array) of a
    sidecar's bytes b, checked as docs/format.md says; _Damaged with
    "offset <N>: <what>" otherwise."""
    n = len(b)

    def need(at, k, what):
        if n - at < k:
            raise _Damaged("offset %d: truncated in %s (%d bytes)"
                           % (n, what, n))
    need(0, 64, "the header")
    if b[:8] != _SIDE_MAGIC:
        raise _Damaged("offset 0: not a .spt.mpi file (bad magic)")
    version, r = struct.unpack_from("<Ii", b, 8)
    size, nn, nc, nm, _lost = struct.unpack_from("<qqqqq", b, 16)
    if version != 1:
        raise _Damaged("offset 8: unsupported version (%d)" % version)
    if r != rank:
        raise _Damaged("offset 12: the rank is not its .spt's (%d)" % r)
    if size != spt_size:
        raise _Damaged("offset 16: written beside a .spt of another size "
                       "(%d)" % size)
    for off, v, each in ((24, nn, 4), (32, nc, 8), (40, nm, 64)):
        if v < 0:
            raise _Damaged("offset %d: a negative count (%d)" % (off, v))
        if v > (n - 64) // each:
            raise _Damaged("offset %d: truncated, or the count at offset %d "
                           "(%d) is wrong" % (n, off, v))
    at, names, comms = 64, [], {}
    for _ in range(nn):
        need(at, 4, "a name")
        (ln,) = struct.unpack_from("<I", b, at)
        if ln == 0 or ln > 4096:
            raise _Damaged("offset %d: a name's length (%d)" % (at, ln))
        need(at + 4, ln, "a name")
        try:
            name = b[at + 4:at + 4 + ln].decode("utf-8")
        except UnicodeDecodeError:
            name = "\0"
        if "\0" in name:
            raise _Damaged("offset %d: a name that is not UTF-8 text (%d)"
                           % (at + 4, ln))
        names.append(name)
        at += 4 + ln
    last = None
    for _ in range(nc):
        need(at, 8, "a communicator")
        cid, csize = struct.unpack_from("<ii", b, at)
        if cid < 0 or (last is not None and cid <= last):
            raise _Damaged("offset %d: a communicator's id out of order "
                           "(%d)" % (at, cid))
        if csize < 0:
            raise _Damaged("offset %d: a communicator's size (%d)"
                           % (at + 4, csize))
        need(at + 8, 4 * csize, "a communicator's members")
        comms[cid] = list(struct.unpack_from("<%di" % csize, b, at + 8))
        last = cid
        at += 8 + 4 * csize
    need(at, 64 * nm, "a message")
    msgs = np.frombuffer(b, _SIDE_MSG, nm, at)
    for k, (field, lo, hi, rel) in enumerate((
            ("thread", 0, None, 16), ("region", -1, nn, 20),
            ("origin_region", -1, nn, 24), ("kind", 1, 8, 28))):
        bad = msgs[field] < lo
        if hi is not None:
            bad |= msgs[field] >= hi
        if bad.any():
            i = int(np.argmax(bad))
            raise _Damaged("offset %d: a message's %s (%d)"
                           % (at + 64 * i + rel, field.replace("_", " "),
                              int(msgs[field][i])))
    at += 64 * nm
    need(at, 8, "the checksum")
    if struct.unpack_from("<Q", b, at)[0] != _fnv(b[:at]):
        raise _Damaged("offset %d: the checksum does not match the bytes "
                       "before it" % at)
    if at + 8 != n:
        raise _Damaged("offset %d: bytes after the checksum (%d)"
                       % (at + 8, n - at - 8))
    return names, comms, msgs


def _sides(paths):
    """{.spt path: (rank, names, comms, messages)} of the .spt files among
    paths that have their messages beside them; a damaged one, or one
    missing while another .spt has its, is one warning (as sp-import's)
    and that rank goes without."""
    spts = [p for p in paths if not _h5.is_h5(p) and _spt_rank(p) is not None]
    any_side = any(os.path.exists(p + ".mpi") for p in spts)
    out = {}
    for p in spts:
        rank = _spt_rank(p)
        side = p + ".mpi"
        try:
            with open(side, "rb") as f:
                b = f.read()
        except FileNotFoundError:
            if any_side:
                warnings.warn("%s: offset 0: missing (other .spt inputs have "
                              "theirs); rank %d's calls read without its MPI "
                              "messages" % (side, rank), stacklevel=3)
            continue
        try:
            names, comms, msgs = _side_parse(side, b, rank,
                                             os.path.getsize(p))
        except _Damaged as e:
            warnings.warn("%s: %s; rank %d's calls read without its MPI "
                          "messages" % (side, e, rank), stacklevel=3)
            continue
        out[p] = (rank, names, comms, msgs)
    return out


def _put(cols, rank, names, v):
    """One rank's messages (columns v, regions indexing names) into cols."""
    n = len(v["kind"])
    fn = [names[i] if 0 <= i < len(names) else ""
          for i in v["region"].tolist()]
    ofn = [names[i] if 0 <= i < len(names) else None
           for i in v["origin_region"].tolist()]
    cols["rank"].append(np.full(n, rank, np.int32))
    cols["function"].append(np.array(fn, dtype=object))
    cols["origin_function"].append(np.array(ofn, dtype=object))
    cols["kind"].append(np.array([KINDS.get(k, str(k))
                                  for k in v["kind"].tolist()],
                                 dtype=object))
    for k in ("thread", "peer", "tag", "comm", "root"):
        cols[k].append(np.asarray(v[k]).astype(np.int32))
    for k in _WIDE:
        cols[k].append(np.asarray(v[k]).astype(np.int64))


def _names(f):
    return [n.decode("utf-8", "replace") if isinstance(n, bytes) else str(n)
            for n in f["region_table/names"][:]]


def read(paths, ranks=None):
    """Every message of the .h5 files among paths and of the .spt.mpi
    beside each .spt among them, as column arrays (a dict of COLUMNS)."""
    cols = {c: [] for c in COLUMNS}
    sides = _sides(paths)
    for path in paths:
        if path in sides:
            rank, names, _, msgs = sides[path]
            if ranks is None or rank in ranks:
                _put(cols, rank, names, msgs)
            continue
        if not _h5.is_h5(path):
            continue
        with _h5._open(path) as f:
            names = None
            for key in sorted(f.keys()):
                m = re.fullmatch(r"rank(\d+)", key)
                if not m or "mpi/messages" not in f[key]:
                    continue
                rank = int(m.group(1))
                if ranks is not None and rank not in ranks:
                    continue
                if names is None:
                    names = _names(f)
                g = f[key]["mpi/messages"]
                _put(cols, rank, names, {k: g[k][:] for k in _INT + _WIDE})
    return {k: (np.concatenate(v) if v else
                np.empty(0, object if k in ("function", "kind",
                                            "origin_function")
                         else np.int64))
            for k, v in cols.items()}


def communicators(paths, ranks=None):
    """{rank: {comm id: [MPI_COMM_WORLD ranks]}} of the .h5 files and the
    .spt.mpi files beside the .spt files."""
    out = {}
    sides = _sides(paths)
    for path in paths:
        if path in sides:
            rank, _, comms, _ = sides[path]
            if ranks is None or rank in ranks:
                out[rank] = comms
            continue
        if not _h5.is_h5(path):
            continue
        with _h5._open(path) as f:
            for key in sorted(f.keys()):
                m = re.fullmatch(r"rank(\d+)", key)
                if not m or "mpi/communicators" not in f[key]:
                    continue
                rank = int(m.group(1))
                if ranks is not None and rank not in ranks:
                    continue
                g = f[key]["mpi/communicators"]
                ids, sizes = g["ids"][:].tolist(), g["sizes"][:].tolist()
                offs, mem = g["member_offsets"][:].tolist(), g["members"][:]
                out[rank] = {i: mem[o:o + s].tolist()
                             for i, s, o in zip(ids, sizes, offs)}
    return out
