#!/usr/bin/env python3
"""test_report_otf2.py - sp-report --export otf2, read back with the otf2
Python module and otf2-print: a real pthread program (otf2_prog.c, built
with sp-cc, two ranks merged by sp-import) checked against the profile's
own stamps (h5py) and --by-thread counts; report_gen's hand-built profiles
checked event by event, with --ranks, --include/--exclude and --window;
errors on one line with nothing left behind.
usage: test_report_otf2.py SP_CC SP_REPORT SP_IMPORT REPORT_GEN OTF2_PRINT
                           SOURCE WORKDIR"""
import collections
import csv
import datetime
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys

from rptest import check, finish, tool

CC, REPORT, IMPORT, GEN, PRINT, SRC, WORK = sys.argv[1:8]
try:
    import h5py
    import otf2
except ImportError as e:
    print(f"skipped: {e} (Debian: python3-otf2, python3-h5py)")
    sys.exit(77)

BASE = 1000000000  # report_gen's stamps are BASE + the values it lists


report = tool(REPORT)


def export(out, *args):
    report("--export", "otf2", "-o", out, *args)
    return read(out)


def read(out):
    """Definitions and events of an archive, by (rank, thread)."""
    t = {"regions": {}, "locs": collections.defaultdict(list),
         "groups": {}, "gprops": collections.defaultdict(dict)}
    with otf2.reader.open(out + "/traces.otf2") as tr:
        d = tr.definitions
        c = d.clock_properties
        t["clock"] = (c.timer_resolution, c.global_offset, c.trace_length,
                      c.realtime_timestamp)
        for r in d.regions:
            t["regions"][r.name] = (r.canonical_name,
                                    r.source_file,
                                    r.begin_line_number, r.paradigm,
                                    r.region_role)
        for g in d.location_groups:
            parent = g.system_tree_parent
            t["groups"][g.name] = (parent.name, parent.class_name,
                                   parent.parent.name if parent.parent else None)
        for pr in d.location_group_properties:
            t["gprops"][pr.location_group.name][pr.name] = pr.value
        t["defined"] = {}
        for loc in d.locations:
            key = (int(loc.group.name.split()[1]), int(loc.name.split()[1]))
            t["defined"][key] = (loc._ref, loc.number_of_events)
        for loc, ev in tr.events:
            key = (int(loc.group.name.split()[1]), int(loc.name.split()[1]))
            kind = {"Enter": "E", "Leave": "L"}[type(ev).__name__]
            t["locs"][key].append((kind, ev.time, ev.region.name))
    return t


def anchor_props(out):
    p = subprocess.run([PRINT, "-A", out + "/traces.otf2"],
                       capture_output=True, text=True, check=True)
    names = re.findall(r"^Property name +(\S+)$", p.stdout, re.M)
    values = re.findall(r"^Property value +(.*)$", p.stdout, re.M)
    return dict(zip(names, values))


def nesting(t, label):
    """Per location: stamps never go back, leaves close the open enter."""
    for key, evs in t["locs"].items():
        stack, last = [], -1
        for kind, ts, name in evs:
            check(ts >= last, f"{label} {key}: {ts} after {last}")
            last = ts
            if kind == "E":
                stack.append(name)
            else:
                check(stack and stack[-1] == name,
                      f"{label} {key}: leave {name} with {stack} open")
                stack[-1:] = []
        check(not stack, f"{label} {key}: left open {stack}")
        check(t["defined"][key][1] == len(evs),
              f"{label} {key}: {t['defined'][key]} events defined, "
              f"{len(evs)} read")


def leftovers(parent, name):
    return [f for f in os.listdir(parent) if f.startswith(name + ".tmp")]


def one_line_error(args, needle, out):
    p = report(*args, ok=False)
    lines = p.stderr.strip().splitlines()
    check(p.returncode != 0, f"{args}: exit status {p.returncode}")
    check(len(lines) == 1, f"{args}: {len(lines)} lines: {p.stderr!r}")
    check(needle in p.stderr, f"{args}: {needle!r} not in {p.stderr!r}")
    parent, name = os.path.split(out)
    if os.path.isdir(parent):
        check(leftovers(parent, name) == [],
              f"{args}: left {leftovers(parent, name)}")


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK + "/run")

# ---- a real program: two ranks, three threads each ------------------------
# (SP_CC "-": a build without the plugin; this part is skipped.)
def real_program():
    env = dict(os.environ, SP_FORMAT="h5", SP_OUTPUT=WORK + "/run/p")
    subprocess.run([CC, "-g", "-O0", "-pthread", SRC, "-o", WORK + "/prog"],
                   check=True, env=env)
    for rank in (0, 1):
        subprocess.run([WORK + "/prog"], check=True, stdout=subprocess.DEVNULL,
                       env=dict(env, SP_RANK=str(rank)))
    MERGED = WORK + "/merged.h5"
    subprocess.run([IMPORT, "-o", MERGED, WORK + "/run"], check=True,
                   capture_output=True)
    t = export(WORK + "/prog.otf2", MERGED, "--with-metadata")

    # The profile itself, read with h5py: every call of every (rank, thread).
    want = collections.defaultdict(list)  # (rank, thread) -> (start, end, name)
    with h5py.File(MERGED, "r") as h:
        names = [n.decode() if isinstance(n, bytes) else n
                 for n in h["region_table/names"][()]]
        ix = h["rank_region_index"]
        starts, ends = h["events/start_times"][()], h["events/end_times"][()]
        files = ix["source_files"][()]
        rfile = {}
        for i in range(len(ix["ranks"])):
            key = (int(ix["ranks"][i]), int(ix["threads"][i]))
            name = names[ix["region_ids"][i]]
            f = files[i].decode() if isinstance(files[i], bytes) else files[i]
            rfile[name] = (f, int(ix["source_lines"][i]))
            o, n = int(ix["event_offsets"][i]), int(ix["event_counts"][i])
            want[key] += [(int(s), int(e), name)
                          for s, e in zip(starts[o:o + n], ends[o:o + n])]
        meta = {k: v for k, v in h["metadata"].attrs.items()}
    lo = min(s for v in want.values() for s, _, _ in v)
    hi = max(e for v in want.values() for _, e, _ in v)
    check(t["clock"][:3] == (10**9, lo, hi - lo),
          f"clock {t['clock']}, want offset {lo} length {hi - lo}")
    # The wall clock at the offset: the start time (ISO-8601, to the second)
    # plus the stamps since the runtime's start.
    iso = meta["timestamp"]
    iso = iso.decode() if isinstance(iso, bytes) else iso
    wall = int(datetime.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S%z").timestamp())
    check(t["clock"][3] == wall * 10**9 + lo - int(meta["start_time_ns"]),
          f"realtime {t['clock'][3]} from {iso} {meta['start_time_ns']}")

    check(sorted(want) == [(r, th) for r in (0, 1) for th in (0, 1, 2)],
          f"profile threads {sorted(want)}")
    check(sorted(t["defined"]) == sorted(want),
          f"locations {sorted(t['defined'])} vs {sorted(want)}")
    check(all(ref == th << 32 | r for (r, th), (ref, _) in t["defined"].items()),
          f"location refs {t['defined']}")
    nesting(t, "prog")
    for key, calls in want.items():
        evs = t["locs"][key]
        got_e = sorted((ts, n) for k, ts, n in evs if k == "E")
        got_l = sorted((ts, n) for k, ts, n in evs if k == "L")
        check(got_e == sorted((s, n) for s, _, n in calls),
              f"prog {key}: enters differ from the profile's starts")
        check(got_l == sorted((e, n) for _, e, n in calls),
              f"prog {key}: leaves differ from the profile's ends")
    # Counts as sp-report's own table has them.
    rows = csv.DictReader(io.StringIO(report("--by-thread", "--export", "csv",
                                             MERGED).stdout))
    calls = collections.Counter()
    for r in rows:
        calls[(int(r["rank"]), int(r["thread"]), r["region"])] += int(r["calls"])
    got = collections.Counter((k[0], k[1], n) for k, evs in t["locs"].items()
                              for kind, _, n in evs if kind == "E")
    check(got == calls, f"enters per (rank, thread, region) {got} vs {calls}")
    # The program: per rank R, leaf runs 2 + 3(1 + R) + 3(2 + R) times.
    for rank in (0, 1):
        n = sum(c for (r, _, name), c in got.items() if r == rank and name == "leaf")
        check(n == 2 + 3 * (1 + rank) + 3 * (2 + rank), f"rank {rank}: {n} leaves")
    src = open(SRC).read().splitlines()
    for name in ("leaf", "step", "worker"):
        line = next(i for i, l in enumerate(src, 1)
                    if re.search(rf"\b{name}\(", l) and "annotate" in l)
        reg = t["regions"].get(name)
        check(reg is not None and reg[0] == name and
              reg[1] == rfile[name][0] and reg[1].endswith("otf2_prog.c") and
              reg[2] == line == rfile[name][1] and
              reg[3] == otf2.Paradigm.USER,
              f"region {name}: {reg}, want {rfile[name]} line {line}")
    # Hosts: the system tree names each rank's host, its properties its entries.
    host = os.uname().nodename
    for rank in (0, 1):
        check(t["groups"].get(f"rank {rank}") == (host, "node", "machine"),
              f"rank {rank}'s system tree parent {t['groups']}")
        check(t["gprops"][f"rank {rank}"].get("hostname") == host,
              f"rank {rank}'s properties {dict(t['gprops'])}")
    props = anchor_props(WORK + "/prog.otf2")
    check(props.get("SCOPEPROF::MPI_SIZE") == "2" and
          props.get("SCOPEPROF::HOSTNAME") == host and
          props.get("SCOPEPROF::LABEL") == "merged" and
          "SCOPEPROF::RANK_HOSTNAME" not in props, f"properties {props}")
    # By default the archive carries the run's description, not its
    # environment: no PATH, user, host or directory in any property; the
    # system tree still names each rank's host (the view needs it).
    t2 = export(WORK + "/private.otf2", MERGED)
    # the chrome export likewise
    od = json.loads(report("--export", "chrome", MERGED).stdout)["otherData"]
    check(od.get("mpi_size") == 2 and od.get("label") == "merged" and
          not any(k in od for k in ("PATH", "user", "hostname",
                                    "working_directory", "uname")),
          f"chrome's default otherData {od}")
    od = json.loads(report("--export", "chrome", "--with-metadata",
                           MERGED).stdout)["otherData"]
    check(od.get("hostname") == host and "PATH" in od,
          f"chrome's otherData --with-metadata {sorted(od)}")
    props2 = anchor_props(WORK + "/private.otf2")
    check(props2.get("SCOPEPROF::MPI_SIZE") == "2" and
          props2.get("SCOPEPROF::LABEL") == "merged" and
          not any(k in props2 for k in ("SCOPEPROF::PATH", "SCOPEPROF::USER",
                                        "SCOPEPROF::HOSTNAME",
                                        "SCOPEPROF::WORKING_DIRECTORY",
                                        "SCOPEPROF::UNAME")),
          f"default properties {props2}")
    check(all(t2["groups"].get(f"rank {r}") == (host, "node", "machine") and
              "hostname" not in t2["gprops"][f"rank {r}"] for r in (0, 1)),
          f"default groups {t2['groups']} {dict(t2['gprops'])}")
    p = subprocess.run([PRINT, WORK + "/prog.otf2/traces.otf2"],
                       capture_output=True, text=True)
    n = sum(len(v) for v in want.values())
    check(p.returncode == 0 and
          len(re.findall(r"^ENTER ", p.stdout, re.M)) == n and
          len(re.findall(r"^LEAVE ", p.stdout, re.M)) == n,
          f"otf2-print: {p.returncode} {p.stderr!r}")


if CC != "-":
    real_program()
else:
    print("real program: skipped (no sp-cc in this build)")

# ---- hand-built profiles: every event known --------------------------------
os.makedirs(WORK + "/gen/a")
subprocess.run([GEN, WORK + "/gen"], check=True)
A = WORK + "/gen/a"


def ev(*spec):
    """("E", 0, "main"), ... with report_gen's offsets."""
    return [(k, BASE + ts, n) for k, ts, n in spec]


R0T0 = ev(("E", 0, "main"), ("E", 100, "solve"), ("L", 400, "solve"),
          ("E", 500, "solve"), ("E", 600, "io"), ("L", 700, "io"),
          ("L", 900, "solve"), ("L", 1000, "main"))
R0T1 = ev(("E", 0, "main"), ("E", 100, "io"), ("L", 200, "io"),
          ("L", 500, "main"))
R1T0 = ev(("E", 0, "main"), ("E", 100, "solve"), ("L", 1100, "solve"),
          ("E", 1200, "io"), ("L", 1300, "io"), ("E", 1400, "io"),
          ("L", 1600, "io"), ("L", 2000, "main"))
t = export(WORK + "/a.otf2", A)
nesting(t, "a")
check(dict(t["locs"]) == {(0, 0): R0T0, (0, 1): R0T1, (1, 0): R1T0},
      f"a: events {dict(t['locs'])}")
# No start time in the metadata: the wall clock is OTF2's "undefined".
check(t["clock"] == (10**9, BASE, 2000, 2**64 - 1), f"a: clock {t['clock']}")
check(t["regions"] == {"main": ("main", "m.c", 10, otf2.Paradigm.USER,
                                otf2.RegionRole.FUNCTION),
                       "solve": ("solve", "s.c", 20, otf2.Paradigm.USER,
                                 otf2.RegionRole.FUNCTION),
                       "io": ("io", "io.c", 30, otf2.Paradigm.USER,
                              otf2.RegionRole.FUNCTION)},
      f"a: regions {t['regions']}")
# No host known: the ranks hang off the root.
check(t["groups"] == {"rank 0": ("machine", "machine", None),
                      "rank 1": ("machine", "machine", None)},
      f"a: groups {t['groups']}")
# The same profile merged: the same events.
subprocess.run([IMPORT, "-o", WORK + "/a.h5", A], check=True,
               capture_output=True)
t2 = export(WORK + "/a_h5.otf2", WORK + "/a.h5")
check(t2["locs"] == t["locs"], "merged a: events differ")

# Filters: ranks, regions (children go to the nearest kept caller), window.
t = export(WORK + "/r1.otf2", "--ranks", "1", A)
check(dict(t["locs"]) == {(1, 0): R1T0} and list(t["groups"]) == ["rank 1"],
      f"--ranks 1: {dict(t['locs'])} {t['groups']}")
t = export(WORK + "/ex.otf2", "--exclude", "^solve$", A)
nesting(t, "--exclude")
check(t["locs"][(0, 0)] == [e for e in R0T0 if e[2] != "solve"] and
      t["locs"][(1, 0)] == [e for e in R1T0 if e[2] != "solve"] and
      "solve" not in t["regions"], f"--exclude solve: {dict(t['locs'])}")
t = export(WORK + "/in.otf2", "--include", "^io$", A)
check(dict(t["locs"]) == {k: [e for e in v if e[2] == "io"] for k, v in
                          [((0, 0), R0T0), ((0, 1), R0T1), ((1, 0), R1T0)]},
      f"--include io: {dict(t['locs'])}")
# --window 500:700 ns: the calls that overlap it, whole.
t = export(WORK + "/win.otf2", "--window", "0.0000005:0.0000007", A)
nesting(t, "--window")
check(t["locs"][(0, 0)] == [e for e in R0T0 if e[1] - BASE not in (100, 400)]
      and t["locs"][(0, 1)] == ev(("E", 0, "main"), ("L", 500, "main"))
      and t["locs"][(1, 0)] == ev(("E", 0, "main"), ("E", 100, "solve"),
                                  ("L", 1100, "solve"), ("L", 2000, "main")),
      f"--window: {dict(t['locs'])}")
# A thread none of whose calls is kept is still a location, empty.
t = export(WORK + "/none.otf2", "--include", "^solve$", "--ranks", "0", A)
check(t["defined"].get((0, 1), (0, -1))[1] == 0 and (0, 1) not in t["locs"],
      f"empty location: {t['defined']}")

# OpenMP regions: their paradigm and role.
t = export(WORK + "/omp.otf2", WORK + "/gen/omp")
nesting(t, "omp")
r = t["regions"]
check(r["omp parallel @ a.c:10"][3:] == (otf2.Paradigm.OPENMP,
                                         otf2.RegionRole.PARALLEL) and
      r["omp implicit task @ a.c:10"][3:] == (otf2.Paradigm.OPENMP,
                                              otf2.RegionRole.TASK) and
      r["work"][1:4] == ("w.c", 5, otf2.Paradigm.USER),
      f"omp regions {r}")

# Names that are not UTF-8 come out with U+FFFD; quotes and the like as
# they are.
t = export(WORK + "/names.otf2", WORK + "/gen/names.spt")
check(sorted(t["regions"]) == ["bad\ufffd byte",
                               "\u00fcnicode f<int>(a, \"b\") & c;d"] and
      t["regions"]["bad\ufffd byte"][1:3] == (None, 0) and
      t["regions"]["\u00fcnicode f<int>(a, \"b\") & c;d"][1:3] == ("x\".c", 1),
      f"names {t['regions']}")

# A location longer than the event writer's chunks in memory (16 MiB,
# about 24 bytes a call): written out as it goes, every event in order and
# no flush record among them. main [0, 100N + 2000] holds N leaves
# [1000 + 100i, 1050 + 100i].
N = 720000
starts = [1000 + 100 * i for i in range(N)]
with open(WORK + "/long.spt", "wb") as fh:
    fh.write(b"SCOPEPRF" + struct.pack("<iiq", 2, 0, 2))
    fh.write(struct.pack("<i", 4) + b"main" + struct.pack("<i", 0) +
             struct.pack("<iq", -1, 1) + struct.pack("<2q", 0, 100 * N + 2000))
    fh.write(struct.pack("<i", 4) + b"leaf" + struct.pack("<i", 0) +
             struct.pack("<iq", -1, N) + struct.pack(f"<{N}q", *starts) +
             struct.pack(f"<{N}q", *[s + 50 for s in starts]))
report("--export", "otf2", "-o", WORK + "/long.otf2", WORK + "/long.spt")
p = subprocess.run([PRINT, WORK + "/long.otf2/traces.otf2"],
                   capture_output=True, text=True)
records = re.findall(r"^[A-Z_]+ +\d+ +\d+ ", p.stdout, re.M)
got = re.findall(r'^(ENTER|LEAVE) +0 +(\d+) +Region: "(\w+)"', p.stdout, re.M)
want = [("ENTER", "0", "main")]
for s in starts:
    want += [("ENTER", str(s), "leaf"), ("LEAVE", str(s + 50), "leaf")]
want.append(("LEAVE", str(100 * N + 2000), "main"))
check(p.returncode == 0 and got == want and len(records) == len(want),
      f"long location: {p.returncode} {len(got)} events of {len(records)} "
      f"records, want {len(want)}; first difference at "
      f"{next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), None)}")
check(os.path.getsize(WORK + "/long.otf2/traces/0.evt") > 16 << 20,
      "long location: smaller than the chunks in memory")

# An existing empty directory is taken; the archive lands in it.
os.makedirs(WORK + "/empty")
t = export(WORK + "/empty/", A)
check(dict(t["locs"]) == {(0, 0): R0T0, (0, 1): R0T1, (1, 0): R1T0},
      "into an empty directory")

# ---- errors: one line naming what, nothing left behind ---------------------
os.makedirs(WORK + "/full")
open(WORK + "/full/keep", "w").close()
one_line_error(["--export", "otf2", "-o", WORK + "/full", A],
               WORK + "/full: exists and is not empty", WORK + "/full")
check(os.listdir(WORK + "/full") == ["keep"], "a non-empty DIR was touched")
open(WORK + "/afile", "w").close()
one_line_error(["--export", "otf2", "-o", WORK + "/afile", A],
               WORK + "/afile: exists", WORK + "/afile")
one_line_error(["--export", "otf2", "-o", WORK + "/afile/x", A],
               WORK + "/afile/x: Not a directory", WORK + "/afile/x")
if os.geteuid() != 0:  # root writes anywhere
    os.makedirs(WORK + "/ro")
    os.chmod(WORK + "/ro", 0o555)
    one_line_error(["--export", "otf2", "-o", WORK + "/ro/x", A],
                   WORK + "/ro/x: Permission denied", WORK + "/ro/x")
    check(os.listdir(WORK + "/ro") == [], "read-only parent touched")
one_line_error(["--export", "otf2", A], "-o DIR", WORK + "/x")
one_line_error(["--export", "otf2", "-o", "-", A], "-o DIR", WORK + "/x")
# Calls that overlap without nesting cannot be enters and leaves.
one_line_error(["--export", "otf2", "-o", WORK + "/bad", WORK + "/gen/bad.spt"],
               "overlaps", WORK + "/bad")
check(not os.path.exists(WORK + "/bad"), "bad: archive left")


def one_call_spt(name, start, end):
    """A crafted .spt v2: one rank, one region "a" of a.c, one call."""
    path = "%s/%s.spt" % (WORK, name)
    with open(path, "wb") as fh:
        fh.write(b"SCOPEPRF" + struct.pack("<iiq", 2, 0, 1) +
                 struct.pack("<i", 1) + b"a" + struct.pack("<i", 3) + b"a.c" +
                 struct.pack("<iq", 1, 1) + struct.pack("<2q", start, end))
    return path


# Stamps below 0 have no OTF2 time; a call that ends before it starts
# breaks a location's time order.
for name, start, end, why in (("neg", -5, 10, "below 0"),
                              ("back", 50, 10, "ends before it starts")):
    one_line_error(["--export", "otf2", "-o", WORK + "/" + name,
                    one_call_spt(name, start, end)], why, WORK + "/" + name)
    check(not os.path.exists(WORK + "/" + name), name + ": archive left")

finish()
