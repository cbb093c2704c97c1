#!/usr/bin/env python3
"""test_tmp_signals.py - sp-report and sp-import ended by SIGINT, SIGTERM or
SIGHUP while their output's temporary exists (SP_TEST_TOOL_RAISE raises the
signal when it is written whole, about to be renamed into place) leave no
temporary and no output (an older file under the name keeps its bytes), and
die of that signal; a signal the caller ignores (nohup's SIGHUP) stays
ignored and the output is written.
usage: test_tmp_signals.py SP_REPORT SP_IMPORT WORKDIR [otf2]"""
import os
import shutil
import signal
import struct
import subprocess
import sys

from rptest import check, eq, finish

REPORT, IMPORT, WORK = sys.argv[1:4]
OTF2 = "otf2" in sys.argv[4:]


def write_spt(path, n):
    """.spt version 2, rank 0: main holding n calls of work."""
    calls = [(10 * k + 1, 10 * k + 6) for k in range(n)]
    blocks = [("main", [(0, 10 * n + 10)]), ("work", calls)]
    out = [b"SCOPEPRF", struct.pack("<iiq", 2, 0, len(blocks))]
    for name, cs in blocks:
        nb = name.encode()
        out.append(struct.pack("<i", len(nb)) + nb)
        out.append(struct.pack("<i", 3) + b"t.c" + struct.pack("<i", 7))
        out.append(struct.pack("<q", len(cs)))
        out.append(struct.pack("<%dq" % len(cs), *[s for s, _ in cs]))
        out.append(struct.pack("<%dq" % len(cs), *[e for _, e in cs]))
    with open(path, "wb") as f:
        f.write(b"".join(out))


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
SPT = WORK + "/in.spt"
write_spt(SPT, 200000)  # a temporary of megabytes, as a real one

CASES = [
    ("csv", [REPORT, "--export", "csv", "-o", "OUT", SPT]),
    ("folded", [REPORT, "--export", "folded", "-o", "OUT", SPT]),
    ("flame", [REPORT, "--svg", "flame", "-o", "OUT", SPT]),
    ("chrome", [REPORT, "--export", "chrome", "-o", "OUT", SPT]),
    ("suggest", [REPORT, "--suggest-filter=OUT", SPT]),
    ("import", [IMPORT, "-o", "OUT", SPT]),
]
if OTF2:
    CASES.append(("otf2", [REPORT, "--export", "otf2", "-o", "OUT", SPT]))

for name, argv in CASES:
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        d = f"{WORK}/{name}_{sig.name}"
        os.makedirs(d)
        out = f"{d}/out"
        older = name != "otf2"  # an archive's DIR must not exist
        if older:
            with open(out, "wb") as f:
                f.write(b"older\n")
        env = dict(os.environ, SP_TEST_TOOL_RAISE=str(int(sig)))
        p = subprocess.run([a.replace("OUT", out) for a in argv], env=env,
                           capture_output=True)
        what = f"{name} {sig.name}"
        eq(p.returncode, -sig, f"{what}: ended by the signal "
           f"({p.stderr.decode(errors='replace').strip()})")
        eq(sorted(os.listdir(d)), ["out"] if older else [],
           f"{what}: files left")
        if older:
            with open(out, "rb") as f:
                eq(f.read(), b"older\n", f"{what}: older output untouched")

    # SIGHUP ignored by whoever started the tool: the tool ignores it too
    d = f"{WORK}/{name}_ignored"
    os.makedirs(d)
    out = f"{d}/out"
    env = dict(os.environ, SP_TEST_TOOL_RAISE=str(int(signal.SIGHUP)))
    p = subprocess.run([a.replace("OUT", out) for a in argv], env=env,
                       capture_output=True, preexec_fn=lambda: signal.signal(
                           signal.SIGHUP, signal.SIG_IGN))
    eq(p.returncode, 0, f"{name} SIGHUP ignored: status")
    eq(sorted(os.listdir(d)), ["out"], f"{name} SIGHUP ignored: files")

finish()
