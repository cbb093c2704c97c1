/* suggest.c - sp-report --suggest-filter: per region, the trace bytes and
 * recording time its calls cost, and a filter file for the plugin leaving
 * out the regions whose calls are too short to be worth recording. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static int by_bytes(const void *pa, const void *pb) {
  const rp_agg *a = pa, *b = pb;
  if (a->calls != b->calls)
    return a->calls > b->calls ? -1 : 1;
  return a->name < b->name ? -1 : (a->name > b->name);
}

/* 1 if the region is written into the filter when short enough: regions
 * the plugin makes from functions. OpenMP constructs come from OMPT, MPI
 * calls from the MPI layer (the plugin never sees either), and a name
 * holding a control byte cannot be one line of the file. */
static int filterable(const char *name) {
  if (!strncmp(name, "omp ", 4) || !strncmp(name, "MPI_", 4) ||
      !strncmp(name, "PMPI_", 5))
    return 0;
  for (const unsigned char *c = (const unsigned char *)name; *c; c++)
    if (*c < 0x20 || *c == 0x7f)
      return 0;
  return name[0] != 0;
}

/* under[r] = calls of regions marked in cut_name recorded inside region
 * r's calls (a call below two calls of r counted once), from the call
 * tree; 0 with under zeroed when there is none (a trace whose calls do not
 * nest). */
static void calls_under(const rp_tree *t, const char *cut_name, int64_t nnames,
                        int64_t *under, int64_t *seen) {
  memset(under, 0, (size_t)nnames * sizeof *under);
  for (int64_t r = 0; r < nnames; r++)
    seen[r] = -1;
  for (int64_t y = 0; y < t->n; y++) {
    const rp_node *c = &t->v[y];
    if (c->name < 0 || !cut_name[c->name])
      continue;
    /* A call inside a call of its own region (recursion, direct or not)
     * counts where a profile's call path folds it, in the outermost node
     * of its region on the path: a trace's tree keeps ping > pong > ping,
     * and both must say the same. */
    int64_t top = y;
    for (int64_t x = c->parent; x >= 0; x = t->v[x].parent)
      if (t->v[x].name == c->name)
        top = x;
    for (int64_t x = t->v[top].parent; x >= 0; x = t->v[x].parent) {
      int32_t r = t->v[x].name;
      if (r < 0 || seen[r] == y)
        continue;
      seen[r] = y;
      under[r] += c->calls + c->rec;
    }
  }
}

/* The name as a glob matching itself alone: the glob characters and the
 * spaces at either end (the plugin trims a line) behind a backslash. */
static void put_glob(FILE *f, const char *name) {
  size_t n = strlen(name);
  for (size_t i = 0; i < n; i++) {
    char c = name[i];
    if (strchr("*?[]{}\\", c) || (c == ' ' && (i == 0 || i == n - 1)))
      fputc('\\', f);
    fputc(c, f);
  }
}

int rp_suggest_filter(const rp_profile *p, const rp_opts *o, FILE *f,
                      sp_fmt_err *err) {
  rp_opts all = *o;
  all.top = 0;
  all.sort = "calls";
  rp_agg *v;
  int64_t n;
  if (rp_aggregate(p, &all, RP_BY_REGION, &v, &n, err) != 0)
    return -1;
  if (n == 0) {
    free(v);
    sp_fmt_err_set(err, "%s: no region matches the filters", p->label);
    return -1;
  }
  qsort(v, (size_t)n, sizeof *v, by_bytes);
  double cost = o->record_cost > 0 ? o->record_cost : RP_RECORD_COST_NS;
  double below = RP_FILTER_FACTOR * cost;
  char *cut = malloc((size_t)n);
  if (!cut) {
    free(v);
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    return -1;
  }
  /* A region is left out when its calls are short and recording them
   * costs the run something: a function called once (a validation, a
   * destructor) tells the run's structure for 23 ns and stays. Short: its
   * mean call, less the recording of the calls left out below it (those
   * inflate it), under RP_FILTER_FACTOR record costs; so the verdict holds
   * once the filter is in place, and one round suffices. */
  double span = p->span_hi > p->span_lo
                    ? (double)p->span_hi - (double)p->span_lo
                    : 0,
         run_ns = span * (double)(p->nthreads > 0 ? p->nthreads : 1);
  int64_t nn = p->nnames > 0 ? p->nnames : 1;
  char *cut_name = calloc((size_t)nn, 1);
  int64_t *under = malloc((size_t)nn * sizeof *under),
          *seen = malloc((size_t)nn * sizeof *seen);
  double *mean = malloc((size_t)n * sizeof *mean);
  rp_tree t;
  int have_tree = 0;
  if (cut_name && under && seen && mean) {
    sp_fmt_err quiet = {""};
    have_tree = rp_tree_build(p, &all, &t, &quiet) == 0;
  }
  if (!cut_name || !under || !seen || !mean) {
    free(cut_name), free(under), free(seen), free(mean);
    if (have_tree)
      rp_tree_free(&t);
    free(v);
    free(cut);
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    return -1;
  }
  memset(cut, 0, (size_t)n);
  for (int64_t i = 0; i < n; i++)
    mean[i] = v[i].mean;
  /* Leaving a region out only lowers the means above it: the set grows
   * to its fixed point. */
  for (int round = 0; round < 64; round++) {
    int changed = 0;
    for (int64_t i = 0; i < n; i++) {
      int c = filterable(p->names[v[i].name]) && mean[i] < below &&
              (double)v[i].calls * cost >= RP_FILTER_MIN_SHARE * run_ns;
      if (c && !cut[i]) {
        cut[i] = 1;
        cut_name[v[i].name] = 1;
        changed = 1;
      }
    }
    if (!changed || !have_tree)
      break;
    calls_under(&t, cut_name, p->nnames, under, seen);
    for (int64_t i = 0; i < n; i++) {
      double m = v[i].calls > 0 ? v[i].mean - cost * (double)under[v[i].name] /
                                                  (double)v[i].calls
                                : v[i].mean;
      mean[i] = m > 0 ? m : 0;
    }
  }
  if (have_tree)
    rp_tree_free(&t);
  free(cut_name), free(under), free(seen);
  int64_t calls = 0, cut_calls = 0, cut_regions = 0;
  for (int64_t i = 0; i < n; i++) {
    calls += v[i].calls;
    if (cut[i]) {
      cut_calls += v[i].calls;
      cut_regions++;
    }
  }
  /* The filter file: to its own file when named, else here with the
   * estimates as comments (the whole output is then the file). */
  rp_out file;
  FILE *ff = f;
  int named = o->suggest && o->suggest[0] && strcmp(o->suggest, "-") != 0;
  if (named) {
    if (rp_out_open(&file, o->suggest, err) != 0) {
      free(v);
      free(cut);
      free(mean);
      return -1;
    }
    ff = file.f;
  }
  char b[4][32];
  fprintf(ff,
          "# ScopeProf filter (docs/plugin.md) suggested by sp-report from "
          "%s:\n# regions whose mean call, less the recording of the calls "
          "excluded below it, is under %g x %s (the cost of recording one "
          "call), and whose calls cost at least %g%% of the run to record, "
          "are excluded.\n",
          p->label, (double)RP_FILTER_FACTOR, rp_time(cost, b[0], sizeof b[0]),
          100 * RP_FILTER_MIN_SHARE);
  for (int64_t i = 0; i < n; i++) {
    const rp_agg *a = &v[i];
    if (!cut[i])
      continue;
    char own[64] = "";
    if (mean[i] < a->mean - 0.5)
      snprintf(own, sizeof own, " (%s without the calls excluded below it)",
               rp_time(mean[i], b[2], sizeof b[2]));
    fprintf(ff, "# %lld calls, mean %s%s: %lld trace bytes, %s to record\n",
            (long long)a->calls, rp_time(a->mean, b[0], sizeof b[0]), own,
            (long long)(a->calls * RP_CALL_BYTES),
            rp_time((double)a->calls * cost, b[1], sizeof b[1]));
    fputs("exclude function ", ff);
    put_glob(ff, p->names[a->name]);
    fputc('\n', ff);
  }
  fprintf(ff,
          "# saves %lld of %lld trace bytes (%lld of %lld calls) and %s of "
          "recording\n",
          (long long)(cut_calls * RP_CALL_BYTES),
          (long long)(calls * RP_CALL_BYTES), (long long)cut_calls,
          (long long)calls,
          rp_time((double)cut_calls * cost, b[0], sizeof b[0]));
  if (named) {
    if (rp_out_commit(&file, err) != 0) {
      free(v);
      free(cut);
      free(mean);
      return -1;
    }
    /* The estimates, one row per region, where the table would go. */
    int w = 6;
    for (int64_t i = 0; i < n; i++) {
      int l = rp_name_cols(p->names[v[i].name]);
      w = l > w ? l : w;
    }
    w = w > 48 && !o->wide ? 48 : w;
    rp_fit fit;
    if (rp_fit_names(&fit, (const char *const *)p->names, p->nnames, w)) {
      free(v);
      free(cut);
      free(mean);
      sp_fmt_err_set(err, "%s: out of memory", p->label);
      return -1;
    }
    fprintf(f,
            "%s: record cost %s per call, regions under %s per call "
            "excluded\n",
            p->label, rp_time(cost, b[0], sizeof b[0]),
            rp_time(below, b[1], sizeof b[1]));
    fprintf(f, "%-*s %10s %10s %14s %12s  %s\n", w, "region", "calls", "avg",
            "trace_bytes", "record", "filter");
    for (int64_t i = 0; i < n; i++) {
      const rp_agg *a = &v[i];
      rp_fit_put(f, &fit, a->name);
      fprintf(f, " %10lld %10s %14lld %12s  %s\n", (long long)a->calls,
              rp_time(a->mean, b[0], sizeof b[0]),
              (long long)(a->calls * RP_CALL_BYTES),
              rp_time((double)a->calls * cost, b[1], sizeof b[1]),
              cut[i] ? "exclude" : "keep");
    }
    fprintf(f,
            "%s: %lld region%s excluded: saves %lld of %lld trace bytes "
            "(%lld of %lld calls) and %s of recording\n",
            o->suggest, (long long)cut_regions, cut_regions == 1 ? "" : "s",
            (long long)(cut_calls * RP_CALL_BYTES),
            (long long)(calls * RP_CALL_BYTES), (long long)cut_calls,
            (long long)calls,
            rp_time((double)cut_calls * cost, b[2], sizeof b[2]));
    rp_fit_free(&fit);
  }
  free(v);
  free(cut);
  free(mean);
  return 0;
}
