#!/usr/bin/env python3
"""test_chromium.py - the flame graph and the timeline SVG rendered by
headless Chromium: the DOM it dumps must hold the region names and lanes.
Exit 77 (skipped) when /usr/bin/chromium is absent.
usage: test_chromium.py SP_REPORT REPORT_GEN WORKDIR"""
import os
import shutil
import subprocess
import sys
import tempfile

REPORT, GEN, WORK = sys.argv[1:4]
CHROMIUM = "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    print(f"SKIP: {CHROMIUM} is absent (Debian package chromium)")
    sys.exit(77)

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK + "/a")
subprocess.run([GEN, WORK], check=True)
fails = []
for kind, want in [("flame", ["main", "main &gt; solve &gt; io", "s.c:20"]),
                   ("timeline", ["main", "solve", "io", "rank 1 thread 0"])]:
    svg = f"{WORK}/{kind}.svg"
    subprocess.run([REPORT, "--svg", kind, "-o", svg, WORK + "/a"], check=True)
    with tempfile.TemporaryDirectory() as profile:
        p = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--user-data-dir=" + profile, "--dump-dom",
             "file://" + os.path.abspath(svg)],
            capture_output=True, text=True, timeout=120)
    dom = p.stdout
    if p.returncode != 0 or "<svg" not in dom:
        fails.append(f"{kind}: chromium exit {p.returncode}, "
                     f"no <svg> in DOM: {p.stderr[-500:]}")
        continue
    # A parse error would show Chromium's error page instead of our text.
    if "error on line" in dom:
        fails.append(f"{kind}: chromium reports an XML error")
    for w in want:
        if w not in dom:
            fails.append(f"{kind}: {w!r} not in the rendered DOM")
for f in fails:
    print("FAIL:", f)
print(f"{len(fails)} failures")
sys.exit(1 if fails else 0)
