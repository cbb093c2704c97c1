#!/usr/bin/python3
# test_manager.py - ProfileManager on libscopeprof: scope-profiler's
# documented examples (only the import line changed) run in fresh
# processes, Python regions around C code built with the plugin; the file
# checked with h5py, the returned results against the file, nothing left
# behind by deactivate_file_output, the options' errors.
import json
import os
import shutil
import subprocess
import sys
import textwrap

import h5py

LIB, SPCC, WORK = sys.argv[1:4]
from sptest import check, eq, failures  # noqa: E402


# The program the examples profile: Python regions, one of them around C
# functions the plugin instrumented (c_outer calls c_kernel twice).
WORKLOAD = '''
import ctypes, json, os, sys
clib = ctypes.CDLL(os.environ["PYC_LIB"])
clib.c_outer.restype = ctypes.c_double

@ProfileManager.profile("assemble")
def assemble(n):
    return sum(i * 0.5 for i in range(n))

def solve():
    with ProfileManager.profile_region("solve"):
        return clib.c_outer(20000)

@ProfileManager.profile
def step_io():
    pass

def run():
    for step in range(3):
        with ProfileManager.profile_region("timestep"):
            assemble(2000)
            solve()
            step_io()
'''


def child(name, body, env=None):
    """Runs WORKLOAD + body in a fresh /usr/bin/python3 in WORK/name (one
    ProfileManager run per process); returns (rc, stdout, stderr, dir)."""
    d = os.path.join(WORK, name)
    os.makedirs(os.path.join(d, "tmp"))
    src = os.path.join(d, "prog.py")
    with open(src, "w") as f:
        f.write("from scopeprof import ProfileManager\n" + WORKLOAD +
                textwrap.dedent(body))
    e = dict(os.environ, SP_LIBRARY=LIB, PYC_LIB=os.path.join(WORK, "libpyc.so"),
             TMPDIR=os.path.join(d, "tmp"), MPLBACKEND="Agg")
    for k in ("SP_OUTPUT", "SP_FORMAT", "SP_RANK", "OMPI_COMM_WORLD_SIZE",
              "OMPI_COMM_WORLD_RANK", "PMI_SIZE", "PMI_RANK", "SLURM_NTASKS"):
        e.pop(k, None)
    e.update(env or {})
    p = subprocess.run([sys.executable, src], cwd=d, env=e, capture_output=True,
                       text=True)
    if p.returncode:
        print("%s: exit %d\n%s" % (name, p.returncode, p.stderr))
    return p.returncode, p.stdout, p.stderr, d


def h5_counts(path):
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n
                 for n in f["region_table/names"][()]]
        idx = f["rank_region_index"]
        out = {}
        for reg, cnt in zip(idx["region_ids"][()], idx["event_counts"][()]):
            out[names[reg]] = out.get(names[reg], 0) + int(cnt)
        loc = {names[reg]: (fl.decode() if isinstance(fl, bytes) else fl, int(ln))
               for reg, fl, ln in zip(idx["region_ids"][()], idx["source_files"][()],
                                      idx["source_lines"][()])}
        label = f["metadata"].attrs.get("label")
        return out, loc, label.decode() if isinstance(label, bytes) else label


WANT = {"timestep": 3, "assemble": 3, "solve": 3, "step_io": 3, "c_outer": 3,
        "c_kernel": 6}


def path_of(calls, i):
    out = []
    while i >= 0:
        out.append(calls[i]["name"])
        i = calls[i]["parent"]
    return " > ".join(reversed(out))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    src = os.path.join(WORK, "pyc.c")
    with open(src, "w") as f:
        f.write('__attribute__((annotate("sp_region"))) double c_kernel(int n) {\n'
                '  double s = 0; for (int i = 0; i < n; i++) s += i * 0.5; return s; }\n'
                '__attribute__((annotate("sp_region"))) double c_outer(int n) {\n'
                '  return c_kernel(n) + c_kernel(n / 2); }\n')
    subprocess.run([SPCC, "-shared", "-fPIC", "-g", "-O1", src, "-o",
                    os.path.join(WORK, "libpyc.so")], check=True)

    # "Post-processing in the script that produced the data" and "Where a
    # region is defined", as documented.
    rc, out, err, d = child("file", '''
        ProfileManager.setup(capture_region_source=True, label="seed")
        run()
        ProfileManager.finalize()
        results = ProfileManager.read_results()
        results.print_summary()
        results.print_summary(columns=["region", "ranks", "calls", "total", "avg"])
        region = results.get_region("solve")
        print(f"{region.source_file}:{region.source_lineno}")
        print(region.source_text)
        calls = results.call_stack(rank=0)
        json.dump({"calls": calls}, open("calls.json", "w"))
    ''')
    eq(rc, 0, "file: exit")
    eq(err, "", "file: nothing on stderr")
    f = os.path.join(d, "profiling_data.h5")
    counts, loc, label = h5_counts(f)
    eq(counts, WANT, "file: calls per region (h5py)")
    eq(label, "seed", "file: label")
    prog = os.path.join(d, "prog.py")
    line = next(i for i, t in enumerate(open(prog), 1)
                if 'profile_region("solve")' in t)
    eq(loc["solve"], (prog, line), "file: solve's source (h5py)")
    deco = next(i for i, t in enumerate(open(prog), 1) if 'profile("assemble")' in t)
    eq(loc["assemble"], (prog, deco), "file: assemble's source: the decorated function")
    eq(loc["c_kernel"][0].endswith("pyc.c") and loc["c_kernel"][1], 1,
       "file: c_kernel's source from the plugin")
    check("%s:%d\nNone\n" % (prog, line) in out, "file: printed source %r" % out[-200:])
    check(out.count("timestep") >= 2 and "c_kernel" in out, "file: two summaries")
    # One timeline: the C functions nest inside the Python region.
    calls = json.load(open(os.path.join(d, "calls.json")))["calls"]
    paths = [path_of(calls, i) for i in range(len(calls))]
    eq(paths.count("timestep > solve > c_outer > c_kernel"), 6, "file: C under Python")
    eq(paths.count("timestep > assemble"), 3, "file: decorator nests")
    eq(os.listdir(os.path.join(d, "tmp")), [], "file: private directory removed")

    # "Getting the results without touching disk".
    rc, out, err, d = child("memory", '''
        ProfileManager.setup(deactivate_file_output=True)
        run()
        from scopeprof.plotting_scripts import plot_gantt
        results = ProfileManager.finalize(return_results=True)

        results.print_summary()
        df = results.to_dataframe()
        plot_gantt(results)
        def my_report(r):
            json.dump({"root": r.is_root, "calls": {g.name: g.num_calls
                       for g in r.get_regions()}, "rows": len(df),
                       "meta_label": r.metadata.get("label")}, open("facts.json", "w"))
        if results.is_root:
            my_report(results)
    ''')
    eq(rc, 0, "memory: exit")
    facts = json.load(open(os.path.join(d, "facts.json")))
    eq(facts["calls"], WANT, "memory: calls")
    eq(facts["root"], True, "memory: is_root")
    eq(facts["rows"], len(WANT), "memory: to_dataframe rows")
    eq(sorted(os.listdir(d)), ["facts.json", "prog.py", "tmp"], "memory: no file written")
    eq(os.listdir(os.path.join(d, "tmp")), [], "memory: private directory removed")

    # finalize(return_results=True) with a file: the same data as the file.
    rc, out, err, d = child("both", '''
        import numpy as np
        from scopeprof import read_h5
        ProfileManager.setup(file_path="out/run.h5")
        run()
        res = ProfileManager.finalize(return_results=True)
        back = read_h5("out/run.h5")
        same = [g.name for g in res.get_regions()] == [g.name for g in back.get_regions()]
        for g in res.get_regions():
            h = back[g.name]
            same &= g.num_calls == h.num_calls and g.total_duration == h.total_duration
            same &= bool(np.array_equal(g.start_times_ns, h.start_times_ns))
            same &= g.exclusive_duration == h.exclusive_duration
        json.dump({"same": bool(same), "label": res.metadata.get("label"),
                   "file_label": back.metadata.get("label")}, open("facts.json", "w"))
    ''')
    facts = json.load(open(os.path.join(d, "facts.json")))
    eq(facts, {"same": True, "label": "run", "file_label": "run"},
       "both: results equal the file")

    # Profiling off: no file, empty results; SP_ENABLE=0 the same.
    for name, env, opt in (("off", {}, "deactivate_profiling=True"),
                           ("disabled", {"SP_ENABLE": "0"}, "")):
        rc, out, err, d = child(name, '''
            ProfileManager.setup(%s)
            run()
            res = ProfileManager.finalize(return_results=True)
            json.dump({"regions": len(res.get_regions()), "root": res.is_root},
                      open("facts.json", "w"))
        ''' % opt, env)
        eq(json.load(open(os.path.join(d, "facts.json"))), {"regions": 0, "root": True},
           name + ": empty results")
        check(not os.path.exists(os.path.join(d, "profiling_data.h5")), name + ": no file")

    # Options: unknown ones raise, scope-profiler's others warn; one run per
    # process; finalize without setup.
    rc, out, err, d = child("options", '''
        import warnings
        facts = {}
        try:
            ProfileManager.finalize()
        except RuntimeError as e:
            facts["nosetup"] = str(e)
        try:
            ProfileManager.setup(no_such_option=1)
        except TypeError as e:
            facts["unknown"] = str(e)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ProfileManager.setup(use_likwid=True, deactivate_file_output=True)
            facts["warned"] = [str(x.message) for x in w]
        run()
        ProfileManager.finalize()
        try:
            ProfileManager.setup()
        except RuntimeError as e:
            facts["again"] = str(e)
        json.dump(facts, open("facts.json", "w"))
    ''')
    facts = json.load(open(os.path.join(d, "facts.json")))
    check("setup() was not called" in facts.get("nosetup", ""), "options: %s" % facts)
    check("no_such_option" in facts.get("unknown", ""), "options: unknown %s" % facts)
    eq(facts.get("warned"), ["ProfileManager.setup(use_likwid=...): not supported by "
                             "ScopeProf, ignored"], "options: likwid warns")
    check("one run per process" in facts.get("again", ""), "options: again %s" % facts)

    # A run never finalized is finalized at exit (one process).
    rc, out, err, d = child("atexit", '''
        ProfileManager.setup(file_path="exit.h5")
        run()
    ''')
    eq(h5_counts(os.path.join(d, "exit.h5"))[0], WANT, "atexit: written at exit")

    # A C extension that loaded libscopeprof first: the same copy is used.
    rc, out, err, d = child("preloaded", '''
        import ctypes, os
        ctypes.CDLL(os.environ["PYC_LIB"])
        ProfileManager.setup(file_path="pre.h5")
        run()
        ProfileManager.finalize()
    ''', {"SP_LIBRARY": "/nonexistent/libscopeprof.so"})
    eq(rc, 0, "preloaded: exit")
    eq(h5_counts(os.path.join(d, "pre.h5"))[0] if rc == 0 else None, WANT,
       "preloaded: one runtime")

    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("test_manager: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
