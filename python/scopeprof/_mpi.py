# The MPI layer's messages of a profile's .h5 files (rank<N>/mpi/, as
# docs/format-hdf5.md gives them), for ProfilingResults.mpi_messages().
import re

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


def _names(f):
    return [n.decode("utf-8", "replace") if isinstance(n, bytes) else str(n)
            for n in f["region_table/names"][:]]


def read(paths, ranks=None):
    """Every message of the .h5 files among paths, as column arrays (a
    dict of COLUMNS); a .spt holds none (its .spt.mpi is for sp-import)."""
    cols = {c: [] for c in COLUMNS}
    for path in paths:
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
                v = {k: g[k][:] for k in _INT + _WIDE}
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
                    cols[k].append(v[k].astype(np.int32))
                for k in _WIDE:
                    cols[k].append(v[k].astype(np.int64))
    return {k: (np.concatenate(v) if v else
                np.empty(0, object if k in ("function", "kind",
                                            "origin_function")
                         else np.int64))
            for k, v in cols.items()}


def communicators(paths, ranks=None):
    """{rank: {comm id: [MPI_COMM_WORLD ranks]}} of the .h5 files."""
    out = {}
    for path in paths:
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
