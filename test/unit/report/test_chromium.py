#!/usr/bin/env python3
"""test_chromium.py - every kind of sp-report picture (flame graph,
timeline, compare, speedup, and each of a profile with a crafted name)
rendered by headless Chromium: it must open without an XML error, and the
DOM it dumps must hold every <title> of the file, the region names, lanes
and ticks. Exit 77 (skipped) when /usr/bin/chromium is absent.
usage: test_chromium.py SP_REPORT REPORT_GEN WORKDIR"""
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

REPORT, GEN, WORK = sys.argv[1:4]
CHROMIUM = "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    print(f"SKIP: {CHROMIUM} is absent (Debian package chromium)")
    sys.exit(77)

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK + "/a")
subprocess.run([GEN, WORK], check=True)
fails = []
W = WORK
NAME = "a&lt;b&gt;&amp;c\nd? e????????????z"  # as the DOM serialises the crafted name
for kind, args, want in [
        ("flame", [W + "/a"], ["main", "main &gt; solve &gt; io", "s.c:20"]),
        ("timeline", [W + "/a"],
         ["main", "solve", "io", "rank 1 thread 0", ">0.2 us<", ">2 us<",
          "2 calls on this thread, total 700 ns"]),
        ("compare", [W + "/s1.h5", W + "/s4.h5"],
         ["solve in", "2 calls, total 1.5 us", ">4 us<"]),
        ("speedup", [W + "/s1.h5", W + "/s4.h5"],
         ["solve on 4 ranks: speedup 4.000", ">3.5<"]),
        ("flame", [W + "/crafted.spt"], [NAME, "f&lt;&amp;&gt;'\".c:7"]),
        ("timeline", [W + "/crafted.spt"], [NAME]),
        ("compare", [W + "/crafted.spt", W + "/s4.h5"], [NAME]),
        ("speedup", [W + "/crafted.spt", W + "/s4.h5"], [NAME])]:
    name = f"{kind} {os.path.basename(args[0])}"
    svg = f"{WORK}/{kind}-{os.path.basename(args[0])}.svg"
    subprocess.run([REPORT, "--svg", kind, "-o", svg, *args], check=True)
    ntitle = len(list(ET.parse(svg).getroot().iter(
        "{http://www.w3.org/2000/svg}title")))
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
        fails.append(f"{name}: chromium exit {p.returncode}, "
                     f"no <svg> in DOM: {p.stderr[-500:]}")
        continue
    # A parse error would show Chromium's error page instead of our text.
    if "error on line" in dom or "parsererror" in dom:
        fails.append(f"{name}: chromium reports an XML error")
    if dom.count("<title>") != ntitle or ntitle < 3:
        fails.append(f"{name}: {dom.count('<title>')} <title> in the DOM, "
                     f"{ntitle} in the file")
    for w in want:
        if w not in dom:
            fails.append(f"{name}: {w!r} not in the rendered DOM")
for f in fails:
    print("FAIL:", f)
print(f"{len(fails)} failures")
sys.exit(1 if fails else 0)
