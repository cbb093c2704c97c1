/* cli.c - sp-report's command line: parse options, load the profiles each
 * output needs (summary records only when that suffices), write it. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
    "usage: sp-report [OPTIONS] PROFILE...\n"
    "       sp-report --diff [OPTIONS] A B\n"
    "  PROFILE: merged or per-rank .h5, .spt, or directories holding\n"
    "           *.spt and *_rank<N>.h5 (sp-import's input rules)\n"
    "table (default):\n"
    "  --by-rank          one row per region and rank\n"
    "  --sort COLUMN      region ranks rank calls total avg min max std\n"
    "                     excl span imbal (default total; numbers descend)\n"
    "  --include REGEX    only regions matching (POSIX extended regex)\n"
    "  --exclude REGEX    leave out regions matching\n"
    "  --ranks LIST       only these ranks, e.g. 0,2-3\n"
    "  --top N            the first N rows\n"
    "  --tree             the call tree (by call path) instead of the table\n"
    "  --events           read every call even where an .h5's summary\n"
    "                     records suffice (statistics recomputed)\n"
    "exports and pictures (-o FILE; default standard output):\n"
    "  --export csv|json|events|chrome|folded\n"
    "  --svg flame|timeline|compare|speedup\n"
    "  --metric avg|total|min|max   what compare draws (default avg)\n"
    "  --window A:B       timeline from A to B seconds after the first call\n"
    "json, compare and speedup take each PROFILE argument as one run.\n";

/* Usage errors are one line too; the full usage is on --help. */
static int usage(const char *why) {
  fprintf(stderr, "sp-report: %s (see sp-report --help)\n", why);
  return 2;
}

static int fail(const sp_fmt_err *err) {
  fprintf(stderr, "sp-report: %s\n", err->msg);
  return 1;
}

static int compile(regex_t *re, const char *opt, const char *s) {
  int rc = regcomp(re, s, REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    char msg[256];
    regerror(rc, re, msg, sizeof msg);
    fprintf(stderr, "sp-report: %s '%s': %s\n", opt, s, msg);
    return -1;
  }
  return 0;
}

static int one_of(const char *s, const char *const *set) {
  for (; *set; set++)
    if (!strcmp(s, *set))
      return 1;
  return 0;
}

/* The value of an option given as "--opt VALUE" or "--opt=VALUE". */
static const char *value(int argc, char **argv, int *i, const char *opt) {
  size_t l = strlen(opt);
  if (!strncmp(argv[*i], opt, l) && argv[*i][l] == '=')
    return argv[*i] + l + 1;
  if (strcmp(argv[*i], opt) != 0)
    return NULL;
  if (*i + 1 >= argc) {
    fprintf(stderr, "sp-report: %s needs a value\n", opt);
    exit(2);
  }
  return argv[++*i];
}

static int run(rp_profile **ps, int n, const rp_opts *o, FILE *f,
               sp_fmt_err *err) {
  const char *x = o->export_fmt, *s = o->svg;
  if (o->diff)
    return rp_diff(ps[0], ps[1], o, f, err);
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
  return rp_print_table(ps[0], o, f, err);
}

/* Parses the options into o and the profiles named into args, loads them
 * into *pps (*pn of them), writes the output; returns the exit status.
 * main frees what these hold, whichever way this returns. */
static int report(int argc, char **argv, char **args, rp_opts *o,
                  rp_profile ***pps, int *pn) {
  static const char *const exports[] = {"csv",    "json",   "events",
                                        "chrome", "folded", NULL};
  static const char *const svgs[] = {"flame", "timeline", "compare", "speedup",
                                     NULL};
  static const char *const metrics[] = {"avg", "total", "min", "max", NULL};
  int nargs = 0, opts = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!opts || a[0] != '-' || !a[1]) {
      args[nargs++] = argv[i];
    } else if (!strcmp(a, "--")) {
      opts = 0;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(USAGE, stdout);
      return 0;
    } else if (!strcmp(a, "--by-rank")) {
      o->by_rank = 1;
    } else if (!strcmp(a, "--tree")) {
      o->tree = 1;
    } else if (!strcmp(a, "--events")) {
      o->events = 1;
    } else if (!strcmp(a, "--diff")) {
      o->diff = 1;
    } else if ((v = value(argc, argv, &i, "--sort"))) {
      if (!(o->sort = rp_sort_column(v))) {
        fprintf(stderr,
                "sp-report: --sort '%s': not a column (region ranks rank "
                "calls total avg min max std excl span imbal)\n",
                v);
        return 2;
      }
    } else if ((v = value(argc, argv, &i, "--include"))) {
      if (o->have_include)
        regfree(&o->include);
      if (compile(&o->include, "--include", v) != 0)
        return 2;
      o->have_include = 1;
    } else if ((v = value(argc, argv, &i, "--exclude"))) {
      if (o->have_exclude)
        regfree(&o->exclude);
      if (compile(&o->exclude, "--exclude", v) != 0)
        return 2;
      o->have_exclude = 1;
    } else if ((v = value(argc, argv, &i, "--ranks"))) {
      if (rp_parse_ranks(v, o) != 0) {
        fprintf(stderr, "sp-report: --ranks '%s': not a list like 0,2-3\n", v);
        return 2;
      }
    } else if ((v = value(argc, argv, &i, "--top"))) {
      char *end;
      o->top = strtoll(v, &end, 10);
      if (*end || end == v || o->top <= 0)
        return usage("--top needs a positive number");
    } else if ((v = value(argc, argv, &i, "--export"))) {
      if (!one_of(v, exports))
        return usage("--export: one of csv, json, events, chrome, folded");
      o->export_fmt = v;
    } else if ((v = value(argc, argv, &i, "--svg"))) {
      if (!one_of(v, svgs))
        return usage("--svg: one of flame, timeline, compare, speedup");
      o->svg = v;
    } else if ((v = value(argc, argv, &i, "--metric"))) {
      if (!one_of(v, metrics))
        return usage("--metric: one of avg, total, min, max");
      o->metric = v;
    } else if ((v = value(argc, argv, &i, "--window"))) {
      char *end;
      o->win_lo = strtod(v, &end);
      if (*end != ':' || o->win_lo < 0)
        return usage("--window A:B, in seconds, 0 <= A < B");
      o->win_hi = strtod(end + 1, &end);
      if (*end || o->win_hi <= o->win_lo)
        return usage("--window A:B, in seconds, 0 <= A < B");
    } else if ((v = value(argc, argv, &i, "-o")) ||
               (v = value(argc, argv, &i, "--output"))) {
      o->out = v;
    } else {
      fprintf(stderr, "sp-report: unknown option %s (see sp-report --help)\n",
              a);
      return 2;
    }
  }
  if (nargs == 0)
    return usage("no profile given");
  if ((o->export_fmt != NULL) + (o->svg != NULL) + o->diff + o->tree > 1)
    return usage("one of --tree, --export, --svg and --diff at a time");
  if (o->diff && nargs != 2)
    return usage("--diff compares two profiles: A B");
  if (o->out && !o->out[0])
    return usage("-o needs a file name");

  /* Only the outputs that walk calls need events; the rest read an .h5's
   * summary records. */
  const char *x = o->export_fmt, *s = o->svg;
  int events = o->events || o->tree ||
               (x && (!strcmp(x, "chrome") || !strcmp(x, "folded") ||
                      !strcmp(x, "events"))) ||
               (s && (!strcmp(s, "flame") || !strcmp(s, "timeline")));
  int each = o->diff || (x && !strcmp(x, "json")) ||
             (s && (!strcmp(s, "compare") || !strcmp(s, "speedup")));
  int n = each ? nargs : 1;
  rp_profile **ps = *pps = calloc((size_t)n, sizeof *ps);
  sp_fmt_err err = {""};
  if (!ps)
    return 1;
  *pn = n;
  for (int i = 0; i < n; i++) {
    if (!(ps[i] = calloc(1, sizeof **ps)))
      return 1;
    if (rp_load(each ? &args[i] : args, each ? 1 : nargs, o, events, ps[i],
                &err) != 0)
      return fail(&err);
  }

  int rc;
  if (o->out && strcmp(o->out, "-") != 0) {
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
  return rc == 0 ? 0 : fail(&err);
}

int main(int argc, char **argv) {
  rp_opts o;
  memset(&o, 0, sizeof o);
  o.win_lo = o.win_hi = -1;
  char **args = calloc((size_t)argc + 1, sizeof *args);
  rp_profile **ps = NULL;
  int n = 0;
  if (!args)
    return 1;
  int rc = report(argc, argv, args, &o, &ps, &n);
  for (int i = 0; i < n; i++)
    if (ps[i]) {
      rp_profile_free(ps[i]);
      free(ps[i]);
    }
  free(ps);
  free(args);
  free(o.ranks);
  if (o.have_include)
    regfree(&o.include);
  if (o.have_exclude)
    regfree(&o.exclude);
  return rc;
}
