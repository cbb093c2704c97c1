#!/usr/bin/python3
# test_full_disk.py - every writer on a disk that fills at many sizes
# (RLIMIT_FSIZE, SIGXFSZ ignored: writes fail with EFBIG as on a full disk):
# the runtime (.h5 and .spt), sp-import and sp-report (files, and the OTF2
# archive's directory) must keep the exit
# status they should have, print exactly one line and leave nothing under
# the final name. The tools leave no file at all; the runtime keeps the
# calls it could not place in its stream, which must stay readable.
import os
import re
import resource
import shutil
import signal
import subprocess
import sys

import h5py

SCENARIO, IMPORT, REPORT, WORK = sys.argv[1:5]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
from sptest import check, failures  # noqa: E402


def limited(limit):
    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return pre


def run(argv, limit, env=None):
    """stderr through a pipe: the limit applies to regular files only."""
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       env=env, preexec_fn=limited(limit))
    return p.returncode, p.stderr.decode(errors="replace")


def limits(full):
    """From 0 to the full size: the first bytes (superblock, headers), every
    twelfth of the file (events, index, metadata), its last bytes."""
    small = [0, 1, 8, 96, 512, 2048, 4096, 8192, 65536]
    steps = [full * k // 12 for k in range(1, 12)]
    ends = [full - 4096, full - 1, full]
    return sorted({x for x in small + steps + ends if 0 <= x <= full})


def fresh(name):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def one_error_line(err, prefix, path):
    pat = r"%s: (error: )?%s: [^\n]*\n" % (re.escape(prefix), re.escape(path))
    return re.fullmatch(pat, err) is not None


def stream_of(out):
    """The runtime's stream beside out: <prefix>_rank00000.<pid>.spts."""
    stem = re.escape(out[:out.rindex(".")])
    return re.compile(r"%s\.[0-9]+\.spts" % stem)


def sweep(what, argv, out, outdir, want_rc, ok_check, env=None, prefix=None,
          runtime=False):
    rc, err = run(argv, None, env)
    check(rc == want_rc and err == "",
          "%s: unlimited run rc %d stderr %r" % (what, rc, err))
    check(os.path.exists(out), "%s: unlimited run wrote %s" % (what, out))
    full = os.path.getsize(out)
    ok_check(out)
    for limit in limits(full):
        for f in os.listdir(outdir):
            os.unlink(os.path.join(outdir, f))
        rc, err = run(argv, limit, env)
        tag = "%s at %d of %d bytes" % (what, limit, full)
        files = sorted(os.listdir(outdir))
        if limit < full or files != [os.path.basename(out)]:
            # failed: the right exit status, one line, nothing left
            check(rc == (want_rc if want_rc != 0 else 1),
                  "%s: rc %d (stderr %r)" % (tag, rc, err))
            stream = stream_of(out)
            kept = [f for f in files
                    if runtime and stream.fullmatch(os.path.join(outdir, f))]
            named = out
            if kept and (prefix + ": error: " + os.path.join(outdir, kept[0])
                         ) in err:
                named = os.path.join(outdir, kept[0])
            check(one_error_line(err, prefix, named),
                  "%s: not one error line: %r" % (tag, err))
            check("File too large" in err, "%s: no reason: %r" % (tag, err))
            check(files == kept and len(kept) <= 1,
                  "%s: left %s" % (tag, files))
            for f in kept:  # what the runtime kept merges
                r = subprocess.run([IMPORT, "-o", os.path.join(WORK, "k.h5"),
                                    os.path.join(outdir, f)],
                                   capture_output=True, text=True)
                check(r.returncode == 0,
                      "%s: kept stream unreadable: %s" % (tag, r.stderr))
        else:  # the whole file fitted
            check(rc == want_rc and err == "", "%s: rc %d %r" % (tag, rc, err))
            ok_check(out)


def h5_ok(path):
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n
                 for n in f["region_table/names"][:]]
        counts = dict(zip(names, [0] * len(names)))
        for rid, c in zip(f["rank_region_index/region_ids"][:],
                          f["rank_region_index/event_counts"][:]):
            counts[names[rid]] += int(c)
        check(counts == {"work": 1600000, "inner": 160000},
              "%s: calls %s" % (path, counts))


def any_ok(path):
    check(os.path.getsize(path) > 0, "%s is empty" % path)


base = {k: v for k, v in os.environ.items() if not k.startswith("SP_")}
os.makedirs(WORK, exist_ok=True)

# The runtime, in the program's own exit: status 3 stays 3.
for fmt, ok in (("h5", h5_ok), ("spt", any_ok)):
    d = fresh("rt_" + fmt)
    env = dict(base, SP_FORMAT=fmt, SP_OUTPUT=os.path.join(d, "p"))
    sweep("runtime " + fmt, [SCENARIO, "threads16_rc3"],
          os.path.join(d, "p_rank00000." + fmt), d, 3, ok, env, "scopeprof",
          runtime=True)

# Inputs for the tools: the runtime's .spt of two ranks, one thread each.
inputs = fresh("inputs")
for rank in (0, 1):
    env = dict(base, SP_FORMAT="spt", SP_RANK=str(rank),
               SP_OUTPUT=os.path.join(inputs, "p"))
    rc, err = run([SCENARIO, "threads1"], None, env)
    check(rc == 0 and err == "", "input rank %d: %d %r" % (rank, rc, err))

d = fresh("import")
out = os.path.join(d, "merged.h5")


def merged_ok(path):
    with h5py.File(path, "r") as f:
        check(sorted(set(f["rank_region_index/ranks"][:].tolist())) == [0, 1],
              "%s: ranks" % path)
        check(f["events/start_times"].shape[0] == 2 * 110000,
              "%s: events %s" % (path, f["events/start_times"].shape))


sweep("sp-import", [IMPORT, "-o", out, inputs], out, d, 0, merged_ok,
      base, "sp-import")

merged_in = fresh("merged_in")
shutil.copy(out, os.path.join(merged_in, "merged.h5"))
for opts, name in ((["--export", "csv"], "t.csv"),
                   (["--export", "chrome"], "t.json"),
                   (["--svg", "flame"], "t.svg")):
    d = fresh("report_" + name)
    out = os.path.join(d, name)
    sweep("sp-report " + " ".join(opts),
          [REPORT, *opts, "-o", out, os.path.join(merged_in, "merged.h5")],
          out, d, 0, any_ok, base, "sp-report")



def otf2_sweep():
    """--export otf2 writes a directory: at every limit below its largest
    file, one line naming it, status 1, and no archive or temporary left
    (OTF2 3.0 itself crashes when a write fails as it closes a writer)."""
    d = fresh("report_otf2")
    out = os.path.join(d, "a.otf2")
    argv = [REPORT, "--export", "otf2", "-o", out,
            os.path.join(merged_in, "merged.h5")]
    rc, err = run(argv, None)
    if "without OTF2" in err:
        return
    check(rc == 0 and err == "", "otf2: unlimited run rc %d %r" % (rc, err))
    sizes = [os.path.getsize(os.path.join(r, f))
             for r, _, fs in os.walk(out) for f in fs]
    check(len(sizes) > 3, "otf2: archive files %s" % sizes)
    biggest = max(sizes)
    for limit in limits(biggest)[:-1]:
        shutil.rmtree(d)
        os.makedirs(d)
        rc, err = run(argv, limit)
        tag = "otf2 at %d of %d bytes" % (limit, biggest)
        check(rc == 1, "%s: rc %d (stderr %r)" % (tag, rc, err))
        check(one_error_line(err, "sp-report", out),
              "%s: not one error line: %r" % (tag, err))
        check(os.listdir(d) == [], "%s: left %s" % (tag, os.listdir(d)))


otf2_sweep()

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("ok")
