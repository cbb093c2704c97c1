/* region.c - sp-report --region NAME: one region's call durations, their
 * percentiles (as NumPy's default, linear between order statistics) and a
 * histogram in powers of two. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The q-th percentile of the n sorted values (n >= 1): the value at
 * rank q/100 (n - 1), interpolated between its two neighbours. */
static double percentile(const int64_t *v, int64_t n, double q) {
  double r = q / 100.0 * (double)(n - 1);
  int64_t lo = (int64_t)floor(r);
  if (lo >= n - 1)
    return (double)v[n - 1];
  double f = r - (double)lo;
  return (double)v[lo] + f * ((double)v[lo + 1] - (double)v[lo]);
}

static void row(FILE *f, const char *what, double ns) {
  char b[32];
  fprintf(f, "%-8s %16.1f %12s\n", what, ns, rp_time(ns, b, sizeof b));
}

/* The name's length up to its parameter list or template arguments:
 * "fib(int)" and "ns::f<int>(int)" are named "fib" and "ns::f" too. */
static size_t base_len(const char *name) {
  size_t n = strcspn(name, "(<");
  return n ? n : strlen(name);
}

/* The region a user means by name: the exact name; else the one region
 * whose name without parameters is name ("fib" for "fib(int)"); else the
 * one whose name contains it. Several: an error listing them. */
static int32_t resolve(const rp_profile *p, const char *name, sp_fmt_err *err) {
  int32_t id = rp_name_find(p, name);
  if (id >= 0)
    return id;
  size_t len = strlen(name);
  for (int pass = 0; pass < 2; pass++) {
    int32_t found = -1, n = 0;
    char list[512] = "";
    for (int64_t i = 0; i < p->nnames; i++) {
      const char *x = p->names[i];
      int hit = pass == 0 ? base_len(x) == len && !strncmp(x, name, len)
                          : strstr(x, name) != NULL;
      if (!hit)
        continue;
      found = (int32_t)i;
      size_t at = strlen(list);
      if (n < 5 && at + strlen(x) + 4 < sizeof list)
        snprintf(list + at, sizeof list - at, "%s'%s'", n ? ", " : "", x);
      n++;
    }
    if (n == 1)
      return found;
    if (n > 1) {
      sp_fmt_err_set(err,
                     "%s: region '%s' is ambiguous: %d regions match (%s%s); "
                     "give one whole",
                     p->label, name, n, list, n > 5 ? ", ..." : "");
      return -2;
    }
  }
  return -1;
}

static int times(const rp_profile *p, const rp_opts *o, int32_t id, FILE *f,
                 sp_fmt_err *err) {
  int64_t n = 0, threads = 0, nranks = 0;
  int32_t last_rank = INT32_MIN;
  for (int64_t i = 0; id >= 0 && i < p->nthreads; i++) {
    const rp_thread *t = &p->threads[i];
    if (!rp_rank_selected(o, t->rank))
      continue;
    int64_t here = 0;
    for (int64_t j = 0; j < t->nsrc; j++)
      if (t->name[j] == id)
        here += t->blk[j]->count;
    threads += here > 0;
    nranks += here > 0 && t->rank != last_rank;
    if (here > 0)
      last_rank = t->rank;
    n += here;
  }
  if (n == 0) {
    sp_fmt_err_set(err, "%s: no call of region '%s'", p->label, o->region);
    return -1;
  }
  int64_t *d = malloc((size_t)n * sizeof *d);
  if (!d) {
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    return -1;
  }
  int64_t k = 0;
  double sum = 0;
  for (int64_t i = 0; i < p->nthreads; i++) {
    const rp_thread *t = &p->threads[i];
    if (!rp_rank_selected(o, t->rank))
      continue;
    for (int64_t j = 0; j < t->nsrc; j++)
      if (t->name[j] == id)
        for (int64_t c = 0; c < t->blk[j]->count; c++) {
          /* wrapping: a crafted file's stamps may be any int64 */
          int64_t x = (int64_t)((uint64_t)t->blk[j]->ends[c] -
                                (uint64_t)t->blk[j]->starts[c]);
          d[k++] = x;
          sum += (double)x;
        }
  }
  qsort(d, (size_t)n, sizeof *d, by_i64);
  double mean = sum / (double)n, var = 0;
  for (int64_t i = 0; i < n; i++)
    var += ((double)d[i] - mean) * ((double)d[i] - mean);
  fprintf(f, "%s: region ", p->label);
  rp_name_str(f, p->names[id], 0);
  fprintf(f, ", %lld call%s on %lld rank%s, %lld thread%s", (long long)n,
          n == 1 ? "" : "s", (long long)nranks, nranks == 1 ? "" : "s",
          (long long)threads, threads == 1 ? "" : "s");
  if (p->files[id])
    fprintf(f, "; source %s:%d", p->files[id], p->lines[id]);
  fprintf(f, "\n%-8s %16s %12s\n", "", "ns", "");
  /* The region's time: its outermost calls, as the table counts it (the
   * rows' statistics were computed with every region of each thread). */
  int64_t total = 0;
  for (int64_t i = 0; i < p->nrows; i++)
    if (p->rows[i].name == id && rp_rank_selected(o, p->rows[i].rank))
      total = rp_add(total, p->rows[i].st.outer_total_ns >= 0
                                ? p->rows[i].st.outer_total_ns
                                : p->rows[i].st.total_ns);
  row(f, "total", (double)total);
  row(f, "mean", mean);
  row(f, "std", sqrt(var / (double)n));
  row(f, "min", (double)d[0]);
  row(f, "p50", percentile(d, n, 50));
  row(f, "p90", percentile(d, n, 90));
  row(f, "p99", percentile(d, n, 99));
  row(f, "max", (double)d[n - 1]);
  /* Histogram: [2^b, 2^(b+1)) ns per line, from the shortest call's bucket
   * to the longest's; durations below 1 ns (0, or a clock step) apart. */
  fprintf(f, "\ncall durations (bucket: calls)\n");
  int64_t below = 0, count[64] = {0};
  int b0 = 64, b1 = -1; /* the shortest and longest calls' buckets */
  for (int64_t i = 0; i < n; i++) {
    if (d[i] < 1) {
      below++;
      continue;
    }
    int b = 63 - __builtin_clzll((unsigned long long)d[i]);
    count[b]++;
    b0 = b < b0 ? b : b0;
    b1 = b > b1 ? b : b1;
  }
  if (below)
    fprintf(f, "%24s %10lld\n", "< 1 ns", (long long)below);
  int64_t peak = 0;
  for (int b = b0; b <= b1; b++)
    peak = count[b] > peak ? count[b] : peak;
  for (int b = b0; b <= b1; b++) {
    char lo[32], hi[32], label[72];
    snprintf(label, sizeof label, "[%s, %s)",
             rp_time(ldexp(1, b), lo, sizeof lo),
             rp_time(ldexp(1, b + 1), hi, sizeof hi));
    fprintf(f, "%24s %10lld ", label, (long long)count[b]);
    int bar = (int)((count[b] * 40 + peak - 1) / peak);
    for (int j = 0; j < bar; j++)
      fputc('#', f);
    fputc('\n', f);
  }
  free(d);
  return 0;
}

int rp_print_region(const rp_profile *p, const rp_opts *o, FILE *f,
                    sp_fmt_err *err) {
  int32_t id = resolve(p, o->region, err);
  if (id == -2)
    return -1;
  /* Counters when the profile has them, or asked for (then an error when
   * it has none); their columns checked before anything is written. */
  rp_ctrs u;
  int ctr = p->nctr > 0 || o->counters;
  if (ctr && rp_ctrs_open(&u, p, o->counters, err) != 0)
    return -1;
  int rc = times(p, o, id, f, err);
  if (rc == 0 && ctr)
    rp_region_counters(p, &u, id, f);
  if (ctr)
    rp_ctrs_free(&u);
  return rc;
}
