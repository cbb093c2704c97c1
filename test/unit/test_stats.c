/* test_stats.c - summary statistics and exclusive time on hand-made nesting
 * (recursion, siblings, three levels, zero-length and improper calls). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sp_format.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int64_t n;
  const int64_t *s, *e;
} calls;

static void read_calls(const sp_fmt_source *src, int64_t first, int64_t n,
                       int64_t *st, int64_t *en) {
  const calls *c = src->ctx;
  assert_true(first >= 0 && n >= 1 && first + n <= c->n);
  memcpy(st, c->s + first, (size_t)n * 8);
  memcpy(en, c->e + first, (size_t)n * 8);
}

static sp_fmt_source src(const char *name, const calls *c) {
  sp_fmt_source s = {4, name, NULL, -1, c->n, read_calls, c, 0};
  return s;
}

/* The statistics of srcs (read_calls sources) through read(), and again
 * with the same calls as in-memory blocks (the array fast path): both
 * must agree to the bit, nesting report included. Returns the first. */
static int stats_both(const sp_fmt_source *srcs, int64_t n, sp_fmt_stats *out,
                      sp_fmt_nesting *nest) {
  int rc = sp_fmt_stats_thread(srcs, n, out, nest);
  size_t cnt = n ? (size_t)n : 1;
  sp_fmt_block *b = calloc(cnt, sizeof *b);
  sp_fmt_source *a = calloc(cnt, sizeof *a);
  sp_fmt_stats *o2 = calloc(cnt, sizeof *o2);
  assert_non_null(b);
  assert_non_null(a);
  assert_non_null(o2);
  for (int64_t i = 0; i < n; i++) {
    const calls *c = srcs[i].ctx;
    b[i].count = c->n;
    b[i].starts = (int64_t *)(uintptr_t)c->s;
    b[i].ends = (int64_t *)(uintptr_t)c->e;
    a[i] = srcs[i];
    a[i].read = sp_fmt_block_read;
    a[i].ctx = &b[i];
    const int64_t *ps, *pe;
    assert_true(sp_fmt_source_arrays(&a[i], &ps, &pe));
    assert_ptr_equal(ps, c->s);
    assert_ptr_equal(pe, c->e);
  }
  const int64_t *ps, *pe;
  assert_false(n > 0 && sp_fmt_source_arrays(&srcs[0], &ps, &pe));
  sp_fmt_nesting n2;
  assert_int_equal(sp_fmt_stats_thread(a, n, o2, nest ? &n2 : NULL), rc);
  for (int64_t i = 0; i < n; i++)
    assert_memory_equal(&out[i], &o2[i], sizeof *o2);
  if (nest) {
    assert_int_equal(n2.bad, nest->bad);
    assert_int_equal(n2.thread, nest->thread);
    assert_ptr_equal(n2.outer, nest->outer);
    assert_ptr_equal(n2.inner, nest->inner);
    assert_int_equal(n2.outer_start, nest->outer_start);
    assert_int_equal(n2.inner_start, nest->inner_start);
  }
  free(b);
  free(a);
  free(o2);
  return rc;
}

static void expect(const sp_fmt_stats *o, int64_t calls_, int64_t total,
                   int64_t min, int64_t max, int64_t first, int64_t last,
                   int64_t excl) {
  assert_int_equal(o->calls, calls_);
  assert_int_equal(o->total_ns, total);
  assert_int_equal(o->min_ns, min);
  assert_int_equal(o->max_ns, max);
  assert_int_equal(o->first_start_ns, first);
  assert_int_equal(o->last_end_ns, last);
  assert_int_equal(o->exclusive_ns, excl);
  assert_int_equal(o->gpu_total_ns, -1);
}

static void recursion(void **state) {
  (void)state;
  /* r(0,100) { r(10,20) { r(12,15) } } r(200,230) */
  static const int64_t s[] = {0, 10, 12, 200}, e[] = {100, 20, 15, 230};
  calls c = {4, s, e};
  sp_fmt_source one = src("r", &c);
  sp_fmt_stats o;
  sp_fmt_nesting nest;
  assert_int_equal(stats_both(&one, 1, &o, &nest), 0);
  /* total 100+10+3+30; direct children: 10 (of the first), 3 (of the
   * second). */
  expect(&o, 4, 143, 3, 100, 0, 230, 143 - 10 - 3);
  /* the region's time: the outermost calls r(0,100) and r(200,230) */
  assert_int_equal(o.outer_total_ns, 130);
  sp_fmt_stats alone;
  assert_int_equal(sp_fmt_stats_source(&one, &alone), 0);
  assert_int_equal(alone.outer_total_ns, 130);
  assert_int_equal(alone.total_ns, 143);
  assert_false(nest.bad);
  assert_true(fabs(o.mean_ns - 35.75) < 1e-9);
  double var = ((100 - 35.75) * (100 - 35.75) + (10 - 35.75) * (10 - 35.75) +
                (3 - 35.75) * (3 - 35.75) + (30 - 35.75) * (30 - 35.75)) /
               4;
  assert_true(fabs(o.std_ns - sqrt(var)) < 1e-9);
}

static void siblings_and_three_levels(void **state) {
  (void)state;
  /* outer(0,1000) { a(10,20) b(20,50) { c(25,30) c(30,40) } a(60,160) }
   * and a top-level b(2000,2100) after it. */
  static const int64_t os[] = {0}, oe[] = {1000};
  static const int64_t as[] = {10, 60}, ae[] = {20, 160};
  static const int64_t bs[] = {20, 2000}, be[] = {50, 2100};
  static const int64_t cs[] = {25, 30}, ce[] = {30, 40};
  calls oc = {1, os, oe}, ac = {2, as, ae}, bc = {2, bs, be}, cc = {2, cs, ce};
  /* Deliberately not in nesting order: the merge must not care. */
  sp_fmt_source srcs[4] = {src("c", &cc), src("b", &bc), src("outer", &oc),
                           src("a", &ac)};
  sp_fmt_stats o[4];
  sp_fmt_nesting nest;
  assert_int_equal(stats_both(srcs, 4, o, &nest), 0);
  assert_false(nest.bad);
  expect(&o[0], 2, 15, 5, 10, 25, 40, 15);
  expect(&o[1], 2, 130, 30, 100, 20, 2100, 130 - 15);
  expect(&o[2], 1, 1000, 1000, 1000, 0, 1000, 1000 - 10 - 30 - 100);
  expect(&o[3], 2, 110, 10, 100, 10, 160, 110);
  /* no region nests in itself: the outer totals are the totals */
  for (int i = 0; i < 4; i++)
    assert_int_equal(o[i].outer_total_ns, o[i].total_ns);
}

static void recursion_through_another_region(void **state) {
  (void)state;
  /* a(0,100) { b(10,90) { a(20,80) { a(30,40) } } } a(200,210), and on
   * its own b(300,310): the inner a calls lie in a(0,100), with b between */
  static const int64_t as[] = {0, 20, 30, 200}, ae[] = {100, 80, 40, 210};
  static const int64_t bs[] = {10, 300}, be[] = {90, 310};
  calls ac = {4, as, ae}, bc = {2, bs, be};
  sp_fmt_source srcs[2] = {src("b", &bc), src("a", &ac)};
  sp_fmt_stats o[2];
  sp_fmt_nesting nest;
  assert_int_equal(stats_both(srcs, 2, o, &nest), 0);
  assert_false(nest.bad);
  assert_int_equal(o[1].total_ns, 100 + 60 + 10 + 10);
  assert_int_equal(o[1].outer_total_ns, 100 + 10);
  assert_int_equal(o[1].exclusive_ns, (100 - 80) + (60 - 10) + 10 + 10);
  assert_int_equal(o[0].outer_total_ns, 90);
  assert_true(fabs(o[1].mean_ns - 45.0) < 1e-9); /* over every call */
}

static void zero_length_and_identical(void **state) {
  (void)state;
  /* p(0,10) holds z(0,0) and z(10,10) (containment includes the ends);
   * x(20,30) and y(20,30) are identical: the lower source index is the
   * parent. */
  static const int64_t ps[] = {0}, pe[] = {10};
  static const int64_t zs[] = {0, 10}, ze[] = {0, 10};
  static const int64_t xs[] = {20}, xe[] = {30};
  calls pc = {1, ps, pe}, zc = {2, zs, ze}, xc = {1, xs, xe};
  sp_fmt_source srcs[4] = {src("z", &zc), src("p", &pc), src("x", &xc),
                           src("y", &xc)};
  sp_fmt_stats o[4];
  sp_fmt_nesting nest;
  assert_int_equal(stats_both(srcs, 4, o, &nest), 0);
  assert_false(nest.bad);
  expect(&o[0], 2, 0, 0, 0, 0, 10, 0);
  assert_true(o[0].mean_ns == 0 && o[0].std_ns == 0);
  expect(&o[1], 1, 10, 10, 10, 0, 10, 10);
  expect(&o[2], 1, 10, 10, 10, 20, 30, 0);
  expect(&o[3], 1, 10, 10, 10, 20, 30, 10);
}

static void improper_nesting(void **state) {
  (void)state;
  /* a(0,50) and b(40,80) overlap without nesting; c(60,70) is inside b;
   * then a(100,110) holds d(101,102), a second improper case not reported
   * (the first one is). */
  static const int64_t as[] = {0, 100}, ae[] = {50, 110};
  static const int64_t bs[] = {40}, be[] = {80};
  static const int64_t cs[] = {60}, ce[] = {70};
  static const int64_t ds[] = {105, 108}, de[] = {120, 109};
  calls ac = {2, as, ae}, bc = {1, bs, be}, cc = {1, cs, ce}, dc = {2, ds, de};
  sp_fmt_source srcs[4] = {src("a", &ac), src("b", &bc), src("c", &cc),
                           src("d", &dc)};
  sp_fmt_stats o[4];
  sp_fmt_nesting nest;
  assert_int_equal(stats_both(srcs, 4, o, &nest), 0);
  assert_int_equal(nest.bad, 1);
  assert_int_equal(nest.thread, 4);
  assert_string_equal(nest.outer, "a");
  assert_string_equal(nest.inner, "b");
  assert_int_equal(nest.outer_start, 0);
  assert_int_equal(nest.inner_start, 40);
  expect(&o[0], 2, 60, 10, 50, 0, 110, 60);
  expect(&o[1], 1, 40, 40, 40, 40, 80, 30);
  expect(&o[2], 1, 10, 10, 10, 60, 70, 10);
  /* d(105,120) overlaps a(100,110): not a child; d(108,109) is d's. */
  expect(&o[3], 2, 16, 1, 15, 105, 120, 15);
  /* nest is optional. */
  assert_int_equal(stats_both(srcs, 4, o, NULL), 0);
  assert_int_equal(o[1].exclusive_ns, 30);
}

static void mean_std_and_empty(void **state) {
  (void)state;
  /* Durations 2,4,4,4,5,5,7,9: mean 5, population std 2; on a clock far
   * from zero, one second long each plus those, to test stability. */
  static const int64_t d[] = {2, 4, 4, 4, 5, 5, 7, 9};
  int64_t s[8], e[8], s2[8], e2[8];
  const int64_t base = (int64_t)4e18, sec = 1000000000;
  for (int i = 0; i < 8; i++) {
    s[i] = 100 * i;
    e[i] = s[i] + d[i];
    s2[i] = base + (int64_t)i * 2 * sec;
    e2[i] = s2[i] + sec + d[i];
  }
  calls c = {8, s, e}, c2 = {8, s2, e2}, none = {0, NULL, NULL};
  sp_fmt_source srcs[3] = {src("small", &c), src("none", &none),
                           src("big", &c2)};
  sp_fmt_stats o[3];
  assert_int_equal(stats_both(srcs, 3, o, NULL), 0);
  expect(&o[0], 8, 40, 2, 9, 0, 709, 40);
  assert_true(o[0].mean_ns == 5.0);
  assert_true(fabs(o[0].std_ns - 2.0) < 1e-12);
  expect(&o[1], 0, 0, 0, 0, 0, 0, 0);
  assert_true(o[1].mean_ns == 0 && o[1].std_ns == 0);
  expect(&o[2], 8, 8 * sec + 40, sec + 2, sec + 9, base,
         base + 14 * sec + sec + 9, 8 * sec + 40);
  assert_true(fabs(o[2].mean_ns - (sec + 5.0)) < 1e-6);
  assert_true(fabs(o[2].std_ns - 2.0) < 1e-6);
}

/* Mean and std are exact sums rounded once, on each of the three paths:
 * durations under 2^32 ns (the vectorised halves), longer ones (128-bit
 * squares) and sums beyond int64 (two passes in long double). */
static void mean_std_exact_paths(void **state) {
  (void)state;
  /* 3 calls of 10 s + {1, 2, 4} ns: past 2^32 ns. Mean 10 s + 7/3 ns,
   * population variance of {1, 2, 4} is 14/9. */
  const int64_t sec = 1000000000;
  int64_t s[3] = {0, 20 * sec, 40 * sec}, e[3];
  static const int64_t d[3] = {1, 2, 4};
  for (int i = 0; i < 3; i++)
    e[i] = s[i] + 10 * sec + d[i];
  /* 2^20 calls of 302 and 303 ns alternating, past any cache-line batch:
   * mean 302.5 exactly, std 0.5 exactly (Welford's running mean drifts
   * in the last bits here). */
  enum { N = 1 << 20 };
  int64_t *s2 = malloc(N * 8), *e2 = malloc(N * 8);
  assert_non_null(s2);
  assert_non_null(e2);
  for (int64_t i = 0; i < N; i++) {
    s2[i] = 1000 * i;
    e2[i] = s2[i] + 302 + (i & 1);
  }
  /* Two calls of 2^62 ns: their total wraps int64; mean and std come from
   * the long-double passes: 2^62 and 0. */
  int64_t s3[2] = {INT64_MIN, 0}, e3[2];
  e3[0] = INT64_MIN + ((int64_t)1 << 62);
  e3[1] = (int64_t)1 << 62;
  calls c1 = {3, s, e}, c2 = {N, s2, e2}, c3 = {2, s3, e3};
  sp_fmt_stats o[3];
  sp_fmt_source one[1] = {src("long", &c1)};
  assert_int_equal(stats_both(one, 1, o, NULL), 0);
  assert_int_equal(o[0].total_ns, 30 * sec + 7);
  assert_true(o[0].mean_ns == (double)(10 * sec) + 7.0 / 3.0);
  assert_true(fabs(o[0].std_ns - sqrt(14.0 / 9.0)) < 1e-12);
  one[0] = src("many", &c2);
  assert_int_equal(stats_both(one, 1, o, NULL), 0);
  assert_int_equal(o[0].calls, N);
  assert_int_equal(o[0].min_ns, 302);
  assert_int_equal(o[0].max_ns, 303);
  assert_true(o[0].mean_ns == 302.5);
  assert_true(o[0].std_ns == 0.5);
  one[0] = src("huge", &c3);
  assert_int_equal(sp_fmt_stats_source(&one[0], &o[0]), 0);
  assert_int_equal(o[0].calls, 2);
  assert_true(o[0].mean_ns == ldexp(1.0, 62));
  assert_true(o[0].std_ns == 0.0);
  free(s2);
  free(e2);
}

/* Hostile timestamps: calls at the largest start with the smallest end
 * (what the small merge uses to mark a finished source) are still merged
 * once each, in the same order on both paths. */
static void extreme_timestamps(void **state) {
  (void)state;
  static const int64_t s0[] = {INT64_MAX, INT64_MAX},
                       e0[] = {INT64_MIN, INT64_MIN};
  static const int64_t s1[] = {5, INT64_MAX}, e1[] = {9, INT64_MIN};
  static const int64_t s2[] = {1}, e2[] = {20};
  calls c0 = {2, s0, e0}, c1 = {2, s1, e1}, c2 = {1, s2, e2};
  sp_fmt_source srcs[3] = {src("a", &c0), src("b", &c1), src("c", &c2)};
  sp_fmt_stats o[3];
  assert_true(stats_both(srcs, 3, o, NULL) >= 0);
  assert_int_equal(o[0].calls, 2);
  assert_int_equal(o[1].calls, 2);
  assert_int_equal(o[2].calls, 1);
  /* b's [5, 9) sits in c's [1, 20). */
  assert_int_equal(o[2].exclusive_ns, 19 - 4);
}

/* Many sources: each is read in small batches, within the memory budget,
 * and the nesting still comes out exact. */
typedef struct {
  int64_t j;         /* 0 = the outer source */
  int64_t max_batch; /* largest read asked for */
  int64_t reads;
} gen;

#define NSRC 20000
#define NCALL 100

static void read_gen(const sp_fmt_source *src, int64_t first, int64_t n,
                     int64_t *st, int64_t *en) {
  gen *g = (gen *)(uintptr_t)src->ctx;
  assert_true(first >= 0 && n >= 1 && first + n <= NCALL);
  g->reads++;
  if (n > g->max_batch)
    g->max_batch = n;
  for (int64_t i = 0; i < n; i++) {
    int64_t k = first + i;
    st[i] = k * 1000000 + (g->j ? g->j * 40 : 0);
    en[i] = g->j ? st[i] + 10 : st[i] + 900000;
  }
}

static void many_sources_in_batches(void **state) {
  (void)state;
  gen *g = calloc(NSRC, sizeof *g);
  sp_fmt_source *srcs = calloc(NSRC, sizeof *srcs);
  sp_fmt_stats *o = calloc(NSRC, sizeof *o);
  char(*names)[24] = calloc(NSRC, sizeof *names); /* "r" and any int64 */
  for (int64_t j = 0; j < NSRC; j++) {
    g[j].j = j;
    snprintf(names[j], sizeof names[j], "r%lld", (long long)j);
    sp_fmt_source s = {0, names[j], NULL, -1, NCALL, read_gen, &g[j], 0};
    srcs[j] = s;
  }
  sp_fmt_nesting nest;
  assert_int_equal(sp_fmt_stats_thread(srcs, NSRC, o, &nest), 0);
  assert_false(nest.bad);
  expect(&o[0], NCALL, NCALL * 900000, 900000, 900000, 0,
         (NCALL - 1) * 1000000 + 900000,
         NCALL * 900000 - (int64_t)(NSRC - 1) * NCALL * 10);
  expect(&o[NSRC - 1], NCALL, NCALL * 10, 10, 10, (NSRC - 1) * 40,
         (NCALL - 1) * 1000000 + (NSRC - 1) * 40 + 10, NCALL * 10);
  int64_t most = 0;
  for (int64_t j = 0; j < NSRC; j++) {
    assert_int_equal(o[j].calls, NCALL);
    if (g[j].max_batch > most)
      most = g[j].max_batch;
  }
  /* 8 MiB of buffers over 20,000 sources: a few dozen calls each. */
  assert_true(most * 16 * NSRC <= 8 << 20);
  assert_true(g[1].reads > 1);
  free(g);
  free(srcs);
  free(o);
  free(names);
}

/* sp_fmt_stats_rank_read: three big regions whose calls a caller puts at
 * odd places of its output and wants in batches that end on multiples of
 * 32768 there. Every batch is as long as the caller said, handed over once
 * right after it is read, in call order per source, and the statistics
 * are those of the plain call. */
typedef struct {
  int64_t at, next, reads, seen, misaligned;
} rec;

static void read_rec(const sp_fmt_source *src, int64_t first, int64_t n,
                     int64_t *st, int64_t *en) {
  rec *r = (rec *)(uintptr_t)src->ctx;
  assert_int_equal(first, r->next); /* in order, nothing twice */
  r->next += n;
  r->reads++;
  for (int64_t i = 0; i < n; i++) {
    int64_t k = first + i;
    /* outer every 1000 ns; mid and leaf nested in it */
    st[i] = 1000 * k + src->aux;
    en[i] = st[i] + 900 - 2 * src->aux;
  }
}

static int64_t aligned_size(void *ctx, int64_t i, int64_t first, int64_t n) {
  const rec *r = (const rec *)ctx + i;
  assert_int_equal(first, r->next);
  if (n >= 32768)
    n -= (r->at + first + n) % 32768;
  return n;
}

static void seen_batch(void *ctx, int64_t i, int64_t first, int64_t n,
                       const int64_t *st, const int64_t *en) {
  rec *r = (rec *)ctx + i;
  assert_int_equal(first, r->seen);     /* in order, once each */
  assert_int_equal(first + n, r->next); /* right after its read */
  r->seen += n;
  if (r->seen < 200000 && (r->at + r->seen) % 32768 != 0)
    r->misaligned++;
  assert_int_equal(st[0], 1000 * first + 100 * i);
  assert_int_equal(en[n - 1], 1000 * (first + n - 1) + 900 - 100 * i);
}

static void batches_as_the_caller_sizes_them(void **state) {
  (void)state;
  enum { N = 200000 };
  rec r[3] = {{12345, 0, 0, 0, 0},
              {12345 + N, 0, 0, 0, 0},
              {12345 + 2 * N, 0, 0, 0, 0}};
  sp_fmt_source srcs[3] = {{0, "outer", NULL, -1, N, read_rec, &r[0], 0},
                           {0, "mid", NULL, -1, N, read_rec, &r[1], 100},
                           {0, "leaf", NULL, -1, N, read_rec, &r[2], 200}};
  sp_fmt_stats o[3], plain[3];
  sp_fmt_nesting nest = {0};
  sp_fmt_stats_reader rd = {aligned_size, seen_batch, r};
  assert_int_equal(sp_fmt_stats_rank_read(srcs, 3, o, &nest, &rd), 0);
  assert_false(nest.bad);
  for (int j = 0; j < 3; j++) {
    assert_int_equal(r[j].next, N);
    assert_int_equal(r[j].seen, N);
    assert_true(r[j].reads > 2);
    assert_int_equal(r[j].misaligned, 0);
    r[j].next = r[j].reads = 0;
  }
  assert_int_equal(sp_fmt_stats_rank(srcs, 3, plain, &nest), 0);
  for (int j = 0; j < 3; j++)
    assert_memory_equal(&o[j], &plain[j], sizeof o[j]);
  /* outer 900 each, minus mid (700) directly inside; mid minus leaf (500). */
  expect(&o[0], N, (int64_t)N * 900, 900, 900, 0, 1000LL * (N - 1) + 900,
         (int64_t)N * 200);
  expect(&o[1], N, (int64_t)N * 700, 700, 700, 100, 1000LL * (N - 1) + 800,
         (int64_t)N * 200);
  expect(&o[2], N, (int64_t)N * 500, 500, 500, 200, 1000LL * (N - 1) + 700,
         (int64_t)N * 500);
}

/* Random nesting over k sources (recursion, siblings, ties, zero-length
 * calls, improper overlaps): the array fast path (a plain loop for one
 * source, merge and statistics fused for two to four, a scan up to eight,
 * a heap beyond) against the general merge. */
static uint64_t rng = 88172645463325252ull;

static int64_t rnd(int64_t n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (int64_t)(rng % (uint64_t)n);
}

typedef struct {
  int64_t *s, *e, n;
} growing;

static int improper; /* let some calls overlap their parent's end */

static void emit(growing *g, int k, int64_t *t, int64_t end, int depth) {
  while (*t < end && rnd(6) != 0) {
    growing *x = &g[rnd(k)];
    int64_t s = *t, len = rnd(4) == 0 ? 0 : 1 + rnd(end - s + 1);
    int64_t e = s + len > end ? end : s + len;
    if (improper && rnd(50) == 0)
      e += 1 + rnd(5); /* overlaps its parent's end: improper */
    x->s[x->n] = s;
    x->e[x->n++] = e;
    if (depth < 6 && e > s)
      emit(g, k, t, e, depth + 1);
    *t = e + (rnd(3) == 0 ? 0 : rnd(3)); /* siblings may touch */
  }
}

static void fast_path_matches_general(void **state) {
  (void)state;
  static const int ks[] = {1, 2, 3, 4, 5, 8, 9, 40};
  int bad = 0, good = 0;
  for (size_t q = 0; q < sizeof ks / sizeof ks[0]; q++)
    for (int round = 0; round < 20; round++) {
      int k = ks[q];
      enum { CAP = 40000 };
      growing *g = calloc((size_t)k, sizeof *g);
      calls *c = calloc((size_t)k, sizeof *c);
      sp_fmt_source *srcs = calloc((size_t)k, sizeof *srcs);
      sp_fmt_stats *o = calloc((size_t)k, sizeof *o);
      char(*names)[16] = calloc((size_t)k, sizeof *names);
      for (int j = 0; j < k; j++) {
        g[j].s = malloc(CAP * 8);
        g[j].e = malloc(CAP * 8);
      }
      improper = round % 2;
      int64_t t = (int64_t)round * 1000;
      while (t < 20000 + (int64_t)round * 1000) {
        int64_t top = t + 1 + rnd(2000);
        emit(g, k, &t, top, 0);
        t = top + rnd(2);
      }
      int64_t total = 0;
      for (int j = 0; j < k; j++) {
        assert_true(g[j].n <= CAP);
        total += g[j].n;
        c[j] = (calls){g[j].n, g[j].s, g[j].e};
        snprintf(names[j], sizeof names[j], "r%d", j);
        srcs[j] = src(names[j], &c[j]);
      }
      assert_true(total > 100);
      sp_fmt_nesting nest;
      assert_int_equal(stats_both(srcs, k, o, &nest), 0);
      bad += nest.bad;
      good += !nest.bad;
      int64_t calls_ = 0;
      for (int j = 0; j < k; j++) {
        calls_ += o[j].calls;
        assert_true(o[j].exclusive_ns <= o[j].total_ns);
      }
      assert_int_equal(calls_, total);
      if (k <= 8) {
        /* The same sources plus nine one-call sources after them all:
         * past eight sources with calls the merge is a heap, so this
         * checks the unrolled merge against it, nesting report too. */
        static const int64_t ps[9] = {1000001, 1000002, 1000003,
                                      1000004, 1000005, 1000006,
                                      1000007, 1000008, 1000009};
        static const int64_t pe[9] = {1000001, 1000002, 1000003,
                                      1000004, 1000005, 1000006,
                                      1000007, 1000008, 1000009};
        calls pad[9];
        sp_fmt_source *more = calloc((size_t)k + 9, sizeof *more);
        sp_fmt_stats *o2 = calloc((size_t)k + 9, sizeof *o2);
        assert_non_null(more);
        assert_non_null(o2);
        for (int j = 0; j < k; j++)
          more[j] = srcs[j];
        for (int j = 0; j < 9; j++) {
          pad[j] = (calls){1, &ps[j], &pe[j]};
          more[k + j] = src("pad", &pad[j]);
        }
        sp_fmt_nesting n2;
        assert_int_equal(stats_both(more, k + 9, o2, &n2), 0);
        for (int j = 0; j < k; j++)
          assert_memory_equal(&o[j], &o2[j], sizeof *o2);
        assert_int_equal(n2.bad, nest.bad);
        if (nest.bad) {
          assert_ptr_equal(n2.outer, nest.outer);
          assert_ptr_equal(n2.inner, nest.inner);
          assert_int_equal(n2.outer_start, nest.outer_start);
          assert_int_equal(n2.inner_start, nest.inner_start);
        }
        free(more);
        free(o2);
      }
      for (int j = 0; j < k; j++) {
        free(g[j].s);
        free(g[j].e);
      }
      free(g);
      free(c);
      free(srcs);
      free(o);
      free(names);
    }
  /* Both kinds of thread were covered. */
  assert_true(bad > 0 && good > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(recursion),
      cmocka_unit_test(siblings_and_three_levels),
      cmocka_unit_test(recursion_through_another_region),
      cmocka_unit_test(zero_length_and_identical),
      cmocka_unit_test(improper_nesting),
      cmocka_unit_test(mean_std_and_empty),
      cmocka_unit_test(mean_std_exact_paths),
      cmocka_unit_test(extreme_timestamps),
      cmocka_unit_test(many_sources_in_batches),
      cmocka_unit_test(batches_as_the_caller_sizes_them),
      cmocka_unit_test(fast_path_matches_general),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
