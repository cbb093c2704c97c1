# Reader of .spt binary traces, versions 1 to 4 in either byte order, with
# the checks of docs/format.md ("Reading rules").
import struct

import numpy as np

from ._errors import FormatError

MAGIC = b"SCOPEPRF"
MIN_BLOCK = {1: 13, 2: 21, 3: 25, 4: 33}


def is_spt(path):
    with open(path, "rb") as f:
        return f.read(8) == MAGIC


class _Reader:
    def __init__(self, path, buf, order):
        self.path, self.buf, self.o, self.pos = path, buf, order, 0

    def fail(self, at, what):
        raise FormatError("%s: offset %d: %s" % (self.path, at, what))

    def take(self, fmt, size, field):
        left = len(self.buf) - self.pos
        if left < size:
            self.fail(self.pos, "truncated: expected %s (%d bytes), %d left"
                      % (field, size, left))
        (v,) = struct.unpack_from(self.o + fmt, self.buf, self.pos)
        self.pos += size
        return v

    def text(self, n, field, what):
        left = len(self.buf) - self.pos
        if left < n:
            self.fail(self.pos, "truncated: expected %s (%d bytes), %d left"
                      % (field, n, left))
        raw = self.buf[self.pos:self.pos + n]
        if b"\0" in raw:
            self.fail(self.pos, "%s contains a NUL byte" % what)
        self.pos += n
        return raw.decode("utf-8", "replace")


def read(path):
    """(rank, blocks) where each block is a dict with thread, name, file
    ('' = unknown), line, starts, ends (native int64 arrays)."""
    with open(path, "rb") as f:
        buf = f.read()
    if len(buf) < 8:
        raise FormatError('%s: offset 0: truncated: expected magic "SCOPEPRF" '
                         '(8 bytes), %d left' % (path, len(buf)))
    if buf[:8] != MAGIC:
        raise FormatError("%s: offset 0: bad magic: not a ScopeProf .spt trace" % path)
    if len(buf) < 12:
        raise FormatError("%s: offset 8: truncated: expected int32 version "
                         "(4 bytes), %d left" % (path, len(buf) - 8))
    le = struct.unpack_from("<i", buf, 8)[0]
    be = struct.unpack_from(">i", buf, 8)[0]
    order = "<" if 1 <= le <= 0xFFFF else ">" if 1 <= be <= 0xFFFF else "<"
    r = _Reader(path, buf, order)
    r.pos = 8
    version = r.take("i", 4, "int32 version")
    if 5 <= version <= 0xFFFF:
        r.fail(8, "version %d is newer than this reader (supports 1-4)" % version)
    if version not in (1, 2, 3, 4):
        r.fail(8, "unknown version %d (supports 1-4)" % version)
    rank = r.take("i", 4, "int32 rank")
    if rank < 0:
        r.fail(12, "negative rank %d" % rank)
    nblocks = r.take("q", 8, "int64 number of regions")
    if nblocks < 0:
        r.fail(16, "negative number of regions %d" % nblocks)
    left = len(buf) - r.pos
    if nblocks > left // MIN_BLOCK[version]:
        r.fail(16, "number of regions %d does not fit in the %d bytes left "
               "(at least %d each)" % (nblocks, left, MIN_BLOCK[version]))
    dt = np.dtype(order + "i8")
    blocks, seen = [], set()
    for _ in range(nblocks):
        at = r.pos
        thread = 0
        if version >= 3:
            thread = r.take("i", 4, "int32 thread")
            if thread < 0:
                r.fail(at, "negative thread %d" % thread)
        p = r.pos
        ln = r.take("i", 4, "int32 name length")
        if ln < 0:
            r.fail(p, "negative name length %d" % ln)
        if ln == 0:
            r.fail(r.pos, "empty region name")
        name = r.text(ln, "region name", "region name")
        file, line = "", -1
        if version >= 2:
            p = r.pos
            fl = r.take("i", 4, "int32 file length")
            if fl < 0:
                r.fail(p, "negative file length %d" % fl)
            file = r.text(fl, "source file path", "source file path")
            p = r.pos
            line = r.take("i", 4, "int32 source line")
            if line < -1:
                r.fail(p, "invalid source line %d" % line)
        p = r.pos
        n = r.take("q", 8, "int64 number of calls")
        if n < 0:
            r.fail(p, "negative number of calls %d" % n)
        if version >= 4:
            q = r.pos
            zb = r.take("q", 8, "int64 bytes of calls")
            left = len(buf) - r.pos
            if zb < 0 or zb > left:
                r.fail(q, "bytes of calls %d: %d left" % (zb, left))
            if n > zb // 2:
                r.fail(p, "number of calls %d does not fit in its %d bytes "
                       "(at least 2 each)" % (n, zb))
            starts, ends = _varint_calls(r, n, zb)
        else:
            left = len(buf) - r.pos
            if n > left // 16:
                r.fail(p, "number of calls %d does not fit in the %d bytes "
                       "left (16 each)" % (n, left))
            starts = np.frombuffer(buf, dt, n, r.pos).astype(np.int64)
            ends = np.frombuffer(buf, dt, n, r.pos + 8 * n).astype(np.int64)
            r.pos += 16 * n
        if (thread, name) in seen:
            r.fail(at, 'duplicate block for region "%s" on thread %d' % (name, thread))
        seen.add((thread, name))
        blocks.append({"thread": thread, "name": name, "file": file,
                       "line": line, "starts": starts, "ends": ends})
    if r.pos != len(buf):
        r.fail(r.pos, "%d trailing byte(s) after the last region block"
               % (len(buf) - r.pos))
    return rank, blocks


def _varint_calls(r, n, zb):
    """A version-4 block's n calls from its zb bytes at r.pos: per call two
    LEB128 varints, the start minus the previous start (from 0) and the end
    minus the start, modulo 2**64. Decoded with whole-array operations; the
    errors and offsets are the C reader's."""
    at0 = r.pos
    b = np.frombuffer(r.buf, np.uint8, zb, at0)
    term = np.flatnonzero(b < 0x80)            # each varint's last byte
    first = np.empty(len(term), np.int64)      # and its first
    first[:1] = 0
    first[1:] = term[:-1] + 1
    lens = term - first + 1
    need = 2 * n
    have = min(need, len(term))
    bad = np.flatnonzero((lens[:have] > 10) |
                         ((lens[:have] == 10) & (b[term[:have]] > 1)))
    if len(bad):
        r.fail(at0 + int(first[bad[0] & ~1]),
               "calls: a varint longer than 10 bytes")
    if len(term) < need:
        call = len(term) // 2
        tail = int(term[-1]) + 1 if len(term) else 0
        start = int(first[2 * call]) if 2 * call < len(term) else tail
        r.fail(at0 + start, "calls: a varint longer than 10 bytes"
               if zb - tail >= 10 else "calls: the block's bytes end inside a call")
    used = int(term[need - 1]) + 1 if need else 0
    if used != zb:
        r.fail(at0 + used, "%d byte(s) after the block's %d calls"
               % (zb - used, n))
    r.pos += zb
    del term
    # Byte k of every varint at once, over the varints that long: few
    # passes, as most differences take one or two bytes.
    first, lens = first[:need], lens[:need]
    vals = (b[first] & 0x7F).astype(np.uint64)
    idx, k = np.flatnonzero(lens > 1), 1
    while len(idx):
        vals[idx] |= (b[first[idx] + k] & 0x7F).astype(np.uint64) << np.uint64(7 * k)
        k += 1
        idx = idx[lens[idx] > k]
    starts = np.cumsum(vals[0::2], dtype=np.uint64)
    ends = starts + vals[1::2]
    return starts.view(np.int64), ends.view(np.int64)
