#!/usr/bin/python3
# test_e2e_import.py - runs e2e_import_prog as 3 ranks (rank 0 writing
# .h5, ranks 1 and 2 .spt), merges them with sp-import and checks the
# result with h5py against the counts the program makes and, exactly,
# against the timestamps in the per-rank files (read here independently).
import os
import shutil
import struct
import subprocess
import sys

import h5py
import numpy as np

PROG, IMPORT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
from sptest import check, failures  # noqa: E402


def read_spt(path):
    """Independent .spt reader: {(thread, name): (file, line, starts, ends)}."""
    b = open(path, "rb").read()
    assert b[:8] == b"SCOPEPRF"
    o = "<" if 1 <= struct.unpack_from("<i", b, 8)[0] <= 0xFFFF else ">"
    version, rank, n = struct.unpack_from(o + "iiq", b, 8)
    pos, out = 24, {}
    for _ in range(n):
        thread = 0
        if version >= 3:
            (thread,), pos = struct.unpack_from(o + "i", b, pos), pos + 4
        (ln,) = struct.unpack_from(o + "i", b, pos)
        name = b[pos + 4:pos + 4 + ln].decode()
        pos += 4 + ln
        file, line = "", -1
        if version >= 2:
            (fl,) = struct.unpack_from(o + "i", b, pos)
            file = b[pos + 4:pos + 4 + fl].decode()
            pos += 4 + fl
            (line,) = struct.unpack_from(o + "i", b, pos)
            pos += 4
        (cnt,) = struct.unpack_from(o + "q", b, pos)
        pos += 8
        if version >= 4:
            # two LEB128 varints a call: start - previous start, end - start
            (zb,) = struct.unpack_from(o + "q", b, pos)
            pos += 8
            vals, v, shift, end = [], 0, 0, pos + zb
            while pos < end:
                v |= (b[pos] & 0x7F) << shift
                shift += 7
                if b[pos] < 0x80:
                    vals.append(v & (2**64 - 1))
                    v, shift = 0, 0
                pos += 1
            assert len(vals) == 2 * cnt and shift == 0
            s, e, prev = [], [], 0
            for i in range(cnt):
                prev = (prev + vals[2 * i]) & (2**64 - 1)
                s.append(prev - 2**64 if prev >= 2**63 else prev)
                end_v = (prev + vals[2 * i + 1]) & (2**64 - 1)
                e.append(end_v - 2**64 if end_v >= 2**63 else end_v)
        else:
            s = list(struct.unpack_from(o + "%dq" % cnt, b, pos))
            e = list(struct.unpack_from(o + "%dq" % cnt, b, pos + 8 * cnt))
            pos += 16 * cnt
        out[(thread, name)] = (file, line, s, e)
    assert pos == len(b)
    return rank, out


def read_h5_rank(path):
    with h5py.File(path, "r") as f:
        names = list(f["region_table/names"].asstr()[()])
        ix = f["rank_region_index"]
        st, en = f["events/start_times"][()], f["events/end_times"][()]
        out = {}
        for i in range(len(ix["ranks"])):
            o, c = ix["event_offsets"][i], ix["event_counts"][i]
            key = (int(ix["threads"][i]), names[ix["region_ids"][i]])
            out[key] = (ix["source_files"].asstr()[i], int(ix["source_lines"][i]),
                        st[o:o + c].tolist(), en[o:o + c].tolist())
        return int(ix["ranks"][0]), out


def fork_case():
    """Rank 1 forks a child under SP_OUTPUT=...%p: two files claim rank 1;
    --merge-processes puts the child's thread after the parent's two."""
    work = os.path.join(WORK, "fork")
    os.makedirs(work)
    env = dict(os.environ, SP_RANK="1", SP_FORMAT="spt", E2E_FORK="1",
               SP_OUTPUT=os.path.join(work, "f%p"))
    subprocess.run([PROG], env=env, check=True)
    files = sorted(f for f in os.listdir(work) if f.endswith(".spt"))
    check(len(files) == 2, f"fork: files {files}")
    if len(files) != 2:
        return
    got = {f: read_spt(os.path.join(work, f)) for f in files}
    parent = [f for f in files if (0, "outer") in got[f][1]]
    child = [f for f in files if f not in parent]
    check(len(parent) == 1 and len(child) == 1, f"fork: parent {parent}")
    if len(parent) != 1:
        return
    parent, child = parent[0], child[0]
    cb = got[child][1]
    check(got[child][0] == 1 and sorted(cb) == [(0, "io")] and len(cb[(0, "io")][2]) == 5,
          f"fork: child holds its 5 io calls only: {sorted(cb)}")
    merged = os.path.join(WORK, "fork.h5")
    p = subprocess.run([IMPORT, "-o", merged, work], capture_output=True, text=True)
    want_err = (f"sp-import: {os.path.join(work, files[1])}: rank 1 is also in "
                f"{os.path.join(work, files[0])} (processes of one rank? "
                "--merge-processes merges them)\n")
    check(p.returncode == 1 and p.stderr == want_err, f"fork: without the flag: {p.stderr!r}")
    check(not os.path.exists(merged), "fork: no output after the refusal")
    p = subprocess.run([IMPORT, "--merge-processes", "-o", merged, work],
                       capture_output=True, text=True)
    check(p.returncode == 0 and p.stderr == "", f"fork: --merge-processes: {p.stderr}")
    # Files in name order: the first keeps threads 0-1 (parent) or 0
    # (child); the second follows it.
    base = {files[0]: 0}
    base[files[1]] = 2 if files[0] == parent else 1
    want = {}
    for f in files:
        for (t, name), (_, _, s, e) in got[f][1].items():
            want[(1, t + base[f], name)] = (s, e)
    with h5py.File(merged, "r") as h:
        names = list(h["region_table/names"].asstr()[()])
        ix = h["rank_region_index"]
        st, en = h["events/start_times"][()], h["events/end_times"][()]
        rows = {}
        for i in range(len(ix["ranks"])):
            o, c = ix["event_offsets"][i], ix["event_counts"][i]
            rows[(int(ix["ranks"][i]), int(ix["threads"][i]), names[ix["region_ids"][i]])] = (
                st[o:o + c].tolist(), en[o:o + c].tolist())
        check(rows == want, f"fork: merged rows {sorted(rows)} != {sorted(want)}")
        m = h["metadata"].attrs
        procs = [f"rank 1 threads {base[f]}-{base[f] + (1 if f == parent else 0)}: "
                 f"{os.path.join(work, f)}" for f in files]
        check(list(m["processes"]) == procs, f"fork: processes {list(m['processes'])}")
        check(int(m["mpi_size"]) == 1, "fork: mpi_size counts ranks")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    prefix = os.path.join(WORK, "e2e")
    for rank, fmt in ((0, "h5"), (1, "spt"), (2, "spt")):
        env = dict(os.environ, SP_RANK=str(rank), SP_FORMAT=fmt, SP_OUTPUT=prefix)
        for k in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"):
            env.pop(k, None)
        subprocess.run([PROG], env=env, check=True)
    files = sorted(os.listdir(WORK))
    check(files == ["e2e_rank00000.h5", "e2e_rank00001.spt", "e2e_rank00002.spt"],
          f"per-rank files {files}")
    inputs = {0: read_h5_rank(prefix + "_rank00000.h5")[1]}
    for r in (1, 2):
        rank, blocks = read_spt(prefix + "_rank%05d.spt" % r)
        check(rank == r, f"rank in .spt {rank}")
        inputs[r] = blocks

    merged = os.path.join(WORK, "merged.h5")
    p = subprocess.run([IMPORT, "-o", merged, WORK], capture_output=True, text=True)
    check(p.returncode == 0 and p.stderr == "", f"sp-import: {p.stderr}")
    with h5py.File(merged, "r") as f:
        check(int(f.attrs["scope_profiler_schema"]) == 2, "schema")
        names = list(f["region_table/names"].asstr()[()])
        check(sorted(names) == ["io", "outer", "solve", "worker"], f"names {names}")
        ix = f["rank_region_index"]
        st, en = f["events/start_times"][()], f["events/end_times"][()]
        stats = ix["summary_statistics"][()]
        rows = {}
        for i in range(len(ix["ranks"])):
            key = (int(ix["ranks"][i]), int(ix["threads"][i]), names[ix["region_ids"][i]])
            o, c = ix["event_offsets"][i], ix["event_counts"][i]
            rows[key] = (ix["source_files"].asstr()[i], int(ix["source_lines"][i]),
                         st[o:o + c].tolist(), en[o:o + c].tolist(), stats[i])
        want = {}
        for r in range(3):
            want[(r, 0, "outer")] = 2 + r
            want[(r, 0, "solve")] = 3 * (2 + r)
            want[(r, 0, "io")] = 2 + r
        want[(1, 1, "worker")] = 4
        want[(1, 1, "solve")] = 4
        check(sorted(rows) == sorted(want), f"rows {sorted(rows)}")
        loc = {"outer": ("e2e.c", 10), "solve": ("e2e.c", 20),
               "worker": ("e2e.c", 30), "io": ("", -1)}
        for key, n in want.items():
            if key not in rows:
                continue
            file, line, s, e, sm = rows[key]
            r, t, name = key
            check(len(s) == n, f"{key} calls {len(s)} != {n}")
            check((file, line) == loc[name], f"{key} source {file}:{line}")
            src = inputs[r][(t, name)]
            check(s == src[2] and e == src[3], f"{key} timestamps differ from input")
            d = np.array(e) - np.array(s)
            check(sm["calls"] == n and sm["total_ns"] == d.sum(), f"{key} totals")
            check(sm["min_ns"] == d.min() and sm["max_ns"] == d.max(), f"{key} min/max")
            check(s == sorted(s), f"{key} calls in start order")
        # outer's exclusive time: its total minus its solves and io.
        for r in range(3):
            o, sv, io = rows[(r, 0, "outer")], rows[(r, 0, "solve")], rows[(r, 0, "io")]
            inner = sum(np.array(sv[3]) - np.array(sv[2])) + sum(np.array(io[3]) - np.array(io[2]))
            check(o[4]["exclusive_ns"] == o[4]["total_ns"] - inner, f"rank {r} outer exclusive")
            check(sv[4]["exclusive_ns"] == sv[4]["total_ns"], f"rank {r} solve exclusive")
        w = rows[(1, 1, "worker")]
        ws = rows[(1, 1, "solve")]
        check(w[4]["exclusive_ns"] == w[4]["total_ns"] - ws[4]["total_ns"], "worker exclusive")
        m = f["metadata"].attrs
        check(m["label"] == "merged" and int(m["mpi_size"]) == 3, "label, mpi_size")
    fork_case()
    if failures:
        print(f"{len(failures)} failures")
        sys.exit(1)
    print("test_e2e_import: all checks passed")


main()
