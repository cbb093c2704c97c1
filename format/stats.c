/* stats.c - summary statistics of one thread's sources: per-source sums in
 * exact integers, exclusive time from nesting reconstructed by containment
 * over a k-way merge. */
#include "sp_rank.h"
#include "sp_sanitizer.h"
#include "sp_stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Total bytes of per-source read buffers: 512 KiB per source (a batch of
 * 32768 calls), at least 1 MiB and at most 8 MiB: batches stay in the
 * cores' caches until the merge takes them (a larger budget for a thread
 * of few regions was slower), and 100,000 sources still get a few calls
 * each. */
#define SP_STATS_BUDGET_MIN ((uint64_t)1 << 20)
#define SP_STATS_BUDGET_MAX ((uint64_t)8 << 20)
#define SP_STATS_PER_SOURCE ((uint64_t)512 << 10)

/* Up to this many sources with calls, the merge compares every source's
 * next call (unrolled, heads in registers); beyond, a heap. */
#define SP_STATS_FEW 8

/* Wrapping differences: a hostile file's timestamps must not overflow. */
static int64_t sub(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a - (uint64_t)b);
}

static int64_t add(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
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
                      void (*fn)(void *, const int64_t *, const int64_t *,
                                 int64_t),
                      void *ctx) {
  const int64_t *s, *e;
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

static void sum_durations(void *ctx, const int64_t *s, const int64_t *e,
                          int64_t n) {
  two_pass *t = ctx;
  for (int64_t i = 0; i < n; i++)
    t->sum += (long double)e[i] - (long double)s[i];
}

static void sum_squares(void *ctx, const int64_t *s, const int64_t *e,
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
  o->total_ns = o->exclusive_ns = o->outer_total_ns = a->total;
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

static void acc_arrays(void *ctx, const int64_t *s, const int64_t *e,
                       int64_t n) {
  acc a = *(acc *)ctx; /* in registers for the loop */
  for (int64_t i = 0; i < n; i++)
    acc_add(&a, s[i], e[i]);
  *(acc *)ctx = a;
}

/* Durations of 0 to 2^32-1 ns (4.3 s) square into 64 bits, summed in two
 * 32-bit halves that cannot overflow below 2^32 calls: this loop
 * vectorises (a 128-bit sum does not), several times faster. Returns 0 when
 * some duration is outside that range: then acc_arrays redoes the batch.
 * No clones in sanitized builds: their ifunc resolver runs before the
 * sanitizer's runtime is initialised and crashes at load. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&         \
    !SP_SANITIZED
__attribute__((target_clones("avx2", "default"), optimize("O3")))
#elif defined(__x86_64__) && defined(__clang__) && !SP_SANITIZED
__attribute__((target_clones("avx2", "default")))
#endif
static int
acc_arrays_short(acc *out, const int64_t *s, const int64_t *e, int64_t n) {
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

static void acc_batch(void *ctx, const int64_t *s, const int64_t *e,
                      int64_t n) {
  /* Batches of under 2^32 calls keep the halves from overflowing. */
  for (int64_t k = 0; k < n; k += (int64_t)1 << 30) {
    int64_t m = n - k < ((int64_t)1 << 30) ? n - k : (int64_t)1 << 30;
    if (!acc_arrays_short(ctx, s + k, e + k, m))
      acc_arrays(ctx, s + k, e + k, m);
  }
}

/* Calls of one source in start order are inside an earlier one exactly when
 * they end by the latest end seen so far. */
typedef struct {
  int64_t last_end, nested;
  int any;
} own_nesting;

static void sum_nested(void *ctx, const int64_t *s, const int64_t *e,
                       int64_t n) {
  own_nesting *t = ctx;
  for (int64_t i = 0; i < n; i++) {
    if (t->any && e[i] <= t->last_end)
      t->nested = add(t->nested, sub(e[i], s[i]));
    else
      t->last_end = e[i];
    t->any = 1;
  }
}

int sp_fmt_stats_source(const sp_fmt_source *src, sp_fmt_stats *out) {
  acc a;
  acc_init(&a);
  if (each_batch(src, acc_batch, &a) != 0)
    return -1;
  if (acc_finish(&a, src, out) != 0)
    return -1;
  own_nesting t = {0, 0, 0};
  if (each_batch(src, sum_nested, &t) != 0)
    return -1;
  out->outer_total_ns = sub(out->total_ns, t.nested);
  return 0;
}

/* A call in the merge or on the stack of open calls; keys kept inline so
 * comparing needs no lookups. */
typedef struct {
  int64_t start, end, src;
} call;

/* Open calls of the merge: each call's parent is the innermost open call
 * that contains it. */
typedef struct {
  call *stack;
  size_t cap, depth;
  int64_t *child; /* per source: time in direct children */
  /* per source: its calls open on the stack, and the time of its calls
   * that opened inside one of its own (recursion) */
  int64_t *open, *nested;
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

/* Takes the next call in merge order; -1 when out of memory. Open calls
 * that ended by s can contain nothing that follows (a zero-length call at
 * their very end aside, which the containment test catches first); the
 * top, if any, then either contains this call (its parent) or overlaps it
 * improperly. The stack lives in the caller's locals (*stack, *depth,
 * *cap) for the length of a merge. */
static inline __attribute__((always_inline)) int place(nester *t, call **stack,
                                                       size_t *depth,
                                                       size_t *cap, int64_t i,
                                                       int64_t s, int64_t e) {
  while (*depth) {
    const call *top = &(*stack)[*depth - 1];
    if (s >= top->start && e <= top->end) {
      t->child[top->src] = add(t->child[top->src], sub(e, s));
      break;
    }
    if (s >= top->end) {
      t->open[top->src]--;
      --*depth;
      continue;
    }
    place_bad(t, i, top, s);
    break;
  }
  if (t->open[i]++ > 0)
    t->nested[i] = add(t->nested[i], sub(e, s));
  if (*depth == *cap) {
    call *grown = realloc(*stack, 2 * *cap * sizeof **stack);
    if (!grown)
      return -1;
    *stack = grown;
    *cap *= 2;
  }
  (*stack)[(*depth)++] = (call){s, e, i};
  return 0;
}

/* Where the merge is in one source: its next calls at s and e, `left` of
 * them before the buffer needs refilling. Sources with arrays in memory
 * are one buffer; the others are read in batches, each batch summed while
 * it is still in cache. */
typedef struct {
  const sp_fmt_source *src;
  const int64_t *s, *e;
  int64_t left, next; /* next: source index of the call after the buffer */
  int64_t *bs, *be;   /* read() sources: the buffer */
  int64_t batch;
  int64_t index; /* the source's index in the caller's srcs */
  const sp_fmt_stats_reader *rd;
  acc *a;
} cursor;

/* The cursor's next calls; 0 when its source has none left. The caller
 * may shorten the batch (rd->batch_size) and sees it once summed. */
static int refill(cursor *c) {
  int64_t n = c->src->count - c->next;
  if (n <= 0 || !c->bs)
    return 0;
  if (n > c->batch)
    n = c->batch;
  const sp_fmt_stats_reader *rd = c->rd;
  if (rd && rd->batch_size) {
    int64_t m = rd->batch_size(rd->ctx, c->index, c->next, n);
    n = m < 1 ? 1 : m < n ? m : n;
  }
  c->src->read(c->src, c->next, n, c->bs, c->be);
  acc_batch(c->a, c->bs, c->be, n);
  if (rd && rd->batch)
    rd->batch(rd->ctx, c->index, c->next, n, c->bs, c->be);
  c->next += n;
  c->s = c->bs;
  c->e = c->be;
  c->left = n;
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

/* The merge of K (1 to SP_STATS_FEW, a constant in each specialisation)
 * cursors with calls, in source index order. With K known, the comparisons
 * unroll and the heads stay in registers (each is indexed by a constant:
 * the chosen one advances through a switch); a finished cursor's head
 * becomes a sentinel that loses to any call, so nothing is moved. */
#define MERGE_ADV(j)                                                           \
  case j:                                                                      \
    if (--left[j] > 0) {                                                       \
      hs[j] = *++ps[j];                                                        \
      he[j] = *++pe[j];                                                        \
    } else {                                                                   \
      c[j].left = 0;                                                           \
      if (refill(&c[j])) {                                                     \
        ps[j] = c[j].s;                                                        \
        pe[j] = c[j].e;                                                        \
        left[j] = c[j].left;                                                   \
        hs[j] = *ps[j];                                                        \
        he[j] = *pe[j];                                                        \
      } else {                                                                 \
        hs[j] = INT64_MAX;                                                     \
        he[j] = INT64_MIN;                                                     \
        live--;                                                                \
      }                                                                        \
    }                                                                          \
    break;

static inline __attribute__((always_inline)) int
merge_k(cursor *c, const int64_t *id, nester *t, const int K) {
  /* The cursors' positions in locals; they go back to c only to refill. */
  const int64_t *ps[SP_STATS_FEW], *pe[SP_STATS_FEW];
  int64_t hs[SP_STATS_FEW], he[SP_STATS_FEW], left[SP_STATS_FEW];
#pragma GCC unroll 8
  for (int j = 0; j < K; j++) {
    ps[j] = c[j].s;
    pe[j] = c[j].e;
    left[j] = c[j].left;
    hs[j] = *ps[j];
    he[j] = *pe[j];
  }
  call *stack = t->stack;
  size_t depth = t->depth, cap = t->cap;
  int64_t *child = t->child, *open = t->open, *nested = t->nested;
  int live = K, rc = 0;
  while (live > 0) {
    int b = 0;
    int64_t bs = hs[0], be = he[0];
#pragma GCC unroll 8
    for (int j = 1; j < K; j++) {
      int better = (hs[j] < bs) | ((hs[j] == bs) & (he[j] > be));
      b = better ? j : b;
      bs = better ? hs[j] : bs;
      be = better ? he[j] : be;
    }
    if (bs == INT64_MAX && left[b] == 0) { /* a real call equal to a
                                            * finished source's sentinel */
      b = -1;
#pragma GCC unroll 8
      for (int j = 0; j < K; j++)
        if (left[j] > 0 &&
            (b < 0 || hs[j] < bs || (hs[j] == bs && he[j] > be))) {
          b = j;
          bs = hs[j];
          be = he[j];
        }
    }
    int64_t i = id[b];
    /* place(), written out with the stack and child in locals: calling
     * it (even with them gathered in a local struct) made this loop
     * slower. */
    while (depth) {
      const call *top = &stack[depth - 1];
      if (bs >= top->start && be <= top->end) {
        child[top->src] = add(child[top->src], sub(be, bs));
        break;
      }
      if (bs >= top->end) {
        open[top->src]--;
        depth--;
        continue;
      }
      place_bad(t, i, top, bs);
      break;
    }
    if (open[i]++ > 0)
      nested[i] = add(nested[i], sub(be, bs));
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
      MERGE_ADV(4)
      MERGE_ADV(5)
      MERGE_ADV(6)
      MERGE_ADV(7)
    }
  }
  t->stack = stack;
  t->depth = depth;
  t->cap = cap;
  return rc;
}
#undef MERGE_ADV

/* The merge of many cursors through a heap of their next calls. */
static void sift_down(call *h, int64_t n, int64_t i) {
  call x = h[i];
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

static int merge_heap(cursor *c, const int64_t *id, int64_t k, nester *t) {
  call *heap = malloc((size_t)k * sizeof *heap);
  if (!heap)
    return -1;
  int64_t n = 0;
  for (int64_t j = 0; j < k; j++)
    heap[n++] = (call){*c[j].s, *c[j].e, j};
  for (int64_t j = n / 2; j-- > 0;)
    sift_down(heap, n, j);
  call *stack = t->stack;
  size_t depth = t->depth, cap = t->cap;
  int rc = 0;
  while (n) {
    call x = heap[0];
    cursor *cj = &c[x.src];
    if (--cj->left > 0) {
      ++cj->s;
      ++cj->e;
      heap[0] = (call){*cj->s, *cj->e, x.src};
    } else if (refill(cj)) {
      heap[0] = (call){*cj->s, *cj->e, x.src};
    } else {
      heap[0] = heap[--n];
    }
    sift_down(heap, n, 0);
    if ((rc = place(t, &stack, &depth, &cap, id[x.src], x.start, x.end)) != 0)
      break;
  }
  t->stack = stack;
  t->depth = depth;
  t->cap = cap;
  free(heap);
  return rc;
}

/* Every call of the sources with calls (cursors c, source indices id) in
 * merge order through the nester. */
static int merge(cursor *c, const int64_t *id, int64_t k, nester *t) {
  switch (k) {
  case 0:
    return 0;
  case 1:
    return merge_k(c, id, t, 1); /* no merge: nesting in it is recursion */
  case 2:
    return merge_k(c, id, t, 2);
  case 3:
    return merge_k(c, id, t, 3);
  case 4:
    return merge_k(c, id, t, 4);
  case 5:
    return merge_k(c, id, t, 5);
  case 6:
    return merge_k(c, id, t, 6);
  case 7:
    return merge_k(c, id, t, 7);
  case 8:
    return merge_k(c, id, t, 8);
  default:
    return merge_heap(c, id, k, t);
  }
}

/* The statistics of srcs: sums per source (whole arrays at once, read()
 * sources batch by batch within the budget as the merge pulls them), and
 * exclusive time from the merge. */
static int stats_merge(const sp_fmt_source *srcs, int64_t n, int64_t index,
                       const sp_fmt_stats_reader *rd, sp_fmt_stats *out,
                       nester *t) {
  cursor *c = calloc((size_t)n, sizeof *c);
  /* Zeroed: GCC cannot see that the merge reads only the k entries set. */
  int64_t *id = calloc((size_t)n, sizeof *id);
  acc *a = malloc((size_t)n * sizeof *a);
  int64_t nread = 0, most = 1, k = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t *s, *e;
    if (srcs[i].count > 0 && !sp_fmt_source_arrays(&srcs[i], &s, &e)) {
      nread++;
      most = srcs[i].count > most ? srcs[i].count : most;
    }
  }
  uint64_t budget = (uint64_t)nread * SP_STATS_PER_SOURCE;
  budget = budget < SP_STATS_BUDGET_MIN   ? SP_STATS_BUDGET_MIN
           : budget > SP_STATS_BUDGET_MAX ? SP_STATS_BUDGET_MAX
                                          : budget;
  /* Small threads get buffers their size, not the whole budget. */
  int64_t batch = nread ? (int64_t)(budget / 16 / (uint64_t)nread) : 1;
  batch = batch < 1 ? 1 : batch < most ? batch : most;
  int64_t *buf = nread ? malloc((size_t)nread * (size_t)batch * 16) : NULL;
  int rc = -1;
  if (!c || !id || !a || (nread && !buf))
    goto out;
  for (int64_t i = 0, r = 0; i < n; i++) {
    acc_init(&a[i]);
    if (srcs[i].count <= 0)
      continue;
    cursor *ci = &c[k];
    id[k++] = i;
    *ci = (cursor){.src = &srcs[i],
                   .batch = batch,
                   .index = index + i,
                   .rd = rd,
                   .a = &a[i]};
    if (sp_fmt_source_arrays(&srcs[i], &ci->s, &ci->e)) {
      ci->left = ci->next = srcs[i].count;
      acc_batch(&a[i], ci->s, ci->e, srcs[i].count);
    } else {
      ci->bs = buf + (size_t)r * (size_t)batch * 2;
      ci->be = ci->bs + batch;
      r++;
      refill(ci);
    }
  }
  rc = merge(c, id, k, t);
  for (int64_t i = 0; i < n && rc == 0; i++)
    rc = acc_finish(&a[i], &srcs[i], &out[i]);
out:
  free(c);
  free(id);
  free(a);
  free(buf);
  return rc;
}

static int stats_thread(const sp_fmt_source *srcs, int64_t n, int64_t index,
                        const sp_fmt_stats_reader *rd, sp_fmt_stats *out,
                        sp_fmt_nesting *nest) {
  if (nest)
    memset(nest, 0, sizeof *nest);
  if (n <= 0)
    return 0;
  nester t = {.stack = malloc(64 * sizeof(call)),
              .cap = 64,
              .child = calloc((size_t)n, 8),
              .open = calloc((size_t)n, 8),
              .nested = calloc((size_t)n, 8),
              .srcs = srcs,
              .nest = nest};
  int rc = -1;
  if (t.stack && t.child && t.open && t.nested)
    rc = stats_merge(srcs, n, index, rd, out, &t);
  if (rc == 0)
    for (int64_t i = 0; i < n; i++) {
      out[i].exclusive_ns = sub(out[i].total_ns, t.child[i]);
      out[i].outer_total_ns = sub(out[i].total_ns, t.nested[i]);
    }
  free(t.stack);
  free(t.child);
  free(t.open);
  free(t.nested);
  return rc;
}

int sp_fmt_stats_thread(const sp_fmt_source *srcs, int64_t n, sp_fmt_stats *out,
                        sp_fmt_nesting *nest) {
  return stats_thread(srcs, n, 0, NULL, out, nest);
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
  return sp_fmt_stats_rank_read(srcs, n, out, nest, NULL);
}

int64_t sp_fmt_stats_rank_read(const sp_fmt_source *srcs, int64_t n,
                               sp_fmt_stats *out, sp_fmt_nesting *nest,
                               const sp_fmt_stats_reader *rd) {
  int64_t nbad = 0;
  for (int64_t lo = 0, hi; lo < n; lo = hi) {
    for (hi = lo; hi < n && srcs[hi].thread == srcs[lo].thread;)
      hi++;
    sp_fmt_nesting one = {0};
    if (stats_thread(srcs + lo, hi - lo, lo, rd, out + lo, &one) != 0)
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
