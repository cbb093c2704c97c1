#!/usr/bin/python3
# check_h5_app.py - runs h5_app (an application using HDF5 itself) built
# without and with ScopeProf, for .h5 and the default format: exit status,
# stderr (HDF5's own error reports) and the application's file must be the
# same; the profile must be written. Args: WORK then NAME PLAIN SP triples.
import os
import re
import shutil
import subprocess
import sys

import h5py

WORK = sys.argv[1]
VARIANTS = [sys.argv[i:i + 3] for i in range(2, len(sys.argv), 3)]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
from sptest import check, failures  # noqa: E402


base = {k: v for k, v in os.environ.items() if not k.startswith("SP_")}
base.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
            OMPI_MCA_plm="isolated", OMPI_MCA_btl_vader_single_copy_mechanism="none")


def run(prog, mode, d, env):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    p = subprocess.run([prog, d, mode], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, env=env)
    err = p.stderr.decode(errors="replace").replace(d, "DIR")
    err = re.sub(r"thread \d+", "thread N", err)  # pthread_self, per run
    err = re.sub(r"time = [^\n]*\n", "time = T\n", err)  # when it failed
    with open(os.path.join(d, "app.h5"), "rb") as f:
        data = f.read()
    return p.returncode, err, data


def names_and_calls(path):
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n
                 for n in f["region_table/names"][:]]
        calls = {}
        for rid, c in zip(f["rank_region_index/region_ids"][:],
                          f["rank_region_index/event_counts"][:]):
            calls[names[rid]] = calls.get(names[rid], 0) + int(c)
        return calls


for name, plain, sp in VARIANTS:
    for mode in ("exit", "first", "custom"):
        tag = "%s %s" % (name, mode)
        rc0, err0, file0 = run(plain, mode, os.path.join(WORK, "plain"), base)
        rc1, err1, file1 = run(plain, mode, os.path.join(WORK, "plain"), base)
        check(rc0 == 7, "%s: plain rc %d: %s" % (tag, rc0, err0))
        check((rc0, err0, file0) == (rc1, err1, file1),
              "%s: the plain program is not repeatable" % tag)
        shown = "app handler (mine)" if mode == "custom" else "HDF5-DIAG"
        check(shown in err0 and "open of a missing file: failed" in err0,
              "%s: no error report in %r" % (tag, err0))
        check("handler: changed" not in err0, "%s: %r" % (tag, err0))
        for fmt in ("h5", None):
            d = os.path.join(WORK, "sp")
            env = dict(base, SP_OUTPUT=os.path.join(d, "prof"))
            if fmt:
                env["SP_FORMAT"] = fmt
            rc, err, data = run(sp, mode, d, env)
            t = "%s SP_FORMAT=%s" % (tag, fmt or "(default)")
            check(rc == rc0, "%s: rc %d, without ScopeProf %d" % (t, rc, rc0))
            check(err == err0, "%s: stderr differs:\n%s---- without:\n%s"
                  % (t, err, err0))
            check(data == file0, "%s: the application's file differs" % t)
            prof = os.path.join(d, "prof_rank00000." + (fmt or "spt"))
            if fmt == "h5":
                calls = names_and_calls(prof)
                # sp_finalize() before the work records main alone
                want = 3 if mode == "exit" else None
                check(calls.get("fill") == want and calls.get("main") == 1,
                      "%s: profile calls %s" % (t, calls))
            else:
                with open(prof, "rb") as f:
                    check(f.read(8) == b"SCOPEPRF", "%s: no .spt" % t)

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("ok")
