#!/usr/bin/python3
# test_import.py - runs sp-import on inputs made by import_gen (and on
# hand-made bad .spt files) and checks the merged file with h5py, an
# independent reader: names, rows, exact timestamps, sources, statistics.
import json
import os
import re
import shutil
import struct
import subprocess
import sys

import h5py
import numpy as np

IMPORT, GEN, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
from sptest import check, failures  # noqa: E402


def run(*args, env=None):
    p = subprocess.run([IMPORT, *args], capture_output=True, text=True, env=env)
    return p.returncode, p.stderr


def expected_rows(ranks):
    """Rows in schema-2 order: rank, thread, first start."""
    rows = []
    for r in sorted(ranks, key=lambda r: r["rank"]):
        blocks = sorted(r["blocks"], key=lambda b: (b["thread"], min(b["starts"])))
        rows += [dict(b, rank=r["rank"]) for b in blocks]
    return rows


def exclusive(rows):
    """Total minus direct children, by containment per (rank, thread)."""
    excl = {}
    by_thread = {}
    for i, b in enumerate(rows):
        excl[i] = sum(e - s for s, e in zip(b["starts"], b["ends"]))
        for s, e in zip(b["starts"], b["ends"]):
            by_thread.setdefault((b["rank"], b["thread"]), []).append((s, e, i))
    for calls in by_thread.values():
        stack = []
        for s, e, i in sorted(calls, key=lambda c: (c[0], -c[1])):
            while stack and not (stack[-1][0] <= s and e <= stack[-1][1]):
                stack.pop()
            if stack:
                excl[stack[-1][2]] -= e - s
            stack.append((s, e, i))
    return excl


def check_merged(path, label, ranks, meta=None):
    rows = expected_rows(ranks)
    # A region's location is the first one any row (in row order) has.
    loc = {}
    for b in rows:
        if b["file"] and b["region"] not in loc:
            loc[b["region"]] = (b["file"], b["line"])
    names = []
    for b in rows:
        if b["region"] not in names:
            names.append(b["region"])
    excl = exclusive(rows)
    with h5py.File(path, "r") as f:
        check(int(f.attrs["scope_profiler_schema"]) == 2, "schema attribute")
        got_names = list(f["region_table/names"].asstr()[()])
        check(got_names == names, f"names {got_names} != {names}")
        ix = f["rank_region_index"]
        n = len(rows)
        check(len(ix["region_ids"]) == n, f"{n} rows")
        rid, rk, th = ix["region_ids"][()], ix["ranks"][()], ix["threads"][()]
        off, cnt = ix["event_offsets"][()], ix["event_counts"][()]
        sfiles = list(ix["source_files"].asstr()[()])
        slines = ix["source_lines"][()]
        st = ix["summary_statistics"][()]
        starts, ends = f["events/start_times"][()], f["events/end_times"][()]
        check(f["events/start_times"].dtype == np.int64, "int64 events")
        check(ix["threads"].dtype == np.int32, "int32 threads")
        for i, b in enumerate(rows):
            where = f"row {i} (rank {b['rank']} thread {b['thread']} {b['region']})"
            check(got_names[rid[i]] == b["region"], where + " region")
            check(rk[i] == b["rank"] and th[i] == b["thread"], where + " rank/thread")
            check(cnt[i] == len(b["starts"]), where + " count")
            s = starts[off[i]:off[i] + cnt[i]].tolist()
            e = ends[off[i]:off[i] + cnt[i]].tolist()
            check(s == b["starts"] and e == b["ends"], where + " timestamps")
            file, line = loc.get(b["region"], ("", -1))
            check(sfiles[i] == file and slines[i] == line,
                  where + f" source {sfiles[i]}:{slines[i]} != {file}:{line}")
            d = np.array(b["ends"]) - np.array(b["starts"])
            want = dict(calls=len(d), total_ns=d.sum(), min_ns=d.min(),
                        max_ns=d.max(), first_start_ns=min(b["starts"]),
                        last_end_ns=max(b["ends"]), exclusive_ns=excl[i],
                        gpu_total_ns=-1)
            for k, v in want.items():
                check(st[i][k] == v, where + f" {k} {st[i][k]} != {v}")
            check(abs(st[i]["mean_ns"] - d.mean()) < 1e-6, where + " mean")
            check(abs(st[i]["std_ns"] - d.std()) < 1e-6, where + " std")
        check(off.tolist() == sorted(off.tolist()), "offsets ascending")
        check(len(starts) == sum(cnt), "no stray events")
        m = f["metadata"].attrs
        check(m["label"] == label, f"label {m['label']!r} != {label!r}")
        check(int(m["mpi_size"]) == len(ranks), "mpi_size")
        check(m["mpi_size"].dtype == np.int64, "mpi_size is int64")
        if meta is not None:
            for k, v in meta.items():
                check(m[k] == v, f"metadata {k} {m[k]!r} != {v!r}")
            return
        check(m["hostname"] == "node-0", "hostname from rank 0")
        check(int(m["omp_num_threads"]) == 2, "omp_num_threads int")
        check(list(m["modules"]) == ["profile/base", "gcc/12.3.0", "openmpi/4.1"],
              f"modules {m['modules']!r}")


def spt(version, rank, regions, order="<"):
    """A .spt image: regions = [(thread, name, file, line, starts, ends)]."""
    b = b"SCOPEPRF" + struct.pack(order + "iiq", version, rank, len(regions))
    for thread, name, file, line, s, e in regions:
        if version == 3:
            b += struct.pack(order + "i", thread)
        b += struct.pack(order + "i", len(name)) + name.encode()
        if version >= 2:
            b += struct.pack(order + "i", len(file)) + file.encode()
            b += struct.pack(order + "i", line)
        b += struct.pack(order + "q", len(s))
        b += struct.pack(order + "%dq" % len(s), *s) + struct.pack(order + "%dq" % len(e), *e)
    return b


def put(path, data):
    with open(path, "wb") as fh:
        fh.write(data)


def stream_case(out):
    """A directory holding rank 0's .spt and rank 1's torn stream: merged
    like any ranks, with exactly one warning line for the stream."""
    d = os.path.join(WORK, "stream")
    os.makedirs(d)
    subprocess.run([GEN, "--stream", d], check=True)
    with open(os.path.join(d, "expected.json")) as fh:
        exp = json.load(fh)
    os.remove(os.path.join(d, "expected.json"))
    spts = os.path.join(d, "job_rank00001.spts")
    warning = (f"sp-import: warning: {spts}: rank 1 recovered from a stream: "
               f"7 calls (1 left open), ended by signal 11; torn tail "
               f"ignored from byte {exp['torn']}\n")
    for mode in ("0", "1"):
        merged = os.path.join(out, f"stream{mode}.h5")
        rc, err = run(d, "-o", merged, env=dict(os.environ, SP_IMPORT_THREAD=mode))
        check(rc == 0, f"stream import (thread={mode}): {rc} {err!r}")
        check(err == warning, f"stream warning (thread={mode}): {err!r} != {warning!r}")
        check_merged(merged, f"stream{mode}", exp["ranks"],
                     meta={"hostname": "stream-node", "omp_num_threads": 4})
    # Named explicitly (whatever its name), the same; named twice, read once.
    named = os.path.join(WORK, "named.bin")
    shutil.copy(spts, named)
    merged = os.path.join(out, "named.h5")
    rc, err = run("-o", merged, os.path.join(d, "job_rank00000.spt"), named, named)
    check(rc == 0 and err == warning.replace(spts, named),
          f"named stream: {rc} {err!r}")
    check_merged(merged, "named", exp["ranks"],
                 meta={"hostname": "stream-node", "omp_num_threads": 4})
    # The stream and a .spt of the same rank: the usual clash.
    clash = os.path.join(WORK, "stream_clash")
    os.makedirs(clash)
    shutil.copy(spts, os.path.join(clash, "a_rank00001.spts"))
    put(os.path.join(clash, "b_rank00001.spt"),
        spt(2, 1, [(0, "f", "f.c", 3, [10], [15])]))
    rc, err = run("-o", os.path.join(out, "clash.h5"), clash)
    lines = err.splitlines()
    check(rc == 1 and len(lines) == 2 and lines[0].startswith("sp-import: warning: ")
          and "rank 1 is also in" in lines[1] and "a_rank00001.spts" in lines[1]
          and "b_rank00001.spt" in lines[1], f"stream clash: {rc} {err!r}")
    # A file of a rank with no call beside one with the rank's calls (a
    # shell's empty file under LD_PRELOAD): left out with a warning line,
    # the merge goes on with the calls.
    quiet = os.path.join(WORK, "empty_beside")
    os.makedirs(quiet)
    put(os.path.join(quiet, "b_rank00001.spt"),
        spt(2, 1, [(0, "f", "f.c", 3, [10], [15])]))
    put(os.path.join(quiet, "sh_rank00001.spt"), spt(2, 1, []))
    target2 = os.path.join(out, "empty_beside.h5")
    rc, err = run("-o", target2, quiet)
    check(rc == 0 and err == f"sp-import: warning: {quiet}/sh_rank00001.spt: "
          f"rank 1 recorded no calls; left out (rank 1 is in "
          f"{quiet}/b_rank00001.spt)\n", f"empty beside: {rc} {err!r}")
    if rc == 0:
        with h5py.File(target2, "r") as h:
            check(list(h["events/start_times"][()]) == [10] and
                  list(h["events/end_times"][()]) == [15],
                  "empty beside: the calls merged")
    # A stream that is not one: one error line with the offset.
    bad = os.path.join(WORK, "bad_rank00005.spts")
    put(bad, b"SPSTREAM" + struct.pack("<II", 3, 0x01020304) + b"\0" * 16)
    rc, err = run("-o", os.path.join(out, "bad.h5"), bad)
    check(rc == 1 and err == f"sp-import: {bad}: offset 8: unknown stream version 3 (supports 1 to 2)\n",
          f"bad stream: {rc} {err!r}")
    # A *.spts that is not a stream at all gets the stream reader's word.
    put(bad, b"NOTASTREAM" + b"\0" * 40)
    rc, err = run("-o", os.path.join(out, "bad.h5"), bad)
    check(rc == 1 and err == f"sp-import: {bad}: offset 0: bad magic: not a ScopeProf .spts stream\n",
          f"not a stream: {rc} {err!r}")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    inp, out = os.path.join(WORK, "in"), os.path.join(WORK, "out")
    os.makedirs(inp)
    os.makedirs(out)
    subprocess.run([GEN, inp], check=True)
    with open(os.path.join(inp, "expected.json")) as fh:
        ranks = json.load(fh)
    put(os.path.join(inp, "notes.txt"), b"not a profile\n")

    # 3 ranks, mixed formats, found in a directory.
    merged = os.path.join(out, "profile.h5")
    rc, err = run(inp, "-o", merged)
    check(rc == 0 and err == "", f"directory import: {rc} {err}")
    check_merged(merged, "profile", ranks)

    # The same on two threads (these ranks are small enough for one by
    # default).
    threaded = os.path.join(out, "threaded.h5")
    rc, err = run(inp, "-o", threaded, "--threads=1")
    check(rc == 0 and err == "", f"threaded import: {rc} {err}")
    check_merged(threaded, "threaded", ranks)
    # --times says which; an option wins over the environment it replaces.
    env = dict(os.environ, SP_IMPORT_THREAD="1")
    rc, err = run(inp, "-o", threaded, "--threads", "0", "--times", env=env)
    check(rc == 0 and err.startswith("sp-import: read ") and
          err.endswith("; one thread\n") and err.count("\n") == 1,
          f"--threads 0 --times over SP_IMPORT_THREAD=1: {rc} {err!r}")
    rc, err = run(inp, "-o", threaded, env=dict(env, SP_IMPORT_TIMES="1"))
    check(rc == 0 and err.endswith("; two threads\n"),
          f"SP_IMPORT_THREAD=1 SP_IMPORT_TIMES=1: {rc} {err!r}")
    rc, err = run(inp, "-o", threaded, "--threads=auto", "--times")
    check(rc == 0 and err.endswith("; one thread\n"),
          f"--threads=auto on small ranks: {rc} {err!r}")

    # An earlier merged file beside the inputs is not swallowed.
    shutil.copy(merged, os.path.join(inp, "profile.h5"))
    again = os.path.join(out, "again.h5")
    rc, err = run("--label", "second", inp, "-o", again)
    check(rc == 0, f"import beside a merged file: {err}")
    check_merged(again, "second", ranks)

    # A merged file named explicitly is read, with all its ranks.
    rc, err = run("-o", again, merged)
    check(rc == 0, f"re-import of a merged file: {err}")
    check_merged(again, "again", ranks)

    # A merged file holding ranks 0 and 2, merged again with rank 1: its
    # ranks interleave with another input's (it is read twice).
    m02 = os.path.join(out, "m02.h5")
    rc, err = run("-o", m02, os.path.join(inp, "run_rank00000.h5"),
                  os.path.join(inp, "run_rank00002.spt"))
    check(rc == 0, f"merge of ranks 0 and 2: {err}")
    for mode in ("0", "1"):
        rc, err = run("-o", again, m02, os.path.join(inp, "run_rank00001.spt"),
                      env=dict(os.environ, SP_IMPORT_THREAD=mode))
        check(rc == 0, f"interleaved merged input (thread={mode}): {err}")
        check_merged(again, "again", ranks)

    # The same file spelled three ways is read once.
    os.symlink(os.path.join(inp, "run_rank00001.spt"), os.path.join(WORK, "link.spt"))
    rc, err = run("-o", again, os.path.join(inp, "run_rank00001.spt"),
                  os.path.join(inp, ".", "run_rank00001.spt"),
                  os.path.join(WORK, "link.spt"), inp)
    check(rc == 0, f"duplicate spelling: {err}")
    check_merged(again, "again", ranks)

    # Default output name and label, in the current directory.
    rc = subprocess.run([IMPORT, inp], cwd=out).returncode
    check(rc == 0, "default output")
    check_merged(os.path.join(out, "profiling_data.h5"), "profiling_data", ranks)

    # Calls overlapping without nesting: merged, one warning for all ranks.
    ov = os.path.join(WORK, "overlap")
    os.makedirs(ov)
    for r in range(3):
        put(os.path.join(ov, "o_rank%05d.spt" % r),
            spt(2, r, [(0, "work", "w.c", 7, [0, 500], [100, 600]),
                       (0, "inner", "w.c", 9, [10, 510], [110, 610])]))
    rc, err = run("-o", os.path.join(out, "overlap.h5"), ov)
    check(rc == 0 and err.count("\n") == 1 and "warning" in err and
          "o_rank00000.spt" in err and "2 more threads" in err,
          f"overlap warning: {rc} {err!r}")
    with h5py.File(os.path.join(out, "overlap.h5"), "r") as f:
        st = f["rank_region_index/summary_statistics"][()]
        check(list(st["calls"]) == [2] * 6, "overlap: all calls kept")

    # Errors: exit 1, one line naming the file, nothing under the output,
    # an existing output kept.
    bad = os.path.join(WORK, "bad")
    os.makedirs(bad)
    good = spt(2, 7, [(0, "f", "f.c", 3, [10, 20], [15, 25])])
    cases = []

    def case(name, data, expect, offset=None):
        p = os.path.join(bad, name)
        put(p, data)
        cases.append(([p], p, expect, offset))

    case("magic.spt", b"NOTSCOPE" + good[8:], "bad magic", 0)
    case("v5.spt", spt(5, 7, []), "newer", 8)
    case("v0.spt", b"SCOPEPRF" + struct.pack("<iiq", 0, 7, 0), "unknown version", 8)
    case("trunc.spt", good[:-5], "does not fit", 40)
    case("trunchdr.spt", good[:14], "truncated", 12)
    case("neg.spt", b"SCOPEPRF" + struct.pack("<iiqi", 2, 7, 1, -5) + b"x" * 40,
         "negative", 24)
    case("count.spt", b"SCOPEPRF" + struct.pack("<iiqi", 1, 7, 1, 1) + b"f" +
         struct.pack("<q", 1 << 40) + b"\0" * 32, "calls", 29)
    case("big_endian_trunc.spt", spt(3, 7, [(0, "f", "", -1, [1], [2])], ">")[:-3],
         "does not fit", 41)
    case("regions.spt", b"SCOPEPRF" + struct.pack("<iiq", 2, 7, 1 << 40), "regions", 16)
    put(os.path.join(bad, "notes.txt"), b"x")
    cases.append(([os.path.join(bad, "missing.spt")], "missing.spt",
                  "No such file", None))
    empty = os.path.join(WORK, "empty")
    os.makedirs(empty)
    put(os.path.join(empty, "notes.txt"), b"x")
    put(os.path.join(empty, "profile.h5"), open(merged, "rb").read())
    cases.append(([empty], empty, "no *.spt", None))
    clash = os.path.join(WORK, "clash")
    os.makedirs(clash)
    put(os.path.join(clash, "a.spt"), good)
    put(os.path.join(clash, "b.spt"), spt(1, 7, [(0, "g", "", -1, [1], [2])]))
    cases.append(([clash], "b.spt", "rank 7", None))
    cases.append(([os.path.join(clash, "a.spt"), merged, os.path.join(inp, "run_rank00002.spt")],
                  "run_rank00002.spt", "rank 2", None))
    # A bad rank after good ones have been written.
    cases.append(([inp, os.path.join(bad, "trunc.spt")], "trunc.spt", "does not fit", 40))
    badh5 = os.path.join(bad, "x_rank00003.h5")
    put(badh5, b"\x89HDF\r\n\x1a\n" + b"\0" * 100)
    cases.append(([badh5], badh5, "", None))

    target = os.path.join(out, "kept.h5")
    for (args, name, expect, offset), mode in [(c, m) for c in cases for m in ("0", "1")]:
        put(target, b"OLD")
        before = sorted(os.listdir(out))
        rc, err = run("-o", target, *args, env=dict(os.environ, SP_IMPORT_THREAD=mode))
        what = f"error case {os.path.basename(name)} (thread={mode}): rc={rc} err={err!r}"
        check(rc == 1, what + " exit status")
        check(err.count("\n") == 1 and err.endswith("\n"), what + " one line")
        check(name in err and expect in err, what + f" names {name} / {expect}")
        if offset is not None:
            check(f"offset {offset}:" in err, what + f" offset {offset}")
        check(open(target, "rb").read() == b"OLD", what + " output kept")
        check(sorted(os.listdir(out)) == before, what + " no leftovers")
    # A FIFO named as an input: refused at once, not waited on.
    fifo = os.path.join(bad, "fifo.spt")
    os.mkfifo(fifo)
    try:
        p = subprocess.run([IMPORT, "-o", target, fifo], capture_output=True,
                           text=True, timeout=10)
        check(p.returncode == 1 and
              p.stderr == f"sp-import: {fifo}: not a regular file\n",
              f"fifo input: {p.returncode} {p.stderr!r}")
    except subprocess.TimeoutExpired:
        check(False, "fifo input: sp-import blocked")
    os.unlink(fifo)
    # The output is one of the inputs (named, or found in a directory):
    # refused, the input untouched.
    own = os.path.join(inp, "run_rank00001.spt")
    before = open(own, "rb").read()
    for args in ([own], [inp]):
        rc, err = run("-o", own, *args)
        check(rc == 1 and err == f"sp-import: {own}: the output is one of "
              f"the inputs ({own})\n", f"output is input {args}: {rc} {err!r}")
        check(open(own, "rb").read() == before, f"output is input {args}: kept")
    # The second clash message names both files.
    rc, err = run("-o", target, clash)
    check("a.spt" in err and "b.spt" in err, f"clash names both: {err!r}")
    # A directory with nothing to merge: one line saying what usually
    # causes it (a program linked without the runtime, or SP_OUTPUT).
    empty = os.path.join(WORK, "empty_dir")
    os.makedirs(empty, exist_ok=True)
    rc, err = run("-o", target, empty)
    check(rc == 1 and err == f"sp-import: {empty}: directory holds no *.spt, "
          "*.spts or *_rank<N>.h5 files (was the program linked with "
          "-lscopeprof, and SP_OUTPUT set to write here?)\n",
          f"empty directory: {rc} {err!r}")
    check(open(target, "rb").read() == b"OLD", "empty directory: output kept")
    # Unwritable output.
    nodir = os.path.join(WORK, "nodir", "x.h5")
    rc, err = run("-o", nodir, inp)
    check(rc == 1 and nodir in err and err.count("\n") == 1, f"unwritable: {err!r}")
    check(not os.path.exists(os.path.dirname(nodir)), "unwritable: nothing made")
    # Usage errors: status 2, one line ending with where the usage is.
    for args, why in ((["-o", target], "no input files or directories given"),
                      ([inp, "--bogus"], "unknown option --bogus"),
                      ([inp, "-x"], "unknown option -x"),
                      ([inp, "--threads", "2"], "--threads '2': one of 0, 1, auto"),
                      ([inp, "--label"], "--label needs a value"),
                      ([inp, "-o"], "-o needs a file name"),
                      ([inp, "-o", ""], "-o needs a file name")):
        rc, err = run(*args)
        check(rc == 2 and err == f"sp-import: {why} (see sp-import --help)\n",
              f"usage error {args}: {rc} {err!r}")
    rc, err = run("--help")
    check(rc == 0 and err == "", f"--help: {rc} {err!r}")
    p = subprocess.run([IMPORT, "--version"], capture_output=True, text=True)
    check(p.returncode == 0 and p.stderr == "" and
          re.fullmatch(r"sp-import \(ScopeProf\) \d+\.\d+\.\d+\n", p.stdout),
          f"--version: {p.returncode} {p.stdout!r} {p.stderr!r}")

    stream_case(out)

    if failures:
        print(f"{len(failures)} failures")
        sys.exit(1)
    print("test_import: all checks passed")


main()
