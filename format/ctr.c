/* ctr.c - counters per region (sp_ctr.h): a rank's table built, ordered,
 * looked up and freed. */
#include "sp_ctr.h"

#include <stdlib.h>
#include <string.h>

static int grow(sp_fmt_ctr *c) {
  int64_t cap = c->cap ? 2 * c->cap : 64;
  size_t k = (size_t)(c->n ? c->n : 1);
  int32_t *t = realloc(c->thread, (size_t)cap * sizeof *t);
  if (t)
    c->thread = t;
  char **r = realloc(c->region, (size_t)cap * sizeof *r);
  if (r)
    c->region = r;
  int64_t *ca = realloc(c->calls, (size_t)cap * sizeof *ca);
  if (ca)
    c->calls = ca;
  int64_t *in = realloc(c->incl, (size_t)cap * k * sizeof *in);
  if (in)
    c->incl = in;
  int64_t *ex = realloc(c->excl, (size_t)cap * k * sizeof *ex);
  if (ex)
    c->excl = ex;
  if (!t || !r || !ca || !in || !ex)
    return -1;
  c->cap = cap;
  return 0;
}

int sp_fmt_ctr_add(sp_fmt_ctr *c, int32_t thread, const char *region,
                   int64_t calls, const int64_t *incl, const int64_t *excl) {
  if (c->nrows == c->cap && grow(c) != 0)
    return -1;
  char *name = strdup(region);
  if (!name)
    return -1;
  int64_t i = c->nrows++;
  c->thread[i] = thread;
  c->region[i] = name;
  c->calls[i] = calls;
  memcpy(c->incl + i * c->n, incl, (size_t)c->n * sizeof *incl);
  memcpy(c->excl + i * c->n, excl, (size_t)c->n * sizeof *excl);
  return 0;
}

static int by_row(const void *a, const void *b, void *ctx) {
  const sp_fmt_ctr *c = ctx;
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  if (c->thread[x] != c->thread[y])
    return c->thread[x] < c->thread[y] ? -1 : 1;
  int k = strcmp(c->region[x], c->region[y]);
  return k ? k : (x < y ? -1 : x > y);
}

void sp_fmt_ctr_normalize(sp_fmt_ctr *c) {
  if (c->nrows < 2)
    return;
  size_t n = (size_t)c->nrows, k = (size_t)c->n;
  int64_t *ord = malloc(n * sizeof *ord);
  int32_t *t = malloc(n * sizeof *t);
  char **r = malloc(n * sizeof *r);
  int64_t *ca = malloc(n * sizeof *ca);
  int64_t *in = malloc(n * (k ? k : 1) * sizeof *in);
  int64_t *ex = malloc(n * (k ? k : 1) * sizeof *ex);
  if (!ord || !t || !r || !ca || !in || !ex) { /* left as it is */
    free(ord), free(t), free(r), free(ca), free(in), free(ex);
    return;
  }
  for (size_t i = 0; i < n; i++)
    ord[i] = (int64_t)i;
  qsort_r(ord, n, sizeof *ord, by_row, c);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t s = ord[i];
    if (m && t[m - 1] == c->thread[s] && strcmp(r[m - 1], c->region[s]) == 0) {
      ca[m - 1] += c->calls[s];
      for (size_t j = 0; j < k; j++) {
        in[(m - 1) * k + j] += c->incl[(size_t)s * k + j];
        ex[(m - 1) * k + j] += c->excl[(size_t)s * k + j];
      }
      free(c->region[s]);
      continue;
    }
    t[m] = c->thread[s];
    r[m] = c->region[s];
    ca[m] = c->calls[s];
    memcpy(in + m * k, c->incl + (size_t)s * k, k * sizeof *in);
    memcpy(ex + m * k, c->excl + (size_t)s * k, k * sizeof *ex);
    m++;
  }
  free(ord);
  free(c->thread), free(c->region), free(c->calls), free(c->incl);
  free(c->excl);
  c->thread = t, c->region = r, c->calls = ca, c->incl = in, c->excl = ex;
  c->nrows = (int64_t)m;
  c->cap = (int64_t)n;
}

int sp_fmt_ctr_find(const sp_fmt_ctr *c, const char *name) {
  for (int i = 0; i < c->n; i++)
    if (strcmp(c->names[i], name) == 0)
      return i;
  return -1;
}

void sp_fmt_ctr_free(sp_fmt_ctr *c) {
  for (int64_t i = 0; i < c->nrows; i++)
    free(c->region[i]);
  free(c->thread), free(c->region), free(c->calls), free(c->incl);
  free(c->excl);
  memset(c, 0, sizeof *c);
}
