/* profile.c - profiles (sp_profile.h): exact sums, their statistics, the
 * (rank, thread, region) rows of a profile's call paths. */
#include "sp_hash.h"
#include "sp_profile.h"
#include "sp_rank.h"
#include "sp_stats.h"
#include "sp_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sp_fmt_profile_free(sp_fmt_profile *p) {
  if (!p)
    return;
  for (int64_t i = 0; i < p->nregions; i++) {
    free(p->regions[i].name);
    free(p->regions[i].file);
  }
  free(p->regions);
  free(p->paths);
  memset(p, 0, sizeof *p);
}

void sp_fmt_psum_init(sp_fmt_psum *s) {
  memset(s, 0, sizeof *s);
  s->min = INT64_MAX;
  s->first = INT64_MAX;
  s->max = INT64_MIN;
  s->last = INT64_MIN;
}

void sp_fmt_psum_add(sp_fmt_psum *a, const sp_fmt_psum *b) {
  if (!b->calls)
    return;
  a->calls += b->calls;
  a->total += b->total;
  a->excl += b->excl;
  a->outer += b->outer;
  a->sq += b->sq;
  a->min = b->min < a->min ? b->min : a->min;
  a->max = b->max > a->max ? b->max : a->max;
  a->first = b->first < a->first ? b->first : a->first;
  a->last = b->last > a->last ? b->last : a->last;
}

/* As format/stats.c finishes a source's sums: when calls x largest
 * duration fits in int64, n var = q - S^2/n exactly before one rounding;
 * beyond that (durations of years) in long double. */
void sp_fmt_psum_stats(const sp_fmt_psum *s, sp_fmt_stats *o) {
  memset(o, 0, sizeof *o);
  o->gpu_total_ns = -1;
  o->calls = s->calls;
  o->total_ns = s->total;
  o->exclusive_ns = s->excl;
  o->outer_total_ns = s->outer;
  if (s->calls <= 0)
    return;
  o->min_ns = s->min;
  o->max_ns = s->max;
  o->first_start_ns = s->first;
  o->last_end_ns = s->last;
  uint64_t n = (uint64_t)s->calls;
  uint64_t amn = s->min < 0 ? 0 - (uint64_t)s->min : (uint64_t)s->min;
  uint64_t amx = s->max < 0 ? 0 - (uint64_t)s->max : (uint64_t)s->max;
  uint64_t big = amn > amx ? amn : amx;
  o->mean_ns = (double)((long double)s->total / (long double)n);
  if ((unsigned __int128)n * big <= (unsigned __int128)INT64_MAX) {
    __int128 S = s->total;
    unsigned __int128 s2 = (unsigned __int128)(S * S);
    unsigned __int128 dev = s->sq - s2 / n;
    long double r = (long double)(uint64_t)(s2 % n);
    long double var = ((long double)dev - r / (long double)n) / (long double)n;
    o->std_ns = (double)sqrtl(var > 0 ? var : 0);
    return;
  }
  long double mean = (long double)s->total / (long double)n;
  long double var = (long double)s->sq / (long double)n - mean * mean;
  o->std_ns = (double)sqrtl(var > 0 ? var : 0);
}

static int by_row(const void *a, const void *b) {
  const sp_fmt_prow *x = a, *y = b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  if (x->s.first != y->s.first)
    return x->s.first < y->s.first ? -1 : 1;
  return x->region < y->region ? -1 : x->region > y->region;
}

static int by_key(const void *a, const void *b) {
  const sp_fmt_prow *x = a, *y = b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  return x->region < y->region ? -1 : x->region > y->region;
}

int64_t sp_fmt_profile_rows(const sp_fmt_profile *p, sp_fmt_prow **rows) {
  sp_fmt_prow *r = malloc((size_t)(p->npaths ? p->npaths : 1) * sizeof *r);
  if (!r)
    return -1;
  int64_t n = 0;
  for (int64_t i = 0; i < p->npaths; i++) {
    if (p->paths[i].s.calls <= 0)
      continue;
    r[n].rank = p->paths[i].rank;
    r[n].thread = p->paths[i].thread;
    r[n].region = p->paths[i].region;
    r[n++].s = p->paths[i].s;
  }
  qsort(r, (size_t)n, sizeof *r, by_key);
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    if (k && by_key(&r[k - 1], &r[i]) == 0)
      sp_fmt_psum_add(&r[k - 1].s, &r[i].s);
    else
      r[k++] = r[i];
  }
  qsort(r, (size_t)k, sizeof *r, by_row);
  *rows = r;
  return k;
}

static uint64_t name_hash(const char *name) {
  uint64_t h = sp__fnv1a(SP__FNV_SEED, name);
  return (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull; /* low bits mixed */
}

int sp_fmt_profile_append(sp_fmt_profile *dst, const sp_fmt_profile *src) {
  int32_t *reg = malloc((src->nregions ? (size_t)src->nregions : 1) * 4);
  sp_fmt_ppath *v =
      realloc(dst->paths, (size_t)(dst->npaths + src->npaths + 1) * sizeof *v);
  sp__hash names = {0};
  if (v)
    dst->paths = v;
  sp_fmt_region *g0 = realloc(
      dst->regions, (size_t)(dst->nregions + src->nregions + 1) * sizeof *g0);
  if (g0)
    dst->regions = g0;
  if (!reg || !v || !g0)
    goto oom;
  for (int64_t j = 0; j < dst->nregions; j++) {
    sp__hash_it it;
    int64_t k = sp__hash_first(&names, name_hash(dst->regions[j].name), &it);
    while (k >= 0)
      k = sp__hash_next(&names, &it);
    if (sp__hash_add(&names, &it, j) != 0)
      goto oom;
  }
  for (int64_t r = 0; r < src->nregions; r++) {
    const sp_fmt_region *g = &src->regions[r];
    sp__hash_it it;
    int64_t j = sp__hash_first(&names, name_hash(g->name), &it);
    while (j >= 0 && strcmp(dst->regions[j].name, g->name) != 0)
      j = sp__hash_next(&names, &it);
    if (j < 0) {
      sp_fmt_region *x = &dst->regions[dst->nregions];
      x->name = strdup(g->name);
      x->file = g->file ? strdup(g->file) : NULL;
      x->line = g->line;
      if (!x->name || (g->file && !x->file) ||
          sp__hash_add(&names, &it, dst->nregions) != 0) {
        free(x->name);
        free(x->file);
        goto oom;
      }
      j = dst->nregions++;
    } else if (!dst->regions[j].file && g->file) {
      if (!(dst->regions[j].file = strdup(g->file)))
        goto oom;
      dst->regions[j].line = g->line;
    }
    reg[r] = (int32_t)j;
  }
  int64_t base = dst->npaths;
  for (int64_t k = 0; k < src->npaths; k++) {
    sp_fmt_ppath *x = &dst->paths[dst->npaths++];
    *x = src->paths[k];
    x->region = reg[x->region];
    x->parent = x->parent >= 0 ? (int32_t)(base + x->parent) : -1;
  }
  dst->open_calls += src->open_calls;
  dst->folded += src->folded;
  free(reg);
  sp__hash_free(&names);
  return 0;
oom:
  free(reg);
  sp__hash_free(&names);
  return -1;
}
