#!/usr/bin/python3
"""check_h5.py - reads the runtime's per-rank .h5 with h5py, an independent
reader, and checks the schema-2 layout and values of the threads16 run."""
import sys

import h5py
import numpy as np

path = sys.argv[1]
with h5py.File(path, "r") as f:
    assert int(f.attrs["scope_profiler_schema"]) == 2, f.attrs["scope_profiler_schema"]
    names = [n.decode() if isinstance(n, bytes) else n for n in f["region_table/names"][()]]
    assert sorted(names) == ["inner", "work"], names
    idx = f["rank_region_index"]
    for key, kind in [("region_ids", "i4"), ("ranks", "i4"), ("threads", "i4"),
                      ("event_offsets", "i8"), ("event_counts", "i8"),
                      ("source_lines", "i4")]:
        assert idx[key].dtype == np.dtype(kind), (key, idx[key].dtype)
    rows = len(idx["region_ids"])
    assert rows == 32, rows
    assert set(idx["threads"][()]) == set(range(16))
    assert set(idx["ranks"][()]) == {0}
    stats = idx["summary_statistics"][()]
    fields = set(stats.dtype.names)
    want = {"calls", "total_ns", "min_ns", "max_ns", "first_start_ns", "last_end_ns",
            "exclusive_ns", "gpu_total_ns", "mean_ns", "std_ns", "outer_total_ns"}
    assert fields == want, fields
    starts = f["events/start_times"][()]
    ends = f["events/end_times"][()]
    assert starts.dtype == np.int64 and ends.dtype == np.int64
    total_calls = 0
    for i in range(rows):
        name = names[idx["region_ids"][i]]
        off, cnt = int(idx["event_offsets"][i]), int(idx["event_counts"][i])
        s, e = starts[off:off + cnt], ends[off:off + cnt]
        assert cnt == (100000 if name == "work" else 10000), (name, cnt)
        assert np.all(np.diff(s) >= 0) and np.all(e >= s)
        st = stats[i]
        assert st["calls"] == cnt
        assert st["total_ns"] == int((e - s).sum())
        assert st["min_ns"] == int((e - s).min()) and st["max_ns"] == int((e - s).max())
        assert st["first_start_ns"] == int(s[0]) and st["last_end_ns"] == int(e.max())
        assert abs(st["mean_ns"] - (e - s).mean()) < 1e-6 * max(1.0, (e - s).mean())
        assert abs(st["std_ns"] - (e - s).std()) < 1e-3 * max(1.0, (e - s).std()) + 1e-6
        assert st["gpu_total_ns"] == -1
        # no region nests in itself here: the outermost calls are all calls
        assert st["outer_total_ns"] == st["total_ns"]
        if name == "inner":
            assert st["exclusive_ns"] == st["total_ns"]
        total_calls += cnt
    # work's exclusive time = its total minus the inner calls of that thread
    for i in range(rows):
        if names[idx["region_ids"][i]] != "work":
            continue
        t = idx["threads"][i]
        inner = [j for j in range(rows) if idx["threads"][j] == t and names[idx["region_ids"][j]] == "inner"][0]
        assert stats[i]["exclusive_ns"] == stats[i]["total_ns"] - stats[inner]["total_ns"]
    assert total_calls == 16 * 110000
    meta = f["metadata"].attrs
    for key in ["timestamp", "user", "hostname", "platform", "uname", "chip_information",
                "scope_profiler_version", "working_directory", "omp_num_threads",
                "mpi_size", "total_cores", "modules", "start_time_ns"]:
        assert key in meta, key
    assert int(meta["mpi_size"]) == 1
    # threads16 closes every call and waits for no disk at 32M
    assert int(meta["calls_open_at_exit"]) == 0, meta["calls_open_at_exit"]
    assert int(meta["memory_budget"]) == 32 << 20, meta["memory_budget"]
    assert int(meta["memory_overrun_bytes"]) == 0
    assert "recording_wait_ns" in meta
print("h5py: layout and values ok")
