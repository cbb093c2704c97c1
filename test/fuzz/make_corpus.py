#!/usr/bin/env python3
"""Writes the fuzzer's seed corpus: small valid .spt files of versions 1-4
in both byte orders, and a few broken ones. Run from anywhere:
    test/fuzz/make_corpus.py test/fuzz/corpus"""
import os
import struct
import sys


def spt(version, blocks, endian="<", rank=3, magic=b"SCOPEPRF"):
    e = endian
    out = magic + struct.pack(e + "iiq", version, rank, len(blocks))
    for thread, name, file, line, calls in blocks:
        if version >= 3:
            out += struct.pack(e + "i", thread)
        n = name.encode()
        out += struct.pack(e + "i", len(n)) + n
        if version >= 2:
            f = file.encode()
            out += struct.pack(e + "i", len(f)) + f + struct.pack(e + "i", line)
        out += struct.pack(e + "q", len(calls))
        if version >= 4:
            z, prev = b"", 0
            for s, t in calls:
                z += varint((s - prev) % 2**64) + varint((t - s) % 2**64)
                prev = s
            out += struct.pack(e + "q", len(z)) + z
            continue
        out += b"".join(struct.pack(e + "q", s) for s, _ in calls)
        out += b"".join(struct.pack(e + "q", t) for _, t in calls)
    return out


def varint(v):
    out = b""
    while v >= 0x80:
        out += bytes([v & 0x7F | 0x80])
        v >>= 7
    return out + bytes([v])


NESTED = [
    (0, "main", "main.c", 10, [(100, 900)]),
    (0, "solve", "solve.c", 42, [(200, 400), (500, 800)]),
    (0, "kernel", "", -1, [(250, 300), (300, 300), (600, 700)]),
]
THREADS = NESTED + [
    (1, "solve", "solve.c", 42, [(150, 450)]),
    (1, "worker", "w.c", 7, [(160, 170), (165, 180)]),
]


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    files = {}
    for e, tag in (("<", "le"), (">", "be")):
        for v in (1, 2):
            files[f"v{v}_{tag}.spt"] = spt(v, NESTED, e)
        files[f"v3_{tag}.spt"] = spt(3, THREADS, e)
        files[f"v4_{tag}.spt"] = spt(4, THREADS + [
            (2, "back", "", -1, [(1 << 40, 0), (-(1 << 62), 1 << 62)])], e)
        files[f"empty_v2_{tag}.spt"] = spt(2, [], e)
    good = files["v2_le.spt"]
    files["bad_magic.spt"] = spt(2, NESTED, magic=b"SCOPEPRX")
    files["version5.spt"] = spt(5, NESTED)
    files["version0.spt"] = spt(0, NESTED)
    files["truncated.spt"] = good[:-5]
    files["trailing.spt"] = good + b"\0"
    files["dup_block.spt"] = spt(3, THREADS + [THREADS[0]])
    files["huge_count.spt"] = (
        b"SCOPEPRF" + struct.pack("<iiq", 1, 0, 1) + struct.pack("<i", 1)
        + b"x" + struct.pack("<q", 1 << 60))
    files["neg_name.spt"] = (
        b"SCOPEPRF" + struct.pack("<iiqi", 2, 0, 1, -4) + b"abcd" * 4)
    for name, data in files.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
