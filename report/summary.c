/* summary.c - per-region statistics over ranks and threads (or per region
 * and rank), their order, and the summary table. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const rp_profile *sort_p; /* qsort has no context in C11 */

static int by_name_rank(const void *a, const void *b) {
  const rp_row *x = &sort_p->rows[*(const int64_t *)a],
               *y = &sort_p->rows[*(const int64_t *)b];
  if (x->name != y->name) {
    int c = strcmp(sort_p->names[x->name], sort_p->names[y->name]);
    if (c)
      return c;
  }
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return x->thread < y->thread ? -1 : (x->thread > y->thread);
}

/* Pooled mean and population std of the rows ix[lo, hi) (Chan et al.:
 * each row's M2 = calls * std^2, shifted to the pooled mean). */
static void fold(const rp_profile *p, const int64_t *ix, int64_t lo, int64_t hi,
                 rp_agg *a) {
  a->calls = a->total = a->excl = 0;
  a->min = INT64_MAX;
  a->max = INT64_MIN;
  a->nranks = 0;
  int32_t last_rank = -1;
  int64_t rank_total = 0, max_rank_total = 0;
  for (int64_t k = lo; k < hi; k++) {
    const sp_fmt_stats *s = &p->rows[ix[k]].st;
    int32_t rank = p->rows[ix[k]].rank;
    if (s->calls <= 0)
      continue;
    if (rank != last_rank) {
      a->nranks++;
      last_rank = rank;
      rank_total = 0;
    }
    rank_total += s->total_ns;
    if (rank_total > max_rank_total)
      max_rank_total = rank_total;
    a->calls += s->calls;
    a->total += s->total_ns;
    a->excl += s->exclusive_ns;
    if (s->min_ns < a->min)
      a->min = s->min_ns;
    if (s->max_ns > a->max)
      a->max = s->max_ns;
  }
  if (a->calls == 0) {
    a->min = a->max = 0;
    a->mean = a->std = 0;
    a->imbalance = 0;
    return;
  }
  a->mean = (double)a->total / (double)a->calls;
  double m2 = 0;
  for (int64_t k = lo; k < hi; k++) {
    const sp_fmt_stats *s = &p->rows[ix[k]].st;
    if (s->calls <= 0)
      continue;
    double d = s->mean_ns - a->mean;
    m2 += (double)s->calls * (s->std_ns * s->std_ns + d * d);
  }
  a->std = sqrt(m2 / (double)a->calls);
  /* Ranks without a call of the region count as 0: that is imbalance. */
  double mean_rank = p->nranks ? (double)a->total / (double)p->nranks : 0;
  a->imbalance = mean_rank > 0 ? (double)max_rank_total / mean_rank : 0;
}

static const char *sort_col;

static double key(const rp_agg *a) {
  const char *c = sort_col;
  if (!strcmp(c, "ranks"))
    return a->nranks;
  if (!strcmp(c, "rank"))
    return -a->rank; /* ascending */
  if (!strcmp(c, "calls"))
    return (double)a->calls;
  if (!strcmp(c, "avg"))
    return a->mean;
  if (!strcmp(c, "min"))
    return (double)a->min;
  if (!strcmp(c, "max"))
    return (double)a->max;
  if (!strcmp(c, "std"))
    return a->std;
  if (!strcmp(c, "excl"))
    return (double)a->excl;
  if (!strcmp(c, "span"))
    return a->pct;
  if (!strcmp(c, "imbal"))
    return a->imbalance;
  return (double)a->total;
}

static int by_column(const void *pa, const void *pb) {
  const rp_agg *a = pa, *b = pb;
  if (strcmp(sort_col, "region") != 0) {
    double x = key(a), y = key(b);
    if (x != y)
      return x > y ? -1 : 1;
  }
  int c = strcmp(sort_p->names[a->name], sort_p->names[b->name]);
  if (c)
    return c;
  return a->rank < b->rank ? -1 : (a->rank > b->rank);
}

/* The columns --sort accepts, and the aliases people type. */
const char *rp_sort_column(const char *s) {
  static const char *const cols[][2] = {
      {"region", "region"},  {"name", "region"}, {"ranks", "ranks"},
      {"rank", "rank"},      {"calls", "calls"}, {"count", "calls"},
      {"total", "total"},    {"avg", "avg"},     {"mean", "avg"},
      {"average", "avg"},    {"min", "min"},     {"max", "max"},
      {"std", "std"},        {"excl", "excl"},   {"exclusive", "excl"},
      {"span", "span"},      {"%span", "span"},  {"imbal", "imbal"},
      {"imbalance", "imbal"}};
  for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
    if (!strcmp(s, cols[i][0]))
      return cols[i][1];
  return NULL;
}

int rp_aggregate(const rp_profile *p, const rp_opts *o, int by_rank,
                 rp_agg **out, int64_t *n, sp_fmt_err *err) {
  int64_t *ix = malloc((p->nrows ? (size_t)p->nrows : 1) * sizeof *ix);
  rp_agg *v = malloc((p->nrows ? (size_t)p->nrows : 1) * sizeof *v);
  char *keep = malloc(p->nnames ? (size_t)p->nnames : 1);
  if (!ix || !v || !keep) {
    free(ix), free(v), free(keep);
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    return -1;
  }
  for (int64_t i = 0; i < p->nnames; i++)
    keep[i] = (char)rp_name_selected(o, p->names[i]);
  int64_t m = 0, k = 0;
  for (int64_t i = 0; i < p->nrows; i++)
    if (keep[p->rows[i].name])
      ix[m++] = i;
  sort_p = p;
  qsort(ix, (size_t)m, sizeof *ix, by_name_rank);
  double span = p->span_hi > p->span_lo ? (double)(p->span_hi - p->span_lo) : 0;
  double all = 0;
  int32_t all_name = -1;
  for (int64_t lo = 0, hi; lo < m; lo = hi) {
    const rp_row *r = &p->rows[ix[lo]];
    for (hi = lo; hi < m && p->rows[ix[hi]].name == r->name &&
                  (!by_rank || p->rows[ix[hi]].rank == r->rank);)
      hi++;
    rp_agg *a = &v[k++];
    a->name = r->name;
    a->rank = by_rank ? r->rank : -1;
    fold(p, ix, lo, hi, a);
    a->pct = span > 0 && a->nranks
                 ? 100.0 * (double)a->total / span / (double)a->nranks
                 : 0;
    if (by_rank) {
      /* This rank's total against the mean over ranks of the region: the
       * region's total is summed once, at its first rank. */
      if (r->name != all_name) {
        all = 0;
        all_name = r->name;
        for (int64_t j = lo; j < m && p->rows[ix[j]].name == r->name; j++)
          all += (double)p->rows[ix[j]].st.total_ns;
      }
      double mean_rank = p->nranks ? all / (double)p->nranks : 0;
      a->imbalance = mean_rank > 0 ? (double)a->total / mean_rank : 0;
    }
  }
  free(ix);
  free(keep);
  sort_col = o->sort ? o->sort : "total";
  qsort(v, (size_t)k, sizeof *v, by_column);
  if (o->top > 0 && k > o->top)
    k = o->top;
  *out = v;
  *n = k;
  return 0;
}

int rp_print_table(const rp_profile *p, const rp_opts *o, FILE *f,
                   sp_fmt_err *err) {
  rp_agg *v;
  int64_t n;
  if (rp_aggregate(p, o, o->by_rank, &v, &n, err) != 0)
    return -1;
  if (n == 0) {
    free(v);
    sp_fmt_err_set(err, "%s: no region matches the filters", p->label);
    return -1;
  }
  int w = 6;
  for (int64_t i = 0; i < n; i++) {
    int l = (int)strlen(p->names[v[i].name]);
    if (l > w)
      w = l;
  }
  if (w > 48)
    w = 48;
  char b[9][32];
  double span = p->span_hi > p->span_lo ? (double)(p->span_hi - p->span_lo) : 0;
  fprintf(f, "%s: %lld rank%s, span %s\n", p->label, (long long)p->nranks,
          p->nranks == 1 ? "" : "s", rp_time(span, b[0], sizeof b[0]));
  /* Time the recording threads spent waiting for the runtime's writer: the
   * disk did not keep up, and the program ran that much slower. */
  const sp_fmt_meta_item *wait = sp_fmt_meta_get(&p->meta, "recording_wait_ns");
  if (wait && wait->type == SP_FMT_META_INT && wait->i64 > 0)
    fprintf(f,
            "note: recording waited %s for the disk (SP_MEMORY: a larger "
            "budget absorbs longer bursts)\n",
            rp_time((double)wait->i64, b[0], sizeof b[0]));
  fprintf(f, "%-*s %5s %10s %10s %10s %10s %10s %10s %10s %6s %6s\n", w,
          "region", o->by_rank ? "rank" : "ranks", "calls", "total", "avg",
          "min", "max", "std", "excl", "%span", "imbal");
  for (int64_t i = 0; i < n; i++) {
    const rp_agg *a = &v[i];
    const char *name = p->names[a->name];
    int l = (int)strlen(name);
    if (l > w)
      fprintf(f, "%.*s...", w - 3, name);
    else
      fprintf(f, "%-*s", w, name);
    fprintf(f, " %5d %10lld %10s %10s %10s %10s %10s %10s %6.1f %6.2f\n",
            o->by_rank ? a->rank : a->nranks, (long long)a->calls,
            rp_time((double)a->total, b[1], sizeof b[1]),
            rp_time(a->mean, b[2], sizeof b[2]),
            rp_time((double)a->min, b[3], sizeof b[3]),
            rp_time((double)a->max, b[4], sizeof b[4]),
            rp_time(a->std, b[5], sizeof b[5]),
            rp_time((double)a->excl, b[6], sizeof b[6]), a->pct, a->imbalance);
  }
  free(v);
  return 0;
}
