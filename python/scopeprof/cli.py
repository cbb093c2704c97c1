# The scope-profiler command (also python3 -m scopeprof): `plot` writes the
# charts and the statistics JSON of profiles, `inspect` prints their table
# and where regions are defined.
import argparse
import glob
import os
import re
import sys

PLOTS = ("gantt", "flame", "durations", "timeseries", "speedup")
SORTS = {"total": lambda g: -g.total_duration, "calls": lambda g: -g.num_calls,
         "avg": lambda g: -g.average_duration, "min": lambda g: -g.min_duration,
         "max": lambda g: -g.max_duration, "std": lambda g: -g.std_duration,
         "name": lambda g: g.name}


class CliError(Exception):
    """One line for stderr, exit status 1."""


def parse_ranks(text):
    """"0,2,4-7" -> [0, 2, 4, 5, 6, 7]."""
    out = []
    for part in text.replace(" ", ",").split(","):
        if not part:
            continue
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            raise argparse.ArgumentTypeError("%r is not a rank list (0,2,4-7)" % text)
        a, b = int(m.group(1)), int(m.group(2) or m.group(1))
        if b < a:
            raise argparse.ArgumentTypeError("%r: range %d-%d goes down" % (text, a, b))
        out.extend(range(a, b + 1))
    return out


def expand_files(patterns):
    """Names as given, or glob patterns (quoted, so the shell left them)."""
    out = []
    for p in patterns:
        if os.path.exists(p) or not glob.has_magic(p):
            out.append(p)
        else:
            hits = sorted(glob.glob(p))
            if not hits:
                raise CliError("%s: no file matches" % p)
            out.extend(hits)
    return out


def load(paths):
    from .results import read_h5
    runs = []
    for p in paths:
        try:
            runs.append(read_h5(p))
        except (OSError, ValueError) as e:
            msg = str(e)
            raise CliError(msg if p in msg else "%s: %s" % (p, msg)) from None
    return runs


def safe_name(label):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", label).strip("_") or "run"


def filtered(run, ranks):
    from .results import ProfilingResults
    return run if ranks is None else ProfilingResults(run._cols, ranks=ranks)


# -- plot ----------------------------------------------------------------------
def cmd_plot(a):
    from . import plotting_scripts as ps
    from .stats_json import run_label, write_region_statistics_json
    paths = expand_files(a.files)
    runs = load(paths)
    if a.label:
        if len(a.label) != len(runs):
            raise CliError("--label given %d time(s) for %d file(s)" % (len(a.label), len(runs)))
        for run, lab in zip(runs, a.label):
            run._cols.metadata = dict(run._cols.metadata, label=lab)
    if not any(g.num_calls for run in runs for g in run.get_regions()):
        raise CliError("no timing data found: %s recorded no calls" % ", ".join(paths))
    views = [filtered(r, a.ranks) for r in runs]
    labels = [run_label(r, i) for i, r in enumerate(runs)]
    out, written = a.output, []
    os.makedirs(out, exist_ok=True)
    plots = a.plots or list(PLOTS)
    inc, exc = a.include, a.exclude

    def each(fn, stem, **kw):
        for view, lab in zip(views, labels):
            name = stem + ("_" + safe_name(lab) if len(views) > 1 else "") + ".png"
            if fn(view, include=inc, exclude=exc, filepath=os.path.join(out, name), **kw):
                written.append(os.path.join(out, name))

    if "gantt" in plots:
        written.append(ps.plot_gantt(views, include=inc, exclude=exc,
                                     filepath=os.path.join(out, "gantt_plot.png")))
    if "flame" in plots:
        fr = a.ranks if a.ranks is not None else [0]
        each(ps.plot_flame_chart, "flame_plot", ranks=fr)
        each(ps.plot_flame_graph, "flame_graph_plot", ranks=fr)
    if "durations" in plots:
        written += ps.plot_durations(views, metrics=a.duration_metrics, include=inc,
                                     exclude=exc,
                                     filepath=os.path.join(out, "durations_plot.png"))
    if "timeseries" in plots:
        each(ps.plot_duration_timeseries, "duration_timeseries_plot")
    if "speedup" in plots and len(views) > 1:
        try:
            written.append(ps.plot_speedup(views, include=inc, exclude=exc,
                                           filepath=os.path.join(out, "speedup_plot.png")))
        except ValueError as e:
            print("scope-profiler: speedup plot skipped: %s" % e, file=sys.stderr)
    js = os.path.join(out, "region_statistics.json")
    write_region_statistics_json(runs, js, include=inc, exclude=exc, ranks=a.ranks,
                                 labels=labels)
    written.append(js)
    print("Outputs saved to:")
    for w in written:
        print("  " + w)
    return 0


# -- inspect -------------------------------------------------------------------
def source_block(path, line, limit=40):
    """The lines of the block that starts at line (1-based): that line and
    the following ones indented deeper (blank lines inside kept)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    if not 1 <= line <= len(lines):
        return None
    first = lines[line - 1]
    ind = len(first) - len(first.lstrip())
    block = [first]
    for text in lines[line:line - 1 + limit]:
        if text.strip() and len(text) - len(text.lstrip()) <= ind:
            break
        block.append(text)
    while block and not block[-1].strip():
        block.pop()
    return block


def cmd_inspect(a):
    from ._table import COLUMNS, DEFAULT
    paths = expand_files(a.files)
    runs = load(paths)
    cols = a.columns or DEFAULT
    bad = [c for c in cols if c not in COLUMNS]
    if bad:
        raise CliError("unknown column(s) %s (known: %s)" % (" ".join(bad), " ".join(COLUMNS)))
    for n, (path, run) in enumerate(zip(paths, runs)):
        view = filtered(run, a.ranks)
        regs = view.get_regions(a.include, a.exclude)
        if a.source is not None:
            names = a.source or [g.name for g in regs]
            if n:
                print()
            print("%s  (%d rank(s))" % (path, view.num_ranks))
            for name in names:
                if name not in view:
                    raise CliError("%s: no region %r" % (path, name))
                g = view[name]
                where = ("%s:%d" % (g.source_file, g.source_lineno) if g.has_source and
                         g.source_lineno is not None else (g.source_file or "unknown"))
                print("\n%s  (%s)  %d call(s), %.6g s" % (name, where, g.num_calls,
                                                            g.total_duration))
                text = (g.source_text or source_block(g.source_file, g.source_lineno)
                        if g.has_source and g.source_lineno else None)
                for t in text or ["  (source not available)"]:
                    print("    " + t)
            continue
        if a.sort:
            regs = sorted(regs, key=SORTS[a.sort])
        rows = [[COLUMNS[c][1](g) for c in cols] for g in regs]
        head = [COLUMNS[c][0] for c in cols]
        width = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(head)]

        def line(cells):
            return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                             for i, (c, w) in enumerate(zip(cells, width)))
        if n:
            print()
        print("%s  (%d rank(s), %d region(s))" % (path, view.num_ranks, len(regs)))
        print("  " + line(head))
        for r in rows:
            print("  " + line(r))
    return 0


def parser():
    p = argparse.ArgumentParser(prog="scope-profiler",
                                description="Charts and tables of ScopeProf profiles.")
    sub = p.add_subparsers(dest="command", required=True)

    def filters(q):
        q.add_argument("--include", nargs="+", metavar="REGEX",
                       help="only regions whose names match (re.match)")
        q.add_argument("--exclude", nargs="+", metavar="REGEX",
                       help="leave out regions whose names match")
        q.add_argument("--ranks", type=parse_ranks, metavar="LIST",
                       help="ranks: 0,2,4-7 (flame charts: default 0)")

    pl = sub.add_parser("plot", help="charts and region_statistics.json")
    pl.add_argument("preset", choices=["default"],
                    help="the chart set (default: Gantt, flame, durations, "
                         "timeseries, speedup)")
    pl.add_argument("files", nargs="+", metavar="FILE",
                    help="profiles (.h5, .spt, a run's directory; quoted globs)")
    pl.add_argument("-o", "--output", required=True, metavar="DIR",
                    help="directory for the charts and the JSON")
    pl.add_argument("-p", "--plots", nargs="+", choices=PLOTS)
    pl.add_argument("--duration-metrics", nargs="+", default=["total"],
                    choices=["avg", "min", "max", "total"])
    pl.add_argument("--label", action="append",
                    help="a run's name, once per file in order")
    pl.add_argument("--show", action="store_true",
                    help="accepted; charts are written, never displayed")
    filters(pl)
    pl.set_defaults(func=cmd_plot)

    ins = sub.add_parser("inspect", help="the statistics table; --source: where "
                                         "regions are defined")
    ins.add_argument("files", nargs="+", metavar="FILE")
    ins.add_argument("--source", nargs="*", metavar="REGION",
                     help="print the definition site of these regions (all without names)")
    ins.add_argument("--sort", choices=list(SORTS))
    ins.add_argument("--columns", nargs="+", metavar="COLUMN")
    filters(ins)
    ins.set_defaults(func=cmd_inspect)
    return p


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    # `plot FILE` means `plot default FILE`, as scope-profiler accepts both.
    if argv[:1] == ["plot"] and len(argv) > 1 and argv[1] not in ("default", "-h", "--help"):
        argv.insert(1, "default")
    a = parser().parse_args(argv)
    try:
        return a.func(a)
    except CliError as e:
        print("scope-profiler: %s" % e, file=sys.stderr)
    except OSError as e:
        print("scope-profiler: %s: %s" % (e.filename, e.strerror) if e.filename
              else "scope-profiler: %s" % e, file=sys.stderr)
    except (ValueError, RuntimeError) as e:
        print("scope-profiler: %s" % e, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
