#!/usr/bin/python3
"""Writes the .h5 seeds of the Python readers' fuzz run (fuzz_readers.py):
a merged profile by sp-import, a per-rank file by the runtime, and files
written by h5py as scope-profiler writes them (contiguous and compact
datasets, schema 2 and schema 1). Run from the build tree:
    test/fuzz/make_corpus_h5.py SP_IMPORT PY_PROG test/fuzz/corpus_h5"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np


def h5py_profile(path, schema):
    """Two ranks, three regions, nested calls; strings as vlen UTF-8."""
    s = h5py.string_dtype()
    with h5py.File(path, "w") as f:
        if schema is not None:
            f.attrs["scope_profiler_schema"] = np.int64(schema)
        f.create_dataset("region_table/names", data=["main", "solve", "io"], dtype=s)
        ix = f.create_group("rank_region_index")
        ix["region_ids"] = np.array([0, 1, 2, 0, 1], np.int32)
        ix["ranks"] = np.array([0, 0, 0, 1, 1], np.int32)
        ix["event_offsets"] = np.array([0, 1, 3, 4, 5], np.int64)
        ix["event_counts"] = np.array([1, 2, 1, 1, 2], np.int64)
        ix["source_lines"] = np.array([3, 9, -1, 3, 9], np.int32)
        # A compact dataset: its references live in the object header.
        sp = h5py.h5s.create_simple((5,))
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_layout(h5py.h5d.COMPACT)
        tid = h5py.h5t.py_create(s, logical=True)
        h5py.h5d.create(ix.id, b"source_files", tid, sp, dcpl=dcpl)
        ix["source_files"][...] = ["a.py", "b.py", "", "a.py", "b.py"]
        ev = f.create_group("events")
        ev["start_times"] = np.array([0, 10, 50, 90, 0, 10, 40], np.int64) + 10 ** 9
        ev["end_times"] = np.array([100, 40, 80, 95, 60, 30, 55], np.int64) + 10 ** 9
        m = f.create_group("metadata")
        m.attrs["hostname"] = "node01"
        m.attrs["label"] = "seed"
        m.attrs["mpi_size"] = np.int64(2)
        m.attrs.create("modules", data=["gcc/12", "openmpi/4"], dtype=s)


def main():
    imp, prog, out = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    h5py_profile(os.path.join(out, "h5py_schema2.h5"), 2)
    h5py_profile(os.path.join(out, "h5py_schema1.h5"), None)
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, SP_RANK="1", SP_FORMAT="h5",
                   SP_OUTPUT=os.path.join(d, "run"))
        subprocess.run([prog], env=env, check=True)
        subprocess.run(["cp", os.path.join(d, "run_rank00001.h5"),
                        os.path.join(out, "runtime_rank.h5")], check=True)
        spt = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "v3_le.spt")
        subprocess.run([imp, "-o", os.path.join(out, "merged.h5"), spt],
                       check=True, capture_output=True)


if __name__ == "__main__":
    main()
