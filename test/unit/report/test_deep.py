#!/usr/bin/env python3
"""test_deep.py - call paths 100,000 levels deep (direct recursion, two
regions calling each other, 100,000 distinct regions nested) through every
output that walks them: each stays smaller than its input (written under a
file size limit of the input's size, a small stack and, unsanitized, a small
address space), folds recursion, folds what lies below RP_TREE_DEPTH levels
into one note frame, and keeps the totals exact (the folded weights add up to
the root's call).
usage: test_deep.py SP_REPORT WORKDIR"""
import csv
import io
import json
import os
import resource
import shutil
import signal
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

from rptest import check, eq, finish

REPORT, WORK = sys.argv[1:3]
D = 100000    # levels of calls under main
CAP = 256     # report.h's RP_TREE_DEPTH
NS = "{http://www.w3.org/2000/svg}"
with open(REPORT, "rb") as f:
    SANITIZED = b"AddressSanitizer" in f.read()


def write_spt(path, blocks):
    """.spt version 2, rank 0; blocks: (name, [(start, end), ...])."""
    out = [b"SCOPEPRF", struct.pack("<iiq", 2, 0, len(blocks))]
    for name, calls in blocks:
        nb = name.encode()
        out.append(struct.pack("<i", len(nb)) + nb)
        out.append(struct.pack("<i", 3) + b"d.c" + struct.pack("<i", 1))
        out.append(struct.pack("<q", len(calls)))
        out.append(struct.pack("<%dq" % len(calls), *[s for s, _ in calls]))
        out.append(struct.pack("<%dq" % len(calls), *[e for _, e in calls]))
    with open(path, "wb") as f:
        f.write(b"".join(out))


# Call k (0..D-1) at depth k + 1 spans [10 (k + 1), 10 (2D + 1 - k)]: each
# has 20 ns of its own, main [0, 10 (2D + 2)] too; a leaf of 3 ns sits in the
# innermost call (which keeps 17).
MAIN = (0, 10 * (2 * D + 2))
CALL = [(10 * (k + 1), 10 * (2 * D + 1 - k)) for k in range(D)]
LEAF = (10 * D + 2, 10 * D + 5)
ALL = MAIN[1] - MAIN[0]

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
PROFILES = {
    "direct": [("main", [MAIN]), ("rec", CALL), ("leaf", [LEAF])],
    "mutual": [("main", [MAIN]), ("a", CALL[0::2]), ("b", CALL[1::2]),
               ("leaf", [LEAF])],
    "distinct": [("main", [MAIN])] + [("r%d" % k, [c])
                                       for k, c in enumerate(CALL)] +
                [("leaf", [LEAF])],
}


def limits(size):
    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        if not SANITIZED:
            # No recursion per level: 100,000 levels in 2 MiB of stack.
            resource.setrlimit(resource.RLIMIT_STACK, (2 << 20, 2 << 20))
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    return pre


def report(name, spt, *args, per_call=0):
    """Runs sp-report with -o under the limits: at most the input's size,
    or per_call bytes a call for the outputs that list every call. The
    output's text."""
    out = f"{WORK}/{name}.out"
    size = per_call * (D + 2) if per_call else os.path.getsize(spt)
    p = subprocess.run([REPORT, *args, "-o", out, spt], capture_output=True,
                       text=True, preexec_fn=limits(size))
    if p.returncode != 0:
        check(False, f"{name}: sp-report {' '.join(args)}: status "
              f"{p.returncode}: {p.stderr.strip()}")
        return ""
    got = os.path.getsize(out)
    check(got < size, f"{name}: {got} bytes out of a {size}-byte input")
    with open(out, encoding="utf-8") as f:
        return f.read()


def folded_expected(kind):
    """Path -> weight: what folding makes of each profile."""
    if kind == "direct":
        return {"main": 20, "main;rec": 20 * D - 3, "main;rec;leaf": 3}
    name = (lambda k: "ab"[k % 2]) if kind == "mutual" else \
        (lambda k: "r%d" % k)
    want, path = {"main": 20}, ["main"]
    for k in range(CAP - 1):  # depths 1..CAP-1 keep their own frames
        path.append(name(k))
        want[";".join(path)] = 20
    # calls CAP-1.. and the leaf (depths CAP..D+1) folded into the note
    note = "[%d deeper levels folded]" % (D + 1 - CAP + 1)
    want[";".join(path + [note])] = 20 * (D - (CAP - 1))
    return want


for kind, blocks in PROFILES.items():
    spt = f"{WORK}/{kind}.spt"
    write_spt(spt, blocks)
    want = folded_expected(kind)

    # folded: the paths and weights, adding up to main's one call
    text = report(kind + "_folded", spt, "--export", "folded")
    got = {}
    for line in text.splitlines():
        path, w = line.rsplit(" ", 1)
        got[path] = int(w)
    eq(sum(got.values()), ALL, f"{kind}: folded weights sum to main's call")
    eq(got, want, f"{kind}: folded paths")

    # --tree: a line per path, main's total, the folded calls counted
    lines = report(kind + "_tree", spt, "--tree").splitlines()[2:]
    eq(len(lines), len(want), f"{kind}: tree lines")
    if lines:
        eq(lines[0].split()[:3], ["1", "%.3g" % (ALL / 1e6), "ms"],
           f"{kind}: tree main calls and total")
        deep = max(len(l) - len(l.lstrip(" ")) for l in
                   (l.split("us", 2)[-1] for l in lines))
        check(deep <= 2 * CAP + 2, f"{kind}: tree indented {deep} columns")
    if not lines:
        pass
    elif kind == "direct":
        eq(lines[1].split("  ")[-1].strip(), "rec (+%d calls folded in)" %
           (D - 1), "direct: tree rec folds its recursion")
    else:
        eq(lines[-1].split("  ")[-1].strip(),
           "[%d deeper levels folded] (+%d calls folded in)" %
           (D + 1 - CAP + 1, D - CAP + 1), f"{kind}: tree note")

    # --svg flame: one frame per path; main's frame the whole width
    text = report(kind + "_flame", spt, "--svg", "flame")
    if text:
        root = ET.fromstring(text)
        titles = [t.text for t in root.iter(NS + "title")]
        # the base frame, and one per path but direct's 3-ns leaf (under
        # a tenth of a pixel: not drawn)
        eq(len(titles), len(want) + (0 if kind == "direct" else 1),
           f"{kind}: flame frames")
        main = [t for t in titles if t.startswith("main\n")]
        check(len(main) == 1 and "(100.00%)" in main[0],
              f"{kind}: flame main frame {main}")
        if kind != "direct":
            check(any(t.split("\n")[0].endswith(
                " &gt; [%d deeper levels folded]" % (D + 1 - CAP + 1)) or
                t.split("\n")[0].endswith(
                " > [%d deeper levels folded]" % (D + 1 - CAP + 1))
                for t in titles), f"{kind}: flame note frame")

    # events, chrome: a row per call, at its true depth
    text = report(kind + "_events", spt, "--export", "events", per_call=64)
    rows = list(csv.DictReader(io.StringIO(text)))
    eq(len(rows), D + 2, f"{kind}: events rows")
    if rows:
        eq(max(int(r["depth"]) for r in rows), D + 1, f"{kind}: deepest call")
    text = report(kind + "_chrome", spt, "--export", "chrome", per_call=256)
    ev = [e for e in json.loads(text or "{}").get("traceEvents", [])
          if e.get("ph") == "X"]
    eq(len(ev), D + 2, f"{kind}: chrome events")
    if ev:
        eq(max(e["args"]["depth"] for e in ev), D + 1,
           f"{kind}: chrome deepest call")

    # the timeline draws a few levels; nothing deeper costs it anything
    text = report(kind + "_timeline", spt, "--svg", "timeline")
    check(text.endswith("</svg>\n"), f"{kind}: timeline")

finish()
