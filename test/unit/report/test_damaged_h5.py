#!/usr/bin/python3
"""test_damaged_h5.py SP_REPORT SP_IMPORT WORKDIR - sp-report and sp-import
on .h5 files whose variable-length strings are damaged where libhdf5 1.10
does not look (it loops for ever or copies past a buffer): each tool ends in
time with exit status 1 and one line naming the file and the damage, and
sp-import leaves no output. Undamaged files read as h5py reads them.
The seeds are test/fuzz/corpus_h5's (chunked and contiguous name tables,
metadata attributes)."""
import json
import os
import shutil
import struct
import subprocess
import sys

import h5py

REPORT, IMPORT, WORK = sys.argv[1:4]
SEEDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                     "fuzz", "corpus_h5")
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def copy(name, to):
    dst = os.path.join(WORK, to)
    shutil.copy(os.path.join(SEEDS, name), dst)
    return dst


def heap_objects(data):
    """(offset of the size field, size, data) of every object of the first
    global heap collection."""
    at = data.index(b"GCOL")
    size = struct.unpack_from("<Q", data, at + 8)[0]
    pos, out = at + 16, []
    while pos + 16 <= at + size:
        idx, _, _, osize = struct.unpack_from("<HHIQ", data, pos)
        if idx == 0:
            break
        out.append((pos + 8, osize, data[pos + 16:pos + 16 + osize]))
        pos += 16 + (osize + 7) // 8 * 8
    return out


def refused(path, want, what):
    """Both tools: exit 1 within 60 s, one line '<tool>: <path>: ...' with
    want in it; sp-import writes nothing."""
    out = os.path.join(WORK, "out.h5")
    for argv in ([REPORT, path], [IMPORT, "-o", out, path]):
        tool = os.path.basename(argv[0])
        for n in os.listdir(WORK):
            if n.startswith("out.h5"):
                os.unlink(os.path.join(WORK, n))
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            check(False, "%s: %s hung on %s" % (what, tool, path))
            continue
        lines = p.stderr.splitlines()
        check(p.returncode == 1 and len(lines) == 1 and
              lines[0].startswith("%s: %s: " % (tool, path)) and want in lines[0],
              "%s: %s: exit %d, %r (want %r)" % (what, tool, p.returncode,
                                                 p.stderr, want))
        left = [n for n in os.listdir(WORK) if n.startswith("out.h5")]
        check(not left, "%s: %s left %s" % (what, tool, left))


def main():
    os.makedirs(WORK, exist_ok=True)
    # A region name's heap object grown past its collection (chunked names):
    # libhdf5 loops for ever opening that collection.
    p = copy("merged.h5", "heap_size.h5")
    with open(p, "r+b") as f:
        data = f.read()
        at = heap_objects(data)[0][0]
        f.seek(at + 1)
        f.write(bytes([data[at + 1] ^ 0xFF]))
    refused(p, "global heap collection at byte %d: object 1 of %d bytes goes "
            "beyond the collection" % (data.index(b"GCOL"),
                                       struct.unpack_from("<Q", data, at)[0] ^
                                       (0xFF << 8)), "object past its collection")
    # A name's recorded length shorter than its heap object (contiguous):
    # libhdf5 copies the object into a buffer of the recorded length.
    p = copy("h5py_schema2.h5", "heap_len.h5")
    with h5py.File(p, "r") as f:
        off = f["region_table/names"].id.get_offset()
    with open(p, "r+b") as f:
        f.seek(off)
        ln = struct.unpack("<I", f.read(4))[0]
        f.seek(off)
        f.write(struct.pack("<I", ln - 3))
    refused(p, "region_table/names: string 0: %d bytes, its heap object %d"
            % (ln - 3, ln), "string shorter than its heap object")
    # A reference to an object the collection does not hold.
    p = copy("h5py_schema2.h5", "heap_idx.h5")
    with open(p, "r+b") as f:
        f.seek(off + 12)
        f.write(struct.pack("<I", 999))
    refused(p, "region_table/names: string 0: no object 999 in the global "
            "heap collection", "reference to a missing heap object")
    # A metadata attribute's string object grown past the collection: the
    # random corruption that crashed sp-report in H5HG_read.
    p = copy("runtime_rank.h5", "attr_size.h5")
    with h5py.File(p, "r") as f:
        host = f["metadata"].attrs["hostname"]
        host = host.encode() if isinstance(host, str) else bytes(host)
    with open(p, "r+b") as f:
        data = f.read()
        objs = [o for o in heap_objects(data) if o[2] == host]
        check(len(objs) >= 1, "no heap object holds the hostname %r" % host)
        f.seek(objs[0][0])
        f.write(struct.pack("<Q", 1 << 62))
    refused(p, "goes beyond the collection", "attribute's object past its "
            "collection")
    # A collection's signature damaged.
    p = copy("h5py_schema2.h5", "heap_sig.h5")
    with open(p, "r+b") as f:
        data = f.read()
        f.seek(data.index(b"GCOL"))
        f.write(b"GCXL")
    refused(p, "bad signature or version", "collection's signature")
    # Undamaged: the names sp-report prints are h5py's.
    for name in sorted(os.listdir(SEEDS)):
        path = os.path.join(SEEDS, name)
        with h5py.File(path, "r") as f:
            if f.attrs.get("scope_profiler_schema") != 2:
                continue  # sp-report reads schema 2 only
            want = sorted(set(x.decode() if isinstance(x, bytes) else x
                              for x in f["region_table/names"][:]))
        p = subprocess.run([REPORT, "--export", "json", path],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, "%s: exit %d %s" % (name, p.returncode,
                                                     p.stderr))
        if p.returncode == 0:
            js = json.loads(p.stdout)
            got = sorted(js["files"][0]["regions"])
            check(set(got) <= set(want) and got,
                  "%s: regions %s, names %s" % (name, got, want))
    if failures:
        sys.exit("test_damaged_h5.py: %d failure(s)" % len(failures))
    print("test_damaged_h5.py: every damaged file refused in one line; "
          "the schema-2 seeds read")


main()
