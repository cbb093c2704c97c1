#!/usr/bin/env python3
"""test_tmp_links.py - links and files planted at the temporary names
sp-report and sp-import will use (OUT.tmp.<pid>.<n>: each tool is started
through a shell that plants them under its own pid, then execs the tool)
are never written through nor removed: the link's target keeps its bytes,
a dangling link's target is not created, and the output is the one a run
without them writes. Every output: the exports and pictures, --tree,
--suggest-filter=FILE, the OTF2 archive's directory, sp-import's .h5.
usage: test_tmp_links.py SP_REPORT SP_IMPORT WORKDIR [otf2]"""
import os
import shutil
import struct
import subprocess
import sys

from rptest import check, eq, finish

REPORT, IMPORT, WORK = sys.argv[1:4]
OTF2 = "otf2" in sys.argv[4:]
PLANTED = 8  # names .0 to .7: more than any tool tries before it succeeds


def write_spt(path):
    """.spt version 2, rank 0: main holding two calls of work."""
    blocks = [("main", [(0, 1000)]), ("work", [(100, 300), (400, 900)])]
    out = [b"SCOPEPRF", struct.pack("<iiq", 2, 0, len(blocks))]
    for name, calls in blocks:
        nb = name.encode()
        out.append(struct.pack("<i", len(nb)) + nb)
        out.append(struct.pack("<i", 3) + b"t.c" + struct.pack("<i", 7))
        out.append(struct.pack("<q", len(calls)))
        out.append(struct.pack("<%dq" % len(calls), *[s for s, _ in calls]))
        out.append(struct.pack("<%dq" % len(calls), *[e for _, e in calls]))
    with open(path, "wb") as f:
        f.write(b"".join(out))


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
SPT = WORK + "/in.spt"
write_spt(SPT)


def planted_run(outs, argv, kind):
    """Runs argv with, at PLANTED temporary names of each path in outs:
    kind "link" (to its own target file), "dangling" (to a name that does
    not exist) or "file" (a regular file). Returns (status, stderr, what
    was planted: [(name, target or None, bytes)])."""
    script = ['p=$$']
    plan = []
    for out in outs:
        for i in range(PLANTED):
            name = f"{out}.tmp.$p.{i}"
            target = f"{out}.target{i}"
            if kind == "link":
                with open(target, "wb") as f:
                    f.write(b"secret %d\n" % i)
                script.append(f"ln -s '{target}' \"{name}\"")
            elif kind == "dangling":
                script.append(f"ln -s '{target}' \"{name}\"")
            else:
                script.append(f"echo planted > \"{name}\"")
            plan.append((name, target if kind != "file" else None))
    pidfile = os.path.dirname(outs[0]) + "/pid"
    script.append(f'echo $p > "{pidfile}"; exec "$@"')
    p = subprocess.run(["sh", "-c", "\n".join(script), "sh", *argv],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    with open(pidfile) as f:
        pid = f.read().strip()
    os.unlink(pidfile)
    return p.returncode, p.stderr.decode(errors="replace"), \
        [(n.replace("$p", pid), t) for n, t in plan]


def read(path):
    if os.path.isdir(path):
        return {n: read(os.path.join(path, n))
                for n in sorted(os.listdir(path))}
    with open(path, "rb") as f:
        return f.read()


def check_planted(what, kind, plan):
    for i, (name, target) in enumerate(plan):
        if kind == "file":
            check(os.path.isfile(name) and not os.path.islink(name) and
                  read(name) == b"planted\n", f"{what}: {name} left as it was")
        else:
            check(os.path.islink(name) and os.readlink(name) == target,
                  f"{what}: link {name} left as it was")
        if kind == "link":
            eq(read(target), b"secret %d\n" % (i % PLANTED),
               f"{what}: {target} untouched")
        elif kind == "dangling":
            check(not os.path.lexists(target), f"{what}: {target} not made")


def leftovers(d, plan):
    mine = {os.path.basename(n) for n, _ in plan}
    return sorted(n for n in os.listdir(d)
                  if ".tmp." in n and n not in mine)


# Every output that is written to a file: (name, argv with OUT, the paths
# the temporaries are beside, how the output is compared).
CASES = [
    ("csv", [REPORT, "--export", "csv", "-o", "OUT", SPT]),
    ("json", [REPORT, "--export", "json", "-o", "OUT", SPT]),
    ("events", [REPORT, "--export", "events", "-o", "OUT", SPT]),
    ("chrome", [REPORT, "--export", "chrome", "-o", "OUT", SPT]),
    ("folded", [REPORT, "--export", "folded", "-o", "OUT", SPT]),
    ("flame", [REPORT, "--svg", "flame", "-o", "OUT", SPT]),
    ("timeline", [REPORT, "--svg", "timeline", "-o", "OUT", SPT]),
    ("compare", [REPORT, "--svg", "compare", "-o", "OUT", SPT, SPT]),
    ("tree", [REPORT, "--tree", "-o", "OUT", SPT]),
    ("table", [REPORT, "-o", "OUT", SPT]),
    ("suggest", [REPORT, "--suggest-filter=OUT", SPT]),
    ("import", [IMPORT, "-o", "OUT", SPT]),
]
if OTF2:
    CASES.append(("otf2", [REPORT, "--export", "otf2", "-o", "OUT", SPT]))

for name, argv in CASES:
    base = f"{WORK}/{name}"
    os.makedirs(base)
    # The output a run without anything planted writes.
    ref = f"{base}/ref"
    p = subprocess.run([a.replace("OUT", ref) for a in argv],
                       capture_output=True)
    if p.returncode != 0:
        check(False, f"{name}: reference run: {p.stderr.decode()}")
        continue
    want = read(ref)
    for kind in ("link", "dangling", "file"):
        d = f"{base}/{kind}"
        os.makedirs(d)
        out = f"{d}/out"
        st, err, plan = planted_run(
            [out], [a.replace("OUT", out) for a in argv], kind)
        what = f"{name} ({kind})"
        eq(st, 0, f"{what}: status ({err.strip()})")
        check_planted(what, kind, plan)
        if name == "import":
            # the file's bytes differ (creation order of HDF5 objects is
            # the same, but its label is the output's stem): compare what
            # sp-report reads from it
            got = subprocess.run([REPORT, "--export", "csv", out],
                                 capture_output=True).stdout
            ref_csv = subprocess.run([REPORT, "--export", "csv", ref],
                                     capture_output=True).stdout
            check(got == ref_csv and got, f"{what}: merged file's rows")
        elif name == "otf2":
            check(os.path.isdir(out) and set(read(out)) == set(want),
                  f"{what}: archive's files")
        elif os.path.exists(out):
            got = read(out)
            if name in ("flame", "timeline", "compare", "json", "tree",
                        "table", "suggest"):
                # these name their input or output: compare without them
                got = got.replace(out.encode(), b"OUT")
                want_n = want.replace(ref.encode(), b"OUT")
            else:
                want_n = want
            eq(got, want_n, f"{what}: output")
        else:
            check(False, f"{what}: no output")
        eq(leftovers(d, plan), [], f"{what}: temporaries left")

finish()
