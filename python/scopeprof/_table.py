# The text table of print_summary(): one row per region, columns chosen by
# name, times with three significant digits as sp-report prints them.
COLUMNS = {
    "region": ("region", lambda g: g.name),
    "ranks": ("ranks", lambda g: str(g.num_ranks)),
    "calls": ("calls", lambda g: str(g.num_calls)),
    "total": ("total", lambda g: fmt(g.total_duration)),
    "avg": ("avg", lambda g: fmt(g.average_duration)),
    "min": ("min", lambda g: fmt(g.min_duration)),
    "max": ("max", lambda g: fmt(g.max_duration)),
    "std": ("std", lambda g: fmt(g.std_duration)),
    "excl": ("excl", lambda g: fmt(g.exclusive_duration)),
    "p50": ("p50", lambda g: fmt(g.p50_duration)),
    "p95": ("p95", lambda g: fmt(g.p95_duration)),
    "timbal": ("timbal", lambda g: "%.2f" % g.thread_imbalance),
}
DEFAULT = ["region", "ranks", "calls", "total", "avg", "min", "max", "std", "excl"]


def fmt(seconds):
    if seconds is None:
        return "-"
    ns = seconds * 1e9
    for unit, scale in (("ns", 1), ("us", 1e3), ("ms", 1e6)):
        if abs(ns) < 1000 * scale:
            return "%.3g %s" % (ns / scale, unit)
    return "%.3f s" % seconds


def summary_table(results, columns=None):
    columns = columns or DEFAULT
    bad = [c for c in columns if c not in COLUMNS]
    if bad:
        raise ValueError("unknown column(s) %s (known: %s)" % (bad, " ".join(COLUMNS)))
    rows = [[COLUMNS[c][1](g) for c in columns] for g in results.get_regions()]
    head = [COLUMNS[c][0] for c in columns]
    width = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(head)]

    def line(cells):
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, width)))
    return "\n".join([line(head)] + [line(r) for r in rows])
