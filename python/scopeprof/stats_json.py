# The statistics JSON: per input, per region and per rank, the numbers the
# charts are drawn from (collect_region_statistics), and its file
# (write_region_statistics_json, what `scope-profiler plot` writes).
import json
import os

from . import _atomic
from .results import ProfilingResults, read_h5


def _as_runs(runs):
    if isinstance(runs, (ProfilingResults, str, os.PathLike)):
        runs = [runs]
    return [r if isinstance(r, ProfilingResults) else read_h5(r) for r in runs]


def run_label(run, i=0):
    """A run's name: its label metadata, else its file's stem, else run N."""
    lab = run.metadata.get("label")
    if lab:
        return str(lab)
    paths = run._cols.paths
    if paths:
        return os.path.splitext(os.path.basename(os.fspath(paths[0])))[0]
    return "run %d" % i


def _stats(g):
    return {"count": int(g.num_calls),
            "average_duration_seconds": g.average_duration,
            "min_duration_seconds": g.min_duration,
            "max_duration_seconds": g.max_duration,
            "std_duration_seconds": g.std_duration,
            "total_duration_seconds": g.total_duration}


def collect_region_statistics(runs, include=None, exclude=None, ranks=None,
                              labels=None):
    """The statistics document as a dict (nothing written): units, filters,
    common_regions (names in every input, in the first input's order) and
    per input (file) its label, file_path, num_ranks and
    region_statistics: per region count, average/min/max/std/total
    duration in seconds, and the same per rank under per_rank. runs: one
    ProfilingResults or path, or a list of them; ranks restricts every
    statistic to those ranks. Non-root results (ranks other than 0 of a
    ProfileManager run) are left out."""
    runs = [r for r in _as_runs(runs) if r.is_root]
    files, common = [], None
    for i, run in enumerate(runs):
        view = run if ranks is None else ProfilingResults(run._cols, ranks=ranks)
        regs = {}
        for g in view.get_regions(include, exclude):
            d = _stats(g)
            d["per_rank"] = {str(r): _stats(g[r]) for r in g.ranks}
            regs[g.name] = d
        label = labels[i] if labels and i < len(labels) else run_label(run, i)
        paths = run._cols.paths
        files.append({"label": label,
                      "file_path": os.path.abspath(paths[0]) if paths else None,
                      "num_ranks": view.num_ranks,
                      "region_statistics": regs})
        names = list(regs)
        common = names if common is None else [n for n in common if n in regs]
    return {"units": {"durations": "seconds"},
            "filters": {"include": include, "exclude": exclude,
                        "ranks": None if ranks is None else
                        [int(r) for r in ([ranks] if isinstance(ranks, int) else ranks)]},
            "common_regions": common or [],
            "files": files}


def write_region_statistics_json(runs, filepath, include=None, exclude=None,
                                 ranks=None, labels=None):
    """collect_region_statistics(...) written to filepath (through a
    temporary renamed into place) and returned. Writes nothing when every
    input is a non-root rank's empty results."""
    doc = collect_region_statistics(runs, include, exclude, ranks, labels)
    if not doc["files"] and all(not r.is_root for r in _as_runs(runs)):
        return doc
    d = os.path.dirname(os.fspath(filepath))
    if d:
        os.makedirs(d, exist_ok=True)
    data = (json.dumps(doc, indent=2) + "\n").encode()
    _atomic.write(filepath, lambda f: f.write(data))
    return doc
