#!/usr/bin/env python3
"""test_svg.py - sp-report's pictures (flame, timeline, compare, speedup) of
report_gen.c's profiles, parsed as XML: axis ticks at round values inside
the axis, every box with a title naming its region and calls, the
timeline's legend and colours, labels within their boxes, crafted names.
usage: test_svg.py SP_REPORT REPORT_GEN WORKDIR"""
import csv
import io
import math
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

from rptest import check, finish, tool

REPORT, GEN, WORK = sys.argv[1:4]
NS = "{http://www.w3.org/2000/svg}"
CHAR_W = 6.7  # report.h's RP_CHAR_W: the width labels are estimated with
MIN_DE = 20   # least CIE76 distance between neighbouring regions' colours
OTHERS = "#c8c8c8"


run = tool(REPORT, stdout_only=True)


def svg(name, *args):
    out = f"{WORK}/{name}.svg"
    run(*args, "-o", out)
    try:
        return ET.parse(out).getroot()
    except ET.ParseError as e:
        raise SystemExit(f"{out}: not well-formed XML: {e}")


def cols(s):
    """Columns of a label as sp-report estimates them (wide: two)."""
    return sum(2 if ord(c) >= 0x1100 else 1 for c in s)


UNIT = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}


def value(label):
    """A tick label or a time from a title: '1.5 us' -> 1500.0, '2' -> 2."""
    m = re.fullmatch(r"(-?[0-9.]+)(?: (ns|us|ms|s))?", label)
    if not m:
        raise ValueError(label)
    return float(m.group(1)) * UNIT.get(m.group(2) or "", 1)


def lab(h):
    r, g, b = (int(h[i:i + 2], 16) / 255 for i in (1, 3, 5))
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
           for c in (r, g, b)]
    x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883
    f = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
         for t in (x, y, z)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def delta_e(a, b):
    return math.dist(lab(a), lab(b))


# ---- the pieces of a picture -----------------------------------------------
def ticks(root, kind, keep=lambda x, y: True):
    """[(value, x, y)] of the tick labels (of one axis: keep(x, y)), checked
    round: evenly spaced by a step of 1, 2 or 5 x 10^k, each value a
    multiple of it."""
    t = [(value(e.text), float(e.get("x")), float(e.get("y")))
         for e in root.iter(NS + "text") if e.get("class") == "tick"]
    t = [a for a in t if keep(a[1], a[2])]
    check(len(t) >= 2, f"{kind}: {len(t)} ticks")
    if len(t) < 2:
        return t
    step = t[1][0] - t[0][0]
    m = step / 10 ** math.floor(math.log10(step) + 1e-9)
    check(any(abs(m - r) < 1e-9 for r in (1, 2, 5)),
          f"{kind}: tick step {step} is not 1, 2 or 5 x 10^k")
    for i, (v, _, _) in enumerate(t):
        check(abs(v / step - round(v / step)) < 1e-6,
              f"{kind}: tick {v} not a multiple of {step}")
        check(abs(v - (t[0][0] + i * step)) < step * 1e-6,
              f"{kind}: ticks {[x[0] for x in t]} not evenly spaced")
    return t


def check_axis(kind, t, lo, hi, pos, coord):
    """Ticks inside [lo, hi], each drawn where the axis maps its value:
    pos(v) gives the expected x (coord 1) or y (coord 2)."""
    for v, *xy in [(a[0], a[1], a[2]) for a in t]:
        check(lo - 1e-9 <= v <= hi * (1 + 1e-9),
              f"{kind}: tick {v} outside [{lo}, {hi}]")
        check(abs(xy[coord - 1] - pos(v)) < 0.06,
              f"{kind}: tick {v} at {xy[coord - 1]}, axis puts it at {pos(v)}")


def boxes(root):
    """[(title lines, rect, text or None)] of every rect but the picture's
    background; a rect outside a titled <g> counts as a failure."""
    parent = {c: p for p in root.iter() for c in p}
    out = []
    rects = list(root.iter(NS + "rect"))
    for r in rects[1:]:
        g = parent.get(r)
        title = g.find(NS + "title") if g is not None else None
        check(g is not None and g.tag == NS + "g" and title is not None and
              list(g)[0] is title and title.text,
              f"rect at {r.get('x')},{r.get('y')} has no <title>")
        if title is not None and title.text:
            out.append((title.text.split("\n"), r, g.find(NS + "text")))
    return out


def check_labels(kind, bx, width):
    """A box's label starts inside it and its estimated width ends there."""
    n = 0
    for lines, r, t in bx:
        if t is None:
            continue
        x, w = float(r.get("x")), float(r.get("width"))
        tx = float(t.get("x"))
        text = "".join(t.itertext())
        est = cols(text) * CHAR_W
        if tx >= x + w:  # a legend's or a bar's value: right of the box
            check(tx + est <= width, f"{kind}: {text!r} leaves the picture")
            continue
        n += 1
        check(tx >= x and tx + est <= x + w + 1e-6,
              f"{kind}: label {text!r} ({est:.1f} px at {tx}) outside its "
              f"box [{x}, {x + w}]")
    return n


def by_thread(path):
    """(rank, thread, region) -> (calls, total_ns) from the CSV export."""
    rows = csv.DictReader(io.StringIO(run("--export", "csv", "--by-thread",
                                          path)))
    return {(int(r["rank"]), int(r["thread"]), r["region"]):
            (int(r["calls"]), int(r["total_ns"])) for r in rows}


def by_region(path):
    rows = csv.DictReader(io.StringIO(run("--export", "csv", path)))
    return {r["region"]: (int(r["calls"]), int(r["total_ns"])) for r in rows}


def near(shown, exact):
    """A time as rp_time prints it (three significant digits) matches."""
    return abs(value(shown) - exact) <= max(abs(exact) * 5e-3, 0.5)


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK + "/a")
subprocess.run([GEN, WORK], check=True)
A, S1, S4 = WORK + "/a", WORK + "/s1.h5", WORK + "/s4.h5"
MANY, CRAFT = WORK + "/many.spt", WORK + "/crafted.spt"

# ---- timeline --------------------------------------------------------------
LEFT, PLOT = 130, 1400 - 130 - 10
TL = re.compile(r"(.*) \(rank (\d+) thread (\d+), depth (\d+)\)")


def timeline(name, path, lo, hi, *args):
    """Checks one timeline; returns its boxes by region and its legend."""
    root = svg(name, "--svg", "timeline", path, *args)
    kind = f"timeline {name}"
    t = ticks(root, kind)
    check_axis(kind, t, lo, hi, lambda v: LEFT + (v - lo) / (hi - lo) * PLOT,
               1)
    axis = [e for e in root.iter(NS + "line") if e.get("class") == "axis"]
    check(len(axis) == 1 and float(axis[0].get("x1")) == LEFT and
          float(axis[0].get("x2")) == LEFT + PLOT, f"{kind}: axis line")
    rows = by_thread(path)
    bx = boxes(root)
    lanes, legend = [], []
    for lines, r, _ in bx:
        m = TL.fullmatch(lines[0])
        if m:  # a lane's box: region, lane, time range, calls, source
            reg, rank, thr = m.group(1), int(m.group(2)), int(m.group(3))
            want = rows.get((rank, thr, reg))
            got = re.fullmatch(r"(\d+) calls on this thread, total (.*)",
                               lines[2]) if len(lines) > 2 else None
            check(want and got and int(got.group(1)) == want[0] and
                  near(got.group(2), want[1]),
                  f"{kind}: {lines} against {want}")
            lanes.append((reg, r))
        else:
            legend.append((lines, r))
    check_labels(kind, bx, 1400)
    # The legend: the regions drawn, each once, in colours of their own,
    # which their boxes wear.
    names = [ln[0] for ln, _ in legend]
    fills = {ln[0]: r.get("fill") for ln, r in legend}
    drawn = {reg for reg, _ in lanes}
    named = {n for n in names if not n.startswith("others: ")}
    others = [ln for ln, _ in legend if ln[0].startswith("others: ")]
    hidden = set(others[0][2:]) if others else set()
    check(named | hidden == drawn and not named & hidden,
          f"{kind}: legend {names} + others {hidden} against drawn {drawn}")
    colours = [fills[n] for n in named]
    check(len(set(colours)) == len(colours) and OTHERS not in colours,
          f"{kind}: legend colours {fills}")
    for reg, r in lanes:
        want = fills.get(reg, OTHERS if reg in hidden else None)
        check(r.get("fill") == want,
              f"{kind}: {reg} drawn in {r.get('fill')}, legend {want}")
    totals = by_region(path)
    for ln, _ in legend:
        if ln[0] in totals:
            c, tot = re.fullmatch(r"(\d+) calls, total (.*)", ln[1]).groups()
            check(int(c) == totals[ln[0]][0] and near(tot, totals[ln[0]][1]),
                  f"{kind}: legend {ln} against {totals[ln[0]]}")
    # Neighbours: boxes touching side by side, or one on top of the other
    # (the next depth) over some width, of two regions.
    rect = [(reg, float(r.get("x")), float(r.get("y")), float(r.get("width")),
             r.get("fill")) for reg, r in lanes]
    pairs = 0
    for a in rect:
        for b in rect:
            if a[0] >= b[0]:
                continue
            side = a[2] == b[2] and (abs(a[1] + a[3] - b[1]) < 0.01 or
                                     abs(b[1] + b[3] - a[1]) < 0.01)
            over = abs(a[2] - b[2]) == 14 and \
                min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]) > 0.01
            if (side or over) and not (a[4] == OTHERS == b[4]):
                pairs += 1
                check(delta_e(a[4], b[4]) >= MIN_DE,
                      f"{kind}: neighbours {a[0]} {a[4]} and {b[0]} {b[4]}: "
                      f"delta E {delta_e(a[4], b[4]):.1f}")
    return lanes, names, fills, pairs


lanes, names, fills, pairs = timeline("a", A, 0, 2000)
check(names == ["main", "solve", "io"], f"timeline a legend {names}")
check(pairs >= 5, f"timeline a: {pairs} neighbour pairs checked")
lanes, names, _, _ = timeline("window", A, 500, 1500, "--window",
                              "0.0000005:0.0000015")
lanes, names, fills, pairs = timeline("many", MANY, 0, 82000)
# Colours by time shown: main, r00, r01, leaf, r02, ... 12 of them, then
# "others" for the six shortest.
order = ["main", "r00", "r01", "leaf", "r02", "r03", "r04", "r05", "r06",
         "r07", "r08", "r09"]
check([n.split("_")[0] for n in names] == order + ["others: 6 regions"],
      f"timeline many legend {names}")
check(pairs >= 20, f"timeline many: {pairs} neighbour pairs checked")
cut = [t for t in ET.parse(WORK + "/many.svg").getroot().iter(NS + "text")
       if (t.text or "").endswith("..")]
check(cut, "timeline many: no long name was cut")
lanes, names, _, _ = timeline("big", WORK + "/big.spt", 0, 4e6)

# ---- flame graph -----------------------------------------------------------
root = svg("flame", "--svg", "flame", A)
bx = boxes(root)
# Call paths of profile a and their calls, worked out from report_gen.c.
want = {"main": 3, "main > solve": 3, "main > solve > io": 1, "main > io": 3}
got = {}
for lines, r, _ in bx:
    m = re.search(r", (\d+) calls$", lines[1])
    if lines[0].startswith("all: "):
        check(lines[1] == "10 calls", f"flame base frame {lines}")
    else:
        got[lines[0]] = int(m.group(1)) if m else None
check(got == want, f"flame titles {got}")
check(check_labels("flame", bx, 1200) >= 3, "flame: labels")
check(not [e for e in root.iter(NS + "text") if e.get("class") == "tick"],
      "flame: no axis")
root = svg("flame-many", "--svg", "flame", MANY)
check_labels("flame many", boxes(root), 1200)

# ---- compare ---------------------------------------------------------------
W, CL, CR = 1000, 200, 60
for metric, top in [("avg", 8000), ("total", 8000), ("min", 8000)]:
    root = svg("compare-" + metric, "--svg", "compare", "--metric", metric,
               S1, S4)
    kind = f"compare {metric}"
    t = ticks(root, kind)
    check_axis(kind, t, 0, top, lambda v: CL + v / top * (W - CL - CR), 1)
    bx = boxes(root)
    runs = {S1: by_region(S1), S4: by_region(S4)}
    bars = 0
    for lines, r, _ in bx:
        m = re.fullmatch(r"(.*) in (.*): (\w+) (.*)", lines[0])
        if not m:  # a legend swatch: the run and its mpi_size
            check(lines[0] in runs and lines[1].startswith("mpi_size "),
                  f"{kind}: legend {lines}")
            continue
        bars += 1
        reg, path = m.group(1), m.group(2)
        c, tot = re.fullmatch(r"(\d+) calls, total (.*)", lines[1]).groups()
        check(int(c) == runs[path][reg][0] and near(tot, runs[path][reg][1]),
              f"{kind}: {lines} against {runs[path][reg]}")
    check(bars == 5, f"{kind}: {bars} bars")
    check_labels(kind, bx, W)

# ---- speedup ---------------------------------------------------------------
root = svg("speedup", "--svg", "speedup", S4, S1)
x0, pw, y0, ph = 80, W - 80 - 260, 520 - 60, 520 - 120
xs = ticks(root, "speedup x", lambda x, y: y == y0 + 16)
ys = ticks(root, "speedup y", lambda x, y: y != y0 + 16)
check([a[0] for a in xs] == [0, 1, 2, 3, 4], f"speedup x ticks {xs}")
check_axis("speedup x", xs, 0, 4, lambda v: x0 + v * pw / 4, 1)
check([a[0] for a in ys] == [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4],
      f"speedup y ticks {ys}")
check_axis("speedup y", ys, 0, 4 * 1.05,
           lambda v: y0 - v * ph / (4 * 1.05) + 4, 2)
bx = boxes(root)
runs = by_region(S1)
leg = {lines[0]: lines[1] for lines, _, _ in bx}
check(leg == {r: f"{runs[r][0]} calls, total {v}"
              for r, v in [("main", "8 us"), ("solve", "6 us")]},
      f"speedup legend {leg}")
check_labels("speedup", bx, W)

# ---- crafted names: XML's specials, a newline, a byte not UTF-8 -----------
NAME = "a<b>&c\nd? e????????????z"  # \xff, \x01, U+FFFE and each byte of an ill-formed sequence: ?
for kind, args in [("flame", [CRAFT]), ("timeline", [CRAFT]),
                   ("compare", [CRAFT, S4]), ("speedup", [CRAFT, S4])]:
    root = svg("crafted-" + kind, "--svg", kind, *args)  # parses, or exits
    titles = [t.text for t in root.iter(NS + "title")]
    check(any(NAME in t for t in titles), f"crafted {kind}: {titles}")
    check(any("source f<&>'\".c:7" in t for t in titles),
          f"crafted {kind}: source file name")
    check_labels("crafted " + kind, boxes(root), 1400)

finish()
