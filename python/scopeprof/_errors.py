# The package's own error for a file it cannot read as a profile: one line,
# naming the file (and the byte offset in an .spt), as the C tools print.


class FormatError(ValueError):
    """A file that is not a readable ScopeProf profile: damaged, truncated,
    of an unknown version or schema, or breaking the format's rules. The
    message is one line and begins with the file's name."""


def one_line(e):
    """An exception's text on one line (h5py's messages may span several)."""
    text = " ".join(str(e).split())
    return text or type(e).__name__
