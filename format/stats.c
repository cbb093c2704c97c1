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

/* Call s of source i overlaps top without nesting: the first such case
 * is kept for the warning. */
static void place_bad(nester *t, int64_t i, const call *top, int64_t s) {
  sp_fmt_nesting *nest = t->nest;
  if (nest && !nest->bad) {
    nest->bad = 1;
    nest->thread = t->srcs[i].thread;
    nest->outer = t->srcs[top->src].name;
    nest->inner = t->srcs[i].name;
    nest->outer_start = top->start;
    nest->inner_start = s;
  }
}

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
    place_bad(t, i, top, s);
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

/* Exact sums of one source's calls. Mean and std come from them at the
 * end, so they are the correctly rounded values of the exact ones, and a
 * call costs no division (Welford's running mean is a chain of them). */
typedef struct {
  int64_t calls, total, mn, mx, first, last;
  unsigned __int128 q; /* sum of squared durations */
} acc;

static void acc_init(acc *a) {
  memset(a, 0, sizeof *a);
  a->mn = INT64_MAX;
  a->mx = INT64_MIN;
  a->first = INT64_MAX;
  a->last = INT64_MIN;
}

static inline void acc_add(acc *a, int64_t s, int64_t e) {
  int64_t d = sub(e, s);
  a->calls++;
  a->total = add(a->total, d);
  a->mn = d < a->mn ? d : a->mn;
  a->mx = d > a->mx ? d : a->mx;
  a->first = s < a->first ? s : a->first;
  a->last = e > a->last ? e : a->last;
  a->q += (unsigned __int128)((__int128)d * d);
}

/* One source's calls in batches, through arrays or read(); fn gets each
 * batch. Returns -1 when out of memory. */
static int each_batch(const sp_fmt_source *src,
                      void (*fn)(void *, const sp_fmt_i64u *,
                                 const sp_fmt_i64u *, int64_t),
                      void *ctx) {
  const sp_fmt_i64u *s, *e;
  if (sp_fmt_source_arrays(src, &s, &e)) {
    fn(ctx, s, e, src->count);
    return 0;
  }
  int64_t batch = 8192;
  int64_t *buf = malloc((size_t)batch * 16);
  if (!buf)
    return -1;
  for (int64_t done = 0; done < src->count; done += batch) {
    int64_t n = src->count - done < batch ? src->count - done : batch;
    src->read(src, done, n, buf, buf + batch);
    fn(ctx, buf, buf + batch, n);
  }
  free(buf);
  return 0;
}

typedef struct {
  long double mean, sum;
} two_pass;

static void sum_durations(void *ctx, const sp_fmt_i64u *s, const sp_fmt_i64u *e,
                          int64_t n) {
  two_pass *t = ctx;
  for (int64_t i = 0; i < n; i++)
    t->sum += (long double)e[i] - (long double)s[i];
}

static void sum_squares(void *ctx, const sp_fmt_i64u *s, const sp_fmt_i64u *e,
                        int64_t n) {
  two_pass *t = ctx;
  for (int64_t i = 0; i < n; i++) {
    long double d = (long double)e[i] - (long double)s[i] - t->mean;
    t->sum += d * d;
  }
}

/* out from a's sums. When calls x largest |duration| fits in int64, the
 * sums are exact (the sum of squares then stays below 2^126) and
 * n*var = q - S^2/n is computed exactly before one rounding; beyond that
 * (durations of years, or a hostile file) two passes in long double over
 * src. Returns -1 when out of memory. */
static int acc_finish(const acc *a, const sp_fmt_source *src, sp_fmt_stats *o) {
  memset(o, 0, sizeof *o);
  o->gpu_total_ns = -1;
  o->calls = a->calls;
  o->total_ns = o->exclusive_ns = a->total;
  if (a->calls == 0)
    return 0;
  o->min_ns = a->mn;
  o->max_ns = a->mx;
  o->first_start_ns = a->first;
  o->last_end_ns = a->last;
  uint64_t n = (uint64_t)a->calls;
  uint64_t amn = a->mn < 0 ? 0 - (uint64_t)a->mn : (uint64_t)a->mn;
  uint64_t amx = a->mx < 0 ? 0 - (uint64_t)a->mx : (uint64_t)a->mx;
  uint64_t big = amn > amx ? amn : amx;
  if ((unsigned __int128)n * big <= (unsigned __int128)INT64_MAX) {
    __int128 S = a->total;
    unsigned __int128 s2 = (unsigned __int128)(S * S);
    unsigned __int128 dev = a->q - s2 / n; /* >= 0: Cauchy-Schwarz */
    long double r = (long double)(uint64_t)(s2 % n);
    long double var = ((long double)dev - r / (long double)n) / (long double)n;
    o->mean_ns = (double)((long double)a->total / (long double)n);
    o->std_ns = (double)sqrtl(var > 0 ? var : 0);
    return 0;
  }
  two_pass t = {0, 0};
  if (each_batch(src, sum_durations, &t) != 0)
    return -1;
  t.mean = t.sum / (long double)n;
  t.sum = 0;
  if (each_batch(src, sum_squares, &t) != 0)
    return -1;
  o->mean_ns = (double)t.mean;
  o->std_ns = (double)sqrtl(t.sum / (long double)n);
  return 0;
}

static void acc_arrays(void *ctx, const sp_fmt_i64u *s, const sp_fmt_i64u *e,
                       int64_t n) {
  acc a = *(acc *)ctx; /* in registers for the loop */
  for (int64_t i = 0; i < n; i++)
    acc_add(&a, s[i], e[i]);
  *(acc *)ctx = a;
}

/* Durations of 0 to 2^32-1 ns (4.3 s) square into 64 bits, summed in two
 * 32-bit halves that cannot overflow below 2^32 calls: this loop
 * vectorises (a 128-bit sum does not), ~6x faster here. Returns 0 when
 * some duration is outside that range: then acc_arrays redoes the batch. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx2", "default"), optimize("O3")))
#endif
static int
acc_arrays_short(acc *out, const sp_fmt_i64u *s, const sp_fmt_i64u *e,
                 int64_t n) {
  uint64_t total = 0, qlo = 0, qhi = 0;
  int64_t mn = INT64_MAX, mx = INT64_MIN, first = INT64_MAX, last = INT64_MIN;
  for (int64_t i = 0; i < n; i++) {
    uint64_t d = (uint64_t)e[i] - (uint64_t)s[i];
    int64_t sd = (int64_t)d;
    total += d;
    mn = sd < mn ? sd : mn;
    mx = sd > mx ? sd : mx;
    first = s[i] < first ? s[i] : first;
    last = e[i] > last ? e[i] : last;
    uint64_t l = (uint32_t)d, sq = l * l;
    qlo += (uint32_t)sq;
    qhi += sq >> 32;
  }
  if (n > 0 && (mn < 0 || mx > (int64_t)UINT32_MAX))
    return 0;
  out->calls += n;
  out->total = add(out->total, (int64_t)total);
  out->mn = mn < out->mn ? mn : out->mn;
  out->mx = mx > out->mx ? mx : out->mx;
  out->first = first < out->first ? first : out->first;
  out->last = last > out->last ? last : out->last;
  out->q += qlo + ((unsigned __int128)qhi << 32);
  return 1;
}

static void acc_batch(void *ctx, const sp_fmt_i64u *s, const sp_fmt_i64u *e,
                      int64_t n) {
  /* Batches of under 2^32 calls keep the halves from overflowing. */
  for (int64_t k = 0; k < n; k += (int64_t)1 << 30) {
    int64_t m = n - k < ((int64_t)1 << 30) ? n - k : (int64_t)1 << 30;
    if (!acc_arrays_short(ctx, s + k, e + k, m))
      acc_arrays(ctx, s + k, e + k, m);
  }
}

int sp_fmt_stats_source(const sp_fmt_source *src, sp_fmt_stats *out) {
  acc a;
  acc_init(&a);
  if (each_batch(src, acc_batch, &a) != 0)
    return -1;
  return acc_finish(&a, src, out);
}

/* Sources pulled through read(): merged in batches within the budget,
 * their sums taken as the calls go by. */
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
  acc *a = malloc((size_t)n * sizeof *a);
  int rc = -1;
  if (!m.cur || !m.heap || !buf || !a)
    goto out;
  for (int64_t i = 0; i < n; i++) {
    acc_init(&a[i]);
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
    acc_add(&a[i], s, e);
    if ((rc = place(t, i, s, e)) != 0)
      break;
  }
  for (int64_t i = 0; i < n && rc == 0; i++)
    rc = acc_finish(&a[i], &srcs[i], &out[i]);
out:
  free(m.cur);
  free(m.heap);
  free(buf);
  free(a);
  return rc;
}

/* Up to this many sources, the merge scans every source's next call
 * rather than keeping a heap: fewer, more predictable branches. */
#define SP_STATS_SCAN 8

/* The merge of a few array sources, scanning every source's next call.
 * Live sources stay in index order, so a strict comparison keeps the
 * lowest index among equal calls, as before() does. Heads are kept by
 * value and the nester's stack in locals: this loop is most of the
 * statistics' time. */
static int merge_scan(const sp_fmt_i64u **arr, int64_t n,
                      const sp_fmt_source *srcs, nester *t) {
  const sp_fmt_i64u *ps[SP_STATS_SCAN], *pe[SP_STATS_SCAN];
  int64_t left[SP_STATS_SCAN], id[SP_STATS_SCAN];
  int64_t hs[SP_STATS_SCAN], he[SP_STATS_SCAN];
  int live = 0;
  for (int64_t i = 0; i < n; i++)
    if (srcs[i].count > 0) {
      ps[live] = arr[2 * i];
      pe[live] = arr[2 * i + 1];
      hs[live] = ps[live][0];
      he[live] = pe[live][0];
      left[live] = srcs[i].count;
      id[live++] = i;
    }
  call *stack = t->stack;
  size_t depth = t->depth, cap = t->cap;
  int64_t *child = t->child;
  int rc = 0;
  while (live > 0) {
    int b = 0;
    int64_t bs = hs[0], be = he[0];
    for (int j = 1; j < live; j++) {
      int better = (hs[j] < bs) | ((hs[j] == bs) & (he[j] > be));
      b = better ? j : b;
      bs = better ? hs[j] : bs;
      be = better ? he[j] : be;
    }
    int64_t i = id[b];
    /* place(), with the stack in locals. */
    while (depth) {
      const call *top = &stack[depth - 1];
      if (bs >= top->start && be <= top->end) {
        child[top->src] = add(child[top->src], sub(be, bs));
        break;
      }
      if (bs >= top->end) {
        depth--;
        continue;
      }
      t->depth = depth;
      place_bad(t, i, top, bs);
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
    stack[depth++] = (call){bs, be, i};
    if (--left[b] == 0) {
      live--;
      for (int j = b; j < live; j++) {
        ps[j] = ps[j + 1];
        pe[j] = pe[j + 1];
        hs[j] = hs[j + 1];
        he[j] = he[j + 1];
        left[j] = left[j + 1];
        id[j] = id[j + 1];
      }
    } else {
      hs[b] = *++ps[b];
      he[b] = *++pe[b];
    }
  }
  t->stack = stack;
  t->depth = depth;
  t->cap = cap;
  return rc;
}

/* The merge of K (2 to 4, a constant in each specialisation) non-empty
 * array sources. With K known, the comparisons unroll and every head stays
 * in a register (each is indexed by a constant: the chosen one is advanced
 * through a switch); a finished source's head becomes a sentinel that
 * loses to any call, so nothing is moved. Same order as merge_scan. */
#define MERGE_ADV(j)                                                           \
  case j:                                                                      \
    if (--left[j] == 0) {                                                      \
      hs[j] = INT64_MAX;                                                       \
      he[j] = INT64_MIN;                                                       \
    } else {                                                                   \
      hs[j] = *++ps[j];                                                        \
      he[j] = *++pe[j];                                                        \
    }                                                                          \
    break;

static inline __attribute__((always_inline)) int
merge_k(const sp_fmt_i64u **arr, const int64_t *id, const sp_fmt_source *srcs,
        nester *t, const int K) {
  const sp_fmt_i64u *ps[4], *pe[4];
  int64_t hs[4], he[4], left[4], total = 0;
  for (int j = 0; j < K; j++) {
    ps[j] = arr[2 * id[j]];
    pe[j] = arr[2 * id[j] + 1];
    hs[j] = ps[j][0];
    he[j] = pe[j][0];
    left[j] = srcs[id[j]].count;
    total += left[j];
  }
  call *stack = t->stack;
  size_t depth = t->depth, cap = t->cap;
  int64_t *child = t->child;
  int rc = 0;
  for (int64_t k = 0; k < total; k++) {
    int b = 0;
    int64_t bs = hs[0], be = he[0];
    for (int j = 1; j < K; j++) {
      int better = (hs[j] < bs) | ((hs[j] == bs) & (he[j] > be));
      b = better ? j : b;
      bs = better ? hs[j] : bs;
      be = better ? he[j] : be;
    }
    if (left[b] == 0) { /* a real call equal to the sentinel: rare */
      b = -1;
      for (int j = 0; j < K; j++)
        if (left[j] > 0 &&
            (b < 0 || hs[j] < bs || (hs[j] == bs && he[j] > be))) {
          b = j;
          bs = hs[j];
          be = he[j];
        }
    }
    int64_t i = id[b];
    while (depth) {
      const call *top = &stack[depth - 1];
      if (bs >= top->start && be <= top->end) {
        child[top->src] = add(child[top->src], sub(be, bs));
        break;
      }
      if (bs >= top->end) {
        depth--;
        continue;
      }
      place_bad(t, i, top, bs);
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
    stack[depth++] = (call){bs, be, i};
    switch (b) {
      MERGE_ADV(0)
      MERGE_ADV(1)
      MERGE_ADV(2)
      MERGE_ADV(3)
    }
  }
  t->stack = stack;
  t->depth = depth;
  t->cap = cap;
  return rc;
}
#undef MERGE_ADV

static int merge_few(const sp_fmt_i64u **arr, int64_t n,
                     const sp_fmt_source *srcs, nester *t) {
  int64_t id[4];
  int k = 0;
  for (int64_t i = 0; i < n; i++)
    if (srcs[i].count > 0) {
      if (k == 4)
        return merge_scan(arr, n, srcs, t);
      id[k++] = i;
    }
  switch (k) {
  case 0:
    return 0;
  case 1:
    return merge_scan(arr, n, srcs, t);
  case 2:
    return merge_k(arr, id, srcs, t, 2);
  case 3:
    return merge_k(arr, id, srcs, t, 3);
  default:
    return merge_k(arr, id, srcs, t, 4);
  }
}

/* The merge of many array sources through a heap. */
static int merge_heap(const sp_fmt_i64u **arr, int64_t n,
                      const sp_fmt_source *srcs, nester *t) {
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

/* Sources whose calls are in memory: each source's sums in one tight pass
 * over its arrays; only exclusive time needs the merge. */
static int stats_arrays(const sp_fmt_source *srcs, int64_t n, sp_fmt_stats *out,
                        nester *t) {
  const sp_fmt_i64u **arr = malloc((size_t)n * 2 * sizeof *arr);
  if (!arr)
    return -1;
  int rc = 0;
  for (int64_t i = 0; i < n && rc == 0; i++) {
    sp_fmt_source_arrays(&srcs[i], &arr[2 * i], &arr[2 * i + 1]);
    rc = sp_fmt_stats_source(&srcs[i], &out[i]);
  }
  if (rc == 0 && n == 1) { /* no merge: nesting within it is recursion */
    const sp_fmt_i64u *st = arr[0], *en = arr[1];
    for (int64_t k = 0; k < srcs[0].count && rc == 0; k++)
      rc = place(t, 0, st[k], en[k]);
  } else if (rc == 0) {
    rc = n <= SP_STATS_SCAN ? merge_few(arr, n, srcs, t)
                            : merge_heap(arr, n, srcs, t);
  }
  free(arr);
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
  const sp_fmt_i64u *st, *en;
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
