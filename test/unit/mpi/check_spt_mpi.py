#!/usr/bin/python3
"""check_spt_mpi.py SPT.h5 H5.h5 OUTDIR SP_IMPORT SP_REPORT [PYDIR] - the
messages
of a default run (.spt and the .spt.mpi beside each, merged into SPT.h5)
against an SP_FORMAT=h5 run of the same program (H5.h5): the same
rank<N>/mpi/ (every message's kind, partner, tag, communicator, root,
bytes, thread and function; the communicators exactly; the stamps, which
differ between runs, each the start of a call of that function in its own
file); Python's mpi_messages() of OUTDIR (with PYDIR, the package's
directory) the merged file's; then OUTDIR's sidecars damaged (cut short,
a bad field, missing, a bad checksum): one warning line each naming the
file and the byte offset (sp-import, sp-report, Python), and every rank's
calls still imported."""
import warnings
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import h5py


def fail(msg):
    sys.exit("check_spt_mpi.py: " + msg)


def names_of(f):
    return [n.decode() if isinstance(n, bytes) else n
            for n in f["region_table/names"][:]]


def ranks_with_mpi(f):
    return sorted(int(k[4:]) for k in f.keys()
                  if k.startswith("rank") and k[4:].isdigit() and
                  "mpi" in f[k])


def messages(f, rank):
    names = names_of(f)
    g = f["rank%d/mpi/messages" % rank]
    cols = {k: g[k][:] for k in g}
    out = []
    for i in range(len(cols["kind"])):
        m = {k: int(v[i]) for k, v in cols.items()}
        m["fn"] = names[m["region"]] if m["region"] >= 0 else None
        m["ofn"] = names[m["origin_region"]] if m["origin_region"] >= 0 \
            else None
        out.append(m)
    return out


def comms(f, rank):
    g = f["rank%d/mpi/communicators" % rank]
    return {k: [int(x) for x in g[k][:]] for k in g}


def call_starts(f):
    """(rank, thread, function) -> set of call starts."""
    names = names_of(f)
    idx = f["rank_region_index"]
    starts = f["events/start_times"][:]
    out = {}
    for i in range(len(idx["ranks"])):
        o, n = int(idx["event_offsets"][i]), int(idx["event_counts"][i])
        key = (int(idx["ranks"][i]), int(idx["threads"][i]),
               names[idx["region_ids"][i]])
        out.setdefault(key, set()).update(int(x) for x in starts[o:o + n])
    return out


def calls_per_rank(f):
    idx = f["rank_region_index"]
    out = {}
    for r, c in zip(idx["ranks"][:], idx["event_counts"][:]):
        out[int(r)] = out.get(int(r), 0) + int(c)
    return out


def same_messages(a, b):
    ra, rb = ranks_with_mpi(a), ranks_with_mpi(b)
    if ra != rb or not ra:
        fail("ranks with messages %s (.spt) and %s (.h5)" % (ra, rb))
    total = 0
    for f in (a, b):
        starts = call_starts(f)
        for r in ranks_with_mpi(f):
            for m in messages(f, r):
                if m["start_ns"] not in starts.get((r, m["thread"], m["fn"]),
                                                   ()):
                    fail("%s rank %d: no call of %s starts at %d"
                         % (f.filename, r, m["fn"], m["start_ns"]))
                if m["ofn"] is not None and m["origin_ns"] not in \
                        starts.get((r, m["thread"], m["ofn"]), ()):
                    fail("%s rank %d: no call of %s starts at %d (origin)"
                         % (f.filename, r, m["ofn"], m["origin_ns"]))
    keys = ("kind", "peer", "tag", "comm", "root", "bytes_sent",
            "bytes_recv", "thread", "fn", "ofn")
    for r in ra:
        ma = sorted(tuple(str(m[k]) for k in keys) for m in messages(a, r))
        mb = sorted(tuple(str(m[k]) for k in keys) for m in messages(b, r))
        if ma != mb:
            fail("rank %d: messages differ:\n%s\n%s" % (r, ma, mb))
        if comms(a, r) != comms(b, r):
            fail("rank %d: communicators %s, %s" % (r, comms(a, r),
                                                     comms(b, r)))
        total += len(ma)
    return total


def first_message_offset(path):
    """Where the first message begins in a sidecar (docs/format.md)."""
    b = open(path, "rb").read()
    nn, nc, nm = struct.unpack_from("<qqq", b, 24)
    at = 64
    for _ in range(nn):
        at += 4 + struct.unpack_from("<I", b, at)[0]
    for _ in range(nc):
        at += 8 + 4 * struct.unpack_from("<i", b, at + 4)[0]
    if nm == 0:
        fail("%s holds no message" % path)
    return at


def import_warnings(imp, src, out):
    p = subprocess.run([imp, "-o", out, src], capture_output=True, text=True)
    if p.returncode != 0:
        fail("sp-import of %s: status %d\n%s" % (src, p.returncode,
                                                  p.stderr))
    return [l for l in p.stderr.splitlines() if l]


def main():
    spt_h5, h5_h5, outdir, imp, report = sys.argv[1:6]
    py = None
    if len(sys.argv) > 6:
        sys.path.insert(0, sys.argv[6])
        import scopeprof as py
        dfs = [py.read_h5(x).mpi_messages() for x in (outdir, spt_h5)]
        dfs = [d.sort_values(list(d.columns)).reset_index(drop=True)
               for d in dfs]
        if len(dfs[0]) == 0 or not dfs[0].equals(dfs[1]):
            fail("Python: mpi_messages() of the .spt files\n%s\nof the "
                 "merged file\n%s" % (dfs[0], dfs[1]))
        cm = [py.read_h5(x).mpi_communicators() for x in (outdir, spt_h5)]
        if cm[0] != cm[1]:
            fail("Python: communicators %s, %s" % (cm[0], cm[1]))
    a, b = h5py.File(spt_h5, "r"), h5py.File(h5_h5, "r")
    n = same_messages(a, b)
    want_calls = calls_per_rank(a)
    # sp-report reads the sidecars as sp-import does: the same matrix
    mx = [json.loads(subprocess.run(
        [report, "--matrix", "--export", "json", x], check=True,
        capture_output=True, text=True).stdout) for x in (outdir, spt_h5)]
    for m in mx:
        m.pop("file", None)
    if mx[0] != mx[1]:
        fail("--matrix of the .spt files %s, of the merged file %s"
             % (mx[0], mx[1]))

    tmp = tempfile.mkdtemp()
    try:
        bad = os.path.join(tmp, "bad")
        shutil.copytree(outdir, bad)
        side = {r: os.path.join(bad, "p_rank%05d.spt.mpi" % r)
                for r in range(4)}
        size1 = os.path.getsize(side[1])
        cut = size1 // 2
        with open(side[1], "r+b") as f:
            f.truncate(cut)
        kind_at = first_message_offset(side[2]) + 28
        with open(side[2], "r+b") as f:
            f.seek(kind_at)
            f.write(struct.pack("<i", 99))
        os.unlink(side[3])
        want = {
            1: "%s: offset %d: truncated" % (side[1], cut),
            2: "%s: offset %d: a message's kind (99)" % (side[2], kind_at),
            3: "%s: offset 0: missing" % side[3],
        }
        lines = import_warnings(imp, bad, os.path.join(tmp, "b.h5"))
        check_damage(lines, want, os.path.join(tmp, "b.h5"), [0],
                     want_calls)
        if py:
            with warnings.catch_warnings(record=True) as got:
                warnings.simplefilter("always")
                df = py.read_h5(bad).mpi_messages()
            lines = [str(w.message) for w in got]
            if len(lines) != len(want) or any(
                    not any(t in l for l in lines) for t in want.values()) \
                    or set(df["rank"]) != {0}:
                fail("Python of the damaged files: ranks %s, warnings\n%s"
                     % (set(df["rank"]), "\n".join(lines)))
        # sp-report reads them as sp-import does: the same lines, its name
        p = subprocess.run([report, "--matrix", bad], capture_output=True,
                           text=True)
        lines = [l for l in p.stderr.splitlines() if l]
        if p.returncode != 0 or len(lines) != len(want) or any(
                not any(t in l and l.startswith("sp-report: warning: ")
                        for l in lines) for t in want.values()):
            fail("sp-report --matrix of the damaged files: status %d\n%s"
                 % (p.returncode, p.stderr))
        # a byte of a stamp changed: only the checksum tells
        shutil.rmtree(bad)
        shutil.copytree(outdir, bad)
        at = first_message_offset(side[0])
        size0 = os.path.getsize(side[0])
        with open(side[0], "r+b") as f:
            f.seek(at)
            x = f.read(1)
            f.seek(at)
            f.write(bytes([x[0] ^ 1]))
        want = {0: "%s: offset %d: the checksum does not match" %
                (side[0], size0 - 8)}
        lines = import_warnings(imp, bad, os.path.join(tmp, "c.h5"))
        check_damage(lines, want, os.path.join(tmp, "c.h5"), [1, 2, 3],
                     want_calls)
    finally:
        shutil.rmtree(tmp)
    print("check_spt_mpi.py: %d messages of the .spt run as of the .h5 run; "
          "damaged sidecars: one warning each, calls kept" % n)


def check_damage(lines, want, merged, intact, want_calls):
    if len(lines) != len(want):
        fail("%d warning lines, want %d:\n%s" % (len(lines), len(want),
                                                 "\n".join(lines)))
    for r, text in want.items():
        hit = [l for l in lines if text in l]
        if len(hit) != 1 or not hit[0].startswith("sp-import: warning: ") \
                or "rank %d's calls read without its MPI messages" % r \
                not in hit[0]:
            fail("no one warning with '%s':\n%s" % (text, "\n".join(lines)))
    f = h5py.File(merged, "r")
    if ranks_with_mpi(f) != intact:
        fail("%s: ranks with messages %s, want %s"
             % (merged, ranks_with_mpi(f), intact))
    if calls_per_rank(f) != want_calls:
        fail("%s: calls per rank %s, want %s" % (merged, calls_per_rank(f),
                                                  want_calls))


main()
