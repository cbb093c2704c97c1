"""sptest.py - what the Python test scripts share: failures collected, each
printed as it happens, for the script to count at its end (a script under
test/unit puts test/python on its path first)."""

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def eq(got, want, what):
    check(got == want, "%s: %r != %r" % (what, got, want))


def near(got, want, what, rel=1e-9, tol=1e-12):
    """got within tol + rel * |want| of want."""
    check(abs(got - want) <= tol + rel * abs(want), "%s: %r != %r" % (what, got, want))
