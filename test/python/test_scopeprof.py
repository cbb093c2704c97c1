#!/usr/bin/python3
# test_scopeprof.py - the Python package against sp-report and h5py: every
# statistic, call and call stack of profiles made by the runtime (py_prog,
# several ranks and threads, recursion), by sp-import, by report_gen and by
# .spt files written here (versions 1-3, both byte orders).
import csv
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import warnings

import h5py
import numpy as np

REPORT, IMPORT, REPORT_GEN, PROG, WORK = sys.argv[1:6]
import scopeprof
from scopeprof import (NestingError, build_call_arrays, call_stack_children,
                       call_stack_roots, read_h5, read_h5_summary)

from sptest import check, eq, failures, near  # noqa: E402


def close(a, b, what, rel=1e-9, abs_=1e-3):
    near(a, b, what, rel=rel, tol=abs_)


def report(*args):
    p = subprocess.run([REPORT] + list(args), capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("sp-report %s: %s" % (args, p.stderr))
    return p.stdout


def write_spt(path, rank, version, blocks, order="<"):
    """blocks: (thread, name, file, line, starts, ends)."""
    out = [b"SCOPEPRF", struct.pack(order + "iiq", version, rank, len(blocks))]
    for thread, name, file, line, s, e in blocks:
        if version == 3:
            out.append(struct.pack(order + "i", thread))
        nb = name.encode()
        out.append(struct.pack(order + "i", len(nb)) + nb)
        if version >= 2:
            fb = file.encode()
            out.append(struct.pack(order + "i", len(fb)) + fb + struct.pack(order + "i", line))
        out.append(struct.pack(order + "q", len(s)))
        out.append(struct.pack(order + "%dq" % len(s), *s))
        out.append(struct.pack(order + "%dq" % len(e), *e))
    with open(path, "wb") as f:
        f.write(b"".join(out))


def compare_with_report(label, paths):
    """Region and rank statistics, every call with its depth, and exclusive
    times against sp-report's csv and events exports."""
    args = paths if isinstance(paths, list) else [paths]
    res = read_h5(paths)
    summ = read_h5_summary(paths)
    rows = list(csv.DictReader(io.StringIO(report("--export", "csv", *args))))
    eq(sorted(r["region"] for r in rows), sorted(g.name for g in res.get_regions()),
       label + " regions")
    for r in rows:
        for which, g in (("full", res[r["region"]]), ("summary", summ[r["region"]])):
            w = "%s %s %s" % (label, which, r["region"])
            eq(g.num_ranks, int(r["ranks"]), w + " ranks")
            eq(g.num_calls, int(r["calls"]), w + " calls")
            eq(round(g.total_duration * 1e9), int(r["total_ns"]), w + " total")
            close(g.average_duration * 1e9, float(r["avg_ns"]), w + " avg")
            eq(round(g.min_duration * 1e9), int(r["min_ns"]), w + " min")
            eq(round(g.max_duration * 1e9), int(r["max_ns"]), w + " max")
            close(g.std_duration * 1e9, float(r["std_ns"]), w + " std")
            eq(round(g.exclusive_duration * 1e9), int(r["exclusive_ns"]), w + " excl")
            eq(g.source_file or "", r["file"], w + " file")
            eq(g.source_lineno if g.source_lineno is not None else -1, int(r["line"]),
               w + " line")
        # .spt traces have no summary records: read in full even then.
        check((summ[r["region"]].percentiles is None) == summ.summary_only,
              label + " summary percentiles None")
        d = res[r["region"]].durations_ns
        close(res[r["region"]].p95_duration, float(np.percentile(d, 95)) / 1e9,
              label + " p95", abs_=0)
    by_rank = csv.DictReader(io.StringIO(report("--export", "csv", "--by-rank", *args)))
    for r in by_rank:
        g = res[r["region"]][int(r["rank"])]
        w = "%s %s rank %s" % (label, r["region"], r["rank"])
        eq(g.num_calls, int(r["calls"]), w + " calls")
        eq(round(g.total_duration * 1e9), int(r["total_ns"]), w + " total")
        close(g.std_duration * 1e9, float(r["std_ns"]), w + " std")
        eq(round(g.exclusive_duration * 1e9), int(r["exclusive_ns"]), w + " excl")
    # Every call, in the report's walk order, with its depth.
    ev = list(csv.DictReader(io.StringIO(report("--export", "events", *args))))
    lo = int(round(res.minimum_start_time * 1e9))
    lo = min(int(g.start_times_ns.min()) for g in res.get_regions() if g.num_calls)
    mine = []
    excl = {}
    for rank in res.ranks:
        c = build_call_arrays(res.get_regions(), rank=rank)
        for i in range(len(c)):
            mine.append((rank, int(c.thread[i]), c.names[c.region[i]],
                         int(c.start_ns[i]) - lo, int(c.end_ns[i]) - lo,
                         int(c.duration_ns[i]), int(c.depth[i])))
            n = c.names[c.region[i]]
            excl[n] = excl.get(n, 0) + int(c.exclusive_ns[i])
            if c.parent[i] >= 0:
                p = c.parent[i]
                check(c.start_ns[p] <= c.start_ns[i] and c.end_ns[i] <= c.end_ns[p]
                      and c.depth[p] + 1 == c.depth[i], label + " parent contains")
    theirs = [(int(e["rank"]), int(e["thread"]), e["region"], int(e["start_ns"]),
               int(e["end_ns"]), int(e["duration_ns"]), int(e["depth"])) for e in ev]
    eq(mine, theirs, label + " calls and depths")
    for r in rows:
        eq(excl.get(r["region"], 0), int(r["exclusive_ns"]), label + " per-call excl sum")
    # The events frame holds every call once, with its thread.
    df = res.to_events_dataframe()
    eq(len(df), sum(g.num_calls for g in res.get_regions()), label + " frame length")
    eq(sorted(zip(df["rank"].tolist(), df["thread"].tolist(), df["name"].astype(str).tolist(),
                  np.round(df["start"].to_numpy() * 1e9).astype(np.int64).tolist())),
       sorted((m[0], m[1], m[2], m[3] + lo - res._time_origin_ns()) for m in mine),
       label + " frame calls")
    return res


def compare_with_h5py(label, path):
    """The merged file's rows and calls as h5py reads them."""
    res = read_h5(path)
    with h5py.File(path, "r") as f:
        names = list(f["region_table/names"].asstr()[()])
        ix = f["rank_region_index"]
        st, en = f["events/start_times"][()], f["events/end_times"][()]
        threads = ix["threads"][()] if "threads" in ix else np.zeros(len(ix["ranks"]))
        stats = ix["summary_statistics"][()]
        for i in range(len(ix["ranks"])):
            name, rank, t = names[ix["region_ids"][i]], int(ix["ranks"][i]), int(threads[i])
            a, n = int(ix["event_offsets"][i]), int(ix["event_counts"][i])
            tr = res[name][rank].thread(t)
            check(np.array_equal(tr.start_times_ns, st[a:a + n]), "%s %s starts" % (label, name))
            check(np.array_equal(tr.end_times_ns, en[a:a + n]), "%s %s ends" % (label, name))
            eq(tr.num_calls, int(stats["calls"][i]), label + " row calls")
            eq(round(tr.exclusive_duration * 1e9), int(stats["exclusive_ns"][i]), label + " row excl")
            t_ev = res.events(include="^%s$" % name.replace("+", "\\+"), ranks=rank, threads=t,
                              relative=False)
            check(np.array_equal(t_ev["start_ns"], st[a:a + n]), label + " events() ns")
            eq(list(t_ev["call_index"]), list(range(n)), label + " call_index")
        if "mpi_size" in f["metadata"].attrs:
            eq(res.metadata.get("mpi_size"), int(f["metadata"].attrs["mpi_size"]),
               label + " metadata")
        region_ids, ranks = ix["region_ids"][()], ix["ranks"][()]
        offsets, counts = ix["event_offsets"][()], ix["event_counts"][()]
    # The events frame, built here from the file with plain numpy: rows in
    # file order, each row's calls as stored.
    rows = [i for i in range(len(counts)) if counts[i]]
    sel = np.concatenate([np.arange(offsets[i], offsets[i] + counts[i]) for i in rows]
                         or [np.zeros(0, np.int64)])
    want = {"name": np.repeat(np.array(names, dtype=object)[region_ids[rows]], counts[rows]),
            "rank": np.repeat(ranks[rows], counts[rows]),
            "thread": np.repeat(np.asarray(threads)[rows], counts[rows]),
            "call_index": np.concatenate([np.arange(counts[i]) for i in rows]
                                         or [np.zeros(0, np.int64)]),
            "start": st[sel] / 1e9, "end": en[sel] / 1e9, "duration": (en[sel] - st[sel]) / 1e9}
    df = res.to_events_dataframe(relative=False)
    eq(list(df.columns), list(want), label + " frame columns")
    for k, v in want.items():
        check(np.array_equal(df[k].to_numpy(dtype=object if k == "name" else None), v),
              "%s frame column %s" % (label, k))
    check_frame_types(label, df, len(names), int(ranks.max(initial=0)),
                      int(np.max(threads, initial=0)))


def narrowest(top):
    return next(t for t in (np.int8, np.int16, np.int32, np.int64) if top <= np.iinfo(t).max)


# The package's version is the runtime's (scope_profiler.h, which the build
# reads too): sp-report --version prints it.
_v = subprocess.run([REPORT, "--version"], capture_output=True, text=True).stdout
check(_v == f"sp-report (ScopeProf) {scopeprof.__version__}\n",
      f"package version {scopeprof.__version__} vs {_v!r}")


def check_frame_types(label, df, nnames, top_rank, top_thread):
    """docs/python.md: categorical name over the region names, rank and
    thread the narrowest integer types, call_index int32, three float64
    columns; and (pandas 1.x) one block per type, as pandas consolidates."""
    eq([str(t) for t in df.dtypes[1:]],
       [np.dtype(narrowest(top_rank)).name, np.dtype(narrowest(top_thread)).name,
        "int32", "float64", "float64", "float64"], label + " frame dtypes")
    eq(df["name"].dtype.name, "category", label + " name categorical")
    eq(len(df["name"].cat.categories), nnames, label + " categories: the profile's names")
    import pandas as pd
    if pd.__version__.startswith("1."):
        check(df._mgr.is_consolidated(), label + " frame consolidated")
        eq(len(df._mgr.blocks), len(set(str(t) for t in df.dtypes)),
           label + " one block per type")


def many_rows_profile():
    """Rows of a few calls each (the vectorised paths of the events frame),
    150 regions (int16 codes), rank 200 (int16), three threads."""
    d = os.path.join(WORK, "many")
    os.makedirs(d)
    rng = np.random.default_rng(7)
    for rank in (0, 1, 5, 200):
        blocks = []
        for t in (0, 1, 2):
            for r in range(150):
                # Empty rows too, but every region has calls on thread 0.
                k = 0 if r % 7 == 0 and t == 1 else int(rng.integers(1 - min(t, 1), 8))
                base = 10 ** 12 + r * 10 ** 7 + t * 10 ** 9 + rank * 10 ** 10
                s = [base + 1000 * i for i in range(k)]
                blocks.append((t, "reg%03d" % r, "m.c", r, s, [x + 10 + i for i, x in enumerate(s)]))
        write_spt(os.path.join(d, "m_rank%05d.spt" % rank), rank, 3, blocks)
    merged = os.path.join(WORK, "many.h5")
    subprocess.run([IMPORT, "-o", merged, d], check=True, capture_output=True)
    compare_with_report("many rows", merged)
    compare_with_h5py("many rows", merged)
    res = read_h5(merged)
    df = res.to_events_dataframe(ranks=[0, 5], exclude="reg00[0-4]")
    eq(df["rank"].dtype.name, "int8", "many rows: rank narrowed to the selection")
    ev = res.events(ranks=[0, 5], exclude="reg00[0-4]")
    for k in ("rank", "thread", "call_index", "start", "end", "duration"):
        check(np.array_equal(df[k].to_numpy(), ev[k]), "many rows: frame = events() " + k)
    check(np.array_equal(df["name"].to_numpy(dtype=object), ev["name"]), "many rows: names")


def summary_never_reads_events(label, path):
    copy = os.path.join(WORK, "zeroed.h5")
    shutil.copy(path, copy)
    with h5py.File(copy, "r+") as f:
        f["events/start_times"][...] = 0
        f["events/end_times"][...] = 0
    a, b = read_h5_summary(path), read_h5_summary(copy)
    for g in a.get_regions():
        eq(b[g.name].get_summary(), g.get_summary(), label + " zeroed events " + g.name)
    check(a.summary_only and not read_h5(copy)["solve"].durations_ns.any(),
          label + " read_h5 does read the events")
    sub = read_h5_summary(path, regions=["solve"], ranks=[1])
    eq(sub.region_names, ["solve"], label + " summary regions=")
    eq(sub.ranks, [1], label + " summary ranks=")


def runtime_profiles():
    d = os.path.join(WORK, "runtime")
    os.makedirs(d)
    for rank, fmt in ((0, "h5"), (1, "spt"), (2, "spt"), (3, "h5")):
        env = dict(os.environ, SP_RANK=str(rank), SP_FORMAT=fmt,
                   SP_OUTPUT=os.path.join(d, "run"))
        for k in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"):
            env.pop(k, None)
        subprocess.run([PROG], env=env, check=True)
    merged = os.path.join(WORK, "runtime.h5")
    subprocess.run([IMPORT, "-o", merged, d], check=True, capture_output=True)
    res = compare_with_report("runtime dir", d)
    compare_with_report("runtime merged", merged)
    compare_with_report("runtime files", sorted(os.path.join(d, f) for f in os.listdir(d)))
    compare_with_h5py("runtime merged", merged)
    summary_never_reads_events("runtime merged", merged)
    # What py_prog does: rank R runs 2 + R timesteps, each fib(4) or fib(5)
    # (9 or 15 nested calls), and odd ranks a worker thread of 3 + R calls.
    for rank in range(4):
        eq(res["timestep"][rank].num_calls, 2 + rank, "timesteps on rank %d" % rank)
        eq(res["fib"][rank].num_calls, sum(9 if i % 2 == 0 else 15 for i in range(2 + rank)),
           "fib calls on rank %d" % rank)
        eq(res.threads(rank), [0, 1] if rank % 2 else [0], "threads of rank %d" % rank)
    # Thread 0 is whichever thread recorded first: the worker may be either.
    wt = res["worker"][3].threads[0]
    eq(res["worker"][3].thread(wt).num_calls, 6, "worker thread calls")
    eq(res["solve"][3].num_calls, 3 * 5 + 6, "solve pooled over threads")
    calls = res.call_stack(rank=1)
    fib_depths = sorted(set(c["depth"] for c in calls if c["name"] == "fib"))
    eq(fib_depths, [1, 2, 3, 4, 5], "fib recursion depths under timestep")
    kids = call_stack_children(calls)
    roots = call_stack_roots(calls)
    wt1 = res["worker"][1].threads[0]
    want = ["timestep"] * 3 + ["worker"] * 4
    eq([calls[r]["name"] for r in roots], want if wt1 == 1 else want[::-1], "roots of rank 1")
    ts = [r for r in roots if calls[r]["name"] == "timestep"]
    eq([calls[k]["name"] for k in kids[ts[0]]], ["solve"] * 3 + ["fib", "io"],
       "children of a timestep")
    for r in roots:
        child = sum(calls[k]["duration"] for k in kids[r])
        close(calls[r]["exclusive"], calls[r]["duration"] - child, "root exclusive", abs_=1e-12)
    df = res.to_events_dataframe(ranks=[1, 3], threads=[wt1] if wt1 == wt else [wt1, wt])
    df = df[((df["rank"] == 1) & (df["thread"] == wt1)) | ((df["rank"] == 3) & (df["thread"] == wt))]
    eq(sorted(set(df["name"].astype(str))), ["solve", "worker"], "threads= filter")
    eq(len(df), 2 * (4 + 6), "threads= filter length")
    one = res.to_events_dataframe(ranks=1, threads=wt1)
    eq(sorted(set(one["name"].astype(str))), ["solve", "worker"], "threads= filter, rank 1")
    eq(len(res.events(ranks=0, include="fib")), 9 + 15, "ranks= include= filter")
    eq(res.get_regions(exclude="fib|io|worker")[0].name, "timestep", "exclude")
    check(res.run_start_time is not None and 0 <= res.startup_time < 60, "startup time")
    eq(res.time_origin, res.run_start_time, "time origin is the run start")
    e0 = res.events(ranks=0, origin=res.minimum_start_time)
    eq(min(e0["start"]), 0.0, "origin=minimum_start_time starts at zero")
    return merged


def spt_profiles():
    """Versions 1-3, both byte orders, recursion and two threads; the values
    worked out by hand."""
    d = os.path.join(WORK, "spt")
    os.makedirs(d)
    B = 10 ** 12
    rec = [(0, "main", "m.c", 1, [B], [B + 1000]),
           (0, "rec", "r.c", 2, [B + 100, B + 200, B + 300, B + 600],
            [B + 900, B + 500, B + 400, B + 700]),
           (1, "main", "m.c", 1, [B + 50], [B + 450]),
           (1, "rec", "", -1, [B + 60], [B + 70])]
    write_spt(os.path.join(d, "p_rank00000.spt"), 0, 3, rec, ">")
    write_spt(os.path.join(d, "p_rank00001.spt"), 1, 1,
              [(0, "main", "", -1, [B + 10], [B + 510]),
               (0, "rec", "", -1, [B + 20, B + 30], [B + 300, B + 40])], "<")
    write_spt(os.path.join(d, "p_rank00002.spt"), 2, 2,
              [(0, "main", "m2.c", 7, [B], [B + 100])], ">")
    res = compare_with_report("spt dir", d)
    merged = os.path.join(WORK, "spt.h5")
    subprocess.run([IMPORT, "-o", merged, d], check=True, capture_output=True)
    compare_with_report("spt merged", merged)
    compare_with_h5py("spt merged", merged)
    # rank 0 thread 0: main{ rec[100,900]{ rec[200,500]{ rec[300,400] },
    # rec[600,700] } }: exclusive of rec = 800-400 + 300-100 + 100 + 100.
    eq(round(res["rec"][0].thread(0).exclusive_duration * 1e9), 400 + 200 + 100 + 100,
       "recursive exclusive")
    c = res.call_stack(rank=0)
    eq([(x["name"], x["thread"], x["depth"], x["parent"]) for x in c],
       [("main", 0, 0, -1), ("rec", 0, 1, 0), ("rec", 0, 2, 1), ("rec", 0, 3, 2),
        ("rec", 0, 2, 1), ("main", 1, 0, -1), ("rec", 1, 1, 5)], "recursive call stack")
    # The region's total counts its outermost calls: rank 0 thread 0 800
    # (rec[100,900] holds the other three), thread 1 10, rank 1 280
    # (rec[20,300] holds rec[30,40]); the mean is over all 7 calls (1600 ns).
    eq(round(res["rec"].total_duration * 1e9), 800 + 10 + 280, "outermost total")
    eq(round(res["rec"][0].total_duration * 1e9), 810, "outermost total rank 0")
    eq(round(res["rec"].average_duration * 1e9, 6), round(1600 / 7, 6),
       "mean over every call")
    summ = read_h5_summary(merged)
    eq(round(summ["rec"].total_duration * 1e9), 1090, "outermost total, summary")
    # A file whose records predate outer_total_ns: computed from the calls
    # when they are read; summary-only, every call counts.
    old = os.path.join(WORK, "spt-old.h5")
    shutil.copy(merged, old)
    with h5py.File(old, "r+") as f:
        ix = f["rank_region_index"]
        raw = ix["summary_statistics"][()]
        keep = [n for n in raw.dtype.names if n != "outer_total_ns"]
        short = np.zeros(raw.shape, dtype=[(n, raw.dtype[n]) for n in keep])
        for n in keep:
            short[n] = raw[n]
        del ix["summary_statistics"]
        ix["summary_statistics"] = short
    eq(round(read_h5(old)["rec"].total_duration * 1e9), 1090, "older file, read_h5")
    eq(round(read_h5_summary(old)["rec"].total_duration * 1e9), 1600,
       "older file, read_h5_summary")
    eq(res["main"].source_file, "m.c", "first known location")
    eq(res["main"][2].source_file, "m.c", "a region has one location")
    eq(res.metadata, {}, ".spt carries no metadata")
    return d


def report_gen_profiles():
    d = os.path.join(WORK, "gen")
    os.makedirs(os.path.join(d, "a"))
    subprocess.run([REPORT_GEN, d], check=True)
    compare_with_report("report_gen a", os.path.join(d, "a"))
    compare_with_report("report_gen recorded-nothing s1", os.path.join(d, "s1.h5"))
    bad = os.path.join(d, "bad.spt")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = read_h5(bad)
    check(any("overlap" in str(x.message) for x in w), "improper nesting warns")
    rows = list(csv.DictReader(io.StringIO(report("--export", "csv", bad))))
    for r in rows:
        eq(round(res[r["region"]].exclusive_duration * 1e9), int(r["exclusive_ns"]),
           "improper exclusive " + r["region"])
    try:
        res.call_stack(rank=3)
        check(False, "NestingError raised")
    except NestingError as e:
        check("beta" in str(e) and "alpha" in str(e), "NestingError names both: %s" % e)
    big = read_h5(os.path.join(d, "big.spt"))
    c = build_call_arrays(big.get_regions(), rank=0)
    eq(len(c), 200001, "big call arrays")
    eq(int((c.depth == 1).sum()), 200000, "big depths")
    eq(int(c.exclusive_ns[0]), 20 * 200000 - 10 * 200000, "big main exclusive")
    frame = big.to_events_dataframe()
    check(frame["name"].dtype.name == "category", "name is categorical")
    eq(frame["rank"].dtype.itemsize, 1, "rank column narrow")
    eq(frame.groupby("name", observed=True)["duration"].count().to_dict(),
       {"main": 1, "even": 100000, "odd": 100000}, "frame counts")


def thread_views():
    """by_thread() and thread_imbalance against sp-report's --by-thread,
    --by-rank and default rows, and its JSON, on report_gen's OpenMP
    profile (rank 0: four threads, work unbalanced; rank 1: one thread)."""
    d = os.path.join(WORK, "gen")
    args = [os.path.join(d, "omp"), os.path.join(d, "omp_rank1.spt")]
    res = read_h5(args)
    summ = read_h5_summary(args)
    mine = {(t["name"], t["rank"], t["thread"]): t for t in res.by_thread()}
    rows = list(csv.DictReader(io.StringIO(report("--by-thread", "--export", "csv", *args))))
    eq(sorted(mine), sorted((r["region"], int(r["rank"]), int(r["thread"])) for r in rows),
       "by_thread rows")
    for r in rows:
        t = mine.get((r["region"], int(r["rank"]), int(r["thread"])))
        if t is None:
            continue
        w = "by_thread %s rank %s thread %s" % (r["region"], r["rank"], r["thread"])
        eq(t["num_calls"], int(r["calls"]), w + " calls")
        eq(round(t["total_duration"] * 1e9), int(r["total_ns"]), w + " total")
        eq(round(t["exclusive_duration"] * 1e9), int(r["exclusive_ns"]), w + " excl")
        close(t["thread_imbalance"], float(r["thread_imbalance"]), w + " timbal", 0, 5e-5)
    # the documented example: work on rank 0's threads, 700..1750 ns
    eq([round(mine[("work", 0, k)]["total_duration"] * 1e9) for k in range(4)],
       [700, 1400, 1600, 1750], "work per thread")
    close(res["work"].thread_imbalance, 1750 / 1362.5, "work timbal", 0, 1e-12)
    eq(res["work"][1].thread_imbalance, 1.0, "one thread: timbal 1")
    for which, g in (("full", res), ("summary", summ)):
        for r in csv.DictReader(io.StringIO(report("--by-rank", "--export", "csv", *args))):
            close(g[r["region"]][int(r["rank"])].thread_imbalance,
                  float(r["thread_imbalance"]), "%s --by-rank %s %s timbal" %
                  (which, r["region"], r["rank"]), 0, 5e-5)
        for r in csv.DictReader(io.StringIO(report("--export", "csv", *args))):
            close(g[r["region"]].thread_imbalance, float(r["thread_imbalance"]),
                  "%s %s timbal" % (which, r["region"]), 0, 5e-5)
    # json takes each argument as one run
    js = json.loads(report("--export", "json", *args))["files"]
    for path, f in zip(args, js):
        one = read_h5(path)
        for n, v in f["regions"].items():
            close(one[n].thread_imbalance, v["thread_imbalance"],
                  "json %s %s timbal" % (path, n), 1e-5, 0)
    df = res.to_thread_dataframe(include="work")
    eq(list(zip(df["rank"], df["thread"], df["num_calls"])),
       [(0, 0, 3), (0, 1, 3), (0, 2, 2), (0, 3, 3), (1, 1, 1)], "thread frame")
    out = io.StringIO()
    res.print_summary(columns=["region", "timbal"], file=out)
    check(any(l.split() == ["work", "1.28"] for l in out.getvalue().splitlines()),
          "timbal column: %s" % out.getvalue())


def tree_paths(res, **kw):
    """{path: calls} of every rank's call_stack(), as sp-report --tree."""
    out = {}
    for rank in res.ranks:
        calls = res.call_stack(rank, **kw)
        for i in range(len(calls)):
            # a parent may come later in the list (another thread)
            p, names = i, []
            while p >= 0:
                names.append(calls[p]["name"])
                p = calls[p]["parent"]
            k = " > ".join(reversed(names))
            out[k] = out.get(k, 0) + 1
    return out


def report_tree(*args):
    tree, stack = {}, []
    for l in report("--tree", *args).splitlines()[2:]:
        name = l[41:]
        depth = (len(name) - len(name.lstrip(" "))) // 2
        stack[depth:] = [name.strip()]
        tree[" > ".join(stack)] = int(l[:10])
    return tree


def teams():
    """call_stack(teams=True): OpenMP workers' tasks under their parallel
    call, path by path as sp-report --tree (report_gen's OpenMP profile on
    two ranks, its nested teams); teams=False keeps them roots."""
    d = os.path.join(WORK, "gen")
    for label, args in (("omp", [os.path.join(d, "omp"), os.path.join(d, "omp_rank1.spt")]),
                        ("nested teams", [os.path.join(d, "nest.spt")])):
        res = read_h5(args)
        eq(tree_paths(res, teams=True), report_tree(*args), label + " joined tree")
        plain = tree_paths(res)
        check(any(k.startswith("omp implicit task") for k in plain if " > " not in k),
              label + " without teams: worker tasks are roots")
    calls = read_h5(os.path.join(d, "nest.spt")).call_stack(0, teams=True)
    work = sorted((c["thread"], c["depth"]) for c in calls if c["name"] == "work")
    eq(work, [(1, 5), (2, 5)], "nested teams: depths across threads")


def v4_errors():
    """Version-4 blocks: the reader's messages and offsets are the C
    reader's (test_spt.c's v4_block_errors), and its values exact."""
    def block(calls, zb, z):
        head = b"SCOPEPRF" + struct.pack("<iiq", 4, 0, 1)
        return head + struct.pack("<ii", 0, 1) + b"r" + struct.pack(
            "<iiqq", 0, -1, calls, zb) + z
    p = os.path.join(WORK, "v4.spt")
    cases = [
        (block(1, -2, b"\x05\x03"), "offset 49: bytes of calls -2: 2 left"),
        (block(1, 3, b"\x05\x03"), "offset 49: bytes of calls 3: 2 left"),
        (block(2, 3, b"\x05\x03\x01"), "offset 41: number of calls 2 does "
         "not fit in its 3 bytes (at least 2 each)"),
        (block(1, 2, b"\x85\x83"),
         "offset 57: calls: the block's bytes end inside a call"),
        (block(1, 4, b"\x05\x03\x00\x00"),
         "offset 59: 2 byte(s) after the block's 1 calls"),
        (block(1, 12, b"\x80" * 10 + b"\x01\x00"),
         "offset 57: calls: a varint longer than 10 bytes"),
        (block(1, 11, b"\x80" * 9 + b"\x02\x00"),
         "offset 57: calls: a varint longer than 10 bytes"),
    ]
    for raw, msg in cases:
        with open(p, "wb") as f:
            f.write(raw)
        try:
            read_h5(p)
            check(False, "refused: %s" % msg)
        except ValueError as e:
            eq(str(e), "%s: %s" % (p, msg), "v4 error")
    # Stamps of every size, back and forth, through an encoder written here.
    rng = np.random.default_rng(7)
    n = 50000
    st = rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64, endpoint=True)
    st[::3] = np.arange(0, n, 3) * 1000
    en = st + rng.integers(-5, 1 << 40, n)
    en[::7] = 0
    en[1::11] = 2**63 - 1
    z, prev = bytearray(), 0
    for a, e in zip(st.tolist(), en.tolist()):
        for v in ((a - prev) % 2**64, (e - a) % 2**64):
            while v >= 0x80:
                z.append(v & 0x7F | 0x80)
                v >>= 7
            z.append(v)
        prev = a
    with open(p, "wb") as f:
        f.write(block(n, len(z), bytes(z)))
    import scopeprof._spt as spt_reader
    _, blocks = spt_reader.read(p)
    eq((blocks[0]["starts"].tolist(), blocks[0]["ends"].tolist()),
       (st.tolist(), en.tolist()), "v4: every stamp back")
    with open(p, "wb") as f:
        f.write(block(1, 11, b"\x07" + b"\xff" * 9 + b"\x01"))
    ev = read_h5(p).to_events_dataframe(relative=False)
    eq((round(float(ev["start"].iloc[0]) * 1e9), round(float(ev["end"].iloc[0]) * 1e9)),
       (7, 6), "an end one before its start")


def errors():
    p = os.path.join(WORK, "trunc.spt")
    write_spt(p, 0, 2, [(0, "main", "", -1, [1], [2])])
    with open(p, "r+b") as f:
        f.truncate(os.path.getsize(p) - 3)
    for fn in (read_h5, read_h5_summary):
        try:
            fn(p)
            check(False, "truncated .spt refused")
        except ValueError as e:
            check("offset" in str(e) and "does not fit" in str(e), "error text: %s" % e)
    # A tampered index: refused as sp-report refuses it, summary or not.
    src = os.path.join(WORK, "many.h5")
    for what, want in (("calls", "summary_statistics says"),
                       ("dup", "two rows for rank")):
        bad = os.path.join(WORK, "tampered_%s.h5" % what)
        shutil.copy(src, bad)
        with h5py.File(bad, "r+") as h:
            ix = h["rank_region_index"]
            if what == "calls":
                st = ix["summary_statistics"][()]
                st["calls"][1] += 10
                ix["summary_statistics"][...] = st
            else:
                for col in ("ranks", "threads", "region_ids"):
                    v = ix[col][()]
                    v[1] = v[0]
                    ix[col][...] = v
                st = ix["summary_statistics"][()]
                st["calls"][1] = ix["event_counts"][1]
                ix["summary_statistics"][...] = st
        for fn in (read_h5, read_h5_summary):
            try:
                fn(bad)
                check(False, "%s: tampered index refused" % what)
            except ValueError as e:
                check(want in str(e) and bad in str(e), "%s: %s" % (what, e))
    p2 = os.path.join(WORK, "v9.spt")
    with open(p2, "wb") as f:
        f.write(b"SCOPEPRF" + struct.pack(">iiq", 9, 0, 0))
    try:
        read_h5(p2)
        check(False, "version 9 refused")
    except ValueError as e:
        check("newer than this reader" in str(e), "version text: %s" % e)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    check(scopeprof.read_h5 is read_h5, "import")
    runtime_profiles()
    spt_profiles()
    report_gen_profiles()
    thread_views()
    teams()
    many_rows_profile()
    errors()
    v4_errors()
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("test_scopeprof: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
