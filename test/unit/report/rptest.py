"""rptest.py - what the sp-report test scripts share: the Python tests'
check and eq (test/python/sptest.py: failures collected, each printed as it
happens) reported at the end, and a tool run with its exit status
checked."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
from sptest import check, eq  # noqa: E402
from sptest import failures as FAILS  # noqa: E402

__all__ = ["FAILS", "check", "eq", "finish", "tool"]


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
