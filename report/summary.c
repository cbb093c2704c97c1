/* summary.c - per-region statistics over ranks and threads (or per region
 * and rank, or rank and thread), their order, and the summary table. */
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

/* Totals of the threads of one rank that ran a region, thread by thread:
 * the thread imbalance is max over mean of them, the worst rank's. */
typedef struct {
  int64_t cur, sum, max;
  int32_t n, open; /* open: cur holds a thread's calls */
} thread_sums;

static void thread_done(thread_sums *t) {
  if (!t->open)
    return;
  t->open = 0;
  t->sum += t->cur;
  t->n++;
  if (t->cur > t->max)
    t->max = t->cur;
  t->cur = 0;
}

static void rank_timbal(thread_sums *t, rp_agg *a) {
  thread_done(t);
  double mean = t->n ? (double)t->sum / t->n : 0;
  double v = mean > 0 ? (double)t->max / mean : 0;
  if (v > a->timbal)
    a->timbal = v;
  memset(t, 0, sizeof *t);
}

/* Pooled mean and population std of the rows ix[lo, hi) (Chan et al.:
 * each row's M2 = calls * std^2, shifted to the pooled mean). */
/* The region's time on a row's thread: its outermost calls. */
static int64_t outer(const sp_fmt_stats *s) {
  return s->outer_total_ns >= 0 ? s->outer_total_ns : s->total_ns;
}

static void fold(const rp_profile *p, const int64_t *ix, int64_t lo, int64_t hi,
                 rp_agg *a) {
  int64_t sum = 0; /* every call's duration, for the mean */
  a->calls = a->total = a->excl = 0;
  a->min = INT64_MAX;
  a->max = INT64_MIN;
  a->nranks = 0;
  a->timbal = 0;
  int32_t last_rank = -1, last_thread = -1;
  int64_t rank_total = 0, max_rank_total = 0;
  thread_sums ts = {0, 0, 0, 0, 0};
  for (int64_t k = lo; k < hi; k++) {
    const sp_fmt_stats *s = &p->rows[ix[k]].st;
    int32_t rank = p->rows[ix[k]].rank, thread = p->rows[ix[k]].thread;
    if (s->calls <= 0)
      continue;
    if (rank != last_rank) {
      rank_timbal(&ts, a);
      a->nranks++;
      last_rank = rank;
      last_thread = -1;
      rank_total = 0;
    }
    if (thread != last_thread) {
      thread_done(&ts);
      last_thread = thread;
    }
    ts.cur += outer(s);
    ts.open = 1;
    rank_total = rp_add(rank_total, outer(s));
    if (rank_total > max_rank_total)
      max_rank_total = rank_total;
    a->calls += s->calls;
    a->total = rp_add(a->total, outer(s));
    sum = rp_add(sum, s->total_ns);
    a->excl += s->exclusive_ns;
    if (s->min_ns < a->min)
      a->min = s->min_ns;
    if (s->max_ns > a->max)
      a->max = s->max_ns;
  }
  rank_timbal(&ts, a);
  if (a->calls == 0) {
    a->min = a->max = 0;
    a->mean = a->std = 0;
    a->imbalance = 0;
    return;
  }
  a->mean = (double)sum / (double)a->calls;
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
  if (!strcmp(c, "timbal"))
    return a->timbal;
  if (!strcmp(c, "thread"))
    return -a->thread; /* ascending */
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
  if (a->rank != b->rank)
    return a->rank < b->rank ? -1 : 1;
  return a->thread < b->thread ? -1 : (a->thread > b->thread);
}

/* The columns --sort accepts, and the aliases people type. */
const char *rp_sort_column(const char *s) {
  static const char *const cols[][2] = {
      {"region", "region"},   {"name", "region"},
      {"ranks", "ranks"},     {"rank", "rank"},
      {"calls", "calls"},     {"count", "calls"},
      {"total", "total"},     {"avg", "avg"},
      {"mean", "avg"},        {"average", "avg"},
      {"min", "min"},         {"max", "max"},
      {"std", "std"},         {"excl", "excl"},
      {"exclusive", "excl"},  {"span", "span"},
      {"%span", "span"},      {"imbal", "imbal"},
      {"imbalance", "imbal"}, {"thread", "thread"},
      {"timbal", "timbal"},   {"thread-imbalance", "timbal"}};
  for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
    if (!strcmp(s, cols[i][0]))
      return cols[i][1];
  return NULL;
}

int rp_aggregate(const rp_profile *p, const rp_opts *o, int by, rp_agg **out,
                 int64_t *n, sp_fmt_err *err) {
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
  double span =
      p->span_hi > p->span_lo ? (double)p->span_hi - (double)p->span_lo : 0;
  double all = 0;
  int32_t all_name = -1;
  /* --by-thread: the totals of the row's rank (all its threads), and the
   * mean over that rank's threads that ran the region. */
  int64_t rk_lo = -1, rk_total = 0;
  double rk_mean = 0;
  for (int64_t lo = 0, hi; lo < m; lo = hi) {
    const rp_row *r = &p->rows[ix[lo]];
    for (hi = lo; hi < m && p->rows[ix[hi]].name == r->name &&
                  (by < RP_BY_RANK || p->rows[ix[hi]].rank == r->rank) &&
                  (by < RP_BY_THREAD || p->rows[ix[hi]].thread == r->thread);)
      hi++;
    rp_agg *a = &v[k++];
    a->name = r->name;
    a->rank = by >= RP_BY_RANK ? r->rank : -1;
    a->thread = by >= RP_BY_THREAD ? r->thread : -1;
    fold(p, ix, lo, hi, a);
    a->pct = span > 0 && a->nranks
                 ? 100.0 * (double)a->total / span / (double)a->nranks
                 : 0;
    if (by >= RP_BY_RANK) {
      /* This rank's total against the mean over ranks of the region: the
       * region's total is summed once, at its first rank. */
      if (r->name != all_name) {
        all = 0;
        all_name = r->name;
        for (int64_t j = lo; j < m && p->rows[ix[j]].name == r->name; j++)
          all += (double)outer(&p->rows[ix[j]].st);
      }
      int64_t rank_total = a->total;
      if (by == RP_BY_THREAD) {
        if (rk_lo < 0 || p->rows[ix[rk_lo]].name != r->name ||
            p->rows[ix[rk_lo]].rank != r->rank) {
          thread_sums ts = {0, 0, 0, 0, 0};
          int32_t last = -1;
          rk_lo = lo;
          rk_total = 0;
          for (int64_t q = lo; q < m && p->rows[ix[q]].name == r->name &&
                               p->rows[ix[q]].rank == r->rank;
               q++) {
            const rp_row *x = &p->rows[ix[q]];
            rk_total = rp_add(rk_total, outer(&x->st));
            if (x->st.calls <= 0)
              continue;
            if (x->thread != last)
              thread_done(&ts), last = x->thread;
            ts.cur += outer(&x->st);
            ts.open = 1;
          }
          thread_done(&ts);
          rk_mean = ts.n ? (double)ts.sum / ts.n : 0;
        }
        rank_total = rk_total;
        a->timbal =
            rk_mean > 0 && a->calls > 0 ? (double)a->total / rk_mean : 0;
      }
      double mean_rank = p->nranks ? all / (double)p->nranks : 0;
      a->imbalance = mean_rank > 0 ? (double)rank_total / mean_rank : 0;
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

int rp_fit_rows(rp_fit *fit, const rp_profile *p, const rp_opts *o,
                const rp_agg *v, int64_t n) {
  int w = 6;
  for (int64_t i = 0; i < n; i++) {
    int l = rp_name_cols(p->names[v[i].name]);
    if (l > w)
      w = l;
  }
  if (w > 48 && !o->wide)
    w = 48;
  return rp_fit_names(fit, (const char *const *)p->names, p->nnames, w);
}

int rp_print_table(const rp_profile *p, const rp_opts *o, FILE *f,
                   sp_fmt_err *err) {
  rp_agg *v;
  int64_t n;
  if (rp_aggregate(p, o, o->by, &v, &n, err) != 0)
    return -1;
  if (n == 0) {
    free(v);
    sp_fmt_err_set(err, "%s: no region matches the filters", p->label);
    return -1;
  }
  rp_fit fit;
  if (rp_fit_rows(&fit, p, o, v, n) != 0) {
    free(v);
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    return -1;
  }
  int w = fit.width;
  char b[9][32];
  double span =
      p->span_hi > p->span_lo ? (double)p->span_hi - (double)p->span_lo : 0;
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
  int by = o->by;
  fprintf(f, "%-*s %5s ", w, "region", by ? "rank" : "ranks");
  if (by == RP_BY_THREAD)
    fprintf(f, "%6s ", "thread");
  fprintf(f, "%10s %10s %10s %10s %10s %10s %10s %6s %6s %6s\n", "calls",
          "total", "avg", "min", "max", "std", "excl", "%span", "imbal",
          "timbal");
  for (int64_t i = 0; i < n; i++) {
    const rp_agg *a = &v[i];
    rp_fit_put(f, &fit, a->name);
    fprintf(f, " %5d ", by ? a->rank : a->nranks);
    if (by == RP_BY_THREAD)
      fprintf(f, "%6d ", a->thread);
    fprintf(f, "%10lld %10s %10s %10s %10s %10s %10s %6.1f %6.2f %6.2f\n",
            (long long)a->calls, rp_time((double)a->total, b[1], sizeof b[1]),
            rp_time(a->mean, b[2], sizeof b[2]),
            rp_time((double)a->min, b[3], sizeof b[3]),
            rp_time((double)a->max, b[4], sizeof b[4]),
            rp_time(a->std, b[5], sizeof b[5]),
            rp_time((double)a->excl, b[6], sizeof b[6]), a->pct, a->imbalance,
            a->timbal);
  }
  rp_fit_free(&fit);
  free(v);
  return 0;
}
