/* sp_report.c - sp-report: the per-region summary table of one or more
 * profiles (merged .h5, per-rank .h5 or .spt). A first slice of the tool:
 * the summary only, read from summary_statistics where the file has it. */
#include "sp_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct agg {
  char *name;
  int64_t calls, total, min, max, excl, first, last;
  double sumsq; /* for the pooled standard deviation */
  int nranks;
  int32_t last_rank;
} agg_t;

typedef struct table {
  agg_t *rows;
  int64_t n, cap;
  int64_t span_lo, span_hi;
} table_t;

static agg_t *row_for(table_t *t, const char *name) {
  for (int64_t i = 0; i < t->n; i++)
    if (strcmp(t->rows[i].name, name) == 0)
      return &t->rows[i];
  if (t->n == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 64;
    agg_t *g = realloc(t->rows, (size_t)t->cap * sizeof *g);
    if (!g)
      return NULL;
    t->rows = g;
  }
  agg_t *a = &t->rows[t->n++];
  memset(a, 0, sizeof *a);
  a->name = strdup(name);
  a->min = INT64_MAX;
  a->first = INT64_MAX;
  a->last = INT64_MIN;
  a->last_rank = -1;
  return a;
}

static void add(table_t *t, const char *name, int32_t rank,
                const sp_fmt_stats *s) {
  agg_t *a = row_for(t, name);
  if (!a || s->calls <= 0)
    return;
  a->calls += s->calls;
  a->total += s->total_ns;
  a->excl += s->exclusive_ns;
  if (s->min_ns < a->min)
    a->min = s->min_ns;
  if (s->max_ns > a->max)
    a->max = s->max_ns;
  if (s->first_start_ns < a->first)
    a->first = s->first_start_ns;
  if (s->last_end_ns > a->last)
    a->last = s->last_end_ns;
  /* sum of squares from each row's mean and population std */
  a->sumsq += (double)s->calls * (s->std_ns * s->std_ns + s->mean_ns * s->mean_ns);
  if (a->last_rank != rank) { /* rows come grouped by rank */
    a->nranks++;
    a->last_rank = rank;
  }
  if (s->first_start_ns < t->span_lo)
    t->span_lo = s->first_start_ns;
  if (s->last_end_ns > t->span_hi)
    t->span_hi = s->last_end_ns;
}

static int load(table_t *t, const char *path) {
  sp_fmt_err err = {{0}};
  if (sp_fmt_is_spt(path)) {
    sp_fmt_rank r = {0};
    if (sp_fmt_spt_read(path, &r, &err) != 0)
      goto fail;
    sp_fmt_source *src = calloc((size_t)(r.nblocks ? r.nblocks : 1), sizeof *src);
    sp_fmt_stats *st = calloc((size_t)(r.nblocks ? r.nblocks : 1), sizeof *st);
    if (!src || !st) {
      free(src), free(st), sp_fmt_rank_free(&r);
      snprintf(err.msg, sizeof err.msg, "%s: out of memory", path);
      goto fail;
    }
    sp_fmt_rank_sources(&r, src);
    /* statistics per thread, across its regions */
    for (int64_t i = 0; i < r.nblocks; i++) {
      if (i && src[i].thread == src[i - 1].thread)
        continue;
      sp_fmt_source *same = calloc((size_t)r.nblocks, sizeof *same);
      sp_fmt_stats *out = calloc((size_t)r.nblocks, sizeof *out);
      int64_t *idx = calloc((size_t)r.nblocks, sizeof *idx);
      int64_t k = 0;
      for (int64_t j = 0; same && out && idx && j < r.nblocks; j++)
        if (src[j].thread == src[i].thread)
          idx[k] = j, same[k++] = src[j];
      if (same && out && idx && sp_fmt_stats_thread(same, k, out, NULL) == 0)
        for (int64_t j = 0; j < k; j++)
          st[idx[j]] = out[j];
      free(same), free(out), free(idx);
    }
    for (int64_t i = 0; i < r.nblocks; i++)
      add(t, src[i].name, r.rank, &st[i]);
    free(src), free(st);
    sp_fmt_rank_free(&r);
    return 0;
  }
  if (sp_fmt_is_h5(path)) {
    sp_fmt_h5_summary s = {0};
    if (sp_fmt_h5_read_summary(path, &s, &err) != 0)
      goto fail;
    for (int64_t i = 0; i < s.nrows; i++)
      add(t, s.names[s.rows[i].region], s.rows[i].rank, &s.rows[i].stats);
    sp_fmt_h5_summary_free(&s);
    return 0;
  }
  snprintf(err.msg, sizeof err.msg, "%s: not a ScopeProf profile (.spt or .h5)",
           path);
fail:
  fprintf(stderr, "sp-report: %s\n", err.msg);
  return -1;
}

static const char *fmt_time(double ns, char *buf, size_t size) {
  if (ns >= 1e9)
    snprintf(buf, size, "%.3f s", ns / 1e9);
  else if (ns >= 1e6)
    snprintf(buf, size, "%.3f ms", ns / 1e6);
  else if (ns >= 1e3)
    snprintf(buf, size, "%.3f us", ns / 1e3);
  else
    snprintf(buf, size, "%.0f ns", ns);
  return buf;
}

static int by_total(const void *a, const void *b) {
  const agg_t *x = a, *y = b;
  return x->total < y->total ? 1 : x->total > y->total ? -1
                                                        : strcmp(x->name, y->name);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: sp-report PROFILE...\n");
    return 2;
  }
  table_t t = {.span_lo = INT64_MAX, .span_hi = INT64_MIN};
  for (int i = 1; i < argc; i++)
    if (load(&t, argv[i]) != 0)
      return 1;
  if (t.n == 0) {
    fprintf(stderr, "sp-report: %s: the profile holds no regions\n", argv[1]);
    return 1;
  }
  qsort(t.rows, (size_t)t.n, sizeof *t.rows, by_total);
  double span = t.span_hi > t.span_lo ? (double)(t.span_hi - t.span_lo) : 1.0;
  printf("%-32s %5s %10s %12s %12s %12s %12s %12s %12s %6s\n", "region",
         "ranks", "calls", "total", "avg", "min", "max", "std", "exclusive",
         "%span");
  for (int64_t i = 0; i < t.n; i++) {
    agg_t *a = &t.rows[i];
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
    double mean = a->calls ? (double)a->total / (double)a->calls : 0;
    double var = a->calls ? a->sumsq / (double)a->calls - mean * mean : 0;
    printf("%-32.32s %5d %10lld %12s %12s %12s %12s %12s %12s %6.1f\n",
           a->name, a->nranks, (long long)a->calls,
           fmt_time((double)a->total, b1, sizeof b1), fmt_time(mean, b2, sizeof b2),
           fmt_time((double)(a->calls ? a->min : 0), b3, sizeof b3),
           fmt_time((double)(a->calls ? a->max : 0), b4, sizeof b4),
           fmt_time(var > 0 ? sqrt(var) : 0, b5, sizeof b5),
           fmt_time((double)a->excl, b6, sizeof b6),
           100.0 * (double)a->total / span / (a->nranks ? a->nranks : 1));
    free(a->name);
  }
  free(t.rows);
  return 0;
}
