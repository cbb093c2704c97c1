#!/usr/bin/python3
"""check_compact_stream.py STREAM0 STREAM1 MERGED0 MERGED1 - one run's
stream (left by SIGTERM) written with SP_STREAM_COMPACT=0 and =1: the first
is version 1 with CALLS records only, 16 bytes a call; the second version 2
with ZCALLS records, under 8 bytes a call; merged by sp-import they give
the same events, rows and statistics."""
import struct
import sys

import h5py
import numpy as np

CALLS, ZCALLS = 0x53500002, 0x53500009
CALL_COUNT = 300001  # end:sigterm:300000: the work calls and outer


def walk(path):
    b = open(path, "rb").read()
    assert b[:8] == b"SPSTREAM", path
    version, bom = struct.unpack_from("<II", b, 8)
    assert bom == 0x01020304, hex(bom)
    types, off = {}, 32
    while off + 16 <= len(b):
        t, size = struct.unpack_from("<II", b, off)
        assert size >= 16 and size % 8 == 0 and off + size <= len(b), (path, off)
        types[t] = types.get(t, 0) + 1
        off += size
    assert off == len(b), (path, off, len(b))  # ended by a handler: no torn tail
    return version, types, len(b)


v0, t0, n0 = walk(sys.argv[1])
v1, t1, n1 = walk(sys.argv[2])
assert v0 == 1 and ZCALLS not in t0 and t0.get(CALLS, 0) > 0, (v0, t0)
assert v1 == 2 and t1.get(ZCALLS, 0) > 0, (v1, t1)
assert n0 >= 16 * CALL_COUNT, n0
assert n1 <= 8 * CALL_COUNT, n1
with h5py.File(sys.argv[3], "r") as a, h5py.File(sys.argv[4], "r") as b:
    for name in ("events/start_times", "events/end_times",
                 "rank_region_index/region_ids", "rank_region_index/threads",
                 "rank_region_index/event_offsets", "rank_region_index/event_counts",
                 "rank_region_index/summary_statistics"):
        x, y = a[name][()], b[name][()]
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    assert a["events/start_times"].shape[0] == CALL_COUNT
print("stream: %.2f bytes a call compact, %.2f as pairs; same merged profile"
      % (n1 / CALL_COUNT, n0 / CALL_COUNT))
