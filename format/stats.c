/* stats.c - summary statistics of one thread's sources, with exclusive time
 * from nesting reconstructed by containment over a k-way merge. */
#include "sp_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Total bytes of per-source read buffers: 100,000 sources still get a few
 * calls each, one source gets 512 Ki calls per read. */
#define SP_STATS_BUDGET (8u << 20)

typedef struct {
  int64_t *starts, *ends;
  int64_t pos, fill; /* next unread call in the buffer, calls buffered */
  int64_t next;      /* index of the next call to read from the source */
} cursor;

/* A call in the merge or on the stack of open calls; keys kept inline so
 * comparing needs no lookups. */
typedef struct {
  int64_t start, end, src;
} call;

typedef struct {
  const sp_fmt_source *srcs;
  cursor *cur;
  int64_t batch;
  call *heap; /* each source's current call, ordered by before() */
  int64_t nheap;
} merger;

/* Wrapping differences: a hostile file's timestamps must not overflow. */
static int64_t sub(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a - (uint64_t)b);
}

static int64_t add(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* Loads the next batch of source i; 0 when it has no calls left. */
static int refill(merger *m, int64_t i) {
  const sp_fmt_source *s = &m->srcs[i];
  cursor *c = &m->cur[i];
  int64_t n = s->count - c->next;
  if (n <= 0)
    return 0;
  if (n > m->batch)
    n = m->batch;
  s->read(s, c->next, n, c->starts, c->ends);
  c->next += n;
  c->pos = 0;
  c->fill = n;
  return 1;
}

/* Merge order: start ascending, end descending (outer before inner when
 * they start together), then source index, so ties are deterministic. */
static int before(const call *a, const call *b) {
  if (a->start != b->start)
    return a->start < b->start;
  if (a->end != b->end)
    return a->end > b->end;
  return a->src < b->src;
}

static void sift_down(merger *m, int64_t i) {
  call *h = m->heap, x = h[i];
  int64_t n = m->nheap;
  for (;;) {
    int64_t l = 2 * i + 1;
    if (l >= n)
      break;
    if (l + 1 < n && before(&h[l + 1], &h[l]))
      l++;
    if (!before(&h[l], &x))
      break;
    h[i] = h[l];
    i = l;
  }
  h[i] = x;
}

/* The current call of source i, which has one. */
static call current(const merger *m, int64_t i) {
  const cursor *c = &m->cur[i];
  call k = {c->starts[c->pos], c->ends[c->pos], i};
  return k;
}

/* Open calls of the merge: each call's parent is the innermost open call
 * that contains it. */
typedef struct {
  call *stack;
  size_t cap, depth;
  int64_t *child; /* per source: time in direct children */
  const sp_fmt_source *srcs;
  sp_fmt_nesting *nest;
} nester;

/* Takes the next call in merge order; -1 when out of memory. */
static inline int place(nester *t, int64_t i, int64_t s, int64_t e) {
  /* Open calls that ended by s can contain nothing that follows (a
   * zero-length call at their very end aside, which the containment test
   * catches first); the top, if any, then either contains this call (its
   * parent) or overlaps it improperly. */
  while (t->depth) {
    call *top = &t->stack[t->depth - 1];
    if (s >= top->start && e <= top->end) {
      t->child[top->src] = add(t->child[top->src], sub(e, s));
      break;
    }
    if (s >= top->end) {
      t->depth--;
      continue;
    }
    sp_fmt_nesting *nest = t->nest;
    if (nest && !nest->bad) {
      nest->bad = 1;
      nest->thread = t->srcs[i].thread;
      nest->outer = t->srcs[top->src].name;
      nest->inner = t->srcs[i].name;
      nest->outer_start = top->start;
      nest->inner_start = s;
    }
    break;
  }
  if (t->depth == t->cap) {
    call *grown = realloc(t->stack, 2 * t->cap * sizeof *t->stack);
    if (!grown)
      return -1;
    t->stack = grown;
    t->cap *= 2;
  }
  call *c = &t->stack[t->depth++];
  c->src = i;
  c->start = s;
  c->end = e;
  return 0;
}

static void finish(sp_fmt_stats *o, double m2) {
  if (o->calls == 0) {
    o->min_ns = o->max_ns = o->first_start_ns = o->last_end_ns = 0;
    o->mean_ns = o->std_ns = 0;
    return;
  }
  o->std_ns = sqrt(m2 / (double)o->calls);
}

static void init_stats(sp_fmt_stats *o) {
  memset(o, 0, sizeof *o);
  o->gpu_total_ns = -1;
  o->min_ns = INT64_MAX;
  o->max_ns = INT64_MIN;
  o->first_start_ns = INT64_MAX;
  o->last_end_ns = INT64_MIN;
}

/* One call of a source, in the source's order: the same operations in the
 * same order on both paths, so both give the same bits. */
static inline void account(sp_fmt_stats *o, double *m2, int64_t s, int64_t e) {
  int64_t d = sub(e, s);
  o->calls++;
  o->total_ns = add(o->total_ns, d);
  if (d < o->min_ns)
    o->min_ns = d;
  if (d > o->max_ns)
    o->max_ns = d;
  if (s < o->first_start_ns)
    o->first_start_ns = s;
  if (e > o->last_end_ns)
    o->last_end_ns = e;
  /* Welford: stable for millions of nearly equal durations. */
  double delta = (double)d - o->mean_ns;
  o->mean_ns += delta / (double)o->calls;
  *m2 += delta * ((double)d - o->mean_ns);
}

/* Sources pulled through read(): merged in batches within the budget. */
static int stats_read(const sp_fmt_source *srcs, int64_t n, sp_fmt_stats *out,
                      nester *t) {
  merger m = {srcs, NULL, 0, NULL, 0};
  int64_t batch = (int64_t)(SP_STATS_BUDGET / 16 / (uint64_t)n), most = 1;
  for (int64_t i = 0; i < n; i++)
    if (srcs[i].count > most)
      most = srcs[i].count;
  /* Small threads get buffers their size, not the whole budget. */
  m.batch = batch < 1 ? 1 : batch < most ? batch : most;
  m.cur = calloc((size_t)n, sizeof *m.cur);
  m.heap = malloc((size_t)n * sizeof *m.heap);
  int64_t *buf = malloc((size_t)n * (size_t)m.batch * 16);
  double *m2 = calloc((size_t)n, sizeof *m2);
  int rc = -1;
  if (!m.cur || !m.heap || !buf || !m2)
    goto out;
  for (int64_t i = 0; i < n; i++) {
    init_stats(&out[i]);
    m.cur[i].starts = buf + (size_t)i * (size_t)m.batch * 2;
    m.cur[i].ends = m.cur[i].starts + m.batch;
    if (refill(&m, i))
      m.heap[m.nheap++] = current(&m, i);
  }
  for (int64_t i = m.nheap / 2; i-- > 0;)
    sift_down(&m, i);
  rc = 0;
  while (m.nheap) {
    int64_t i = m.heap[0].src, s = m.heap[0].start, e = m.heap[0].end;
    cursor *c = &m.cur[i];
    if (++c->pos < c->fill || refill(&m, i))
      m.heap[0] = current(&m, i);
    else
      m.heap[0] = m.heap[--m.nheap];
    sift_down(&m, 0);
    account(&out[i], &m2[i], s, e);
    if ((rc = place(t, i, s, e)) != 0)
      break;
  }
  for (int64_t i = 0; i < n; i++)
    finish(&out[i], m2[i]);
out:
  free(m.cur);
  free(m.heap);
  free(buf);
  free(m2);
  return rc;
}

static int merge_arrays(const sp_fmt_source *srcs, int64_t n,
                        const int64_t **arr, sp_fmt_stats *out, nester *t);

/* Per-source statistics of arrays. Welford's mean is a chain of dependent
 * divisions per source; stepping up to four sources in lockstep, each in
 * locals, lets their chains overlap. Same operations in the same order
 * per source as account(), so the same bits. */
typedef struct {
  const int64_t *s, *e;
  int64_t left, src;
  int64_t calls, total, mn, mx, first, last;
  double mean, m2;
} lane;

static inline void lane_step(lane *l) {
  int64_t s = *l->s++, e = *l->e++, d = sub(e, s);
  l->left--;
  l->calls++;
  l->total = add(l->total, d);
  if (d < l->mn)
    l->mn = d;
  if (d > l->mx)
    l->mx = d;
  if (s < l->first)
    l->first = s;
  if (e > l->last)
    l->last = e;
  double delta = (double)d - l->mean;
  l->mean += delta / (double)l->calls;
  l->m2 += delta * ((double)d - l->mean);
}

static void steps1(lane *L, int64_t k) {
  lane a = L[0];
  for (int64_t c = 0; c < k; c++)
    lane_step(&a);
  L[0] = a;
}

static void steps2(lane *L, int64_t k) {
  lane a = L[0], b = L[1];
  for (int64_t c = 0; c < k; c++) {
    lane_step(&a);
    lane_step(&b);
  }
  L[0] = a;
  L[1] = b;
}

static void steps3(lane *L, int64_t k) {
  lane a = L[0], b = L[1], c3 = L[2];
  for (int64_t c = 0; c < k; c++) {
    lane_step(&a);
    lane_step(&b);
    lane_step(&c3);
  }
  L[0] = a;
  L[1] = b;
  L[2] = c3;
}

static void steps4(lane *L, int64_t k) {
  lane a = L[0], b = L[1], c3 = L[2], d = L[3];
  for (int64_t c = 0; c < k; c++) {
    lane_step(&a);
    lane_step(&b);
    lane_step(&c3);
    lane_step(&d);
  }
  L[0] = a;
  L[1] = b;
  L[2] = c3;
  L[3] = d;
}

static void lane_done(const lane *l, sp_fmt_stats *out) {
  sp_fmt_stats *o = &out[l->src];
  init_stats(o);
  o->calls = l->calls;
  o->total_ns = l->total;
  o->min_ns = l->mn;
  o->max_ns = l->mx;
  o->first_start_ns = l->first;
  o->last_end_ns = l->last;
  o->mean_ns = l->mean;
  finish(o, l->m2);
}

static void lane_stats(const sp_fmt_source *srcs, int64_t n,
                       const int64_t **arr, sp_fmt_stats *out) {
  lane L[4];
  int nl = 0;
  for (int64_t next = 0;;) {
    while (nl < 4 && next < n) {
      int64_t i = next++;
      lane l = {arr[2 * i], arr[2 * i + 1], srcs[i].count, i,         0, 0,
                INT64_MAX,  INT64_MIN,      INT64_MAX,     INT64_MIN, 0, 0};
      if (l.left > 0)
        L[nl++] = l;
      else
        lane_done(&l, out);
    }
    if (nl == 0)
      break;
    int64_t k = L[0].left;
    for (int j = 1; j < nl; j++)
      k = L[j].left < k ? L[j].left : k;
    if (nl == 1)
      steps1(L, k);
    else if (nl == 2)
      steps2(L, k);
    else if (nl == 3)
      steps3(L, k);
    else
      steps4(L, k);
    for (int j = 0; j < nl;)
      if (L[j].left == 0) {
        lane_done(&L[j], out);
        L[j] = L[--nl];
      } else {
        j++;
      }
  }
}

/* Up to this many sources, the merge scans every source's next call
 * rather than keeping a heap: fewer, more predictable branches. */
#define SP_STATS_SCAN 8

/* One call of a lane given by value, in its source's order. */
static inline void lane_add(lane *l, int64_t s, int64_t e) {
  int64_t d = sub(e, s);
  l->calls++;
  l->total = add(l->total, d);
  if (d < l->mn)
    l->mn = d;
  if (d > l->mx)
    l->mx = d;
  if (s < l->first)
    l->first = s;
  if (e > l->last)
    l->last = e;
  double delta = (double)d - l->mean;
  l->mean += delta / (double)l->calls;
  l->m2 += delta * ((double)d - l->mean);
}

/* The merge of a few array sources, scanning every source's next call.
 * Live sources stay in index order, so a strict comparison keeps the lowest
 * index among equal calls, as before() does. With `fused` (a constant: the
 * two uses below are two specialisations) up to four sources also get their
 * statistics in the same pass, kept in locals, so the merge's work overlaps
 * the chains of divisions (they take as long as the merge when done apart). */
static inline __attribute__((always_inline)) int
merge_scan_impl(const int64_t **arr, int64_t n, const sp_fmt_source *srcs,
                sp_fmt_stats *out, nester *t, const int fused) {
  lane l0, l1, l2, l3;
  lane *ls[4] = {&l0, &l1, &l2, &l3};
  if (fused)
    for (int64_t i = 0; i < 4; i++)
      *ls[i] = (lane){NULL,      NULL,      0,         i,         0, 0,
                      INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN, 0, 0};
  const int64_t *ps[SP_STATS_SCAN], *pe[SP_STATS_SCAN];
  int64_t left[SP_STATS_SCAN], id[SP_STATS_SCAN];
  int live = 0, rc = 0;
  for (int64_t i = 0; i < n; i++)
    if (srcs[i].count > 0) {
      ps[live] = arr[2 * i];
      pe[live] = arr[2 * i + 1];
      left[live] = srcs[i].count;
      id[live++] = i;
    }
  while (live > 0) {
    int b = 0;
    int64_t bs = *ps[0], be = *pe[0];
    for (int j = 1; j < live; j++) {
      int64_t s = *ps[j], e = *pe[j];
      int better = (s < bs) | ((s == bs) & (e > be));
      b = better ? j : b;
      bs = better ? s : bs;
      be = better ? e : be;
    }
    if (fused)
      switch (id[b]) {
      case 0:
        lane_add(&l0, bs, be);
        break;
      case 1:
        lane_add(&l1, bs, be);
        break;
      case 2:
        lane_add(&l2, bs, be);
        break;
      default:
        lane_add(&l3, bs, be);
        break;
      }
    if ((rc = place(t, id[b], bs, be)) != 0)
      break;
    ps[b]++;
    pe[b]++;
    if (--left[b] == 0) {
      live--;
      for (int j = b; j < live; j++) {
        ps[j] = ps[j + 1];
        pe[j] = pe[j + 1];
        left[j] = left[j + 1];
        id[j] = id[j + 1];
      }
    }
  }
  if (fused)
    for (int64_t i = 0; i < n; i++)
      lane_done(ls[i], out);
  return rc;
}

static int merge_scan(const int64_t **arr, int64_t n, const sp_fmt_source *srcs,
                      nester *t) {
  return merge_scan_impl(arr, n, srcs, NULL, t, 0) ? -1 : 0;
}

static int merge_fused(const int64_t **arr, int64_t n,
                       const sp_fmt_source *srcs, sp_fmt_stats *out,
                       nester *t) {
  return merge_scan_impl(arr, n, srcs, out, t, 1);
}

/* Sources whose calls are in memory: per-source statistics need no merge;
 * only exclusive time does, and it reads the arrays in place. */
static int stats_arrays(const sp_fmt_source *srcs, int64_t n, sp_fmt_stats *out,
                        nester *t) {
  const int64_t **arr = malloc((size_t)n * 2 * sizeof *arr);
  if (!arr)
    return -1;
  for (int64_t i = 0; i < n; i++)
    sp_fmt_source_arrays(&srcs[i], &arr[2 * i], &arr[2 * i + 1]);
  int rc = merge_arrays(srcs, n, arr, out, t);
  free(arr);
  return rc;
}

static int merge_arrays(const sp_fmt_source *srcs, int64_t n,
                        const int64_t **arr, sp_fmt_stats *out, nester *t) {
  if (n >= 2 && n <= 4)
    return merge_fused(arr, n, srcs, out, t);
  lane_stats(srcs, n, arr, out);
  if (n == 1) { /* no merge: nesting within the region is recursion */
    const int64_t *st = arr[0], *en = arr[1];
    for (int64_t k = 0; k < srcs[0].count; k++)
      if (place(t, 0, st[k], en[k]) != 0)
        return -1;
    return 0;
  }
  if (n <= SP_STATS_SCAN)
    return merge_scan(arr, n, srcs, t);
  int64_t *pos = calloc((size_t)n, sizeof *pos);
  call *heap = malloc((size_t)n * sizeof *heap);
  if (!pos || !heap) {
    free(pos);
    free(heap);
    return -1;
  }
  merger m = {srcs, NULL, 0, heap, 0};
  for (int64_t i = 0; i < n; i++)
    if (srcs[i].count > 0)
      heap[m.nheap++] = (call){arr[2 * i][0], arr[2 * i + 1][0], i};
  for (int64_t i = m.nheap / 2; i-- > 0;)
    sift_down(&m, i);
  int rc = 0;
  while (m.nheap) {
    int64_t i = heap[0].src, s = heap[0].start, e = heap[0].end;
    int64_t p = ++pos[i];
    if (p < srcs[i].count)
      heap[0] = (call){arr[2 * i][p], arr[2 * i + 1][p], i};
    else
      heap[0] = heap[--m.nheap];
    sift_down(&m, 0);
    if ((rc = place(t, i, s, e)) != 0)
      break;
  }
  free(pos);
  free(heap);
  return rc;
}

int sp_fmt_stats_thread(const sp_fmt_source *srcs, int64_t n, sp_fmt_stats *out,
                        sp_fmt_nesting *nest) {
  if (nest)
    memset(nest, 0, sizeof *nest);
  if (n <= 0)
    return 0;
  nester t = {malloc(64 * sizeof(call)), 64,   0,
              calloc((size_t)n, 8),      srcs, nest};
  int arrays = 1;
  const int64_t *st, *en;
  for (int64_t i = 0; i < n; i++)
    if (srcs[i].count > 0 && !sp_fmt_source_arrays(&srcs[i], &st, &en))
      arrays = 0;
  int rc = -1;
  if (t.stack && t.child)
    rc = arrays ? stats_arrays(srcs, n, out, &t) : stats_read(srcs, n, out, &t);
  if (rc == 0)
    for (int64_t i = 0; i < n; i++)
      out[i].exclusive_ns = sub(out[i].total_ns, t.child[i]);
  free(t.stack);
  free(t.child);
  return rc;
}

static int by_thread(const void *a, const void *b) {
  const sp_fmt_source *x = a, *y = b;
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  return x->aux < y->aux ? -1 : (x->aux > y->aux); /* aux: block index */
}

void sp_fmt_rank_sources_by_thread(const sp_fmt_rank *r, sp_fmt_source *out) {
  sp_fmt_rank_sources(r, out);
  qsort(out, (size_t)r->nblocks, sizeof *out, by_thread);
}

int64_t sp_fmt_stats_rank(const sp_fmt_source *srcs, int64_t n,
                          sp_fmt_stats *out, sp_fmt_nesting *nest) {
  int64_t nbad = 0;
  for (int64_t lo = 0, hi; lo < n; lo = hi) {
    for (hi = lo; hi < n && srcs[hi].thread == srcs[lo].thread;)
      hi++;
    sp_fmt_nesting one = {0};
    if (sp_fmt_stats_thread(srcs + lo, hi - lo, out + lo, &one) != 0)
      return -1;
    if (one.bad && nbad++ == 0 && nest)
      *nest = one;
  }
  return nbad;
}

void sp_fmt_nesting_describe(const sp_fmt_nesting *nest, const char *path,
                             int32_t rank, char *buf, size_t size) {
  snprintf(buf, size,
           "%s: rank %d thread %d: call of %s at %lld overlaps %s at %lld "
           "without nesting",
           path, rank, nest->thread, nest->inner, (long long)nest->inner_start,
           nest->outer, (long long)nest->outer_start);
}
