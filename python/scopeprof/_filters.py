# The selection arguments every function takes: include/exclude regexes
# on region names, and lists of ranks or threads.
import re

import numpy as np


def _patterns(p):
    if p is None:
        return None
    if isinstance(p, str):
        p = [p]
    return [re.compile(x) for x in p]


def name_matcher(include=None, exclude=None):
    """A predicate on region names: matches one of include (re.match, so a
    pattern is anchored at the start of the name, as in scope-profiler) and
    none of exclude. None or an empty list for include means every name."""
    inc, exc = _patterns(include), _patterns(exclude)

    def keep(name):
        if inc and not any(r.match(name) for r in inc):
            return False
        return not (exc and any(r.match(name) for r in exc))
    return keep


def id_list(v):
    """None (everything) or a list of ints from an int or an iterable."""
    if v is None:
        return None
    if isinstance(v, (int, np.integer)):
        return [int(v)]
    return [int(x) for x in v]


def row_mask(cols, include=None, exclude=None, ranks=None, threads=None):
    keep_name = name_matcher(include, exclude)
    by_region = np.array([keep_name(n) for n in cols.names], dtype=bool)
    mask = by_region[cols.region] if cols.nrows else np.zeros(0, bool)
    ranks, threads = id_list(ranks), id_list(threads)
    if ranks is not None:
        mask &= np.isin(cols.rank, ranks)
    if threads is not None:
        mask &= np.isin(cols.thread, threads)
    return mask
