#!/usr/bin/env python3
"""test_progress.py PROG SP_IMPORT WORK SP_REPORT - the progress line of the
runtime's finalize, of sp-import and of sp-report (reading the files, the
statistics and the walks through call stacks): drawn on a terminal (a pseudo-terminal from
`script`) with SP_PROGRESS=1, as plain lines in a pipe with SP_PROGRESS=1,
and never in a pipe, on a terminal for work under a second, or with
SP_PROGRESS=0."""
import os
import re
import shutil
import subprocess
import sys

PROG, IMPORT, WORK, REPORT = sys.argv[1:5]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
from sptest import check, failures  # noqa: E402


def env(progress, out):
    e = {k: v for k, v in os.environ.items() if k != "SP_PROGRESS"}
    e.update(SP_FORMAT="spt", SP_OUTPUT=out, SP_RANK="0")
    if progress is not None:
        e["SP_PROGRESS"] = progress
    return e


def in_pipe(cmd, e):
    p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, f"{cmd}: exit {p.returncode} {p.stderr!r}")
    return p.stderr


def on_terminal(cmd, e):
    """What cmd writes to its terminal (stdout and stderr, one pty)."""
    p = subprocess.run(["script", "-q", "-e", "-c",
                        " ".join("'%s'" % a for a in cmd), "/dev/null"],
                       env=e, capture_output=True, timeout=60)
    check(p.returncode == 0, f"{cmd} on a terminal: exit {p.returncode}")
    return p.stdout.decode()  # bytes: text mode would turn \r into \n


def tool_cases(who, cmd, env, run, last_on_terminal):
    """A tool's progress over 10 calls: drawn on a terminal (and its last
    line, when last_on_terminal) and as lines in a pipe with
    SP_PROGRESS=1; nothing in a pipe or on a terminal otherwise."""
    t = on_terminal(cmd, env("1", run))
    check(re.search(r"\r%s: +\d+%% of 10 calls" % who, t) and
          (not last_on_terminal or
           re.search(r"\r%s: 10 calls in \d+\.\d s" % who, t)),
          f"{who}, terminal, SP_PROGRESS=1: {t!r}")
    err = in_pipe(cmd, env("1", run))
    check(re.fullmatch(r"(%s: +\d+%% of 10 calls, [^\n]*\n)+"
                       r"%s: 10 calls in [^\n]*\n" % (who, who), err),
          f"{who}, pipe, SP_PROGRESS=1: {err!r}")
    check("left" not in err and "left" not in t,
          f"{who}: a time left guessed under a second: {err!r}")
    for progress in (None, "0"):
        err = in_pipe(cmd, env(progress, run))
        check(err == "", f"{who}, pipe, SP_PROGRESS={progress}: {err!r}")
        t = on_terminal(cmd, env(progress, run))
        check(f"{who}:" not in t,
              f"{who}, terminal, SP_PROGRESS={progress}: {t!r}")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    run = os.path.join(WORK, "run")
    # The runtime: rank 0 of the program writes 10 calls.
    # Under a second: no time left is guessed (a start-up's first calls
    # would make it hours); all counted work done says "finishing".
    draw = re.compile(r"\rscopeprof: +\d+% of 10 calls, [0-9.KM]+/s(, finishing)?\x1b\[K")
    done = re.compile(r"\rscopeprof: 10 calls in \d+\.\d s \([0-9.KM]+/s\)\x1b\[K\r?\n")
    t = on_terminal([PROG], env("1", run))
    check(draw.search(t) and done.search(t), f"runtime, terminal, SP_PROGRESS=1: {t!r}")
    err = in_pipe([PROG], env("1", run))
    lines = err.splitlines()
    check(len(lines) >= 2 and all(re.fullmatch(
        r"scopeprof: +\d+% of 10 calls, [0-9.KM]+/s(, finishing)?", x)
        for x in lines[:-1]) and
        re.fullmatch(r"scopeprof: 10 calls in \d+\.\d s \([0-9.KM]+/s\)", lines[-1]),
        f"runtime, pipe, SP_PROGRESS=1: {err!r}")
    for progress in (None, "auto", "0"):
        err = in_pipe([PROG], env(progress, run))
        check(err == "", f"runtime, pipe, SP_PROGRESS={progress}: {err!r}")
    for progress in (None, "0"):
        t = on_terminal([PROG], env(progress, run))
        check("scopeprof:" not in t,
              f"runtime, terminal, SP_PROGRESS={progress}, under 1 s: {t!r}")

    # sp-import of that rank's file: its 10 calls.
    spt = run + "_rank00000.spt"
    out = os.path.join(WORK, "merged.h5")
    tool_cases("sp-import", [IMPORT, "-o", out, spt], env, run, True)
    # sp-report's passes over the calls (--tree): the same rules.
    tool_cases("sp-report", [REPORT, "--tree", spt], env, run, False)
    # Reading the files and their statistics count too: the table of an
    # .spt (no walk through call stacks) draws the line, and so does an
    # .h5 read with --events; an .h5 read through its summary records
    # alone has no calls to count.
    tool_cases("sp-report", [REPORT, spt], env, run, False)
    tool_cases("sp-report", [REPORT, "--events", out], env, run, False)
    err = in_pipe([REPORT, out], env("1", run))
    check(err == "", f"sp-report, summary records only, SP_PROGRESS=1: {err!r}")
    # The calls are counted once whatever the passes: the first line drawn
    # (at the first calls read) is below 100 %, the last says 10 calls.
    err = in_pipe([REPORT, "--export", "folded", spt], env("1", run))
    first = re.match(r"sp-report: +(\d+)% of 10 calls", err)
    check(first and int(first.group(1)) < 100 and
          re.search(r"\nsp-report: 10 calls in \d+\.\d s \([0-9.KM]+/s\)\n$", err),
          f"sp-report, folded, SP_PROGRESS=1: {err!r}")

    if failures:
        print(f"{len(failures)} failures")
        return 1
    print("progress: runtime, sp-import and sp-report, terminal and pipe: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
