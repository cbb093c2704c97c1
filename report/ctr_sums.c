/* ctr_sums.c - counters beside --region (per rank and thread, and over
 * them) and --tree (per node, where the sums per region and thread are
 * the node's exactly, else '-'). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

void rp_region_counters(const rp_profile *p, const rp_ctrs *u, int32_t id,
                        FILE *f) {
  fprintf(f, "\ncounters of the region, inclusive (the calls with what runs "
             "inside them); NAME:excl without the regions inside\n");
  fprintf(f, "%5s %6s %10s", "rank", "thread", "calls");
  rp_ctrs_titles(u, f);
  fputc('\n', f);
  rp_ctr_sum s;
  int64_t rows = 0;
  for (int64_t i = rp_ctrs_first(u, id, -1, -1);
       i < u->ne && u->e[i].name == id; rows++) {
    int32_t rank = u->e[i].rank, thread = u->e[i].thread;
    i += rp_ctrs_sum(u, p, id, rank, thread, &s);
    fprintf(f, "%5d %6d %10lld", rank, thread, (long long)s.calls);
    rp_ctrs_values(u, f, &s);
    fputc('\n', f);
  }
  if (rows == 0)
    fprintf(f, "(none recorded for this region)\n");
  else {
    rp_ctrs_sum(u, p, id, -1, -1, &s);
    fprintf(f, "%-12s %10lld", "all", (long long)s.calls);
    rp_ctrs_values(u, f, &s);
    fputc('\n', f);
  }
}

/* What the build saw of a region on one (rank, thread): the one node its
 * calls went to, or SEVERAL. */
#define SEVERAL (-2)
typedef struct seen_rec {
  int32_t rank, thread, region;
  int64_t node;
} seen_rec;

struct rp_ctr_tree {
  const rp_profile *p;
  rp_ctrs u;
  rp_tree_hook hook;
  seen_rec *r;
  int64_t nr, capr;
  sp__hash ix;
  char *bad; /* per node: not known exactly */
  int64_t capbad;
  int64_t *v; /* per node: u.n inclusive sums, u.n exclusive, calls */
};

static uint64_t mix(int32_t rank, int32_t thread, int32_t region) {
  uint64_t h = ((uint64_t)(uint32_t)rank << 32 | (uint32_t)thread) *
                   0x9e3779b97f4a7c15ull ^
               (uint32_t)region;
  return h * 0xff51afd7ed558ccdull ^ (h >> 29);
}

/* Room in c->bad for nodes [0, n); 0, or -1 out of memory. */
static int room(rp_ctr_tree *c, int64_t n) {
  if (n <= c->capbad)
    return 0;
  int64_t cap = c->capbad ? 2 * c->capbad : 1024;
  while (cap < n)
    cap *= 2;
  char *b = realloc(c->bad, (size_t)cap);
  if (!b)
    return -1;
  memset(b + c->capbad, 0, (size_t)(cap - c->capbad));
  c->bad = b;
  c->capbad = cap;
  return 0;
}

static int seen(void *ctx, int32_t rank, int32_t thread, int32_t region,
                int64_t node, int folded) {
  rp_ctr_tree *c = ctx;
  if (room(c, node + 1) != 0)
    return 1;
  sp__hash_it it;
  int64_t i = sp__hash_first(&c->ix, mix(rank, thread, region), &it);
  for (; i >= 0; i = sp__hash_next(&c->ix, &it))
    if (c->r[i].rank == rank && c->r[i].thread == thread &&
        c->r[i].region == region)
      break;
  if (i < 0) {
    if (c->nr == c->capr) {
      int64_t cap = c->capr ? 2 * c->capr : 1024;
      seen_rec *r = realloc(c->r, (size_t)cap * sizeof *r);
      if (!r)
        return 1;
      c->r = r;
      c->capr = cap;
    }
    if (sp__hash_add(&c->ix, &it, c->nr) != 0)
      return 1;
    c->r[c->nr] = (seen_rec){rank, thread, region, node};
    i = c->nr++;
  }
  /* A second node, or a call inside a call of the region (its inclusive
   * counts added again): the region's sums on this thread are not any
   * one node's. */
  if (c->r[i].node != node || folded) {
    if (c->r[i].node >= 0)
      c->bad[c->r[i].node] = 1;
    c->bad[node] = 1;
    c->r[i].node = SEVERAL;
  }
  return 0;
}

rp_ctr_tree *rp_ctr_tree_new(const rp_profile *p, const rp_opts *o,
                             sp_fmt_err *err) {
  rp_ctr_tree *c = calloc(1, sizeof *c);
  if (!c) {
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    return NULL;
  }
  if (rp_ctrs_open(&c->u, p, o->counters, err) != 0) {
    free(c);
    return NULL;
  }
  c->p = p;
  c->hook = (rp_tree_hook){seen, c};
  return c;
}

const rp_tree_hook *rp_ctr_tree_hook(rp_ctr_tree *c) { return &c->hook; }

int rp_ctr_tree_done(rp_ctr_tree *c, const rp_tree *t, sp_fmt_err *err) {
  int64_t w = 2 * c->u.n + 1;
  if (room(c, t->n) != 0)
    goto oom;
  c->v = calloc(t->n ? (size_t)(t->n * w) : 1, sizeof *c->v);
  if (!c->v)
    goto oom;
  rp_ctr_sum s;
  for (int64_t i = 0; i < c->nr; i++) {
    const seen_rec *r = &c->r[i];
    if (r->node < 0 || c->bad[r->node])
      continue;
    /* a contribution without counters (a rank that recorded none) */
    if (!rp_ctrs_sum(&c->u, c->p, r->region, r->rank, r->thread, &s)) {
      c->bad[r->node] = 1;
      continue;
    }
    int64_t *v = c->v + r->node * w;
    for (int k = 0; k < c->u.n; k++) {
      v[k] += s.incl[k];
      v[c->u.n + k] += s.excl[k];
    }
    v[w - 1] += s.calls;
  }
  return 0;
oom:
  sp_fmt_err_set(err, "%s: out of memory", c->p->label);
  return -1;
}

void rp_ctr_tree_titles(const rp_ctr_tree *c, FILE *f) {
  rp_ctrs_titles(&c->u, f);
}

void rp_ctr_tree_put(const rp_ctr_tree *c, const rp_tree *t, int64_t x,
                     FILE *f) {
  if (c->bad[x] || t->v[x].name == RP_FOLDED) {
    rp_ctrs_values(&c->u, f, NULL);
    return;
  }
  int64_t w = 2 * c->u.n + 1;
  const int64_t *v = c->v + x * w;
  rp_ctr_sum s;
  memcpy(s.incl, v, (size_t)c->u.n * sizeof *v);
  memcpy(s.excl, v + c->u.n, (size_t)c->u.n * sizeof *v);
  s.calls = v[w - 1];
  rp_ctrs_values(&c->u, f, &s);
}

void rp_ctr_tree_free(rp_ctr_tree *c) {
  if (!c)
    return;
  rp_ctrs_free(&c->u);
  sp__hash_free(&c->ix);
  free(c->r);
  free(c->bad);
  free(c->v);
  free(c);
}
