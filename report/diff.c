/* diff.c - --diff A B: per-region change between two profiles, largest
 * change of total time first. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct pair {
  const char *name;
  const rp_agg *a, *b; /* NULL: not in that profile */
} pair;

static int by_name(const void *x, const void *y) {
  return strcmp(((const pair *)x)->name, ((const pair *)y)->name);
}

static double change(const pair *p) {
  double a = p->a ? (double)p->a->total : 0, b = p->b ? (double)p->b->total : 0;
  return fabs(b - a);
}

static int by_change(const void *x, const void *y) {
  double a = change(x), b = change(y);
  if (a != b)
    return a > b ? -1 : 1;
  return by_name(x, y);
}

static void cell(FILE *f, const rp_agg *a, double v) {
  char b[32];
  fprintf(f, " %10s", a ? rp_time(v, b, sizeof b) : "-");
}

/* B/A readable at any size, in 8 columns: 0.350x, 12.5x, 2875x; below
 * 0.01 as a fraction, 1/2875x (a fixed 0.000x said nothing). */
static void ratio(FILE *f, double r, const char *end) {
  char b[32];
  if (r >= 0.01 && r < 10)
    snprintf(b, sizeof b, "%.3fx", r);
  else if (r >= 10 && r < 100)
    snprintf(b, sizeof b, "%.1fx", r);
  else if (r >= 100 && r < 1e6)
    snprintf(b, sizeof b, "%.0fx", r);
  else if (r > 0 && r < 0.01 && 1 / r < 1e5)
    snprintf(b, sizeof b, "1/%.0fx", 1 / r);
  else
    snprintf(b, sizeof b, "%.1ex", r);
  fprintf(f, " %8s%s", b, end);
}

int rp_diff(const rp_profile *pa, const rp_profile *pb, const rp_opts *o,
            FILE *f, sp_fmt_err *err) {
  rp_agg *va, *vb;
  int64_t na, nb;
  rp_opts all = *o;
  all.top = 0;
  all.sort = "region";
  if (rp_aggregate(pa, &all, RP_BY_REGION, &va, &na, err) != 0)
    return -1;
  if (rp_aggregate(pb, &all, RP_BY_REGION, &vb, &nb, err) != 0) {
    free(va);
    return -1;
  }
  pair *v = malloc((size_t)(na + nb + 1) * sizeof *v);
  if (!v) {
    free(va), free(vb);
    sp_fmt_err_set(err, "%s: out of memory", pb->label);
    return -1;
  }
  /* Both lists are sorted by name: merge them. */
  int64_t n = 0, i = 0, j = 0;
  while (i < na || j < nb) {
    int c = i == na   ? 1
            : j == nb ? -1
                      : strcmp(pa->names[va[i].name], pb->names[vb[j].name]);
    if (c < 0)
      v[n++] = (pair){pa->names[va[i].name], &va[i], NULL}, i++;
    else if (c > 0)
      v[n++] = (pair){pb->names[vb[j].name], NULL, &vb[j]}, j++;
    else
      v[n++] = (pair){pa->names[va[i].name], &va[i], &vb[j]}, i++, j++;
  }
  qsort(v, (size_t)n, sizeof *v, by_change);
  if (o->top > 0 && n > o->top)
    n = o->top;
  int w = 6;
  for (int64_t k = 0; k < n; k++)
    if (rp_name_cols(v[k].name) > w)
      w = rp_name_cols(v[k].name);
  if (w > 48 && !o->wide)
    w = 48;
  /* out of memory: names as rp_name_str cuts them */
  const char **nm = malloc((n ? (size_t)n : 1) * sizeof *nm);
  rp_fit fit;
  for (int64_t k = 0; nm && k < n; k++)
    nm[k] = v[k].name;
  int fitted = nm && rp_fit_names(&fit, nm, n, w) == 0;
  free(nm);
  fprintf(f, "A: %s\nB: %s\n", pa->label, pb->label);
  fprintf(f, "%-*s %10s %10s %10s %10s %10s %8s %10s %10s %8s\n", w, "region",
          "calls A", "calls B", "total A", "total B", "delta", "B/A", "avg A",
          "avg B", "avg B/A");
  for (int64_t k = 0; k < n; k++) {
    const pair *p = &v[k];
    char b[32];
    if (fitted)
      rp_fit_put(f, &fit, k);
    else
      rp_name_str(f, p->name, w);
    if (p->a)
      fprintf(f, " %10lld", (long long)p->a->calls);
    else
      fprintf(f, " %10s", "-");
    if (p->b)
      fprintf(f, " %10lld", (long long)p->b->calls);
    else
      fprintf(f, " %10s", "-");
    cell(f, p->a, p->a ? (double)p->a->total : 0);
    cell(f, p->b, p->b ? (double)p->b->total : 0);
    double d =
        (p->b ? (double)p->b->total : 0) - (p->a ? (double)p->a->total : 0);
    char sd[40];
    snprintf(sd, sizeof sd, "%s%s", d > 0 ? "+" : "", rp_time(d, b, sizeof b));
    fprintf(f, " %10s", sd);
    if (p->a && p->b && p->a->total > 0)
      ratio(f, (double)p->b->total / (double)p->a->total, "");
    else
      fprintf(f, " %8s", p->a ? "gone" : "new");
    cell(f, p->a, p->a ? p->a->mean : 0);
    cell(f, p->b, p->b ? p->b->mean : 0);
    if (p->a && p->b && p->a->mean > 0)
      ratio(f, p->b->mean / p->a->mean, "\n");
    else
      fprintf(f, " %8s\n", "-");
  }
  if (fitted)
    rp_fit_free(&fit);
  free(v);
  free(va);
  free(vb);
  return 0;
}
