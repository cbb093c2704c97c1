#!/usr/bin/python3
# test_profile.py - SP_MODE=profile end to end, with exact values: the same
# deterministic program (threads, nesting, direct and indirect recursion)
# in trace and profile mode under a fake clock (SP_TEST_CLOCK_STEP_NS)
# gives identical summary_statistics and the same call paths, counts and
# times; hand-worked figures; SIGTERM and SIGSEGV still leave the profile
# (sp-import and sp-report read the stream); SIGKILL and _exit keep the
# last snapshot, exactly; snapshots read while threads record; --mpi and
# --suggest-filter from a profile equal to the trace's; the path bound; deep
# recursion; file size independent of the number of calls; the tools'
# refusals. Args: PROG SP_IMPORT SP_REPORT WORK
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

PROG, IMPORT, REPORT, WORK = sys.argv[1:5]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
import scopeprof  # noqa: E402

STEP = 1000
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
from sptest import check, failures  # noqa: E402


base = {k: v for k, v in os.environ.items() if not k.startswith("SP_")}


def run(args, d, **env):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    e = dict(base, SP_OUTPUT=os.path.join(d, "p"), **env)
    p = subprocess.run([PROG] + args, env=e, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p.returncode, p.stderr.decode(errors="replace")


def rows(path):
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n
                 for n in f["region_table/names"][()]]
        ix = f["rank_region_index"]
        out = {}
        for i, (r, t, s) in enumerate(zip(ix["region_ids"][()], ix["threads"][()],
                                          ix["summary_statistics"][()])):
            out[(int(t), names[r])] = s
        return out, names, ix["event_counts"][()]


def profile_paths(path):
    """(thread, (names...)) -> statistics row, from call_paths."""
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n
                 for n in f["region_table/names"][()]]
        g = f["call_paths"]
        par, reg, thr = g["parents"][()], g["region_ids"][()], g["threads"][()]
        st = g["statistics"][()]
        meta = dict(f["metadata"].attrs)
        full = []
        for i in range(len(par)):
            full.append((full[par[i]] if par[i] >= 0 else ()) + (names[reg[i]],))
        return {(int(thr[i]), full[i]): st[i] for i in range(len(par))}, meta


def trace_paths(path):
    """The same from a trace's events: nesting by containment, and a call of
    a region already on the path folded into that node."""
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n
                 for n in f["region_table/names"][()]]
        ix = f["rank_region_index"]
        s_all, e_all = f["events/start_times"][()], f["events/end_times"][()]
        calls = {}
        for r, t, o, c in zip(ix["region_ids"][()], ix["threads"][()],
                              ix["event_offsets"][()], ix["event_counts"][()]):
            for k in range(o, o + c):
                calls.setdefault(int(t), []).append(
                    (int(s_all[k]), -int(e_all[k]), names[r]))
    out = {}
    for t, cs in calls.items():
        cs.sort()
        stack = []  # (end, path, child time)
        def close(top):
            end, p, start, child = top
            d = end - start
            n = out.setdefault((t, p), [0, 0, 0])
            n[0] += 1
            n[1] += d
            n[2] += d - child
            if stack:
                stack[-1][3] += d
        for s, ne, name in cs:
            e = -ne
            while stack and stack[-1][0] <= s:
                close(stack.pop())
            up = stack[-1][1] if stack else ()
            p = up[:up.index(name) + 1] if name in up else up + (name,)
            stack.append([e, p, s, 0])
        while stack:
            close(stack.pop())
    return out


# ---- trace and profile of one deterministic program ----
dp, dt = os.path.join(WORK, "prof"), os.path.join(WORK, "trace")
rc, err = run(["threads"], dp, SP_MODE="profile", SP_TEST_CLOCK_STEP_NS=str(STEP))
check(rc == 0 and err == "", "profile run: rc %d, stderr %r" % (rc, err))
rc, err = run(["threads"], dt, SP_FORMAT="h5", SP_TEST_CLOCK_STEP_NS=str(STEP))
check(rc == 0 and err == "", "trace run: rc %d, stderr %r" % (rc, err))
fp, ft = os.path.join(dp, "p_rank00000.h5"), os.path.join(dt, "p_rank00000.h5")
check(sorted(os.listdir(dp)) == ["p_rank00000.h5"], "profile dir: %s" % os.listdir(dp))
rp, names, counts = rows(fp)
rt, _, tcounts = rows(ft)
check(sorted(rp) == sorted(rt), "rows differ: %s vs %s" % (sorted(rp), sorted(rt)))
for k in rt:
    if k in rp:
        check(rp[k].tobytes() == rt[k].tobytes(),
              "row %s: profile %s, trace %s" % (k, rp[k], rt[k]))
check(not counts.any(), "profile event_counts %s" % counts)
with h5py.File(fp, "r") as f:
    check(f["events/start_times"].shape == (0,), "profile holds events")
pp, meta = profile_paths(fp)
tp = trace_paths(ft)
check(sorted(pp) == sorted(tp), "paths differ:\n%s\n%s" % (sorted(pp), sorted(tp)))
for k, v in tp.items():
    if k in pp:
        got = [int(pp[k]["calls"]), int(pp[k]["total_ns"]), int(pp[k]["exclusive_ns"])]
        check(got == v, "path %s: profile %s, trace %s" % (k, got, v))
check(meta.get("mode") in ("profile", b"profile"), "mode metadata %r" % meta.get("mode"))

# Hand-worked (S = STEP): a worker's work { leaf; leaf; rec(2) } x3.
S = STEP
w = rp.get((0, "work"))
check(w is not None and (w["calls"], w["total_ns"], w["exclusive_ns"],
                         w["min_ns"], w["max_ns"], w["std_ns"]) ==
      (3, 33 * S, 12 * S, 11 * S, 11 * S, 0.0), "thread 0 work: %s" % (w,))
r = rp.get((0, "rec"))
check(r is not None and (r["calls"], r["total_ns"], r["exclusive_ns"],
                         r["outer_total_ns"], r["min_ns"], r["max_ns"],
                         r["mean_ns"]) == (9, 27 * S, 15 * S, 15 * S, S, 5 * S, 3.0 * S),
      "thread 0 rec: %s" % (r,))
check(r is not None and abs(r["std_ns"] - S * (8 / 3) ** 0.5) < 1e-9 * S,
      "thread 0 rec std %s" % (r["std_ns"] if r is not None else None))
# main: main_region { work x3; ping(3) }: ping 7S and 3S, pong 5S and 1S.
m = rp.get((2, "main_region"))
check(m is not None and (m["calls"], m["total_ns"], m["exclusive_ns"]) ==
      (1, 45 * S, 5 * S), "main_region: %s" % (m,))
pi, po = rp.get((2, "ping")), rp.get((2, "pong"))
check(pi is not None and (pi["calls"], pi["total_ns"], pi["exclusive_ns"],
                          pi["outer_total_ns"]) == (2, 10 * S, 4 * S, 7 * S),
      "ping: %s" % (pi,))
check(po is not None and (po["calls"], po["total_ns"], po["exclusive_ns"],
                          po["outer_total_ns"]) == (2, 6 * S, 3 * S, 5 * S),
      "pong: %s" % (po,))
check(pp.get((2, ("main_region", "ping", "pong"))) is not None and
      (2, ("main_region", "ping", "pong", "ping")) not in pp,
      "indirect recursion not folded: %s" % sorted(k for k in pp if k[0] == 2))

# The Python reader: the profile's summary, no events.
res = scopeprof.read_h5(fp)
df = res.to_dataframe().set_index("name")
tdf = scopeprof.read_h5(ft).to_dataframe().set_index("name")
check(df["num_calls"].to_dict() == tdf["num_calls"].to_dict(),
      "read_h5 calls %s vs %s" % (df["num_calls"].to_dict(), tdf["num_calls"].to_dict()))
check(len(res.to_events_dataframe()) == 0, "read_h5 of a profile has events")

# ---- the tools ----
p = subprocess.run([REPORT, "--tree", fp], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
# the share column (%) left out, checked by test_report
tree = "\n".join(l[:32] + l[39:] for l in p.stdout.decode().splitlines())
check(p.returncode == 0 and "         6      66 us      24 us  work" in tree
      and "        18      30 us      30 us    rec" in tree
      and "         2       5 us       3 us      pong" in tree,
      "sp-report --tree:\n%s%s" % (tree, p.stderr.decode()))
p = subprocess.run([REPORT, "--region", "work", fp], stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE)
e = p.stderr.decode()
check(p.returncode == 1 and p.stdout == b"" and e.count("\n") == 1 and
      "holds no events, which --region needs" in e, "--region: %d %r" % (p.returncode, e))
out = os.path.join(WORK, "mixed.h5")
p = subprocess.run([IMPORT, "-o", out, fp, ft], stderr=subprocess.PIPE)
e = p.stderr.decode()
check(p.returncode == 1 and e.count("\n") == 1 and "cannot be merged with the trace" in e
      and not os.path.exists(out), "mixed import: %d %r" % (p.returncode, e))
# Two ranks merged: the same rows and paths under each rank.
dr = os.path.join(WORK, "ranks")
shutil.rmtree(dr, ignore_errors=True)
os.makedirs(dr)
for rank in (0, 1):
    subprocess.run([PROG, "threads"], check=True, env=dict(
        base, SP_MODE="profile", SP_RANK=str(rank),
        SP_TEST_CLOCK_STEP_NS=str(STEP), SP_OUTPUT=os.path.join(dr, "p")))
out = os.path.join(WORK, "merged.h5")
p = subprocess.run([IMPORT, "-o", out, dr], stderr=subprocess.PIPE)
check(p.returncode == 0 and p.stderr == b"", "import of profiles: %r" % p.stderr)
if p.returncode == 0:
    with h5py.File(out, "r") as f:
        ranks = f["call_paths/ranks"][()]
        st = f["call_paths/statistics"][()]
        n = int((ranks == 0).sum())
        check(n == len(pp) and (ranks == 1).sum() == n, "merged paths %s" % ranks)
        check(st[ranks == 0].tobytes() == st[ranks == 1].tobytes(),
              "merged ranks' paths differ")
# Two processes of one rank (a test suite's programs, %p in the prefix):
# refused with the hint, merged by --merge-processes, the second process's
# threads numbered after the first's, every path's statistics kept.
dprocs = os.path.join(WORK, "procs")
shutil.rmtree(dprocs, ignore_errors=True)
os.makedirs(dprocs)
for k in (0, 1):
    subprocess.run([PROG, "threads"], check=True, env=dict(
        base, SP_MODE="profile", SP_RANK="0", SP_TEST_CLOCK_STEP_NS=str(STEP),
        SP_OUTPUT=os.path.join(dprocs, "p%d" % k)))
out = os.path.join(WORK, "procs.h5")
if os.path.exists(out):
    os.unlink(out)
p = subprocess.run([IMPORT, "-o", out, dprocs], stderr=subprocess.PIPE)
e = p.stderr.decode()
check(p.returncode == 1 and e.count("\n") == 1 and "rank 0 is also in" in e and
      "--merge-processes merges them" in e and not os.path.exists(out),
      "two processes of rank 0: %d %r" % (p.returncode, e))
p = subprocess.run([IMPORT, "--merge-processes", "-o", out, dprocs],
                   stderr=subprocess.PIPE)
check(p.returncode == 0 and p.stderr == b"", "--merge-processes: %r" % p.stderr)
if p.returncode == 0:
    merged, _ = profile_paths(out)
    nth = max(t for t, _ in pp) + 1
    one = {k: v for k, v in merged.items() if k[0] < nth}
    two = {(k[0] - nth, k[1]): v for k, v in merged.items()
           if k[0] >= nth}
    check(len(merged) == 2 * len(pp) and sorted(one) == sorted(pp) and
          sorted(two) == sorted(pp) and
          all(one[k].tobytes() == pp[k].tobytes() and
              two[k].tobytes() == pp[k].tobytes() for k in pp),
          "--merge-processes: paths %s" % sorted(merged))

# ---- endings: a signal with main_region and work open ----
for sig, mode, status in (("SIGTERM", "term", -15), ("SIGSEGV", "segv", -11)):
    d = os.path.join(WORK, mode)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    # CLOCK_MONOTONIC: the sums are in ns as recorded, so they add up
    # exactly (TSC sums are converted to ns one by one).
    e = dict(base, SP_MODE="profile", SP_CLOCK="monotonic",
             SP_OUTPUT=os.path.join(d, "p"))
    # In a sanitized build the fault is the test's, not a finding: the
    # sanitizer leaves SIGSEGV to the program (and so to ScopeProf).
    for k in ("ASAN_OPTIONS", "TSAN_OPTIONS"):
        if k in e:
            e[k] += " handle_segv=0"
    p = subprocess.run([PROG, mode, "1000"], env=e, stderr=subprocess.PIPE)
    check(p.returncode == status, "%s: status %d" % (sig, p.returncode))
    left = os.listdir(d)
    check(len(left) == 1 and left[0].endswith(".spts"), "%s left %s" % (sig, left))
    out = os.path.join(d, "out.h5")
    q = subprocess.run([IMPORT, "-o", out, d], stderr=subprocess.PIPE)
    check(q.returncode == 0 and b"recovered from a stream" in q.stderr,
          "%s import: %d %r" % (sig, q.returncode, q.stderr))
    if q.returncode == 0:
        r, _, _ = rows(out)
        got = {k[1]: int(v["calls"]) for k, v in r.items()}
        check(got == {"main_region": 1, "leaf": 1001, "work": 1},
              "%s calls %s" % (sig, got))
        # Open calls end at the signal: each total is its exclusive time
        # plus its callees' totals.
        q_, _ = profile_paths(out)
        t_ = {k[1]: int(v["total_ns"]) for k, v in q_.items()}
        x_ = {k[1]: int(v["exclusive_ns"]) for k, v in q_.items()}
        M, W, L = ("main_region",), ("main_region", "work"), ("main_region", "leaf")
        check(sorted(t_) == sorted([M, W, L, W + ("leaf",)]), "%s paths %s" % (sig, sorted(t_)))
        if sorted(t_) == sorted([M, W, L, W + ("leaf",)]):
            check(t_[M] == x_[M] + t_[W] + t_[L] and t_[W] == x_[W] + t_[W + ("leaf",)]
                  and t_[W] > 0, "%s: open calls' times %s %s" % (sig, t_, x_))
        with h5py.File(out, "r") as f:
            check(int(f["metadata"].attrs["calls_open_at_exit"]) == 2,
                  "%s calls_open_at_exit" % sig)
    q = subprocess.run([REPORT, d], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(q.returncode == 0 and b"leaf" in q.stdout, "%s sp-report of the stream" % sig)

# ---- the bound: 100 paths under main_region with SP_PROFILE_PATHS=16 ----
d = os.path.join(WORK, "bound")
rc, err = run(["paths", "100"], d, SP_MODE="profile", SP_PROFILE_PATHS="16")
check(rc == 0 and err == "", "bound run: %d %r" % (rc, err))
pb, meta = profile_paths(os.path.join(d, "p_rank00000.h5"))
# main_region, then p0/leaf .. p6/leaf, p7: 16 paths; p7's leaf and the
# 92 later p<i> with their leaf (each call of a path not made) fold.
check(len(pb) == 16, "bound: %d paths" % len(pb))
check(int(meta["profile_calls_folded"]) == 1 + 2 * 92,
      "bound: folded %s" % meta.get("profile_calls_folded"))
check(sum(int(v["calls"]) for v in pb.values()) == 1 + 2 * 100 - (1 + 2 * 92),
      "bound: calls in paths")

# ---- deep recursion folds into one path ----
d = os.path.join(WORK, "deep")
rc, err = run(["deep", "100000"], d, SP_MODE="profile", SP_TEST_CLOCK_STEP_NS="1")
pd, _ = profile_paths(os.path.join(d, "p_rank00000.h5"))
check(rc == 0 and list(pd) == [(0, ("rec",))] and int(pd[(0, ("rec",))]["calls"]) == 100000
      and int(pd[(0, ("rec",))]["outer_total_ns"]) == 2 * 100000 - 1,
      "deep: %s" % {k: (int(v["calls"]), int(v["outer_total_ns"])) for k, v in pd.items()})

# ---- the file's size does not grow with the calls ----
sizes = []
for n in (100000, 1000000):
    d = os.path.join(WORK, "loop%d" % n)
    rc, err = run(["loop", str(n)], d, SP_MODE="profile")
    f = os.path.join(d, "p_rank00000.h5")
    r, _, _ = rows(f)
    check(rc == 0 and int(r[(0, "leaf")]["calls"]) == n, "loop %d: %s" % (n, r.get((0, "leaf"))))
    sizes.append(os.path.getsize(f))
check(abs(sizes[1] - sizes[0]) <= 0.02 * sizes[0], "sizes %s" % sizes)


# ---- snapshots: SIGKILL and _exit lose only the calls after the last ----
def stream_psnaps(path):
    """The PSNAP records of a stream (this machine's byte order): their
    count and the last one's seq (snapshots written before it)."""
    import struct
    with open(path, "rb") as f:
        b = f.read()
    off, n, seq = 32, 0, -1
    while off + 16 <= len(b):
        t, size = struct.unpack_from("<II", b, off)
        if size < 16 or off + size > len(b):
            break
        if t == 0x5350000a:
            n += 1
            seq = struct.unpack_from("<Q", b, off + 24)[0]
        off += size
    return n, seq


def snap_start(args, d, wait=2, **env):
    """PROG with SP_TEST_SNAPSHOT_FD (a snapshot every 10 ms and a byte on
    the pipe after each), once it printed "ready" and two snapshots ended
    after that: the second began after "ready", so it holds every call
    made before. Returns (process, its "ready" line, the two bytes)."""
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    r, w = os.pipe()
    e = dict(base, SP_MODE="profile", SP_CLOCK="monotonic",
             SP_OUTPUT=os.path.join(d, "p"), SP_TEST_SNAPSHOT_FD=str(w), **env)
    p = subprocess.Popen([PROG] + args, env=e, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         pass_fds=(w,))
    os.close(w)
    ready = p.stdout.readline()
    os.set_blocking(r, False)  # bytes of snapshots ended before: dropped
    try:
        while os.read(r, 4096):
            pass
    except BlockingIOError:
        pass
    os.set_blocking(r, True)
    got = b"".join(os.read(r, 1) for _ in range(wait))
    os.close(r)
    return p, ready, got


# "long": 40 snapshots before the kill, the stream rewritten as it goes
# (in tests whenever it doubles its size after the last rewrite).
N = 1000
for how, status in (("kill", -9), ("_exit", 5), ("long", -9)):
    d = os.path.join(WORK, "snap_" + how)
    wait = 40 if how == "long" else 2
    p, ready, got = snap_start(["kill" if how == "long" else how, str(N)], d, wait)
    check(ready == b"ready\n" and got == b"s" * wait, "%s: %r %r" % (how, ready, got))
    if how != "_exit":
        p.kill()
    else:
        p.stdin.write(b"go\n")
        p.stdin.flush()
    p.wait()
    err = p.stderr.read()
    check(p.returncode == status and err == b"",
          "%s: status %d %r" % (how, p.returncode, err))
    left = os.listdir(d)
    check(len(left) == 1 and left[0].endswith(".spts"), "%s left %s" % (how, left))
    if how == "long" and len(left) == 1:
        n, seq = stream_psnaps(os.path.join(d, left[0]))
        check(seq >= 39 and 1 <= n < 20,
              "long: %d snapshots in the stream, the last #%d" % (n, seq))
    out = os.path.join(d, "out.h5")
    q = subprocess.run([IMPORT, "-o", out, d], stderr=subprocess.PIPE)
    check(q.returncode == 0 and b"recovered from a stream" in q.stderr,
          "%s import: %d %r" % (how, q.returncode, q.stderr))
    if q.returncode != 0:
        continue
    r, _, _ = rows(out)
    got = {k[1]: int(v["calls"]) for k, v in r.items()}
    # main_region and work open: ended at the last snapshot's stamp
    check(got == {"main_region": 1, "leaf": N, "work": 1}, "%s calls %s" % (how, got))
    q_, _ = profile_paths(out)
    t_ = {k[1]: int(v["total_ns"]) for k, v in q_.items()}
    x_ = {k[1]: int(v["exclusive_ns"]) for k, v in q_.items()}
    M, W, L = ("main_region",), ("main_region", "work"), ("main_region", "leaf")
    check(sorted(t_) == sorted([M, W, L]), "%s paths %s" % (how, sorted(t_)))
    if sorted(t_) == sorted([M, W, L]):
        check(t_[M] == x_[M] + t_[W] + t_[L] and t_[W] == x_[W] and t_[W] > 0,
              "%s: open calls' times %s %s" % (how, t_, x_))
        lf = q_[(0, L)]
        check(0 < int(lf["min_ns"]) <= int(lf["max_ns"]) and
              int(lf["total_ns"]) >= N * int(lf["min_ns"]) and
              int(lf["total_ns"]) <= N * int(lf["max_ns"]),
              "%s: leaf's numbers disagree: %s" % (how, lf))
    with h5py.File(out, "r") as f:
        check(int(f["metadata"].attrs["calls_open_at_exit"]) == 2,
              "%s calls_open_at_exit" % how)

# A forked child's snapshots go to a stream of its own (its first begin
# starts them): killed, it leaves its 2N calls; the parent's file its N.
# (A child that never says "ready" closes the pipe: no hang.)
d = os.path.join(WORK, "snap_fork")
shutil.rmtree(d, ignore_errors=True)
os.makedirs(d)
r, w = os.pipe()
cr, cw = os.pipe()
e = dict(base, SP_MODE="profile", SP_CLOCK="monotonic",
         SP_OUTPUT=os.path.join(d, "p%p_"), SP_TEST_SNAPSHOT_FD=str(w))
# TSan refuses a thread started in the child of a process with threads
# (the parent's writer), a limit of its own, not a finding.
if "TSAN_OPTIONS" in e:
    e["TSAN_OPTIONS"] += " die_after_fork=0"
p = subprocess.Popen([PROG, "fork", str(N), str(cw)], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(w, cw),
                     env=e)
os.close(w)
os.close(cw)
ready = p.stdout.readline().split()
os.set_blocking(cr, False)
try:
    while os.read(cr, 4096):
        pass
except BlockingIOError:
    pass
os.set_blocking(cr, True)
got = os.read(cr, 1) + os.read(cr, 1)
check(len(ready) == 2 and ready[0] == b"ready" and got == b"ss",
      "fork: %r %r" % (ready, got))
if len(ready) == 2:
    os.kill(int(ready[1]), 9)
p.stdin.close()
p.wait()
os.close(r)
os.close(cr)
err = p.stderr.read()
# (a child records only with %p in the prefix: a file of its own)
left = sorted(os.listdir(d), key=lambda f: f.endswith(".spts"))
check(p.returncode == 0 and err == b"" and len(left) == 2 and
      left[0] == "p%d__rank00000.h5" % p.pid and left[1].endswith(".spts") and
      len(ready) == 2 and left[1].startswith("p%s__" % ready[1].decode()),
      "fork: status %d %r, left %s" % (p.returncode, err, left))
if len(left) == 2 and left[1].endswith(".spts"):
    child = os.path.join(WORK, "fork_child.h5")
    q = subprocess.run([IMPORT, "-o", child, os.path.join(d, left[1])],
                       stderr=subprocess.PIPE)
    check(q.returncode == 0, "fork child import: %r" % q.stderr)
    if q.returncode == 0:
        pc, _ = profile_paths(child)
        got = {k[1]: int(v["calls"]) for k, v in pc.items()}
        check(got == {("leaf",): 2 * N}, "fork child: %s" % got)
    pp_, _ = profile_paths(os.path.join(d, left[0]))
    got = {k[1]: int(v["calls"]) for k, v in pp_.items()}
    check(got == {("main_region",): 1, ("main_region", "leaf"): N},
          "fork parent: %s" % got)

# Two threads busy while snapshots are read (at least two during their
# calls): exact counts at the end, nothing said (TSan would).
d = os.path.join(WORK, "snap_busy")
p, ready, got = snap_start(["busy"], d)
check(ready == b"ready\n" and got == b"ss", "busy: %r %r" % (ready, got))
o, err = p.communicate(b"go\n")
check(p.returncode == 0 and err == b"", "busy: status %d %r" % (p.returncode, err))
counts = sorted(int(x) for x in o.split())
check(sorted(os.listdir(d)) == ["p_rank00000.h5"], "busy left %s" % os.listdir(d))
if p.returncode == 0 and len(counts) == 2:
    r, _, _ = rows(os.path.join(d, "p_rank00000.h5"))
    for name in ("work", "leaf"):
        got = sorted(int(v["calls"]) for k, v in r.items() if k[1] == name)
        check(got == counts, "busy %s: %s, the threads said %s" % (name, got, counts))



# ---- sp-report --mpi from a profile: what the trace of the same calls
# gives. Three ranks of regions named as MPI calls (profile_prog "mpi"),
# merged, under the fake clock: main_region { compute x r; MPI_Send x r+1;
# MPI_Allreduce { MPI_Send } x 2; compute { MPI_Allreduce } }.
def report(*args):
    q = subprocess.run([REPORT] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return q.returncode, q.stdout.decode(), q.stderr.decode()


merged = {}
for mode in ("profile", "trace"):
    dm = os.path.join(WORK, "mpi_" + mode)
    shutil.rmtree(dm, ignore_errors=True)
    os.makedirs(dm)
    for rank in (0, 1, 2):
        e = dict(base, SP_RANK=str(rank), SP_TEST_CLOCK_STEP_NS=str(STEP),
                 SP_OUTPUT=os.path.join(dm, "r"), SP_FORMAT="h5")
        if mode == "profile":
            e["SP_MODE"] = "profile"
        subprocess.run([PROG, "mpi"], check=True, env=e)
    merged[mode] = os.path.join(WORK, "mpi_%s.h5" % mode)
    q = subprocess.run([IMPORT, "-o", merged[mode], dm], stderr=subprocess.PIPE)
    check(q.returncode == 0, "mpi %s import: %r" % (mode, q.stderr))
for opts in ([], ["--ranks", "1-2"], ["--exclude", "Allreduce"],
             ["--include", "Send", "--top", "1"]):
    for x in ([], ["--export", "csv"], ["--export", "json"]):
        rp, op, ep = report("--mpi", *(opts + x), merged["profile"])
        rt, ot, et = report("--mpi", *(opts + x), merged["trace"])
        # the first line (text) or the "file" (json) names the input
        op, ot = (o.replace(merged[m], "F") for o, m in
                  ((op, "profile"), (ot, "trace")))
        check(rp == 0 and ep == "" and op == ot,
              "--mpi %s from the profile:\n%s%s\nfrom the trace:\n%s" %
              (" ".join(opts + x), op, ep, ot))
# Hand-worked (S = STEP ns): rank r's MPI time is (r + 1) sends of S, two
# Allreduce of 3S (the Send inside counts once, in them) and one of S.
rc, out, err = report("--mpi", "--export", "json", merged["profile"])
if rc == 0:
    import json
    j = json.loads(out)
    got = [(r["rank"], r["calls"], r["mpi_ns"]) for r in j["ranks"]]
    check(got == [(r, (r + 1) + 2 + 3, ((r + 1) + 6 + 1) * S) for r in (0, 1, 2)],
          "--mpi of the profile, ranks: %s" % got)
    fn = {f["name"]: (f["calls"], f["total_ns"], f["min_rank"], f["max_rank"])
          for f in j["functions"]}
    check(fn == {"MPI_Allreduce": (9, 21 * S, 0, 0),
                 "MPI_Send": (12, 12 * S, 0, 2)}, "--mpi functions: %s" % fn)

# --suggest-filter from a profile: the trace's suggestion, line for line
# but the one naming the file (leaf's calls take STEP = 1 us, not worth
# recording at --record-cost 200: under 10 x 200 ns).
for opts in (["--record-cost", "200"], ["--record-cost", "1000"]):
    outs = []
    for f in (fp, ft):
        rc, out, err = report("--suggest-filter=-", *opts, f)
        check(rc == 0 and err == "", "--suggest-filter %s: %d %r" % (f, rc, err))
        outs.append(out.replace(f, "F"))
    check(outs[0] == outs[1] and "exclude function leaf" in outs[0],
          "--suggest-filter %s from the profile:\n%sfrom the trace:\n%s"
          % (opts, outs[0], outs[1]))

# What needs every call refuses a profile: one line naming the option and
# the mode, status 1, nothing written.
for args, what in ((["--svg", "timeline"], "--svg timeline"),
                   (["--export", "chrome"], "--export chrome"),
                   (["--export", "events"], "--export events"),
                   (["--events"], "--events"),
                   (["--region", "leaf"], "--region")):
    rc, out, err = report(*(args + [fp]))
    check(rc == 1 and out == "" and err.count("\n") == 1 and
          err == "sp-report: %s: a profile (SP_MODE=profile) holds no events, "
                 "which %s needs: record a trace (SP_MODE=trace)\n" % (fp, what),
          "%s of a profile: %d %r %r" % (what, rc, out, err))
otf = os.path.join(WORK, "otf2_of_profile")
shutil.rmtree(otf, ignore_errors=True)
rc, out, err = report("--export", "otf2", "-o", otf, fp)
check((rc == 1 and err.count("\n") == 1 and "SP_MODE=profile" in err and
       "--export otf2" in err and not os.path.exists(otf)) or
      (rc == 1 and "OTF2" in err),  # a build without OTF2 says so instead
      "--export otf2 of a profile: %d %r" % (rc, err))



# sp_pause in both modes (the scenario is in test_runtime.c's rt_scenario):
# a { pause b resume; c; rec { pause rec resume rec }; x (after nested
# pauses); d { pause } resume }. Calls begun while paused are nowhere; d,
# whose end came while paused, ends where the pause began: one step after
# its begin (the pause's clock read), so its total is one STEP exactly.
scen = os.path.join(os.path.dirname(PROG), "rt_scenario")
want = {(0, ("a",)): 1, (0, ("a", "c")): 1, (0, ("a", "rec")): 2,
        (0, ("a", "x")): 1, (0, ("a", "d")): 1}
warn = (b"scopeprof: 1 call(s) open when a pause began ended during it: "
        b"closed at the pause's start (call sp_resume at the call depth of "
        b"its sp_pause)\n")
for mode in ("profile", "trace"):
    d = os.path.join(WORK, "pause_" + mode)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    e = dict(base, SP_OUTPUT=os.path.join(d, "p"), SP_FORMAT="h5",
             SP_TEST_CLOCK_STEP_NS=str(STEP))
    if mode == "profile":
        e["SP_MODE"] = "profile"
    p = subprocess.run([scen, "pause"], stderr=subprocess.PIPE, env=e)
    check(p.returncode == 0 and p.stderr == warn, "pause %s: rc %d %r" % (mode, p.returncode, p.stderr))
    f = os.path.join(d, "p_rank00000.h5")
    paths = profile_paths(f)[0] if mode == "profile" else trace_paths(f)
    got = {k: int(v["calls"]) if mode == "profile" else v[0] for k, v in paths.items()}
    check(got == want, "pause %s paths: %s" % (mode, got))
    dp = paths[(0, ("a", "d"))]
    check((int(dp["total_ns"]) if mode == "profile" else dp[1]) == STEP,
          "pause %s d: %s" % (mode, dp))
    if mode == "profile":
        a = paths[(0, ("a",))]
        kids = sum(int(paths[k]["outer_total_ns"]) for k in want if len(k[1]) == 2)
        # a's true end came after its recorded children and the paused calls
        check(int(a["total_ns"]) > kids and int(a["exclusive_ns"]) == int(a["total_ns"]) - kids,
              "pause profile a: %s (children %d)" % (a, kids))

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("ok")
