# Variable-length strings of an HDF5 file read without letting HDF5 follow
# them: each string is a reference (length, global heap collection, object)
# that HDF5 1.10 follows unchecked, copying the heap object's size into a
# buffer of the reference's length (a crash, or a hang, on a damaged file).
# Here the references and the collections are parsed and checked from the
# file's bytes (HDF5 file format spec, "Global Heap", "Data Object
# Headers"), and the strings come from those bytes.
import struct
import zlib

import h5py
import numpy as np

# Where a reference cannot be found from here (a dataset with a filter
# other than deflate, attributes in dense storage, offsets other than 8
# bytes), the strings are read through h5py as before.
UNSUPPORTED = object()
_REF = np.dtype([("len", "<u4"), ("addr", "<u8"), ("idx", "<u4")])


class _Bytes:
    """The file's bytes, read on demand; every read checked against the
    file's length."""

    def __init__(self, h):
        self.h = h
        self.fp = open(h.path, "rb")
        self.fp.seek(0, 2)
        self.size = self.fp.tell()
        self.heaps = {}
        head = self.get(0, 16, "superblock")
        # Versions 0/1 give the sizes at bytes 13-14, 2/3 at 9-10.
        sizes = head[13:15] if head[8] in (0, 1) else head[9:11]
        self.ok = tuple(sizes) == (8, 8)

    def close(self):
        self.fp.close()

    def get(self, at, n, what):
        if at < 0 or n < 0 or at + n > self.size:
            self.h.fail("%s at byte %d (+%d) beyond the end of the file (%d bytes)"
                        % (what, at, n, self.size))
        self.fp.seek(at)
        return self.fp.read(n)

    def heap(self, addr, name):
        """{object index: (data offset, size)} of the collection at addr."""
        if addr in self.heaps:
            return self.heaps[addr]
        what = "%s: global heap collection at byte %d" % (name, addr)
        head = self.get(addr, 16, what)
        if head[:4] != b"GCOL" or head[4] != 1:
            self.h.fail("%s: bad signature or version" % what)
        size = struct.unpack_from("<Q", head, 8)[0]
        if size < 16 or size > self.size - addr:
            self.h.fail("%s: size %d beyond the end of the file" % (what, size))
        body = self.get(addr, size, what)
        # HDF5's own walk: objects padded to 8 bytes, the free space
        # (object 0) unpadded and counting its header; a free space of
        # under 16 bytes would make that walk loop for ever.
        objs, pos = {}, 16
        while pos + 16 <= size:
            idx, _, _, osize = struct.unpack_from("<HHIQ", body, pos)
            if idx == 0:
                if osize < 16 or osize > size - pos:
                    self.h.fail("%s: free space of %d bytes at offset %d"
                                % (what, osize, pos))
                pos += osize
                continue
            if idx in objs:
                self.h.fail("%s: object %d twice" % (what, idx))
            if osize > size - pos - 16:
                self.h.fail("%s: object %d of %d bytes goes beyond the "
                            "collection (%d bytes)" % (what, idx, osize, size))
            objs[idx] = (addr + pos + 16, osize)
            pos += 16 + (osize + 7) // 8 * 8
        self.heaps[addr] = (objs, body, addr)
        return self.heaps[addr]

    def strings(self, refs, n, name):
        """The n strings whose 16-byte references are refs (bytes)."""
        ref = np.frombuffer(refs, dtype=_REF, count=n)
        out = []
        for i, (ln, addr, idx) in enumerate(zip(ref["len"].tolist(),
                                                ref["addr"].tolist(),
                                                ref["idx"].tolist())):
            if addr == 0:
                if ln:
                    self.h.fail("%s: string %d: %d bytes but no heap object"
                                % (name, i, ln))
                out.append(b"")
                continue
            objs, body, base = self.heap(addr, name)
            got = objs.get(idx)
            if got is None:
                self.h.fail("%s: string %d: no object %d in the global heap "
                            "collection at byte %d" % (name, i, idx, addr))
            if got[1] != ln:
                self.h.fail("%s: string %d: %d bytes, its heap object %d"
                            % (name, i, ln, got[1]))
            out.append(body[got[0] - base:got[0] - base + ln])
        return out


def _dataset_refs(b, ds, n, name):
    """The raw references of a 1-D dataset of n vlen strings."""
    dcpl = ds.id.get_create_plist()
    layout = dcpl.get_layout()
    if layout == h5py.h5d.CONTIGUOUS:
        off = ds.id.get_offset()
        if off is None:
            return bytes(16 * n)  # never written: fill values, empty
        return b.get(off, 16 * n, name)
    if layout == h5py.h5d.CHUNKED:
        nf = dcpl.get_nfilters()
        filters = [dcpl.get_filter(k)[0] for k in range(nf)]
        if any(f != h5py.h5z.FILTER_DEFLATE for f in filters):
            return UNSUPPORTED
        chunk = dcpl.get_chunk()[0]
        out = bytearray(16 * n)
        for k in range(ds.id.get_num_chunks()):
            info = ds.id.get_chunk_info(k)
            raw = b.get(info.byte_offset, info.size, name + " chunk")
            if nf and not info.filter_mask & 1:
                try:
                    raw = zlib.decompress(raw)
                except zlib.error as e:
                    b.h.fail("%s: chunk at byte %d: %s" % (name, info.byte_offset, e))
            first = info.chunk_offset[0]
            if first >= n or first % chunk or len(raw) < 16 * min(chunk, n - first):
                b.h.fail("%s: chunk at byte %d does not fit the dataset"
                         % (name, info.byte_offset))
            m = min(chunk, n - first)
            out[16 * first:16 * (first + m)] = raw[:16 * m]
        return bytes(out)
    if layout == h5py.h5d.COMPACT:
        for mtype, data in _messages(b, h5py.h5o.get_info(ds.id).addr, name):
            if mtype == 0x08 and len(data) >= 4 and data[0] == 3 and data[1] == 0:
                size = struct.unpack_from("<H", data, 2)[0]
                if size < 16 * n or len(data) < 4 + size:
                    b.h.fail("%s: compact data of %d bytes for %d strings"
                             % (name, size, n))
                return data[4:4 + 16 * n]
    return UNSUPPORTED


def _messages(b, addr, name):
    """(type, data) of the messages of the object header at addr, version 1
    or 2, continuation blocks followed."""
    what = "%s: object header at byte %d" % (name, addr)
    head = b.get(addr, 16, what)
    out = []
    if head[:4] == b"OHDR":
        flags = head[5]
        pos = addr + 6 + (16 if flags & 0x20 else 0) + (4 if flags & 0x10 else 0)
        w = 1 << (flags & 3)
        size = int.from_bytes(b.get(pos, w, what), "little")
        blocks = [(pos + w, size - 4)]  # less the checksum
        extra = 2 if flags & 0x04 else 0
        while blocks:
            at, size = blocks.pop(0)
            body = b.get(at, size, what)
            p = 0
            while p + 4 + extra <= size:
                mtype, msize = body[p], struct.unpack_from("<H", body, p + 1)[0]
                p += 4 + extra
                if p + msize > size:
                    b.h.fail("%s: message beyond its block" % what)
                data = body[p:p + msize]
                p += msize
                if mtype == 0x10:
                    off, ln = struct.unpack_from("<QQ", data)
                    if b.get(off, 4, what) != b"OCHK" or ln < 8 or len(blocks) > 10000:
                        b.h.fail("%s: bad continuation block" % what)
                    blocks.append((off + 4, ln - 8))
                out.append((mtype, data))
        return out
    if head[0] != 1:
        b.h.fail("%s: unknown version %d" % (what, head[0]))
    nmsgs, _, size = struct.unpack_from("<HII", head, 2)
    blocks = [(addr + 16, size)]
    while blocks and len(out) < nmsgs:
        at, size = blocks.pop(0)
        body = b.get(at, size, what)
        p = 0
        while p + 8 <= size and len(out) < nmsgs:
            mtype, msize = struct.unpack_from("<HH", body, p)
            p += 8
            if p + msize > size:
                b.h.fail("%s: message beyond its block" % what)
            data = body[p:p + msize]
            p += msize
            if mtype == 0x10:
                off, ln = struct.unpack_from("<QQ", data)
                if len(blocks) > 10000:
                    b.h.fail("%s: too many continuation blocks" % what)
                blocks.append((off, ln))
            out.append((mtype, data))
    return out


def _attr_refs(b, obj, attr, n, name):
    """The raw references of attribute attr of obj (n strings), from the
    attribute message in obj's header."""
    want = attr.encode()
    for mtype, data in _messages(b, h5py.h5o.get_info(obj.id).addr, name):
        if mtype == 0x15:
            return UNSUPPORTED  # attributes in dense storage
        if mtype != 0x0C or len(data) < 8:
            continue
        ver = data[0]
        nsz, dsz, ssz = struct.unpack_from("<HHH", data, 2)
        if ver == 1:
            def pad(x):
                return (x + 7) // 8 * 8
            p = 8
            nm = data[p:p + nsz]
            p += pad(nsz) + pad(dsz) + pad(ssz)
        elif ver in (2, 3):
            p = 8 if ver == 2 else 9
            nm = data[p:p + nsz]
            p += nsz + dsz + ssz
        else:
            b.h.fail("%s: attribute message version %d" % (name, ver))
        if nm.rstrip(b"\0") != want:
            continue
        if p + 16 * n > len(data):
            b.h.fail("%s: attribute data shorter than %d strings" % (name, n))
        return data[p:p + 16 * n]
    return UNSUPPORTED


def read(h, obj, attr, name, n):
    """The n vlen strings of dataset obj (attr None) or of attribute attr of
    obj, as bytes; UNSUPPORTED where the references cannot be located."""
    b = _Bytes(h)
    try:
        if not b.ok:
            return UNSUPPORTED
        refs = (_dataset_refs(b, obj, n, name) if attr is None else
                _attr_refs(b, obj, attr, n, name))
        if refs is UNSUPPORTED:
            return refs
        return b.strings(refs, n, name)
    finally:
        b.close()
