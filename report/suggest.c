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
  int64_t calls = 0, cut_calls = 0, cut_regions = 0;
  for (int64_t i = 0; i < n; i++) {
    calls += v[i].calls;
    cut[i] = (char)(filterable(p->names[v[i].name]) && v[i].mean < below);
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
      return -1;
    }
    ff = file.f;
  }
  char b[4][32];
  fprintf(ff,
          "# ScopeProf filter (docs/plugin.md) suggested by sp-report from "
          "%s:\n# regions whose mean call is under %g x %s (the cost of "
          "recording one call) are excluded.\n",
          p->label, (double)RP_FILTER_FACTOR, rp_time(cost, b[0], sizeof b[0]));
  for (int64_t i = 0; i < n; i++) {
    const rp_agg *a = &v[i];
    if (!cut[i])
      continue;
    fprintf(ff, "# %lld calls, mean %s: %lld trace bytes, %s to record\n",
            (long long)a->calls, rp_time(a->mean, b[0], sizeof b[0]),
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
  return 0;
}
