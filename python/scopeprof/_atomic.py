# Files the package writes (charts, exports): created under a temporary name
# beside the target with O_EXCL, so never through a link planted there, and
# renamed over the target, so a failure never leaves a partial file.
import contextlib
import secrets
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


def write(path, fill, mode=0o666):
    """Calls fill(binary file) on a new temporary in path's directory, then
    renames it to path. The temporary is created with O_EXCL|O_NOFOLLOW
    under a random name: a file or symlink planted there is never opened
    or followed (another name is tried). On any failure the temporary is
    removed and path is left as it was."""
    path = os.fspath(path)
    d, base = os.path.split(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        tmp = os.path.join(d, ".%s.%s.tmp" % (base, secrets.token_hex(6)))
        try:
            fd = os.open(tmp, flags, mode)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError("%s: no free temporary name beside it" % path)
    try:
        with os.fdopen(fd, "wb") as f:
            fill(f)
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError) and e.errno and not e.filename:
            raise OSError(e.errno, e.strerror, path) from None
        raise
    return path
