# Files the package writes (charts, statistics JSON): a temporary beside the
# final name, created exclusively, then renamed over it.
import os
import secrets


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
