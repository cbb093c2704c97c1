#!/usr/bin/python3
"""check_compact.py RANK_H5 IMPORTED_SPT_H5 IMPORTED_H5_H5 RANK_SPT - the
runtime's per-rank .h5 keeps its events in shuffle+deflate chunks that
stock h5py reads, in under 8 bytes a call, with the values of the same run
written as .spt (both merged by sp-import: the same rows and calls; both
read by the scopeprof package: the same calls)."""
import sys

import h5py
import numpy as np

rank_h5, from_spt, from_h5, rank_spt = sys.argv[1:5]
with h5py.File(rank_h5, "r") as f:
    calls = 0
    size = 0
    for name in ("events/start_times", "events/end_times"):
        ds = f[name]
        assert ds.dtype == np.dtype("<i8"), (name, ds.dtype)
        assert ds.compression == "gzip" and ds.shuffle, (name, ds.compression, ds.shuffle)
        assert ds.compression_opts == 1, ds.compression_opts
        calls = ds.shape[0]
        size += ds.id.get_storage_size()
    assert calls == 110000, calls
    assert size <= 8 * calls, (size, calls)
    # the other columns keep their layout: no filter
    assert f["rank_region_index/event_offsets"].compression is None
with h5py.File(from_spt, "r") as a, h5py.File(from_h5, "r") as b:
    for name in ("events/start_times", "events/end_times",
                 "rank_region_index/region_ids", "rank_region_index/threads",
                 "rank_region_index/event_offsets", "rank_region_index/event_counts"):
        x, y = a[name][()], b[name][()]
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    assert a["events/start_times"].shape[0] == 110000
    sa = a["rank_region_index/summary_statistics"][()]
    sb = b["rank_region_index/summary_statistics"][()]
    assert np.array_equal(sa, sb)
    assert list(a["region_table/names"][()]) == list(b["region_table/names"][()])
import scopeprof  # noqa: E402 (PYTHONPATH: the source tree's package)

a, b = scopeprof.read_h5(rank_h5), scopeprof.read_h5(rank_spt)
assert sorted(a.region_names) == sorted(b.region_names) == ["inner", "work"], \
    (a.region_names, b.region_names)
for name in ("work", "inner"):
    x, y = a[name], b[name]
    assert np.array_equal(x.start_times_ns, y.start_times_ns), name
    assert np.array_equal(x.end_times_ns, y.end_times_ns), name
assert len(a["work"].start_times_ns) == 100000
print("compact: .h5 events shuffle+deflate, %.2f bytes a call; same calls as .spt"
      % (size / calls))
