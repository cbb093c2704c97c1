/* test_h5.c - the schema-2 HDF5 writer and reader: rows written through
 * sources read back exactly (names, ids, offsets, timestamps, stats,
 * metadata types), streaming past a chunk, failures leaving nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sp_format.h"
#include "test_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Files in the test directory other than the expected ones. */
static int count_files(void) {
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "%s/test_h5_work.%d", SP_TEST_BINARY_DIR,
           (int)getpid());
  mkdir(dir, 0777);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (e->d_name[0] != '.')
      unlink(at(e->d_name));
  if (d)
    closedir(d);
  rmdir(dir);
  return 0;
}

typedef struct {
  int64_t n;
  const int64_t *s, *e;
} arr;

static void arr_read(const sp_fmt_source *src, int64_t first, int64_t n,
                     int64_t *starts, int64_t *ends) {
  const arr *a = src->ctx;
  memcpy(starts, a->s + first, (size_t)n * 8);
  memcpy(ends, a->e + first, (size_t)n * 8);
}

/* Rank 3: thread 0 main [100,1000) holding solve x2 and io nested in the
 * second solve; thread 1 solve x1. Rank 5: one unicode region. */
static const int64_t MAIN_S[] = {100}, MAIN_E[] = {1000};
static const int64_t SOLVE_S[] = {150, 400}, SOLVE_E[] = {350, 900};
static const int64_t IO_S[] = {500}, IO_E[] = {600};
static const int64_t T1_S[] = {2000}, T1_E[] = {2600};
static const int64_t U_S[] = {7, 20, 40}, U_E[] = {10, 30, 41};
static arr A_MAIN = {1, MAIN_S, MAIN_E}, A_SOLVE = {2, SOLVE_S, SOLVE_E},
           A_IO = {1, IO_S, IO_E}, A_T1 = {1, T1_S, T1_E}, A_U = {3, U_S, U_E};
#define UNAME "\xc3\xbcnicode"

#define LONG_LIST 10000

static void write_sample(const char *path, int with_modules) {
  sp_fmt_source t0[3] = {
      {0, "main", "app.c", 10, 1, arr_read, &A_MAIN, 0},
      {0, "solve", NULL, -1, 2, arr_read, &A_SOLVE, 0},
      {0, "io", "", 12, 1, arr_read, &A_IO, 0},
  };
  sp_fmt_source t1 = {1, "solve", "solve.c", 33, 1, arr_read, &A_T1, 0};
  sp_fmt_source r5 = {0, UNAME, NULL, -1, 3, arr_read, &A_U, 0};
  sp_fmt_stats st[3];
  sp_fmt_err err = {""};
  assert_int_equal(sp_fmt_stats_thread(t0, 3, st, NULL), 0);
  sp_fmt_h5w *w = sp_fmt_h5w_open(path, &err);
  assert_non_null(w);
  for (int i = 0; i < 3; i++)
    assert_int_equal(sp_fmt_h5w_row(w, 3, &t0[i], &st[i], &err), 0);
  assert_int_equal(sp_fmt_h5w_row(w, 3, &t1, NULL, &err), 0);
  assert_int_equal(sp_fmt_h5w_row(w, 5, &r5, NULL, &err), 0);
  sp_fmt_meta m = {0, NULL};
  const char *mods[3] = {"a/1", "b/2", UNAME};
  char *longv = malloc(70001);
  memset(longv, 'x', 70000);
  longv[70000] = '\0';
  assert_int_equal(sp_fmt_meta_set_str(&m, "hostname", "node-7"), 0);
  assert_int_equal(sp_fmt_meta_set_int(&m, "mpi_size", 2), 0);
  assert_int_equal(sp_fmt_meta_set_str(&m, "PATH", longv), 0);
  if (with_modules)
    assert_int_equal(sp_fmt_meta_set_strlist(&m, "modules", mods, 3), 0);
  assert_int_equal(sp_fmt_meta_set_strlist(&m, "empty", NULL, 0), 0);
  /* a list too long for an attribute (a host per rank of a large job) */
  static char hostbuf[LONG_LIST][16];
  const char *hosts[LONG_LIST];
  for (int i = 0; i < LONG_LIST; i++) {
    snprintf(hostbuf[i], sizeof hostbuf[i], "node%d", i / 64);
    hosts[i] = hostbuf[i];
  }
  assert_int_equal(
      sp_fmt_meta_set_strlist(&m, "rank_hostname", hosts, LONG_LIST), 0);
  assert_int_equal(sp_fmt_h5w_meta(w, &m, &err), 0);
  sp_fmt_meta_free(&m);
  free(longv);
  assert_int_equal(sp_fmt_h5w_close(w, &err), 0);
}

static void check_meta(const sp_fmt_meta *m) {
  const sp_fmt_meta_item *it = sp_fmt_meta_get(m, "hostname");
  assert_non_null(it);
  assert_int_equal(it->type, SP_FMT_META_STR);
  assert_string_equal(it->str, "node-7");
  it = sp_fmt_meta_get(m, "mpi_size");
  assert_non_null(it);
  assert_int_equal(it->type, SP_FMT_META_INT);
  assert_int_equal(it->i64, 2);
  it = sp_fmt_meta_get(m, "modules");
  assert_non_null(it);
  assert_int_equal(it->type, SP_FMT_META_STRLIST);
  assert_int_equal(it->nstrs, 3);
  assert_string_equal(it->strs[0], "a/1");
  assert_string_equal(it->strs[2], UNAME);
  it = sp_fmt_meta_get(m, "empty");
  assert_non_null(it);
  assert_int_equal(it->type, SP_FMT_META_STRLIST);
  assert_int_equal(it->nstrs, 0);
  it = sp_fmt_meta_get(m, "rank_hostname");
  assert_non_null(it);
  assert_int_equal(it->type, SP_FMT_META_STRLIST);
  assert_int_equal(it->nstrs, LONG_LIST);
  assert_string_equal(it->strs[0], "node0");
  assert_string_equal(it->strs[LONG_LIST - 1], "node156");
  it = sp_fmt_meta_get(m, "PATH");
  assert_non_null(it);
  assert_int_equal(strlen(it->str), 60000 + strlen("...[truncated]"));
  assert_string_equal(it->str + 60000, "...[truncated]");
  assert_int_equal(it->str[59999], 'x');
}

static void test_summary(void **state) {
  (void)state;
  write_sample(at("s.h5"), 1);
  sp_fmt_h5_summary s;
  sp_fmt_err err = {""};
  assert_int_equal(sp_fmt_h5_read_summary(at("s.h5"), &s, &err), 0);
  assert_int_equal(s.nnames, 4);
  assert_string_equal(s.names[0], "main");
  assert_string_equal(s.names[1], "solve");
  assert_string_equal(s.names[2], "io");
  assert_string_equal(s.names[3], UNAME);
  assert_int_equal(s.nrows, 5);
  /* rank, thread, region, offset, count, line */
  const int64_t want[5][6] = {{3, 0, 0, 0, 1, 10},
                              {3, 0, 1, 1, 2, 33},
                              {3, 0, 2, 3, 1, 12},
                              {3, 1, 1, 4, 1, 33},
                              {5, 0, 3, 5, 3, -1}};
  for (int i = 0; i < 5; i++) {
    assert_int_equal(s.rows[i].rank, want[i][0]);
    assert_int_equal(s.rows[i].thread, want[i][1]);
    assert_int_equal(s.rows[i].region, want[i][2]);
    assert_int_equal(s.rows[i].event_offset, want[i][3]);
    assert_int_equal(s.rows[i].event_count, want[i][4]);
    assert_int_equal(s.rows[i].source_line, want[i][5]);
  }
  /* A region's first known location serves all its rows; "" is none. */
  assert_string_equal(s.rows[0].source_file, "app.c");
  assert_string_equal(s.rows[1].source_file, "solve.c");
  assert_null(s.rows[2].source_file);
  assert_string_equal(s.rows[3].source_file, "solve.c");
  assert_null(s.rows[4].source_file);
  /* main: 900 total, minus solve (200 + 500) = 200 exclusive. */
  const sp_fmt_stats *m = &s.rows[0].stats;
  assert_int_equal(m->calls, 1);
  assert_int_equal(m->total_ns, 900);
  assert_int_equal(m->exclusive_ns, 200);
  assert_int_equal(m->first_start_ns, 100);
  assert_int_equal(m->last_end_ns, 1000);
  const sp_fmt_stats *v = &s.rows[1].stats;
  assert_int_equal(v->calls, 2);
  assert_int_equal(v->total_ns, 700);
  assert_int_equal(v->min_ns, 200);
  assert_int_equal(v->max_ns, 500);
  assert_int_equal(v->exclusive_ns, 600);
  assert_true(v->mean_ns == 350.0);
  assert_true(v->std_ns == 150.0);
  assert_int_equal(v->gpu_total_ns, -1);
  /* Rows written without stats: computed from the row alone. */
  const sp_fmt_stats *u = &s.rows[4].stats;
  assert_int_equal(u->calls, 3);
  assert_int_equal(u->total_ns, 3 + 10 + 1);
  assert_int_equal(u->min_ns, 1);
  assert_int_equal(u->max_ns, 10);
  assert_int_equal(u->first_start_ns, 7);
  assert_int_equal(u->last_end_ns, 41);
  assert_int_equal(u->exclusive_ns, 14);
  assert_int_equal(u->gpu_total_ns, -1);
  assert_true(u->mean_ns > 4.6666 && u->mean_ns < 4.6667);
  check_meta(&s.meta);
  sp_fmt_h5_summary_free(&s);
}

static void test_full_read(void **state) {
  (void)state;
  write_sample(at("f.h5"), 1);
  sp_fmt_rank *r;
  int64_t n;
  sp_fmt_err err = {""};
  assert_int_equal(sp_fmt_h5_read(at("f.h5"), &r, &n, &err), 0);
  assert_int_equal(n, 2);
  assert_int_equal(r[0].rank, 3);
  assert_int_equal(r[0].version, 0);
  assert_int_equal(r[0].nregions, 3);
  assert_int_equal(r[0].nblocks, 4);
  assert_string_equal(r[0].regions[0].name, "main");
  assert_string_equal(r[0].regions[0].file, "app.c");
  assert_int_equal(r[0].regions[0].line, 10);
  assert_string_equal(r[0].regions[1].name, "solve");
  const sp_fmt_block *b = &r[0].blocks[1];
  assert_int_equal(b->thread, 0);
  assert_int_equal(b->region, 1);
  assert_int_equal(b->count, 2);
  assert_int_equal(b->starts[0], 150);
  assert_int_equal(b->ends[0], 350);
  assert_int_equal(b->starts[1], 400);
  assert_int_equal(b->ends[1], 900);
  b = &r[0].blocks[3];
  assert_int_equal(b->thread, 1);
  assert_int_equal(b->region, 1);
  assert_int_equal(b->starts[0], 2000);
  assert_int_equal(b->ends[0], 2600);
  assert_int_equal(r[1].rank, 5);
  assert_int_equal(r[1].nblocks, 1);
  assert_string_equal(r[1].regions[0].name, UNAME);
  assert_null(r[1].regions[0].file);
  assert_int_equal(r[1].regions[0].line, -1);
  assert_int_equal(r[1].blocks[0].count, 3);
  assert_int_equal(r[1].blocks[0].starts[2], 40);
  assert_int_equal(r[1].blocks[0].ends[2], 41);
  check_meta(&r[0].meta);
  check_meta(&r[1].meta);
  for (int64_t i = 0; i < n; i++)
    sp_fmt_rank_free(&r[i]);
  free(r);
}

/* Calls generated on the fly: i-th call [10 i, 10 i + 5). */
static void gen_read(const sp_fmt_source *src, int64_t first, int64_t n,
                     int64_t *starts, int64_t *ends) {
  for (int64_t i = 0; i < n; i++) {
    starts[i] = 10 * (first + i) + src->aux;
    ends[i] = starts[i] + 5;
  }
}

static void test_streaming(void **state) {
  (void)state;
  /* More than two 1 Mi chunks, split over rows that straddle chunks. */
  const int64_t n1 = 1500000, n2 = 1200000;
  sp_fmt_source a = {0, "a", NULL, -1, n1, gen_read, NULL, 0};
  sp_fmt_source b = {0, "b", NULL, -1, n2, gen_read, NULL, 100000000};
  sp_fmt_err err = {""};
  sp_fmt_h5w *w = sp_fmt_h5w_open(at("big.h5"), &err);
  assert_non_null(w);
  assert_int_equal(sp_fmt_h5w_row(w, 0, &a, NULL, &err), 0);
  assert_int_equal(sp_fmt_h5w_row(w, 1, &b, NULL, &err), 0);
  assert_int_equal(sp_fmt_h5w_close(w, &err), 0);
  sp_fmt_rank *r;
  int64_t n;
  assert_int_equal(sp_fmt_h5_read(at("big.h5"), &r, &n, &err), 0);
  assert_int_equal(n, 2);
  assert_int_equal(r[0].blocks[0].count, n1);
  assert_int_equal(r[1].blocks[0].count, n2);
  for (int64_t i = 0; i < n1; i++)
    if (r[0].blocks[0].starts[i] != 10 * i ||
        r[0].blocks[0].ends[i] != 10 * i + 5)
      fail_msg("rank 0 call %lld", (long long)i);
  for (int64_t i = 0; i < n2; i++)
    if (r[1].blocks[0].starts[i] != 10 * i + 100000000)
      fail_msg("rank 1 call %lld", (long long)i);
  for (int64_t i = 0; i < n; i++)
    sp_fmt_rank_free(&r[i]);
  free(r);
  sp_fmt_h5_summary s;
  assert_int_equal(sp_fmt_h5_read_summary(at("big.h5"), &s, &err), 0);
  assert_int_equal(s.rows[1].event_offset, n1);
  assert_int_equal(s.rows[0].stats.total_ns, 5 * n1);
  assert_int_equal(s.rows[1].stats.last_end_ns, 10 * (n2 - 1) + 5 + 100000000);
  assert_true(s.rows[0].stats.std_ns == 0.0);
  sp_fmt_h5_summary_free(&s);
}

/* Rows whose calls are in-memory blocks (at least a chunk of them: written
 * from the caller's arrays) between rows that go through the batch: the
 * file must match, value for value, the one written through read(). */
static void write_rows(const char *path, const sp_fmt_block *blk, int nrow,
                       int direct) {
  static const char *names[] = {"r0", "r1", "r2", "r3", "r4", "r5", "r6"};
  sp_fmt_err err = {""};
  sp_fmt_h5w *w = sp_fmt_h5w_open(path, &err);
  assert_non_null(w);
  for (int i = 0; i < nrow; i++) {
    arr a = {blk[i].count, blk[i].starts, blk[i].ends};
    sp_fmt_source s = {i,
                       names[i],
                       "f.c",
                       10 + i,
                       blk[i].count,
                       direct ? sp_fmt_block_read : arr_read,
                       direct ? (const void *)&blk[i] : (const void *)&a,
                       0};
    /* Rows 2 and 5 come with their statistics, as sp-import gives them. */
    sp_fmt_stats st = {blk[i].count, 7, 1, 2, 3, 4, 5, -1, 6.5, 0.25, 7};
    assert_int_equal(sp_fmt_h5w_row(w, 2, &s, i % 3 == 2 ? &st : NULL, &err),
                     0);
  }
  assert_int_equal(sp_fmt_h5w_close(w, &err), 0);
}

static void test_direct_matches_batched(void **state) {
  (void)state;
  enum { NROW = 7 };
  const int64_t counts[NROW] = {1000, 300000, 5, 1100000, 70000, 262144, 3};
  sp_fmt_block blk[NROW];
  uint64_t x = 12345;
  int64_t t = 1000;
  for (int i = 0; i < NROW; i++) {
    blk[i] = (sp_fmt_block){i,
                            i,
                            counts[i],
                            malloc((size_t)counts[i] * 8),
                            malloc((size_t)counts[i] * 8),
                            -1,
                            0};
    for (int64_t k = 0; k < counts[i]; k++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      blk[i].starts[k] = t;
      blk[i].ends[k] = t + (int64_t)(x >> 54);
      t += 2000;
    }
  }
  write_rows(at("direct.h5"), blk, NROW, 1);
  write_rows(at("batched.h5"), blk, NROW, 0);
  sp_fmt_err err = {""};
  sp_fmt_h5_summary a, b;
  assert_int_equal(sp_fmt_h5_read_summary(at("direct.h5"), &a, &err), 0);
  assert_int_equal(sp_fmt_h5_read_summary(at("batched.h5"), &b, &err), 0);
  assert_int_equal(a.nrows, NROW);
  assert_int_equal(b.nrows, NROW);
  int64_t off = 0;
  for (int i = 0; i < NROW; i++) {
    assert_int_equal(a.rows[i].event_offset, off);
    assert_int_equal(b.rows[i].event_offset, off);
    assert_int_equal(a.rows[i].event_count, counts[i]);
    assert_int_equal(a.rows[i].thread, i);
    assert_int_equal(a.rows[i].source_line, 10 + i);
    assert_memory_equal(&a.rows[i].stats, &b.rows[i].stats,
                        sizeof a.rows[i].stats);
    off += counts[i];
  }
  assert_int_equal(a.rows[3].stats.calls, 1100000);
  assert_int_equal(a.rows[3].stats.first_start_ns, blk[3].starts[0]);
  assert_int_equal(a.rows[5].stats.total_ns, 7); /* as given */
  sp_fmt_h5_summary_free(&a);
  sp_fmt_h5_summary_free(&b);
  sp_fmt_rank *ra, *rb;
  int64_t na, nb;
  assert_int_equal(sp_fmt_h5_read(at("direct.h5"), &ra, &na, &err), 0);
  assert_int_equal(sp_fmt_h5_read(at("batched.h5"), &rb, &nb, &err), 0);
  assert_int_equal(na, 1);
  assert_int_equal(nb, 1);
  assert_int_equal(ra[0].nblocks, NROW);
  for (int64_t j = 0; j < NROW; j++) {
    const sp_fmt_block *x1 = &ra[0].blocks[j], *x2 = &rb[0].blocks[j];
    const sp_fmt_block *want = &blk[x1->thread];
    assert_int_equal(x1->count, want->count);
    assert_int_equal(x2->count, want->count);
    assert_memory_equal(x1->starts, want->starts, (size_t)want->count * 8);
    assert_memory_equal(x1->ends, want->ends, (size_t)want->count * 8);
    assert_memory_equal(x2->starts, want->starts, (size_t)want->count * 8);
    assert_memory_equal(x2->ends, want->ends, (size_t)want->count * 8);
  }
  sp_fmt_rank_free(&ra[0]);
  sp_fmt_rank_free(&rb[0]);
  free(ra);
  free(rb);
  for (int i = 0; i < NROW; i++) {
    free(blk[i].starts);
    free(blk[i].ends);
  }
}

/* A reserved writer: rows take counts only, their calls come by
 * sp_fmt_h5w_put, in any order; the file reads back value for value. Rows
 * adding up to more or less than reserved, or puts outside it, fail and leave
 * nothing. */
static void test_reserved(void **state) {
  (void)state;
  static const int64_t s0[] = {10, 20, 30}, e0[] = {15, 26, 37};
  static const int64_t s1[] = {100, 200}, e1[] = {150, 260};
  sp_fmt_err err = {""};
  sp_fmt_h5w *w = sp_fmt_h5w_open(at("res.h5"), &err);
  assert_non_null(w);
  assert_int_equal(sp_fmt_h5w_reserve(w, 5, &err), 0);
  assert_int_not_equal(sp_fmt_h5w_reserve(w, 5, &err), 0); /* twice */
  arr a0 = {3, s0, e0}, a1 = {2, s1, e1};
  sp_fmt_source r0 = {0, "a", "a.c", 3, 3, arr_read, &a0, 0};
  sp_fmt_source r1 = {1, "b", NULL, -1, 2, arr_read, &a1, 0};
  sp_fmt_stats st0, st1;
  assert_int_equal(sp_fmt_stats_source(&r0, &st0), 0);
  assert_int_equal(sp_fmt_stats_source(&r1, &st1), 0);
  assert_int_not_equal(sp_fmt_h5w_row(w, 4, &r0, NULL, &err), 0);
  assert_non_null(strstr(err.msg, "without statistics"));
  assert_int_equal(sp_fmt_h5w_events(w), 0);
  assert_int_equal(sp_fmt_h5w_row(w, 4, &r0, &st0, &err), 0);
  assert_int_equal(sp_fmt_h5w_events(w), 3);
  assert_int_equal(sp_fmt_h5w_row(w, 4, &r1, &st1, &err), 0);
  assert_int_not_equal(sp_fmt_h5w_put(w, 4, s0, e0, 3, &err), 0);
  assert_non_null(strstr(err.msg, "outside the 5 reserved"));
  /* Out of order: row 1's calls first, then row 0's. */
  assert_int_equal(sp_fmt_h5w_put(w, 3, s1, e1, 2, &err), 0);
  assert_int_equal(sp_fmt_h5w_put(w, 0, s0, e0, 3, &err), 0);
  assert_int_equal(sp_fmt_h5w_close(w, &err), 0);
  sp_fmt_rank *r;
  int64_t n;
  assert_int_equal(sp_fmt_h5_read(at("res.h5"), &r, &n, &err), 0);
  assert_int_equal(n, 1);
  assert_int_equal(r[0].rank, 4);
  assert_int_equal(r[0].nblocks, 2);
  assert_memory_equal(r[0].blocks[0].starts, s0, sizeof s0);
  assert_memory_equal(r[0].blocks[0].ends, e0, sizeof e0);
  assert_memory_equal(r[0].blocks[1].starts, s1, sizeof s1);
  assert_memory_equal(r[0].blocks[1].ends, e1, sizeof e1);
  sp_fmt_rank_free(&r[0]);
  free(r);
  sp_fmt_h5_summary sum;
  assert_int_equal(sp_fmt_h5_read_summary(at("res.h5"), &sum, &err), 0);
  assert_int_equal(sum.rows[0].stats.total_ns, 5 + 6 + 7);
  assert_int_equal(sum.rows[1].event_offset, 3);
  assert_int_equal(sum.rows[1].stats.max_ns, 60);
  sp_fmt_h5_summary_free(&sum);
  /* Fewer calls than reserved: close fails, nothing left. */
  w = sp_fmt_h5w_open(at("short.h5"), &err);
  assert_non_null(w);
  assert_int_equal(sp_fmt_h5w_reserve(w, 6, &err), 0);
  assert_int_equal(sp_fmt_h5w_row(w, 0, &r0, &st0, &err), 0);
  assert_int_not_equal(sp_fmt_h5w_close(w, &err), 0);
  assert_non_null(strstr(err.msg, "rows hold 3 calls, 6 reserved"));
  assert_int_equal(access(at("short.h5"), F_OK), -1);
  /* More: the row is refused. */
  w = sp_fmt_h5w_open(at("long.h5"), &err);
  assert_non_null(w);
  assert_int_equal(sp_fmt_h5w_reserve(w, 2, &err), 0);
  assert_int_not_equal(sp_fmt_h5w_row(w, 0, &r0, &st0, &err), 0);
  assert_non_null(strstr(err.msg, "more calls than the 2 reserved"));
  sp_fmt_h5w_abort(w);
  assert_int_equal(access(at("long.h5"), F_OK), -1);
  unlink(at("res.h5"));
}

/* Reserved event datasets of 4 MiB and more start on a 256 KiB boundary of
 * the file (writes into them are then whole aligned pieces); the calls
 * read back. */
static void test_reserved_aligned(void **state) {
  (void)state;
  enum { N = 600000 };
  int64_t *s = malloc(N * 8), *e = malloc(N * 8);
  assert_non_null(s);
  assert_non_null(e);
  for (int64_t i = 0; i < N; i++) {
    s[i] = 10 * i;
    e[i] = 10 * i + 3;
  }
  sp_fmt_err err = {""};
  sp_fmt_h5w *w = sp_fmt_h5w_open(at("big.h5"), &err);
  assert_non_null(w);
  assert_int_equal(sp_fmt_h5w_reserve(w, N, &err), 0);
  arr a = {N, s, e};
  sp_fmt_source src = {0, "a", NULL, -1, N, arr_read, &a, 0};
  sp_fmt_stats st;
  assert_int_equal(sp_fmt_stats_source(&src, &st), 0);
  assert_int_equal(sp_fmt_h5w_row(w, 0, &src, &st, &err), 0);
  assert_int_equal(sp_fmt_h5w_put(w, 0, s, e, N, &err), 0);
  assert_int_equal(sp_fmt_h5w_close(w, &err), 0);
  hid_t f = H5Fopen(at("big.h5"), H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  const char *names[2] = {"events/start_times", "events/end_times"};
  for (int k = 0; k < 2; k++) {
    hid_t d = H5Dopen2(f, names[k], H5P_DEFAULT);
    assert_true(d >= 0);
    haddr_t off = H5Dget_offset(d);
    assert_true(off != HADDR_UNDEF);
    assert_int_equal(off % (256 << 10), 0);
    H5Dclose(d);
  }
  H5Fclose(f);
  sp_fmt_rank *r;
  int64_t n;
  assert_int_equal(sp_fmt_h5_read(at("big.h5"), &r, &n, &err), 0);
  assert_int_equal(r[0].blocks[0].count, N);
  assert_memory_equal(r[0].blocks[0].starts, s, (size_t)N * 8);
  assert_memory_equal(r[0].blocks[0].ends, e, (size_t)N * 8);
  sp_fmt_rank_free(&r[0]);
  free(r);
  free(s);
  free(e);
  unlink(at("big.h5"));
}

static void test_failures_leave_nothing(void **state) {
  (void)state;
  sp_fmt_err err = {""};
  /* Unwritable: a directory that does not exist. */
  assert_null(sp_fmt_h5w_open(at("no/such/dir/x.h5"), &err));
  assert_non_null(strstr(err.msg, "no/such/dir/x.h5"));
  assert_null(strchr(err.msg, '\n'));
  /* A row out of order fails; abort keeps the old file, no temporary. */
  FILE *f = fopen(at("keep.h5"), "w");
  fputs("OLD", f);
  fclose(f);
  int before = count_files();
  sp_fmt_source a = {1, "a", NULL, -1, 1, arr_read, &A_MAIN, 0};
  sp_fmt_source b = {0, "b", NULL, -1, 1, arr_read, &A_MAIN, 0};
  sp_fmt_h5w *w = sp_fmt_h5w_open(at("keep.h5"), &err);
  assert_non_null(w);
  assert_int_equal(sp_fmt_h5w_row(w, 0, &a, NULL, &err), 0);
  assert_int_not_equal(sp_fmt_h5w_row(w, 0, &b, NULL, &err), 0);
  assert_non_null(strstr(err.msg, "keep.h5"));
  /* The same (rank, thread, region) twice is refused too. */
  assert_int_not_equal(sp_fmt_h5w_row(w, 0, &a, NULL, &err), 0);
  sp_fmt_h5w_abort(w);
  assert_int_equal(count_files(), before);
  char buf[8] = "";
  f = fopen(at("keep.h5"), "r");
  assert_non_null(fgets(buf, sizeof buf, f));
  fclose(f);
  assert_string_equal(buf, "OLD");
  /* A close that fails (target is a directory) removes the temporary. */
  mkdir(at("adir.h5"), 0777);
  before = count_files();
  w = sp_fmt_h5w_open(at("adir.h5"), &err);
  assert_non_null(w);
  assert_int_equal(sp_fmt_h5w_row(w, 0, &a, NULL, &err), 0);
  assert_int_not_equal(sp_fmt_h5w_close(w, &err), 0);
  assert_non_null(strstr(err.msg, "adir.h5"));
  assert_int_equal(count_files(), before);
  rmdir(at("adir.h5"));
}

/* Edits one int64 of a dataset, or the schema attribute, of a good file. */
static void poke(const char *path, const char *ds, int64_t idx, int64_t v) {
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  assert_true(f >= 0);
  if (!ds) {
    hid_t a = H5Aopen(f, "scope_profiler_schema", H5P_DEFAULT);
    assert_true(H5Awrite(a, H5T_NATIVE_INT64, &v) >= 0);
    H5Aclose(a);
  } else if (idx < 0) {
    assert_true(H5Ldelete(f, ds, H5P_DEFAULT) >= 0);
  } else {
    hid_t d = H5Dopen2(f, ds, H5P_DEFAULT);
    hid_t fs = H5Dget_space(d);
    hsize_t start = (hsize_t)idx, one = 1;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &one, NULL);
    hid_t ms = H5Screate_simple(1, &one, NULL);
    assert_true(H5Dwrite(d, H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT, &v) >= 0);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
  }
  H5Fclose(f);
}

/* summary_too: sp_fmt_h5_read_summary must refuse the file as well (it
 * does not check what only grouping into ranks needs). */
/* Renames region idx of a good file in place. */
static void poke_name(const char *path, int64_t idx, const char *name) {
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, "region_table/names", H5P_DEFAULT);
  hid_t t = H5Dget_type(d), fs = H5Dget_space(d);
  hsize_t start = (hsize_t)idx, one = 1;
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &one, NULL);
  hid_t ms = H5Screate_simple(1, &one, NULL);
  assert_true(H5Dwrite(d, t, ms, fs, H5P_DEFAULT, &name) >= 0);
  H5Sclose(ms);
  H5Sclose(fs);
  H5Tclose(t);
  H5Dclose(d);
  H5Fclose(f);
}

static void expect_error(const char *path, const char *what, int summary_too) {
  sp_fmt_err err = {""};
  sp_fmt_rank *r = NULL;
  int64_t n = -1;
  assert_int_not_equal(sp_fmt_h5_read(path, &r, &n, &err), 0);
  assert_null(r);
  assert_int_equal(n, 0);
  if (!strstr(err.msg, what) || !strstr(err.msg, path))
    fail_msg("message '%s' lacks '%s'", err.msg, what);
  assert_null(strchr(err.msg, '\n'));
  sp_fmt_h5_summary s;
  if (summary_too) {
    assert_int_not_equal(sp_fmt_h5_read_summary(path, &s, &err), 0);
    assert_non_null(strstr(err.msg, what));
  }
}

static void test_reader_rejects(void **state) {
  (void)state;
  write_sample(at("c.h5"), 0);
  poke(at("c.h5"), "rank_region_index/event_counts", 1, 1000);
  expect_error(at("c.h5"), "beyond the 8 stored", 1);
  write_sample(at("c.h5"), 0);
  poke(at("c.h5"), "rank_region_index/event_offsets", 0, -1);
  expect_error(at("c.h5"), "negative", 1);
  write_sample(at("c.h5"), 0);
  poke(at("c.h5"), NULL, 0, 3);
  expect_error(at("c.h5"), "schema 3 is newer", 1);
  write_sample(at("c.h5"), 0);
  poke(at("c.h5"), "rank_region_index/event_counts", -1, 0);
  expect_error(at("c.h5"), "event_counts is missing", 1);
  write_sample(at("c.h5"), 0);
  poke_name(at("c.h5"), 2, "main");
  expect_error(at("c.h5"), "region_table/names holds \"main\" twice", 1);
  FILE *f = fopen(at("t.h5"), "w");
  fputs("plain text", f);
  fclose(f);
  expect_error(at("t.h5"), "not an HDF5 file", 1);
  expect_error(at("missing.h5"), "No such file", 1);
}

static void test_no_threads_dataset(void **state) {
  (void)state;
  /* Files from writers without `threads`: every row is thread 0. Here
   * thread 1's solve row then meets thread 0's: a duplicate, refused. */
  write_sample(at("n.h5"), 0);
  poke(at("n.h5"), "rank_region_index/threads", -1, 0);
  expect_error(at("n.h5"), "two rows for rank 3 thread 0 region solve", 0);
  sp_fmt_source a = {0, "a", NULL, -1, 1, arr_read, &A_MAIN, 0};
  sp_fmt_source b = {1, "b", NULL, -1, 2, arr_read, &A_SOLVE, 0};
  sp_fmt_err err = {""};
  sp_fmt_h5w *w = sp_fmt_h5w_open(at("n.h5"), &err);
  assert_int_equal(sp_fmt_h5w_row(w, 0, &a, NULL, &err), 0);
  assert_int_equal(sp_fmt_h5w_row(w, 0, &b, NULL, &err), 0);
  assert_int_equal(sp_fmt_h5w_close(w, &err), 0);
  poke(at("n.h5"), "rank_region_index/threads", -1, 0);
  sp_fmt_rank *r;
  int64_t n;
  assert_int_equal(sp_fmt_h5_read(at("n.h5"), &r, &n, &err), 0);
  assert_int_equal(n, 1);
  assert_int_equal(r[0].nblocks, 2);
  assert_int_equal(r[0].blocks[0].thread, 0);
  assert_int_equal(r[0].blocks[1].thread, 0);
  assert_int_equal(r[0].blocks[1].count, 2);
  assert_int_equal(r[0].meta.n, 0);
  sp_fmt_rank_free(&r[0]);
  free(r);
}

int main(void) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_summary),
      cmocka_unit_test(test_full_read),
      cmocka_unit_test(test_streaming),
      cmocka_unit_test(test_direct_matches_batched),
      cmocka_unit_test(test_reserved),
      cmocka_unit_test(test_reserved_aligned),
      cmocka_unit_test(test_failures_leave_nothing),
      cmocka_unit_test(test_reader_rejects),
      cmocka_unit_test(test_no_threads_dataset),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
