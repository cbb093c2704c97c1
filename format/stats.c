/* stats.c - summary statistics of one thread's sources, with exclusive time
 * from nesting reconstructed by containment over a k-way merge. */
#include "sp_format.h"

#include <math.h>
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

static void finish(sp_fmt_stats *o, double m2) {
  if (o->calls == 0) {
    o->min_ns = o->max_ns = o->first_start_ns = o->last_end_ns = 0;
    o->mean_ns = o->std_ns = 0;
    return;
  }
  o->std_ns = sqrt(m2 / (double)o->calls);
}

int sp_fmt_stats_thread(const sp_fmt_source *srcs, int64_t n, sp_fmt_stats *out,
                        sp_fmt_nesting *nest) {
  if (nest)
    memset(nest, 0, sizeof *nest);
  if (n <= 0)
    return 0;
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
  int64_t *child = calloc((size_t)n, sizeof *child);
  size_t cap = 64, depth = 0;
  call *stack = malloc(cap * sizeof *stack);
  if (!m.cur || !m.heap || !buf || !m2 || !child || !stack) {
    free(m.cur);
    free(m.heap);
    free(buf);
    free(m2);
    free(child);
    free(stack);
    return -1;
  }
  for (int64_t i = 0; i < n; i++) {
    sp_fmt_stats *o = &out[i];
    memset(o, 0, sizeof *o);
    o->gpu_total_ns = -1;
    o->min_ns = INT64_MAX;
    o->max_ns = INT64_MIN;
    o->first_start_ns = INT64_MAX;
    o->last_end_ns = INT64_MIN;
    m.cur[i].starts = buf + (size_t)i * (size_t)m.batch * 2;
    m.cur[i].ends = m.cur[i].starts + m.batch;
    if (refill(&m, i))
      m.heap[m.nheap++] = current(&m, i);
  }
  for (int64_t i = m.nheap / 2; i-- > 0;)
    sift_down(&m, i);

  int rc = 0;
  while (m.nheap) {
    int64_t i = m.heap[0].src, s = m.heap[0].start, e = m.heap[0].end;
    cursor *c = &m.cur[i];
    if (++c->pos < c->fill || refill(&m, i))
      m.heap[0] = current(&m, i);
    else
      m.heap[0] = m.heap[--m.nheap];
    sift_down(&m, 0);

    int64_t d = sub(e, s);
    sp_fmt_stats *o = &out[i];
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
    m2[i] += delta * ((double)d - o->mean_ns);

    /* Open calls that ended by s can contain nothing that follows (a
     * zero-length call at their very end aside, which the containment test
     * catches first); the top, if any, then either contains this call (its
     * parent) or overlaps it improperly. */
    while (depth) {
      call *top = &stack[depth - 1];
      if (s >= top->start && e <= top->end) {
        child[top->src] = add(child[top->src], d);
        break;
      }
      if (s >= top->end) {
        depth--;
        continue;
      }
      if (nest && !nest->bad) {
        nest->bad = 1;
        nest->thread = srcs[i].thread;
        nest->outer = srcs[top->src].name;
        nest->inner = srcs[i].name;
        nest->outer_start = top->start;
        nest->inner_start = s;
      }
      break;
    }
    if (depth == cap) {
      call *grown = realloc(stack, 2 * cap * sizeof *stack);
      if (!grown) {
        rc = -1;
        break;
      }
      stack = grown;
      cap *= 2;
    }
    stack[depth].src = i;
    stack[depth].start = s;
    stack[depth].end = e;
    depth++;
  }
  for (int64_t i = 0; i < n; i++) {
    out[i].exclusive_ns = sub(out[i].total_ns, child[i]);
    finish(&out[i], m2[i]);
  }
  free(m.cur);
  free(m.heap);
  free(buf);
  free(m2);
  free(child);
  free(stack);
  return rc;
}
