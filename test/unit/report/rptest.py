"""rptest.py - what the sp-report test scripts share: failures collected
(each printed as it happens) and reported at the end, and a tool run with
its exit status checked."""
import subprocess
import sys

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def eq(a, b, what):
    check(a == b, f"{what}: {a!r} != {b!r}")


def tool(path, stdout_only=False):
    """run(*args, ok=True): path with args, output captured as text; a
    nonzero status ends the test when ok. The CompletedProcess, or with
    stdout_only its stdout."""
    def run(*args, ok=True):
        p = subprocess.run([path, *args], capture_output=True, text=True)
        if ok and p.returncode != 0:
            raise SystemExit(f"sp-report {' '.join(args)} failed: {p.stderr}")
        return p.stdout if stdout_only else p
    return run


def finish():
    """Exit status 1 with the count if anything failed, else 0."""
    print(f"{len(FAILS)} failures" if FAILS else "ok")
    sys.exit(1 if FAILS else 0)
