/* cli.c - sp-report's command line: parse options, load the profiles each
 * output needs (summary records only when that suffices), write it. */
#include "report.h"
#include "sp_cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
    "usage: sp-report [OPTIONS] PROFILE...\n"
    "       sp-report --diff [OPTIONS] A B\n"
    "  PROFILE: merged or per-rank .h5, .spt, or directories holding\n"
    "           *.spt and *_rank<N>.h5 (sp-import's input rules)\n"
    "table (default):\n"
    "  --by-rank          one row per region and rank\n"
    "  --by-thread        one row per region, rank and thread\n"
    "  --sort COLUMN      region ranks rank thread calls total avg min max\n"
    "                     std excl span imbal timbal (default total;\n"
    "                     numbers descend)\n"
    "  --include REGEX    only regions matching (POSIX extended regex)\n"
    "  --exclude REGEX    leave out regions matching\n"
    "  --ranks LIST       only these ranks, e.g. 0,2-3\n"
    "  --top N            the first N rows\n"
    "  --tree             the call tree (by call path) instead of the table;\n"
    "                     with --top N the N heaviest children of each node\n"
    "  --depth N          --tree: the first N levels\n"
    "  --min-percent P    --tree: nodes under P% of the time hidden\n"
    "  --region NAME      one region: percentiles and a histogram of its\n"
    "                     call durations\n"
    "  --mpi              time inside MPI per rank; per MPI function its\n"
    "                     calls, total and the ranks with the least and the\n"
    "                     most (with --export csv or json: as those)\n"
    "  --wide             names in full (else longer ones keep their start\n"
    "                     and end around ...)\n"
    "  --events           read every call even where an .h5's summary\n"
    "                     records suffice (statistics recomputed)\n"
    "  --suggest-filter[=FILE]  a filter file for the plugin leaving out\n"
    "                     regions whose calls are under 10 record costs\n"
    "                     (to FILE, the estimates on the output; else all\n"
    "                     on the output)\n"
    "  --record-cost NS   the cost of recording one call (default 23)\n"
    "exports and pictures (-o FILE; default standard output):\n"
    "  --export csv|json|events|chrome|folded\n"
    "  --export otf2 -o DIR   an OTF2 trace archive (Vampir, otf2-print) in\n"
    "                     DIR, new or empty (takes --window too)\n"
    "  --svg flame|timeline|compare|speedup\n"
    "  --metric avg|total|min|max   what compare draws (default avg)\n"
    "  --window A:B       timeline (otf2, chrome: the calls overlapping)\n"
    "                     from A to B seconds after the first call\n"
    "  --min-duration NS  chrome: calls shorter than NS ns left out\n"
    "  --with-metadata    chrome, otf2: every metadata item (default: the\n"
    "                     run's description, not its environment, user,\n"
    "                     hosts or directories)\n"
    "json, compare and speedup take each PROFILE argument as one run.\n"
    "--version prints the version.\n";

/* Usage errors are one line too; the full usage is on --help. */
static int usage(const char *fmt, const char *what) {
  return sp_fmt_cli_usage("sp-report", fmt, what);
}

static int fail(const sp_fmt_err *err) {
  fprintf(stderr, "sp-report: %s\n", err->msg);
  return 1;
}

static int compile(regex_t *re, const char *opt, const char *s) {
  int rc = regcomp(re, s, REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    char msg[256], why[1024];
    regerror(rc, re, msg, sizeof msg);
    snprintf(why, sizeof why, "%s '%s': %s", opt, s, msg);
    return usage("%s", why);
  }
  return 0;
}

static int one_of(const char *s, const char *const *set) {
  for (; *set; set++)
    if (!strcmp(s, *set))
      return 1;
  return 0;
}

static int run(rp_profile **ps, int n, const rp_opts *o, FILE *f,
               sp_fmt_err *err) {
  const char *x = o->export_fmt, *s = o->svg;
  if (o->diff)
    return rp_diff(ps[0], ps[1], o, f, err);
  if (o->suggest)
    return rp_suggest_filter(ps[0], o, f, err);
  if (o->mpi)
    return rp_print_mpi(ps[0], o, f, err);
  if (x && !strcmp(x, "csv"))
    return rp_export_csv(ps[0], o, f, err);
  if (x && !strcmp(x, "json"))
    return rp_export_json(ps, n, o, f, err);
  if (x && !strcmp(x, "events"))
    return rp_export_events(ps[0], o, f, err);
  if (x && !strcmp(x, "chrome"))
    return rp_export_chrome(ps[0], o, f, err);
  if (x && !strcmp(x, "folded"))
    return rp_export_folded(ps[0], o, f, err);
#ifdef SP_USE_OTF2
  if (x && !strcmp(x, "otf2"))
    return rp_export_otf2(ps[0], o, o->out, err);
#endif
  if (s && !strcmp(s, "flame"))
    return rp_svg_flame(ps[0], o, f, err);
  if (s && !strcmp(s, "timeline"))
    return rp_svg_timeline(ps[0], o, f, err);
  if (s && !strcmp(s, "compare"))
    return rp_svg_compare(ps, n, o, f, err);
  if (s && !strcmp(s, "speedup"))
    return rp_svg_speedup(ps, n, o, f, err);
  if (o->tree)
    return rp_print_tree(ps[0], o, f, err);
  if (o->region)
    return rp_print_region(ps[0], o, f, err);
  return rp_print_table(ps[0], o, f, err);
}

enum {
  OPT_BY_RANK = 256,
  OPT_BY_THREAD,
  OPT_TREE,
  OPT_EVENTS,
  OPT_DIFF,
  OPT_SORT,
  OPT_INCLUDE,
  OPT_EXCLUDE,
  OPT_RANKS,
  OPT_TOP,
  OPT_EXPORT,
  OPT_SVG,
  OPT_METRIC,
  OPT_WINDOW,
  OPT_WIDE,
  OPT_REGION,
  OPT_SUGGEST,
  OPT_RECORD_COST,
  OPT_MPI,
  OPT_DEPTH,
  OPT_MIN_PCT,
  OPT_WITH_META,
  OPT_MIN_DUR
};

static const struct option OPTIONS[] = {
    {"by-rank", no_argument, NULL, OPT_BY_RANK},
    {"by-thread", no_argument, NULL, OPT_BY_THREAD},
    {"tree", no_argument, NULL, OPT_TREE},
    {"events", no_argument, NULL, OPT_EVENTS},
    {"diff", no_argument, NULL, OPT_DIFF},
    {"sort", required_argument, NULL, OPT_SORT},
    {"include", required_argument, NULL, OPT_INCLUDE},
    {"exclude", required_argument, NULL, OPT_EXCLUDE},
    {"ranks", required_argument, NULL, OPT_RANKS},
    {"top", required_argument, NULL, OPT_TOP},
    {"export", required_argument, NULL, OPT_EXPORT},
    {"svg", required_argument, NULL, OPT_SVG},
    {"metric", required_argument, NULL, OPT_METRIC},
    {"window", required_argument, NULL, OPT_WINDOW},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {"wide", no_argument, NULL, OPT_WIDE},
    {"region", required_argument, NULL, OPT_REGION},
    {"suggest-filter", optional_argument, NULL, OPT_SUGGEST},
    {"record-cost", required_argument, NULL, OPT_RECORD_COST},
    {"mpi", no_argument, NULL, OPT_MPI},
    {"depth", required_argument, NULL, OPT_DEPTH},
    {"min-percent", required_argument, NULL, OPT_MIN_PCT},
    {"with-metadata", no_argument, NULL, OPT_WITH_META},
    {"min-duration", required_argument, NULL, OPT_MIN_DUR},
    {NULL, 0, NULL, 0}};

/* Parses the options into o, loads the profiles named into *pps (*pn of
 * them), writes the output; returns the exit status. main frees what
 * these hold, whichever way this returns. */
static int report(int argc, char **argv, rp_opts *o, rp_profile ***pps,
                  int *pn) {
  static const char *const exports[] = {"csv",    "json", "events", "chrome",
                                        "folded", "otf2", NULL};
  static const char *const svgs[] = {"flame", "timeline", "compare", "speedup",
                                     NULL};
  static const char *const metrics[] = {"avg", "total", "min", "max", NULL};
  opterr = 0; /* our messages, one line each */
  for (int c; (c = getopt_long(argc, argv, ":ho:", OPTIONS, NULL)) != -1;) {
    const char *v = optarg;
    switch (c) {
    case 'h':
      fputs(USAGE, stdout);
      return 0;
    case 'V':
      return sp_fmt_cli_version("sp-report");
    case OPT_BY_RANK:
    case OPT_BY_THREAD:
      if (o->by && o->by != (c == OPT_BY_RANK ? RP_BY_RANK : RP_BY_THREAD))
        return usage("%s", "one of --by-rank and --by-thread at a time");
      o->by = c == OPT_BY_RANK ? RP_BY_RANK : RP_BY_THREAD;
      break;
    case OPT_TREE:
      o->tree = 1;
      break;
    case OPT_WIDE:
      o->wide = 1;
      break;
    case OPT_REGION:
      o->region = v;
      break;
    case OPT_MPI:
      o->mpi = 1;
      break;
    case OPT_EVENTS:
      o->events = 1;
      break;
    case OPT_SUGGEST:
      o->suggest = v ? v : "";
      if (!o->suggest[0] && v)
        return usage("%s", "--suggest-filter= needs a file name");
      break;
    case OPT_RECORD_COST: {
      char *end;
      o->record_cost = strtod(v, &end);
      if (*end || end == v || !(o->record_cost > 0 && o->record_cost < 1e9))
        return usage("%s", "--record-cost needs a positive number of ns");
      break;
    }
    case OPT_DIFF:
      o->diff = 1;
      break;
    case OPT_SORT:
      if (!(o->sort = rp_sort_column(v)))
        return usage("--sort '%s': not a column (region ranks rank thread "
                     "calls total avg min max std excl span imbal timbal)",
                     v);
      break;
    case OPT_INCLUDE:
      if (o->have_include)
        regfree(&o->include);
      o->have_include = 0;
      if (compile(&o->include, "--include", v) != 0)
        return 2;
      o->have_include = 1;
      break;
    case OPT_EXCLUDE:
      if (o->have_exclude)
        regfree(&o->exclude);
      o->have_exclude = 0;
      if (compile(&o->exclude, "--exclude", v) != 0)
        return 2;
      o->have_exclude = 1;
      break;
    case OPT_RANKS:
      if (rp_parse_ranks(v, o) != 0)
        return usage("--ranks '%s': not a list like 0,2-3", v);
      break;
    case OPT_TOP: {
      char *end;
      o->top = strtoll(v, &end, 10);
      if (*end || end == v || o->top <= 0)
        return usage("%s", "--top needs a positive number");
      break;
    }
    case OPT_DEPTH: {
      char *end;
      long d = strtol(v, &end, 10);
      if (*end || end == v || d <= 0 || d > RP_TREE_DEPTH)
        return usage("%s", "--depth needs a number of levels, 1 to 256");
      o->tree_depth = (int)d;
      break;
    }
    case OPT_MIN_PCT: {
      char *end;
      o->min_pct = strtod(v, &end);
      if (*end || end == v || !(o->min_pct >= 0 && o->min_pct <= 100))
        return usage("%s", "--min-percent needs a percentage, 0 to 100");
      break;
    }
    case OPT_WITH_META:
      o->with_metadata = 1;
      break;
    case OPT_MIN_DUR: {
      char *end;
      long long d = strtoll(v, &end, 10);
      if (*end || end == v || d <= 0)
        return usage("%s", "--min-duration needs a positive number of ns");
      o->min_dur = d;
      break;
    }
    case OPT_EXPORT:
      if (!one_of(v, exports))
        return usage(
            "%s", "--export: one of csv, json, events, chrome, folded, otf2");
      o->export_fmt = v;
      break;
    case OPT_SVG:
      if (!one_of(v, svgs))
        return usage("%s", "--svg: one of flame, timeline, compare, speedup");
      o->svg = v;
      break;
    case OPT_METRIC:
      if (!one_of(v, metrics))
        return usage("%s", "--metric: one of avg, total, min, max");
      o->metric = v;
      break;
    case OPT_WINDOW: {
      char *end;
      o->win_lo = strtod(v, &end);
      if (*end != ':' || o->win_lo < 0)
        return usage("%s", "--window A:B, in seconds, 0 <= A < B");
      o->win_hi = strtod(end + 1, &end);
      if (*end || o->win_hi <= o->win_lo)
        return usage("%s", "--window A:B, in seconds, 0 <= A < B");
      break;
    }
    case 'o':
      o->out = v;
      break;
    default: /* ':' or '?' */
      return sp_fmt_cli_refused("sp-report", c, argv, OPTIONS);
    }
  }
  char **args = argv + optind;
  int nargs = argc - optind;
  if (nargs == 0)
    return usage("%s", "no profile given");
  /* --mpi writes its own csv and json: the one export it combines with. */
  int mpi_export =
      o->mpi && o->export_fmt &&
      (!strcmp(o->export_fmt, "csv") || !strcmp(o->export_fmt, "json"));
  if ((o->export_fmt != NULL && !mpi_export) + (o->svg != NULL) + o->diff +
          o->tree + (o->region != NULL) + (o->suggest != NULL) + o->mpi >
      1)
    return usage("%s", o->mpi && o->export_fmt && !mpi_export
                           ? "--mpi exports as csv or json only"
                           : "one of --tree, --region, --mpi, --export, --svg, "
                             "--diff and --suggest-filter at a time");
  if (o->mpi && (o->by || o->sort))
    return usage("%s", "--mpi takes --top, --include, --exclude, --ranks, "
                       "--wide, --export csv|json and -o, not --by-rank, "
                       "--by-thread or --sort");
  if (o->diff && nargs != 2)
    return usage("%s", "--diff compares two profiles: A B");
  if (o->out && !o->out[0])
    return usage("%s", "-o needs a file name");
  /* An option the chosen output would not honour is refused, not
   * dropped. */
  int otf2 = o->export_fmt && !strcmp(o->export_fmt, "otf2");
  int chrome = o->export_fmt && !strcmp(o->export_fmt, "chrome");
  if (o->win_lo >= 0 && !(o->svg && !strcmp(o->svg, "timeline")) && !otf2 &&
      !chrome)
    return usage("%s", "--window is for --svg timeline, --export otf2 and "
                       "--export chrome only");
  if (o->min_dur && !chrome)
    return usage("%s", "--min-duration is for --export chrome only");
  if (o->with_metadata && !chrome && !otf2)
    return usage("%s", "--with-metadata is for --export chrome and otf2 "
                       "only");
  if (otf2 && (!o->out || !strcmp(o->out, "-")))
    return usage("%s", "--export otf2 writes a directory: -o DIR");
#ifndef SP_USE_OTF2
  if (otf2) {
    fputs("sp-report: --export otf2: this sp-report was built without OTF2 "
          "(Debian: libotf2-trace-dev)\n",
          stderr);
    return 1;
  }
#endif
  if ((o->tree_depth || o->min_pct > 0) && !o->tree)
    return usage("%s", "--depth and --min-percent are for --tree only");
  if (o->metric && !(o->svg && !strcmp(o->svg, "compare")))
    return usage("%s", "--metric is for --svg compare only");
  if (o->record_cost > 0 && !o->suggest)
    return usage("%s", "--record-cost is for --suggest-filter only");
  if (o->suggest && (o->by || o->sort || o->top))
    return usage("%s", "--suggest-filter takes --include, --exclude, --ranks, "
                       "--events, --record-cost and -o, not --by-rank, "
                       "--by-thread, --sort or --top");
  if (o->diff && (o->by || o->sort))
    return usage("%s", "--diff takes --top, --include, --exclude, --ranks, "
                       "--events and -o, not --by-rank, --by-thread or "
                       "--sort");

  /* Only the outputs that walk calls need events; the rest read an .h5's
   * summary records. */
  const char *x = o->export_fmt, *s = o->svg;
  int events = o->events || o->tree || o->region || o->mpi || o->suggest ||
               (x && (!strcmp(x, "chrome") || !strcmp(x, "folded") ||
                      !strcmp(x, "events") || !strcmp(x, "otf2"))) ||
               (s && (!strcmp(s, "flame") || !strcmp(s, "timeline")));
  int each = o->diff || (x && !strcmp(x, "json") && !o->mpi) ||
             (s && (!strcmp(s, "compare") || !strcmp(s, "speedup")));
  int walks = o->tree ||
              (x && (!strcmp(x, "chrome") || !strcmp(x, "folded") ||
                     !strcmp(x, "events"))) ||
              (s && (!strcmp(s, "flame") || !strcmp(s, "timeline")));
  int n = each ? nargs : 1;
  rp_profile **ps = *pps = calloc((size_t)n, sizeof *ps);
  sp_fmt_err err = {""};
  if (!ps)
    return 1;
  *pn = n;
  /* A long run shows its progress on a terminal: the calls read from the
   * files, their statistics, and the walk through them where one is
   * made; counted before loading only when the line may be drawn. */
  sp_fmt_progress_begin(&rp_progress, "sp-report", 0,
                        sp_fmt_progress_mode(getenv("SP_PROGRESS")));
  if (rp_progress.mode) {
    for (int i = 0; i < n; i++)
      rp_progress.total +=
          rp_count_calls(each ? &args[i] : args, each ? 1 : nargs, events);
    rp_progress.passes = 2 + walks;
    if (rp_progress.total == 0)
      rp_progress.mode = 0; /* summary records only: nothing to count */
  }
  for (int i = 0; i < n; i++) {
    if (!(ps[i] = calloc(1, sizeof **ps)))
      return 1;
    if (rp_load(each ? &args[i] : args, each ? 1 : nargs, o, events, ps[i],
                &err) != 0) {
      sp_fmt_progress_end(&rp_progress); /* ends a line drawn */
      return fail(&err);
    }
  }

  /* A profile has call paths and statistics, not calls: what needs the
   * calls themselves refuses it. */
  const char *need = o->region                     ? "--region"
                     : o->events                   ? "--events"
                     : x && !strcmp(x, "events")   ? "--export events"
                     : x && !strcmp(x, "chrome")   ? "--export chrome"
                     : x && !strcmp(x, "otf2")     ? "--export otf2"
                     : s && !strcmp(s, "timeline") ? "--svg timeline"
                                                   : NULL;
  for (int i = 0; need && i < n; i++)
    if (ps[i]->profile_input) {
      sp_fmt_err_set(&err,
                     "%s: a profile (SP_MODE=profile) holds no events, which "
                     "%s needs: record a trace (SP_MODE=trace)",
                     ps[i]->profile_input, need);
      sp_fmt_progress_end(&rp_progress);
      return fail(&err);
    }

  int rc;
  if (otf2) {
    rc = run(ps, n, o, NULL, &err);
  } else if (o->out && strcmp(o->out, "-") != 0) {
    rp_out out;
    if (rp_out_open(&out, o->out, &err) != 0)
      return fail(&err);
    rc = run(ps, n, o, out.f, &err);
    if (rc != 0)
      rp_out_abort(&out);
    else
      rc = rp_out_commit(&out, &err);
  } else {
    rc = run(ps, n, o, stdout, &err);
    if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
      sp_fmt_err_set(&err, "standard output: write error");
      rc = -1;
    }
  }
  sp_fmt_progress_end(&rp_progress);
  return rc == 0 ? 0 : fail(&err);
}

int main(int argc, char **argv) {
  sp_fmt_tmp_guard(); /* a signal removes the temporaries it cuts short */
  rp_opts o;
  memset(&o, 0, sizeof o);
  o.win_lo = o.win_hi = -1;
  rp_profile **ps = NULL;
  int n = 0;
  int rc = report(argc, argv, &o, &ps, &n);
  for (int i = 0; i < n; i++)
    if (ps[i]) {
      rp_profile_free(ps[i]);
      free(ps[i]);
    }
  free(ps);
  free(o.ranks);
  if (o.have_include)
    regfree(&o.include);
  if (o.have_exclude)
    regfree(&o.exclude);
  return rc;
}
