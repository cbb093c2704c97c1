#!/usr/bin/python3
# test_filter.py - the run-time filter (SP_FILTER) end to end, with exact
# counts: the same a -> b -> c program built with the C API, with gcc
# -finstrument-functions and with the plugin, in trace and profile mode;
# excluding b leaves a and c exact, b absent and c under a in the call
# paths; include/exclude precedence; a bad filter file gives one stderr
# line naming FILE:LINE and a complete, unfiltered profile.
# Args: WORK PROG... (each built from runtime/filter_prog.c)
import os
import shutil
import subprocess
import sys

import h5py

WORK, PROGS = sys.argv[1], sys.argv[2:]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
from sptest import check, failures  # noqa: E402
base = {k: v for k, v in os.environ.items() if not k.startswith("SP_")}


def names_of(f):
    return [n.decode() if isinstance(n, bytes) else n
            for n in f["region_table/names"][()]]


def run(prog, d, mode, filt):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    env = dict(base, SP_OUTPUT=os.path.join(d, "p"), SP_FORMAT="h5",
               SP_MODE=mode)
    if filt is not None:
        env["SP_FILTER"] = filt
    p = subprocess.run([prog], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    out = p.stdout.decode().split("\n")
    check(p.returncode == 0 and out[0] == "6",
          "%s %s: rc %d, stdout %r" % (prog, mode, p.returncode, p.stdout))
    path = os.path.join(d, "p_rank00000.h5")
    with h5py.File(path, "r") as f:
        names = names_of(f)
        if mode == "trace":
            ix = f["rank_region_index"]
            calls = {names[r]: int(s["calls"]) for r, s in
                     zip(ix["region_ids"][()], ix["summary_statistics"][()])}
        else:
            g = f["call_paths"]
            par, reg = g["parents"][()], g["region_ids"][()]
            st = g["statistics"][()]
            full = []
            for i in range(len(par)):
                full.append((full[par[i]] if par[i] >= 0 else ())
                            + (names[reg[i]],))
            calls = {"/".join(full[i]): int(st[i]["calls"])
                     for i in range(len(par))}
    if "api" in os.path.basename(prog):
        # sp_region's id for each name the filter excludes is
        # SP_REGION_EXCLUDED, in either mode
        gone = sorted(n for n in "abc" if not any(
            n in k.split("/") for k in calls))
        check(out[1:] == ["excluded:" + "".join(" " + n for n in gone), ""],
              "%s %s %s: stdout %r" % (prog, mode, filt, p.stdout))
    else:
        check(out[1:] == [""], "%s: stdout %r" % (prog, p.stdout))
    return calls, p.stderr.decode(errors="replace")


def write(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(text)
    return path


os.makedirs(WORK, exist_ok=True)
ALL = {"trace": {"a": 3, "b": 6, "c": 6},
       "profile": {"a": 3, "a/b": 6, "a/b/c": 6}}
NO_B = {"trace": {"a": 3, "c": 6}, "profile": {"a": 3, "a/c": 6}}
ONLY_C = {"trace": {"c": 6}, "profile": {"c": 6}}

ex_b = write("ex_b.txt", "# from sp-report --suggest-filter\nexclude function b\n")
star = write("star.txt", "exclude function *\ninclude function [ac]\n")
last = write("last.txt", "include function b\nexclude function [bx]\n")
back = write("back.txt", "exclude function b\ninclude function ?\n")
bad = write("bad.txt", "# ok\ninclude function a\nfrobnicate b\n")
badglob = write("badglob.txt", "exclude function b\nexclude file [z-a]\n")
missing = os.path.join(WORK, "missing.txt")
byfile = write("byfile.txt", "exclude file *filter_prog.c\n"
               "include function c\n")

for prog in PROGS:
    tag = os.path.basename(prog)
    for mode in ("trace", "profile"):
        d = os.path.join(WORK, tag + "_" + mode)
        cases = [(None, ALL), (ex_b, NO_B), (star, NO_B), (last, NO_B),
                 (back, ALL)]
        if "plugin" in tag:  # the only build whose regions carry a file
            cases.append((byfile, ONLY_C))
        for filt, want in cases:
            calls, err = run(prog, d, mode, filt)
            check(calls == want[mode], "%s %s %s: %r != %r" %
                  (tag, mode, filt, calls, want[mode]))
            check(err == "", "%s %s %s: stderr %r" % (tag, mode, filt, err))
        for filt, line in ((bad, bad + ":3: unknown directive 'frobnicate' "
                            "(expected include, exclude or min-instructions)"),
                           (badglob, badglob + ":2: bad glob '[z-a]'"),
                           (missing, missing + ": cannot read filter file: "
                            "No such file or directory")):
            calls, err = run(prog, d, mode, filt)
            check(calls == ALL[mode], "%s %s %s: not the full profile: %r"
                  % (tag, mode, filt, calls))
            lines = err.splitlines()
            check(len(lines) == 1 and lines[0].startswith("scopeprof: " + line),
                  "%s %s %s: stderr %r" % (tag, mode, filt, err))

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("ok")
