#!/usr/bin/python3
# test_native_trace.py - scopeprof.native_trace and the sources shipped in
# the package: the seed's commands build a C and a Fortran program from the
# package alone; reading (.spt 1-3, both byte orders, per-rank .h5) against
# what the test wrote and h5py; convert_traces against sp-import's file
# (h5py, dataset by dataset) and sp-report's table; errors; the temporary
# file. --venv: the same, with the package pip-installed into a venv made
# here (offline), and the wheel's contents.
import argparse
import glob
import os
import shutil
import struct
import subprocess
import sys
import zipfile

ap = argparse.ArgumentParser()
ap.add_argument("--import", dest="imp", required=True)
ap.add_argument("--report", required=True)
ap.add_argument("--prog", required=True, help="py_prog (writes .h5 and .spt)")
ap.add_argument("--tests", required=True, help="test/python")
ap.add_argument("--work", required=True)
ap.add_argument("--staged", help="directory holding the staged package")
ap.add_argument("--venv-source", help="source tree to pip install into a venv")
args = ap.parse_args()

from sptest import check, eq, failures  # noqa: E402


WORK = args.work
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

# -- the interpreter the seed's `python -c ...` commands find -------------
if args.venv_source:
    venv = os.path.join(WORK, "venv")
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages",
                    venv], check=True)
    py = os.path.join(venv, "bin", "python")
    # a copy, so pip's build leaves the source tree alone
    src = os.path.join(WORK, "src")
    for part in ("pyproject.toml", "setup.py", "MANIFEST.in", "python",
                 "scripts/amalgamate.py", "runtime", "format",
                 "fortran/scope_profiler.f90", "docs/python.md"):
        a, b = os.path.join(args.venv_source, part), os.path.join(src, part)
        os.makedirs(os.path.dirname(b), exist_ok=True)
        if os.path.isdir(a):
            shutil.copytree(a, b, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(a, b)
    pip = [py, "-m", "pip", "--disable-pip-version-check", "--no-cache-dir"]
    off = ["--no-build-isolation", "--no-index"]
    p = subprocess.run(pip + ["install"] + off + [src], capture_output=True, text=True)
    check(p.returncode == 0, "pip install: " + p.stdout[-2000:] + p.stderr[-2000:])
    dist = os.path.join(WORK, "dist")
    p = subprocess.run(pip + ["wheel", "--no-deps", "-w", dist] + off + [src],
                       capture_output=True, text=True)
    check(p.returncode == 0, "pip wheel: " + p.stderr[-2000:])
    wheels = glob.glob(os.path.join(dist, "scopeprof-*-py3-none-any.whl"))
    eq(len(wheels), 1, "one pure-Python wheel")
    if wheels:
        names = set(zipfile.ZipFile(wheels[0]).namelist())
        for f in ("scopeprof/c/scope_profiler.c", "scopeprof/c/scope_profiler.h",
                  "scopeprof/fortran/scope_profiler.f90",
                  "scopeprof/native_trace.py", "scopeprof/_h5write.py"):
            check(f in names, "wheel carries " + f)
        meta = [n for n in names if n.endswith("METADATA")]
        text = zipfile.ZipFile(wheels[0]).read(meta[0]).decode() if meta else ""
        for line in ("Requires-Dist: numpy", "Provides-Extra: pandas",
                     "Provides-Extra: plot", "Provides-Extra: h5py"):
            check(line in text, "wheel METADATA: " + line)
        check("Requires-Dist: h5py\n" not in text,
              "no hard h5py requirement (Debian's is h5py._debian_h5py_serial)")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
else:
    py = "/usr/bin/python3"
    env = dict(os.environ, PYTHONPATH=args.staged)
bindir = os.path.join(WORK, "bin")
os.makedirs(bindir)
# a script, not a link: a venv's interpreter finds its venv by its own path
with open(os.path.join(bindir, "python"), "w") as f:
    f.write('#!/bin/sh\nexec "%s" "$@"\n' % py)
os.chmod(os.path.join(bindir, "python"), 0o755)
env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
for k in ("SP_OUTPUT", "SP_FORMAT", "SP_RANK", "OMPI_COMM_WORLD_RANK",
          "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"):
    env.pop(k, None)

# This very process uses the package the commands see.
where = subprocess.run(["python", "-c", "import scopeprof, os; "
                        "print(os.path.dirname(os.path.dirname(scopeprof.__file__)))"],
                       env=env, capture_output=True, text=True, check=True).stdout.strip()
if args.venv_source:
    check("/venv/" in where, "the venv's scopeprof: " + where)
sys.path.insert(0, where)
import h5py  # noqa: E402
import numpy as np  # noqa: E402

import scopeprof.native_trace as nt  # noqa: E402
from scopeprof import read_h5, read_h5_summary  # noqa: E402
from scopeprof.native_trace import TraceFormatError  # noqa: E402


def sh(cmd, cwd, what):
    p = subprocess.run(cmd, shell=True, cwd=cwd, env=env, capture_output=True, text=True)
    check(p.returncode == 0, "%s: %s exited %d: %s" % (what, cmd, p.returncode,
                                                       p.stderr[-3000:]))
    return p


# -- the seed's commands, as written (but the import line) ----------------
SEED_C = ('cc -c $(python -c             "import scopeprof.native_trace as t; '
          'print(t.c_source_path())")            -I$(python -c             '
          '"import scopeprof.native_trace as t; print(t.c_include_dir())")')
SEED_F = ('gfortran -c $(python -c             "import scopeprof.native_trace '
          'as t; print(t.fortran_source_path())")')
INC = '$(python -c "import scopeprof.native_trace as t; print(t.c_include_dir())")'

cdir = os.path.join(WORK, "cprog")
os.makedirs(cdir)
sh(SEED_C, cdir, "seed: compile the C runtime")
check(os.path.isfile(os.path.join(cdir, "scope_profiler.o")), "scope_profiler.o")
sh("cc -Wall -Wextra -Werror -I%s %s scope_profiler.o -lpthread -ldl -o prog"
   % (INC, os.path.join(args.tests, "native_prog.c")), cdir, "link the C program")
sh("SP_OUTPUT=%s/out ./prog" % cdir, cdir, "run the C program")
# the same in one line, as the docs show it
sh("cc -I%s %s $(python -c 'import scopeprof.native_trace as t; print(t.c_source_path())') "
   "-lpthread -ldl -o prog1" % (INC, os.path.join(args.tests, "native_prog.c")),
   cdir, "one-line C build")
eq(nt.find_traces(cdir), [nt.Path(cdir, "out_rank00000.spt")], "C program's output")
r = nt.load_traces(cdir)
eq(r["step"].num_calls, 3, "C step calls")
eq(r["inner"].num_calls, 12, "C inner calls")
eq(r["work"].num_calls, 5, "C work calls")
eq((r["step"].source_file, r["step"].source_lineno), ("native_prog.c", 20), "C step source")
eq((r["inner"].source_file, r["inner"].source_lineno), (None, None), "C inner source")
eq(r.threads(0), [0, 1], "C program's two threads")
# thread 0 is the first that recorded: the worker, joined before main starts
eq(r["work"][0].threads, [0], "work on the worker thread")
eq(r["step"][0].threads, [1], "step on the main thread")
rank, regs = nt.read_trace(os.path.join(cdir, "out_rank00000.spt"))
eq(rank, 0, "C rank")
with open(os.path.join(cdir, "out_rank00000.spt"), "rb") as f:
    eq(struct.unpack("<i", f.read(12)[8:])[0], 4, ".spt version 4 by default")
# SP_SPT_VERSION=3: the fixed-size layout (3: two threads), the same calls
sh("SP_SPT_VERSION=3 SP_OUTPUT=%s/v3 ./prog" % cdir, cdir, "run it for version 3")
with open(os.path.join(cdir, "v3_rank00000.spt"), "rb") as f:
    eq(struct.unpack("<i", f.read(12)[8:])[0], 3, "two threads: .spt version 3")
_, regs3 = nt.read_trace(os.path.join(cdir, "v3_rank00000.spt"))
eq(sorted(regs3), sorted(regs), "version 3: the regions")
for k in regs:
    eq((len(regs3[k][0]), regs3[k].threads.tolist()),
       (len(regs[k][0]), regs[k].threads.tolist()), "version 3: calls of " + k)
eq(sorted(regs), ["inner", "step", "work"], "C regions")
eq(regs["work"].threads.tolist(), [0] * 5, "work's calls on thread 0")
eq(regs["inner"].threads.tolist(), [1] * 12, "inner's calls on thread 1")
eq(regs["step"].source_file, "native_prog.c", "read_trace source_file")

fdir = os.path.join(WORK, "fprog")
os.makedirs(os.path.join(fdir, "rt"))
sh(SEED_F, fdir, "seed: compile the Fortran module")
# the C runtime beside it: its object is scope_profiler.o too
sh(SEED_C, os.path.join(fdir, "rt"), "seed: C runtime for Fortran")
sh("gfortran %s scope_profiler.o rt/scope_profiler.o -lpthread -ldl -o fprog"
   % os.path.join(args.tests, "native_prog.f90"), fdir, "link the Fortran program")
sh("./fprog", fdir, "run the Fortran program")
r = nt.load_traces(fdir, label="fortran")
eq(r["solve"].num_calls, 6, "Fortran solve calls")
eq(r["io"].num_calls, 12, "Fortran io calls")
eq((r["solve"].source_file, r["solve"].source_lineno), ("native_prog.f90", 9),
   "Fortran solve source")
eq(r.metadata.get("label"), "fortran", "label")
# sp-report's table agrees with the package's counts
rep = subprocess.run([args.report, "--export", "csv", os.path.join(fdir, "ftrace_rank00000.spt")],
                     capture_output=True, text=True)
check(rep.returncode == 0, "sp-report on the Fortran trace")
rows = {ln.split(",")[0]: ln.split(",") for ln in rep.stdout.splitlines()[1:]}
head = rep.stdout.splitlines()[0].split(",") if rep.stdout else []
if "calls" in head:
    k = head.index("calls")
    eq(int(rows["solve"][k]), 6, "sp-report solve calls")
    eq(int(rows["io"][k]), 12, "sp-report io calls")
else:
    check(False, "sp-report csv header: %r" % head)

# the amalgamation is clean under each compiler and level (-Werror)
for cc in ("gcc", "clang-22"):
    if not shutil.which(cc):
        continue
    for opt in ("-O0", "-O2"):
        p = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", opt, "-c",
                            str(nt.c_source_path()), "-I", str(nt.c_include_dir()),
                            "-o", os.path.join(WORK, "amalgam.o")],
                           capture_output=True, text=True)
        check(p.returncode == 0, "%s %s -Wall -Wextra -Werror: %s"
              % (cc, opt, p.stderr[-2000:]))
check(nt.C_DIR == nt.c_include_dir() and nt.FORTRAN_DIR / "scope_profiler.f90"
      == nt.fortran_source_path(), "C_DIR, FORTRAN_DIR")

if args.venv_source:
    # the rest reads and writes files: the staged package's run covers it
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print("ok")
    sys.exit(0)


# -- reading .spt versions 1-3 in both byte orders ------------------------
def spt(version, rank, blocks, order="<"):
    """blocks = [(thread, name, file, line, starts, ends)]"""
    b = nt.MAGIC + struct.pack(order + "iiq", version, rank, len(blocks))
    for thread, name, file, line, s, e in blocks:
        if version == 3:
            b += struct.pack(order + "i", thread)
        b += struct.pack(order + "i", len(name.encode())) + name.encode()
        if version >= 2:
            b += struct.pack(order + "i", len(file.encode())) + file.encode()
            b += struct.pack(order + "i", line)
        b += struct.pack(order + "q", len(s))
        b += struct.pack(order + "%dq" % len(s), *s) + struct.pack(order + "%dq" % len(e), *e)
    return b


def put(path, data):
    with open(path, "wb") as f:
        f.write(data)


T = 1_000_000_000
sdir = os.path.join(WORK, "spt")
os.makedirs(sdir)
cases = {
    1: [(0, "main", "", -1, [T, T + 500], [T + 400, T + 900]),
        (0, "kernel", "", -1, [T + 10, T + 20, T + 510], [T + 15, T + 300, T + 800])],
    2: [(0, "main", "a.c", 3, [T], [T + 1000]),
        (0, "kernel", "", -1, [T + 100], [T + 200])],
    3: [(0, "main", "b.f90", 7, [T], [T + 1000]),
        (1, "kernel", "k.c", 9, [T + 5, T + 50], [T + 30, T + 70]),
        (0, "kernel", "", -1, [T + 100], [T + 200])],
}
for version, blocks in cases.items():
    for order, tag in (("<", "le"), (">", "be")):
        path = os.path.join(sdir, "v%d_%s.spt" % (version, tag))
        put(path, spt(version, 7, blocks, order))
        rank, regs = nt.read_trace(path)
        what = "v%d %s" % (version, tag)
        eq(rank, 7, what + " rank")
        for name in {b[1] for b in blocks}:
            mine = sorted((b for b in blocks if b[1] == name), key=lambda b: b[0])
            s, e = regs[name]
            eq(s.tolist(), [x for b in mine for x in b[4]], what + " " + name + " starts")
            eq(e.tolist(), [x for b in mine for x in b[5]], what + " " + name + " ends")
            eq(s.dtype, np.int64, what + " int64")
            eq(regs[name].threads.tolist(), [b[0] for b in mine for _ in b[4]],
               what + " " + name + " threads")
            loc = next(((b[2], b[3]) for b in mine if b[2] or b[3] != -1), (None, None))
            eq((regs[name].source_file, regs[name].source_lineno), loc,
               what + " " + name + " source")
        ranks, meta = nt.read_native_ranks(path)
        eq((list(ranks), meta), ([7], {}), what + " read_native_ranks")
eq(nt.KNOWN_FORMAT_VERSIONS, (1, 2, 3, 4), "KNOWN_FORMAT_VERSIONS")
check(nt.FORMAT_VERSION in nt.KNOWN_FORMAT_VERSIONS, "FORMAT_VERSION")
eq((nt.MAGIC, nt.TRACE_SUFFIX, nt.HDF5_SUFFIX, nt.RANK_HDF5_GLOB),
   (b"SCOPEPRF", ".spt", ".h5", "*_rank[0-9]*.h5"), "constants")

# -- errors ---------------------------------------------------------------
good = spt(2, 1, cases[2])


def raises(exc, fn, *a, contains=""):
    try:
        fn(*a)
    except exc as e:
        check(contains in str(e), "%s: message %r lacks %r" % (fn.__name__, str(e), contains))
        return
    except Exception as e:  # noqa: BLE001
        check(False, "%s raised %r, not %s" % (fn.__name__, e, exc.__name__))
        return
    check(False, "%s did not raise %s" % (fn.__name__, exc.__name__))


edir = os.path.join(WORK, "errors")
os.makedirs(edir)
for name, data, msg in (
        ("trunc.spt", good[:-3], "offset"),
        ("short.spt", good[:10], "truncated"),
        ("magic.spt", b"NOTATRACE" + good[9:], "bad magic"),
        ("newer.spt", nt.MAGIC + struct.pack("<iiq", 5, 0, 0), "newer"),
        ("empty.spt", b"", "truncated")):
    p = os.path.join(edir, name)
    put(p, data)
    raises(TraceFormatError, nt.read_trace, p, contains=p)
    raises(TraceFormatError, nt.read_trace, p, contains=msg)
    raises(TraceFormatError, nt.load_traces, p, contains=p)
    check(issubclass(TraceFormatError, ValueError), "TraceFormatError is a ValueError")
put(os.path.join(edir, "text.h5"), b"hello")
raises(TraceFormatError, nt.read_native_h5, os.path.join(edir, "text.h5"), contains="HDF5")
raises(TraceFormatError, nt.read_native_ranks, os.path.join(edir, "text.h5"),
       contains="neither")
raises(FileNotFoundError, nt.read_trace, os.path.join(edir, "missing.spt"))
raises(FileNotFoundError, nt.find_traces, os.path.join(edir, "missing"))
os.makedirs(os.path.join(edir, "none"))
put(os.path.join(edir, "none", "profile.h5"), b"x")
raises(FileNotFoundError, nt.find_traces, os.path.join(edir, "none"), contains="none")
raises(FileNotFoundError, nt.load_traces, [os.path.join(edir, "none")])
clash = os.path.join(edir, "clash")
os.makedirs(clash)
put(os.path.join(clash, "a_rank00001.spt"), good)
put(os.path.join(clash, "b_rank00001.spt"), good)
raises(TraceFormatError, nt.load_traces, clash, contains="rank 1 is also in")
raises(TraceFormatError, nt.convert_traces, clash, os.path.join(edir, "c.h5"),
       contains="rank 1")
check(not os.path.exists(os.path.join(edir, "c.h5")), "no output after a rank clash")

# -- runtime output: per-rank .h5 and .spt mixed, against sp-import --------
rdir = os.path.join(WORK, "runtime")
os.makedirs(rdir)
for rank, fmt in ((0, "h5"), (1, "spt"), (2, "spt"), (3, "h5")):
    subprocess.run([args.prog], env=dict(env, SP_RANK=str(rank), SP_FORMAT=fmt,
                                          SP_OUTPUT=os.path.join(rdir, "run")), check=True)
put(os.path.join(rdir, "profile.h5"), b"an earlier merged file, not an input")
files = nt.find_traces([rdir, os.path.join(rdir, "run_rank00001.spt"),
                        os.path.join(rdir, ".", "run_rank00000.h5")])
eq([f.name for f in files], ["run_rank00000.h5", "run_rank00001.spt",
                             "run_rank00002.spt", "run_rank00003.h5"], "find_traces")
os.unlink(os.path.join(rdir, "profile.h5"))

h5file = os.path.join(rdir, "run_rank00003.h5")
ranks, meta = nt.read_native_h5(h5file)
eq(list(ranks), [3], "read_native_h5 ranks")
with h5py.File(h5file, "r") as f:
    names = list(f["region_table/names"].asstr()[()])
    ix = f["rank_region_index"]
    rid, th = ix["region_ids"][()], ix["threads"][()]
    off, cnt = ix["event_offsets"][()], ix["event_counts"][()]
    st, en = f["events/start_times"][()], f["events/end_times"][()]
    eq(meta.get("hostname"), f["metadata"].attrs["hostname"], "read_native_h5 metadata")
    for name in names:
        rows = sorted((i for i in range(len(rid)) if names[rid[i]] == name),
                      key=lambda i: th[i])
        s, e = ranks[3][name]
        eq(s.tolist(), [x for i in rows for x in st[off[i]:off[i] + cnt[i]].tolist()],
           "h5 %s starts" % name)
        eq(e.tolist(), [x for i in rows for x in en[off[i]:off[i] + cnt[i]].tolist()],
           "h5 %s ends" % name)
        eq(ranks[3][name].threads.tolist(), [int(th[i]) for i in rows for _ in range(cnt[i])],
           "h5 %s threads" % name)
eq((ranks[3]["fib"].source_file, ranks[3]["fib"].source_lineno), ("py_prog.c", 20),
   "h5 source")
eq(ranks[3]["io"].source_file, None, "h5 region without a location")

ours = os.path.join(WORK, "ours.h5")
theirs = os.path.join(WORK, "theirs.h5")
got = nt.convert_traces(rdir, ours)
eq(got, nt.Path(ours), "convert_traces returns the path")
subprocess.run([args.imp, "-o", theirs, rdir], check=True, capture_output=True)


def same_file(a, b, what, skip_meta=()):
    with h5py.File(a, "r") as x, h5py.File(b, "r") as y:
        eq(int(x.attrs["scope_profiler_schema"]), 2, what + " schema")
        eq(x.attrs["scope_profiler_schema"].dtype, np.dtype("<i8"), what + " schema type")
        eq(list(x["region_table/names"].asstr()[()]), list(y["region_table/names"].asstr()[()]),
           what + " names")
        for k in ("region_ids", "ranks", "threads", "event_offsets", "event_counts",
                  "source_lines"):
            eq(x["rank_region_index/" + k][()].tolist(), y["rank_region_index/" + k][()].tolist(),
               what + " " + k)
            eq(x["rank_region_index/" + k].dtype, y["rank_region_index/" + k].dtype,
               what + " " + k + " type")
        for k in ("source_files", "source_texts", "tags"):
            eq(list(x["rank_region_index/" + k].asstr()[()]),
               list(y["rank_region_index/" + k].asstr()[()]), what + " " + k)
        sx, sy = x["rank_region_index/summary_statistics"][()], \
            y["rank_region_index/summary_statistics"][()]
        eq(sx.dtype, sy.dtype, what + " summary_statistics type")
        for fld in sy.dtype.names:
            if sy.dtype[fld].kind == "f":
                check(np.allclose(sx[fld], sy[fld], rtol=1e-12, atol=1e-6),
                      what + " " + fld)
            else:
                eq(sx[fld].tolist(), sy[fld].tolist(), what + " " + fld)
        for k in ("start_times", "end_times"):
            eq(x["events/" + k][()].tolist(), y["events/" + k][()].tolist(), what + " " + k)
            eq(x["events/" + k].dtype, np.dtype("<i8"), what + " " + k + " type")
        mx, my = dict(x["metadata"].attrs), dict(y["metadata"].attrs)
        for k in set(mx) | set(my):
            if k in skip_meta:
                continue
            check(k in mx and k in my, what + " metadata key " + k)
            if k in mx and k in my:
                a_, b_ = mx[k], my[k]
                same = (np.array_equal(a_, b_) if isinstance(a_, np.ndarray) else a_ == b_)
                check(same, "%s metadata %s: %r != %r" % (what, k, a_, b_))
                eq(np.asarray(a_).dtype.kind, np.asarray(b_).dtype.kind,
                   what + " metadata type " + k)


same_file(ours, theirs, "convert_traces vs sp-import", skip_meta=("label",))
with h5py.File(ours, "r") as f:
    eq(f["metadata"].attrs["label"], "ours", "label defaults to the output's stem")


def report(path, *opts):
    p = subprocess.run([args.report, "--export", "csv", *opts, path],
                       capture_output=True, text=True)
    check(p.returncode == 0, "sp-report %s: %s" % (path, p.stderr))
    return p.stdout


eq(report(ours), report(theirs), "sp-report's table of both files")
eq(report(ours, "--by-rank"), report(theirs, "--by-rank"), "sp-report --by-rank")
# sp-import takes our file as an input like its own
again = os.path.join(WORK, "again.h5")
p = subprocess.run([args.imp, "-o", again, ours], capture_output=True, text=True)
check(p.returncode == 0, "sp-import reads convert_traces' file: " + p.stderr)
same_file(again, theirs, "sp-import of ours vs sp-import", skip_meta=("label",))

# load_traces is read_h5 of the merged file
res = nt.load_traces(rdir, label="theirs")
ref = read_h5(theirs)
eq(res.region_names, ref.region_names, "load_traces regions")
for g in ref.get_regions():
    for rk in g.ranks:
        for a in ("num_calls", "total_duration", "exclusive_duration", "min_duration",
                  "max_duration", "source_file", "source_lineno"):
            eq(getattr(res[g.name][rk], a), getattr(g[rk], a), "load_traces %s %d %s"
               % (g.name, rk, a))
eq(res.metadata.get("mpi_size"), 4, "load_traces mpi_size")
eq(res.metadata.get("rank_ids"), ["0", "1", "2", "3"], "load_traces rank_ids")

# write_results of a selection, of a merged file, and summary-only results
sel = os.path.join(WORK, "sel.h5")
try:
    nt.write_results(read_h5_summary(theirs), sel)
    check(False, "write_results of summary-only results")
except ValueError as e:
    check("read_h5" in str(e), "summary-only message: %s" % e)
check(not os.path.exists(sel), "no file after refusing summary-only results")
from scopeprof.results import ProfilingResults  # noqa: E402
part = ProfilingResults(read_h5(theirs)._cols, regions=["solve", "fib"], ranks=[1, 2])
nt.write_results(part, sel)
back = read_h5(sel)
eq(sorted(back.region_names), ["fib", "solve"], "selection regions")
eq(back.ranks, [1, 2], "selection ranks")
for name in ("solve", "fib"):
    for rk in (1, 2):
        eq(back[name][rk].start_times_ns.tolist(), ref[name][rk].start_times_ns.tolist(),
           "selection %s rank %d calls" % (name, rk))
eq(report(sel, "--by-rank").count("\n") - 1, 4, "sp-report reads the selection")
whole = os.path.join(WORK, "whole.h5")
nt.write_results(read_h5(theirs), whole)
same_file(whole, theirs, "write_results(read_h5(f)) vs f")

# mixed inputs: hand-made .spt of all versions beside the runtime's files
mix = os.path.join(WORK, "mix")
os.makedirs(mix)
for i, (version, order) in enumerate(((1, "<"), (2, ">"), (3, "<"), (3, ">"))):
    put(os.path.join(mix, "m_rank%05d.spt" % (10 + i)), spt(version, 10 + i, cases[version], order))
inputs = [mix, os.path.join(rdir, "run_rank00000.h5"), os.path.join(rdir, "run_rank00001.spt")]
nt.convert_traces(inputs, ours, label="mix")
subprocess.run([args.imp, "-o", theirs, "--label", "mix", *inputs], check=True,
               capture_output=True)
same_file(ours, theirs, "mixed versions vs sp-import")

# -- the temporary file: exclusive, never through a planted link ----------
victim = os.path.join(WORK, "victim")
put(victim, b"keep me")
out = os.path.join(WORK, "planted.h5")
for n in range(3):
    os.symlink(victim, "%s.tmp.%d.%d" % (out, os.getpid(), n))
nt.convert_traces(rdir, out)
with open(victim, "rb") as f:
    eq(f.read(), b"keep me", "the link's target is untouched")
check(h5py.is_hdf5(out), "written under another temporary name")
for n in range(3):
    os.unlink("%s.tmp.%d.%d" % (out, os.getpid(), n))
# a failed write leaves neither the output nor a temporary
bad = os.path.join(WORK, "nodir", "x.h5")
raises(OSError, nt.convert_traces, rdir, bad)
eq(os.listdir(WORK).count("nodir"), 0, "nothing created for a missing directory")
ro = os.path.join(WORK, "ro")
os.makedirs(ro)
put(os.path.join(ro, "x.h5"), b"old")


class Boom(Exception):
    pass


from scopeprof import _h5write  # noqa: E402
orig = _h5write._fill


def failing(f, cols):
    orig(f, cols)
    raise Boom()


_h5write._fill = failing
raises(Boom, nt.convert_traces, rdir, os.path.join(ro, "x.h5"))
_h5write._fill = orig
eq(sorted(os.listdir(ro)), ["x.h5"], "a failed write leaves no temporary")
with open(os.path.join(ro, "x.h5"), "rb") as f:
    eq(f.read(), b"old", "a failed write leaves the old file")

# a write that fails (the file size limit stands for a full disk): an
# OSError, no file, and the interpreter still ends normally
fsz = os.path.join(WORK, "fsize")
os.makedirs(fsz)
code = """if True:
    import resource, signal, sys
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    import scopeprof.native_trace as nt
    try:
        nt.convert_traces(sys.argv[1], sys.argv[2])
    except OSError as e:
        print("OSError", e.errno)
"""
p = subprocess.run(["/usr/bin/python3", "-c", code, rdir, os.path.join(fsz, "x.h5")],
                   env=env, capture_output=True, text=True)
eq((p.returncode, p.stdout.split()[:1]), (0, ["OSError"]),
   "a failed write: OSError and a normal exit (%s)" % p.stderr[-500:])
eq(os.listdir(fsz), [], "a failed write leaves nothing")

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("ok")
