/* test_rows.c - sp-import's statistics step writing a .spt's calls to the
 * output as it reads them (import/rows.c): batches kept back while another
 * thread writes, both byte orders, and a failed write reported. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sp_import.h"
#include "test_dir.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* Steps of 1000 ns, each holding two kernels and one io call: more calls
 * per region than one batch of the statistics holds (32,768 for three
 * regions), so every region is read, and written, in several. */
#define STEPS 50000

static void gen(const sp_fmt_source *src, int64_t first, int64_t n,
                int64_t *starts, int64_t *ends) {
  for (int64_t i = 0; i < n; i++) {
    int64_t k = first + i, s, d;
    if (src->name[0] == 's') {
      s = 1000 * k;
      d = 900 + k % 7;
    } else if (src->name[0] == 'k') {
      s = 1000 * (k / 2) + 10 + 400 * (k % 2);
      d = 300 + k % 5;
    } else {
      s = 1000 * k + 850;
      d = 40 + k % 3;
    }
    starts[i] = 5000 + s;
    ends[i] = 5000 + s + d;
  }
}

static void write_rank(const char *path, int big_endian) {
  /* In the file out of row order (thread, then first start): reordered. */
  sp_fmt_source src[3] = {
      {0, "io", "x.c", 30, STEPS, gen, NULL, 0},
      {0, "kernel", "x.c", 20, 2 * STEPS, gen, NULL, 0},
      {0, "step", "x.c", 10, STEPS, gen, NULL, 0},
  };
  sp_fmt_err err = {""};
  assert_int_equal(sp_fmt_spt_write(path, 7, 2, src, 3, big_endian, &err), 0);
}

typedef struct job {
  const sp_fmt_rank *r;
  const char *path;
  int fd;
  sp_fmt_h5w *w;
  sp_imp_row *rows;
  sp_fmt_err err;
  int rc;
  volatile int done;
} job;

static void *run_stats(void *arg) {
  job *j = arg;
  j->rc = sp__imp_stats(j->r, j->path, j->fd, NULL, j->w, j->rows, &j->err);
  __atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
  return NULL;
}

/* The statistics' thread, about to wait for the output lock, says so and
 * how many batches it holds back. */
static pthread_mutex_t wait_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wait_cv = PTHREAD_COND_INITIALIZER;
static int64_t waits, kept_at_first_wait;

static void on_put_wait(int64_t kept) {
  pthread_mutex_lock(&wait_mu);
  if (waits++ == 0)
    kept_at_first_wait = kept;
  pthread_cond_signal(&wait_cv);
  pthread_mutex_unlock(&wait_mu);
}

/* The expected statistics of the region named name, from the whole file. */
static sp_fmt_stats expected(const sp_fmt_rank *whole, const char *name) {
  sp_fmt_source srcs[3];
  sp_fmt_stats st[3];
  assert_int_equal(whole->nblocks, 3);
  sp_fmt_rank_sources_by_thread(whole, srcs);
  assert_int_equal(sp_fmt_stats_rank(srcs, 3, st, NULL), 0);
  for (int i = 0; i < 3; i++)
    if (strcmp(srcs[i].name, name) == 0)
      return st[i];
  fail_msg("no region %s", name);
  return st[0];
}

static const sp_fmt_block *block_named(const sp_fmt_rank *r, const char *name) {
  for (int64_t i = 0; i < r->nblocks; i++)
    if (strcmp(r->regions[r->blocks[i].region].name, name) == 0)
      return &r->blocks[i];
  fail_msg("no block %s", name);
  return NULL;
}

/* Index, place, statistics (with the write lock held by this thread until
 * the statistics must wait for it: their first batches are kept back, none
 * is written, and they cannot finish), rows, close; the output must hold
 * every call where its row says, the statistics those of the whole
 * file. */
static void check_tee(int big_endian) {
  const char *in = at(big_endian ? "be.spt" : "le.spt");
  const char *out = at(big_endian ? "be.h5" : "le.h5");
  write_rank(in, big_endian);
  sp_fmt_err err = {""};
  sp_fmt_rank whole, idx;
  assert_int_equal(sp_fmt_spt_read(in, &whole, &err), 0);
  assert_int_equal(sp_fmt_spt_index(in, &idx, &err), 0);
  assert_int_equal(idx.foreign_order, big_endian);
  int fd = open(in, O_RDONLY);
  assert_true(fd >= 0);
  sp_imp_row *rows;
  assert_int_equal(sp__imp_place(&idx, NULL, in, fd, 0, &rows, &err), 0);
  /* Row order: by the start of each row's first call. */
  assert_string_equal(rows[0].src.name, "step");
  assert_string_equal(rows[1].src.name, "kernel");
  assert_string_equal(rows[2].src.name, "io");
  assert_int_equal(rows[1].at, STEPS);
  assert_int_equal(rows[2].at, 3 * STEPS);
  sp_fmt_h5w *w = sp_fmt_h5w_open(out, &err);
  assert_non_null(w);
  assert_int_equal(sp_fmt_h5w_reserve(w, 4 * STEPS, &err), 0);

  job j = {&idx, in, fd, w, rows, {""}, -1, 0};
  pthread_t th;
  waits = kept_at_first_wait = 0;
  sp__imp_put_wait_hook = on_put_wait;
  assert_int_equal(pthread_mutex_lock(&sp__imp_put_mu), 0);
  assert_int_equal(pthread_create(&th, NULL, run_stats, &j), 0);
  assert_int_equal(pthread_mutex_lock(&wait_mu), 0);
  while (waits == 0)
    assert_int_equal(pthread_cond_wait(&wait_cv, &wait_mu), 0);
  assert_int_equal(pthread_mutex_unlock(&wait_mu), 0);
  /* It went on past the batches it could not write (every region's first
   * one is not its last), and now waits: it cannot finish while the lock
   * is held. */
  assert_true(kept_at_first_wait >= 1);
  assert_false(__atomic_load_n(&j.done, __ATOMIC_ACQUIRE));
  assert_int_equal(pthread_mutex_unlock(&sp__imp_put_mu), 0);
  assert_int_equal(pthread_join(th, NULL), 0);
  sp__imp_put_wait_hook = NULL;
  assert_int_equal(j.rc, 0);

  for (int k = 0; k < 3; k++) {
    sp_fmt_stats want = expected(&whole, rows[k].src.name);
    const sp_fmt_stats *got = &rows[k].st;
    assert_int_equal(got->calls, want.calls);
    assert_int_equal(got->total_ns, want.total_ns);
    assert_int_equal(got->exclusive_ns, want.exclusive_ns);
    assert_int_equal(got->min_ns, want.min_ns);
    assert_int_equal(got->max_ns, want.max_ns);
    assert_int_equal(got->first_start_ns, want.first_start_ns);
    assert_int_equal(got->last_end_ns, want.last_end_ns);
    assert_true(got->mean_ns == want.mean_ns);
    assert_true(got->std_ns == want.std_ns);
    assert_int_equal(sp_fmt_h5w_events(w), rows[k].at);
    assert_int_equal(sp_fmt_h5w_row(w, idx.rank, &rows[k].src, got, &err), 0);
  }
  /* step's exclusive time: its 900-906 ns less two kernels and one io. */
  assert_true(rows[0].st.exclusive_ns < rows[0].st.total_ns);
  assert_int_equal(sp_fmt_h5w_close(w, &err), 0);

  sp_fmt_rank *merged;
  int64_t n;
  assert_int_equal(sp_fmt_h5_read(out, &merged, &n, &err), 0);
  assert_int_equal(n, 1);
  assert_int_equal(merged[0].rank, 7);
  for (int k = 0; k < 3; k++) {
    const sp_fmt_block *a = block_named(&whole, rows[k].src.name);
    const sp_fmt_block *b = block_named(&merged[0], rows[k].src.name);
    assert_int_equal(b->count, a->count);
    assert_memory_equal(b->starts, a->starts, (size_t)a->count * 8);
    assert_memory_equal(b->ends, a->ends, (size_t)a->count * 8);
  }
  sp_fmt_rank_free(&merged[0]);
  free(merged);
  free(rows);
  close(fd);
  sp_fmt_rank_free(&whole);
  sp_fmt_rank_free(&idx);
  unlink(in);
  unlink(out);
}

static void test_tee_little_endian(void **state) {
  (void)state;
  check_tee(0);
}

static void test_tee_big_endian(void **state) {
  (void)state;
  check_tee(1);
}

/* A write refused by the system (here: past the file size limit) fails the
 * step with one message naming the output; aborting leaves nothing. */
static void test_tee_write_fails(void **state) {
  (void)state;
  const char *in = at("f.spt"), *out = at("f.h5");
  write_rank(in, 0);
  sp_fmt_err err = {""};
  sp_fmt_rank idx;
  assert_int_equal(sp_fmt_spt_index(in, &idx, &err), 0);
  int fd = open(in, O_RDONLY);
  assert_true(fd >= 0);
  sp_imp_row *rows;
  assert_int_equal(sp__imp_place(&idx, NULL, in, fd, 0, &rows, &err), 0);
  sp_fmt_h5w *w = sp_fmt_h5w_open(out, &err);
  assert_non_null(w);
  assert_int_equal(sp_fmt_h5w_reserve(w, 4 * STEPS, &err), 0);
  struct rlimit old, small;
  assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
  small = old;
  small.rlim_cur = 1 << 20;
  signal(SIGXFSZ, SIG_IGN);
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
  int rc = sp__imp_stats(&idx, in, fd, NULL, w, rows, &err);
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
  assert_int_not_equal(rc, 0);
  assert_non_null(strstr(err.msg, "cannot write events"));
  assert_non_null(strstr(err.msg, out));
  assert_null(strchr(err.msg, '\n'));
  sp_fmt_h5w_abort(w);
  assert_int_equal(access(out, F_OK), -1);
  free(rows);
  close(fd);
  sp_fmt_rank_free(&idx);
  unlink(in);
}

int main(void) {
  snprintf(dir, sizeof dir, "%s/test_rows_work", SP_TEST_BINARY_DIR);
  mkdir(dir, 0777);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tee_little_endian),
      cmocka_unit_test(test_tee_big_endian),
      cmocka_unit_test(test_tee_write_fails),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
