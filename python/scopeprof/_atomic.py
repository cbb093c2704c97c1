# Files the package writes (charts, exports): created under a temporary name
# beside the target with O_EXCL, so never through a link planted there, and
# renamed over the target, so a failure never leaves a partial file.
import contextlib
import os

_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
          | getattr(os, "O_CLOEXEC", 0))


def _create(path):
    d, base = os.path.split(path)
    for n in range(1000):
        tmp = os.path.join(d, "%s.tmp.%d.%d" % (base, os.getpid(), n))
        try:
            return tmp, os.open(tmp, _FLAGS, 0o666)
        except FileExistsError:
            continue  # a leftover, or something planted there: another name
    raise FileExistsError("%s: no free temporary name beside it" % path)


@contextlib.contextmanager
def replace(path, mode="wb"):
    """A file object open on a fresh temporary; on a clean exit it is
    flushed, closed and renamed to `path`, else removed."""
    path = os.fspath(path)
    tmp, fd = _create(path)
    try:
        with os.fdopen(fd, mode) as f:
            yield f
        os.rename(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
