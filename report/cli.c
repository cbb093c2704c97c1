/* cli.c - sp-report's command line: parse options, load the profiles each
 * output needs (summary records only when that suffices), write it. */
#include "report.h"
#include "sp_cli.h"
#include "sp_guard.h"
#include "sp_tmp.h"

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
    "  --counters[=LIST]  the table with counters per region (SP_COUNTERS):\n"
    "                     LIST of counter names (inclusive), NAME:excl,\n"
    "                     ipc, miss-rate, branch-miss-rate, faults/call;\n"
    "                     default every counter and what derives from them;\n"
    "                     with --tree per node ('-': not known exactly),\n"
    "                     with --region per rank and thread (shown there\n"
    "                     without --counters too when recorded)\n"
    "  --mpi              time inside MPI per rank; per MPI function its\n"
    "                     calls, total and the ranks with the least and the\n"
    "                     most, and the bytes each sent and received\n"
    "                     (with --export csv or json: as those)\n"
    "  --matrix           MPI point-to-point messages and bytes, sender x\n"
    "                     receiver (with --export csv or json: as those;\n"
    "                     --mpi --matrix is the same)\n"
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
    "  --svg flame|timeline|compare|speedup|matrix\n"
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
  OPT_MIN_DUR,
  OPT_MATRIX,
  OPT_COUNTERS
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
    {"matrix", no_argument, NULL, OPT_MATRIX},
    {"depth", required_argument, NULL, OPT_DEPTH},
    {"min-percent", required_argument, NULL, OPT_MIN_PCT},
    {"with-metadata", no_argument, NULL, OPT_WITH_META},
    {"min-duration", required_argument, NULL, OPT_MIN_DUR},
    {"counters", optional_argument, NULL, OPT_COUNTERS},
    {NULL, 0, NULL, 0}};

/* ---- the outputs ---------------------------------------------------------
 * One row per output: the option (and value) that asks for it, the
 * function that writes it and what it needs. The parser validates and
 * chooses rows, the checks read their needs, report() calls the one
 * chosen; a new output is one row here and its function. */

/* What an output needs beyond an .h5's summary records, and which of the
 * options only some outputs honour it takes or refuses. */
enum {
  NEED_CALLS = 1u << 0, /* every call read (statistics recomputed) */
  NEED_TRACE = 1u << 1, /* the calls themselves: a profile's call paths
                         * (SP_MODE=profile) will not do */
  NEED_EACH = 1u << 2,  /* each PROFILE argument one run */
  NEED_TWO = 1u << 3,   /* exactly two PROFILE arguments */
  NEED_WALK = 1u << 4,  /* walks the calls once more (a progress pass) */
  NEED_DIR = 1u << 5,   /* writes a directory (-o DIR), not a stream */
  MPI_WRITES = 1u << 6, /* an export --mpi writes in its own layout */
  NEED_MPI = 1u << 7,   /* the inputs' MPI messages (rp_load_mpi) */
  TAKES_WINDOW = 1u << 8,
  TAKES_MIN_DUR = 1u << 9,
  TAKES_META = 1u << 10,
  TAKES_TREE = 1u << 11, /* --depth, --min-percent */
  TAKES_METRIC = 1u << 12,
  TAKES_COST = 1u << 13, /* --record-cost */
  NO_BY = 1u << 16,      /* --by-rank, --by-thread refused */
  NO_SORT = 1u << 17,
  NO_TOP = 1u << 18,
};

typedef int one_fn(const rp_profile *, const rp_opts *, FILE *, sp_fmt_err *);
typedef int each_fn(rp_profile *const *, int, const rp_opts *, FILE *,
                    sp_fmt_err *);

typedef struct output {
  int opt;           /* the OPT_* choosing it; 0 for the default table */
  const char *value; /* --export's or --svg's value; NULL for a flag */
  const char *name;  /* as messages name it */
  unsigned needs;    /* NEED_*, MPI_WRITES, TAKES_*, NO_* */
  one_fn *one;       /* writes it from one profile of every argument */
  each_fn *each;     /* or from one profile per argument */
  const char *takes; /* the message when a NO_* option is given */
} output;

static int diff(rp_profile *const *ps, int n, const rp_opts *o, FILE *f,
                sp_fmt_err *err) {
  (void)n; /* NEED_TWO */
  return rp_diff(ps[0], ps[1], o, f, err);
}

#ifdef SP_USE_OTF2
static int otf2(const rp_profile *p, const rp_opts *o, FILE *f,
                sp_fmt_err *err) {
  (void)f; /* NEED_DIR: the archive goes into -o DIR */
  return rp_export_otf2(p, o, o->out, err);
}
#define OTF2_WRITER otf2
#else
#define OTF2_WRITER NULL /* refused with a line naming the package */
#endif

static const output OUTPUTS[] = {
    {0, NULL, "the table", 0, rp_print_table, NULL, NULL},
    {OPT_TREE, NULL, "--tree", NEED_CALLS | NEED_WALK | TAKES_TREE,
     rp_print_tree, NULL, NULL},
    {OPT_REGION, NULL, "--region", NEED_CALLS | NEED_TRACE, rp_print_region,
     NULL, NULL},
    {OPT_COUNTERS, NULL, "--counters", 0, rp_print_counters, NULL, NULL},
    {OPT_MPI, NULL, "--mpi", NEED_CALLS | NEED_MPI | NO_BY | NO_SORT,
     rp_print_mpi, NULL,
     "--mpi takes --top, --include, --exclude, --ranks, --wide, --export "
     "csv|json and -o, not --by-rank, --by-thread or --sort"},
    {OPT_MATRIX, NULL, "--matrix", NEED_MPI | NO_BY | NO_SORT | NO_TOP,
     rp_print_matrix, NULL,
     "--matrix takes --include, --exclude, --ranks, --export csv|json and "
     "-o, not --by-rank, --by-thread, --sort or --top"},
    {OPT_DIFF, NULL, "--diff", NEED_EACH | NEED_TWO | NO_BY | NO_SORT, NULL,
     diff,
     "--diff takes --top, --include, --exclude, --ranks, --events and -o, "
     "not --by-rank, --by-thread or --sort"},
    {OPT_SUGGEST, NULL, "--suggest-filter",
     NEED_CALLS | TAKES_COST | NO_BY | NO_SORT | NO_TOP, rp_suggest_filter,
     NULL,
     "--suggest-filter takes --include, --exclude, --ranks, --events, "
     "--record-cost and -o, not --by-rank, --by-thread, --sort or --top"},
    {OPT_EXPORT, "csv", "--export csv", MPI_WRITES, rp_export_csv, NULL, NULL},
    {OPT_EXPORT, "json", "--export json", NEED_EACH | MPI_WRITES, NULL,
     rp_export_json, NULL},
    {OPT_EXPORT, "events", "--export events",
     NEED_CALLS | NEED_TRACE | NEED_WALK, rp_export_events, NULL, NULL},
    {OPT_EXPORT, "chrome", "--export chrome",
     NEED_CALLS | NEED_TRACE | NEED_WALK | TAKES_WINDOW | TAKES_MIN_DUR |
         TAKES_META,
     rp_export_chrome, NULL, NULL},
    {OPT_EXPORT, "folded", "--export folded", NEED_CALLS | NEED_WALK,
     rp_export_folded, NULL, NULL},
    {OPT_EXPORT, "otf2", "--export otf2",
     NEED_CALLS | NEED_TRACE | NEED_DIR | NEED_MPI | TAKES_WINDOW | TAKES_META,
     OTF2_WRITER, NULL, NULL},
    {OPT_SVG, "flame", "--svg flame", NEED_CALLS | NEED_WALK, rp_svg_flame,
     NULL, NULL},
    {OPT_SVG, "timeline", "--svg timeline",
     NEED_CALLS | NEED_TRACE | NEED_WALK | TAKES_WINDOW, rp_svg_timeline, NULL,
     NULL},
    {OPT_SVG, "matrix", "--svg matrix", NEED_MPI | NO_BY | NO_SORT | NO_TOP,
     rp_svg_matrix, NULL,
     "--svg matrix takes --include, --exclude, --ranks and -o, not "
     "--by-rank, --by-thread, --sort or --top"},
    {OPT_SVG, "compare", "--svg compare", NEED_EACH | TAKES_METRIC, NULL,
     rp_svg_compare, NULL},
    {OPT_SVG, "speedup", "--svg speedup", NEED_EACH, NULL, rp_svg_speedup,
     NULL},
};
enum { NOUTPUTS = sizeof OUTPUTS / sizeof OUTPUTS[0] };

/* The options only some outputs honour: given to another, refused rather
 * than dropped. */
static const struct {
  unsigned bit;
  const char *msg;
} TAKES[] = {
    {TAKES_WINDOW, "--window is for --svg timeline, --export otf2 and "
                   "--export chrome only"},
    {TAKES_MIN_DUR, "--min-duration is for --export chrome only"},
    {TAKES_META, "--with-metadata is for --export chrome and otf2 only"},
    {TAKES_TREE, "--depth and --min-percent are for --tree only"},
    {TAKES_METRIC, "--metric is for --svg compare only"},
    {TAKES_COST, "--record-cost is for --suggest-filter only"},
};

/* The command line as parsed: the rows chosen (by index into OUTPUTS) and
 * the TAKES_* and NO_* options given. */
typedef struct cli {
  unsigned char chosen[NOUTPUTS];
  unsigned given;
  char **args;
  int nargs;
} cli;

/* Chooses opt's row for value (the last --export or --svg counts); -1
 * when value names none. */
static int choose(cli *c, int opt, const char *value) {
  int hit = -1;
  for (int i = 0; i < NOUTPUTS; i++)
    if (OUTPUTS[i].opt == opt) {
      if (!OUTPUTS[i].value || (value && !strcmp(OUTPUTS[i].value, value)))
        hit = i;
      else if (value)
        c->chosen[i] = 0;
    }
  if (hit >= 0)
    c->chosen[hit] = 1;
  return hit;
}

/* "--export: one of csv, json, ...", from the table. */
static int no_such_value(const char *optname, int opt) {
  char msg[256];
  int len = snprintf(msg, sizeof msg, "%s: one of", optname);
  const char *sep = " ";
  for (int i = 0; i < NOUTPUTS && len > 0 && (size_t)len < sizeof msg; i++)
    if (OUTPUTS[i].opt == opt) {
      len += snprintf(msg + len, sizeof msg - (size_t)len, "%s%s", sep,
                      OUTPUTS[i].value);
      sep = ", ";
    }
  return usage("%s", msg);
}

/* A status that is not an exit status: go on to the next step. */
#define GO_ON (-1)

static int parse_number_options(int c, const char *v, rp_opts *o) {
  char *end;
  switch (c) {
  case OPT_RECORD_COST:
    o->record_cost = strtod(v, &end);
    if (*end || end == v || !(o->record_cost > 0 && o->record_cost < 1e9))
      return usage("%s", "--record-cost needs a positive number of ns");
    break;
  case OPT_TOP:
    o->top = strtoll(v, &end, 10);
    if (*end || end == v || o->top <= 0)
      return usage("%s", "--top needs a positive number");
    break;
  case OPT_DEPTH: {
    long d = strtol(v, &end, 10);
    if (*end || end == v || d <= 0 || d > RP_TREE_DEPTH)
      return usage("%s", "--depth needs a number of levels, 1 to 256");
    o->tree_depth = (int)d;
    break;
  }
  case OPT_MIN_PCT:
    o->min_pct = strtod(v, &end);
    if (*end || end == v || !(o->min_pct >= 0 && o->min_pct <= 100))
      return usage("%s", "--min-percent needs a percentage, 0 to 100");
    break;
  case OPT_MIN_DUR: {
    long long d = strtoll(v, &end, 10);
    if (*end || end == v || d <= 0)
      return usage("%s", "--min-duration needs a positive number of ns");
    o->min_dur = d;
    break;
  }
  case OPT_WINDOW:
    o->win_lo = strtod(v, &end);
    if (*end != ':' || o->win_lo < 0)
      return usage("%s", "--window A:B, in seconds, 0 <= A < B");
    o->win_hi = strtod(end + 1, &end);
    if (*end || o->win_hi <= o->win_lo)
      return usage("%s", "--window A:B, in seconds, 0 <= A < B");
    break;
  }
  return GO_ON;
}

/* The TAKES_* and NO_* options o was given. */
static unsigned options_given(const rp_opts *o) {
  return (o->by ? NO_BY : 0) | (o->sort ? NO_SORT : 0) | (o->top ? NO_TOP : 0) |
         (o->win_lo >= 0 ? TAKES_WINDOW : 0) |
         (o->min_dur ? TAKES_MIN_DUR : 0) |
         (o->with_metadata ? TAKES_META : 0) |
         (o->tree_depth || o->min_pct > 0 ? TAKES_TREE : 0) |
         (o->metric ? TAKES_METRIC : 0) | (o->record_cost > 0 ? TAKES_COST : 0);
}

/* Parses the options into o and c; GO_ON, or the exit status. */
static int parse(int argc, char **argv, rp_opts *o, cli *c) {
  static const char *const metrics[] = {"avg", "total", "min", "max"};
  opterr = 0; /* our messages, one line each */
  for (int k; (k = getopt_long(argc, argv, ":ho:", OPTIONS, NULL)) != -1;) {
    const char *v = optarg;
    switch (k) {
    case 'h':
      fputs(USAGE, stdout);
      return 0;
    case 'V':
      return sp_fmt_cli_version("sp-report");
    case OPT_BY_RANK:
    case OPT_BY_THREAD:
      if (o->by && o->by != (k == OPT_BY_RANK ? RP_BY_RANK : RP_BY_THREAD))
        return usage("%s", "one of --by-rank and --by-thread at a time");
      o->by = k == OPT_BY_RANK ? RP_BY_RANK : RP_BY_THREAD;
      break;
    case OPT_REGION:
      o->region = v;
      choose(c, k, NULL);
      break;
    case OPT_SUGGEST:
      o->suggest = v ? v : "";
      if (!o->suggest[0] && v)
        return usage("%s", "--suggest-filter= needs a file name");
      choose(c, k, NULL);
      break;
    case OPT_COUNTERS:
      o->counters = v ? v : "";
      if (v && !v[0])
        return usage("%s", "--counters= needs columns, e.g. ipc,page-faults");
      choose(c, k, NULL);
      break;
    case OPT_TREE:
    case OPT_MPI:
    case OPT_MATRIX:
    case OPT_DIFF:
      choose(c, k, NULL);
      break;
    case OPT_EXPORT:
      if (choose(c, k, v) < 0)
        return no_such_value("--export", k);
      o->export_fmt = v; /* --mpi's csv and json read it */
      break;
    case OPT_SVG:
      if (choose(c, k, v) < 0)
        return no_such_value("--svg", k);
      break;
    case OPT_WIDE:
      o->wide = 1;
      break;
    case OPT_EVENTS:
      o->events = 1;
      break;
    case OPT_WITH_META:
      o->with_metadata = 1;
      break;
    case OPT_SORT:
      if (!(o->sort = rp_sort_column(v)))
        return usage("--sort '%s': not a column (region ranks rank thread "
                     "calls total avg min max std excl span imbal timbal)",
                     v);
      break;
    case OPT_INCLUDE:
    case OPT_EXCLUDE: {
      int inc = k == OPT_INCLUDE;
      regex_t *re = inc ? &o->include : &o->exclude;
      int *have = inc ? &o->have_include : &o->have_exclude;
      if (*have)
        regfree(re);
      *have = 0;
      if (compile(re, inc ? "--include" : "--exclude", v) != 0)
        return 2;
      *have = 1;
      break;
    }
    case OPT_RANKS:
      if (rp_parse_ranks(v, o) != 0)
        return usage("--ranks '%s': not a list like 0,2-3", v);
      break;
    case OPT_METRIC:
      o->metric = NULL;
      for (size_t i = 0; i < sizeof metrics / sizeof *metrics; i++)
        if (!strcmp(v, metrics[i]))
          o->metric = metrics[i];
      if (!o->metric)
        return usage("%s", "--metric: one of avg, total, min, max");
      break;
    case 'o':
      o->out = v;
      break;
    case OPT_RECORD_COST:
    case OPT_TOP:
    case OPT_DEPTH:
    case OPT_MIN_PCT:
    case OPT_MIN_DUR:
    case OPT_WINDOW: {
      int rc = parse_number_options(k, v, o);
      if (rc != GO_ON)
        return rc;
      break;
    }
    default: /* ':' or '?' */
      return sp_fmt_cli_refused("sp-report", k, argv, OPTIONS);
    }
  }
  c->given = options_given(o);
  c->args = argv + optind;
  c->nargs = argc - optind;
  if (c->nargs == 0)
    return usage("%s", "no profile given");
  return GO_ON;
}

/* The one output chosen into *out, every option given one it honours;
 * GO_ON, or the exit status. */
static int check(cli *c, const rp_opts *o, const output **out) {
  int mpi = -1, nchosen = 0, other_export = 0, matrix = 0;
  for (int i = 0; i < NOUTPUTS; i++)
    if (c->chosen[i] && OUTPUTS[i].opt == OPT_MATRIX)
      matrix = 1;
  for (int i = 0; i < NOUTPUTS; i++)
    if (c->chosen[i] &&
        (OUTPUTS[i].opt == OPT_MPI || OUTPUTS[i].opt == OPT_MATRIX)) {
      /* --mpi --matrix is the matrix */
      if (OUTPUTS[i].opt == OPT_MPI && matrix)
        c->chosen[i] = 0;
      else
        mpi = i;
    }
  /* --tree and --region take --counters as their columns */
  int tree_or_region = 0;
  for (int i = 0; i < NOUTPUTS; i++)
    tree_or_region |= c->chosen[i] && (OUTPUTS[i].opt == OPT_TREE ||
                                       OUTPUTS[i].opt == OPT_REGION);
  for (int i = 0; i < NOUTPUTS; i++) {
    if (tree_or_region && OUTPUTS[i].opt == OPT_COUNTERS)
      c->chosen[i] = 0;
    if (!c->chosen[i])
      continue;
    /* --mpi writes its own csv and json: the one export it combines
     * with. */
    if (mpi >= 0 && OUTPUTS[i].opt == OPT_EXPORT) {
      if (OUTPUTS[i].needs & MPI_WRITES) {
        c->chosen[i] = 0;
        continue;
      }
      other_export = 1;
    }
    nchosen++;
    *out = &OUTPUTS[i];
  }
  if (nchosen == 0)
    *out = &OUTPUTS[0];
  if (nchosen > 1)
    return usage("%s", other_export
                           ? (matrix ? "--matrix exports as csv or json only"
                                     : "--mpi exports as csv or json only")
                           : "one of --tree, --region, --mpi, --matrix, "
                             "--export, --svg, --diff, --suggest-filter and "
                             "--counters at a time (--counters goes with "
                             "--tree and --region)");
  unsigned needs = (*out)->needs;
  if ((needs & NEED_TWO) && c->nargs != 2)
    return usage("%s", "--diff compares two profiles: A B");
  if (o->out && !o->out[0])
    return usage("%s", "-o needs a file name");
  for (size_t i = 0; i < sizeof TAKES / sizeof *TAKES; i++)
    if ((c->given & TAKES[i].bit) && !(needs & TAKES[i].bit))
      return usage("%s", TAKES[i].msg);
  if ((needs & NEED_DIR) && (!o->out || !strcmp(o->out, "-")))
    return usage("%s writes a directory: -o DIR", (*out)->name);
  if (!(*out)->one && !(*out)->each) {
    fprintf(stderr,
            "sp-report: %s: this sp-report was built without OTF2 "
            "(Debian: libotf2-trace-dev)\n",
            (*out)->name);
    return 1;
  }
  if (c->given & needs & (NO_BY | NO_SORT | NO_TOP))
    return usage("%s", (*out)->takes);
  return GO_ON;
}

/* Loads the profiles out needs into *pps (*pn of them); GO_ON, or the exit
 * status. */
static int load(const cli *c, const rp_opts *o, const output *out,
                rp_profile ***pps, int *pn) {
  /* Only the outputs that walk calls need events; the rest read an .h5's
   * summary records. */
  int events = o->events || (out->needs & NEED_CALLS);
  int each = !!(out->needs & NEED_EACH);
  int n = each ? c->nargs : 1;
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
      rp_progress.total += rp_count_calls(each ? &c->args[i] : c->args,
                                          each ? 1 : c->nargs, events);
    rp_progress.passes = 2 + !!(out->needs & NEED_WALK);
    if (rp_progress.total == 0)
      rp_progress.mode = 0; /* summary records only: nothing to count */
  }
  for (int i = 0; i < n; i++) {
    if (!(ps[i] = calloc(1, sizeof **ps)))
      return 1;
    if (rp_load(each ? &c->args[i] : c->args, each ? 1 : c->nargs, o, events,
                ps[i], &err) != 0 ||
        ((out->needs & NEED_MPI) &&
         rp_load_mpi(each ? &c->args[i] : c->args, each ? 1 : c->nargs, o,
                     ps[i], &err) != 0)) {
      sp_fmt_progress_end(&rp_progress); /* ends a line drawn */
      return fail(&err);
    }
  }
  /* A profile has call paths and statistics, not calls: what needs the
   * calls themselves refuses it. */
  const char *need = out->needs & NEED_TRACE ? out->name
                     : o->events             ? "--events"
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
  return GO_ON;
}

static int run(const output *out, rp_profile **ps, int n, const rp_opts *o,
               FILE *f, sp_fmt_err *err) {
  return out->one ? out->one(ps[0], o, f, err) : out->each(ps, n, o, f, err);
}

/* Writes out to -o FILE (under a temporary name), standard output, or a
 * directory it writes itself; the exit status. */
static int write_output(const output *out, rp_profile **ps, int n,
                        const rp_opts *o) {
  sp_fmt_err err = {""};
  int rc;
  if (out->needs & NEED_DIR) {
    rc = run(out, ps, n, o, NULL, &err);
  } else if (o->out && strcmp(o->out, "-") != 0) {
    rp_out f;
    if (rp_out_open(&f, o->out, &err) != 0)
      return fail(&err);
    rc = run(out, ps, n, o, f.f, &err);
    if (rc != 0)
      rp_out_abort(&f);
    else
      rc = rp_out_commit(&f, &err);
  } else {
    rc = run(out, ps, n, o, stdout, &err);
    if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
      sp_fmt_err_set(&err, "standard output: write error");
      rc = -1;
    }
  }
  sp_fmt_progress_end(&rp_progress);
  return rc == 0 ? 0 : fail(&err);
}

/* Parses the options into o, loads the profiles named into *pps (*pn of
 * them), writes the output; returns the exit status. main frees what
 * these hold, whichever way this returns. */
static int report(int argc, char **argv, rp_opts *o, rp_profile ***pps,
                  int *pn) {
  cli c;
  const output *out = NULL;
  memset(&c, 0, sizeof c);
  int rc = parse(argc, argv, o, &c);
  if (rc == GO_ON)
    rc = check(&c, o, &out);
  if (rc == GO_ON)
    rc = load(&c, o, out, pps, pn);
  return rc == GO_ON ? write_output(out, *pps, *pn, o) : rc;
}

int main(int argc, char **argv) {
  sp_fmt_tmp_guard(); /* a signal removes the temporaries it cuts short */
  sp_fmt_crash_guard(); /* libhdf5 crashing on a damaged input */
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
