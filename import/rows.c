/* rows.c - one rank's rows in schema-2 order (thread, then first start):
 * their places in the output, their statistics (exclusive time
 * reconstructed per thread), and their calls written into the output. */
#include "sp_import.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Improper nesting is common to all threads of a broken program: say it
 * once, at the end, rather than once per thread of every rank. */
static pthread_mutex_t bad_mu = PTHREAD_MUTEX_INITIALIZER;
static int64_t nbad;
static int32_t first_bad_rank;
static char first_bad[1024];

void sp__imp_nesting_report(void) {
  if (nbad == 1)
    fprintf(stderr,
            "sp-import: warning: %s; its exclusive times count only nested "
            "calls\n",
            first_bad);
  else if (nbad > 1)
    fprintf(stderr,
            "sp-import: warning: %s, and calls overlap in %lld more threads; "
            "their exclusive times count only nested calls\n",
            first_bad, (long long)(nbad - 1));
}

/* The schema-2 order (sp_fmt_row_cmp). The key is the start of the row's
 * first call, which is also its earliest when calls are in start order, as
 * the runtime writes them. */
static int by_first_start(const void *a, const void *b) {
  const sp_imp_row *x = a, *y = b;
  return sp_fmt_row_cmp(&x->src, x->first, &y->src, y->first);
}

int sp__imp_place(const sp_fmt_rank *r, const sp_fmt_source *given,
                  const char *path, int fd, int64_t base, sp_imp_row **out,
                  sp_fmt_err *err) {
  int64_t n = r->nblocks;
  size_t cnt = n ? (size_t)n : 1;
  sp_fmt_source *srcs = malloc(cnt * sizeof *srcs);
  sp_imp_row *rows = malloc(cnt * sizeof *rows);
  int failed = 0;
  *out = NULL;
  if (!srcs || !rows) {
    free(srcs);
    free(rows);
    sp_fmt_err_set(err, "%s: out of memory", path);
    return -1;
  }
  if (given)
    memcpy(srcs, given, (size_t)n * sizeof *srcs);
  else
    sp_fmt_rank_sources(r, srcs);
  for (int64_t k = 0; k < n; k++) {
    const sp_fmt_block *b = given ? NULL : srcs[k].ctx;
    int64_t first = 0, end;
    if (given) {
      if (srcs[k].count > 0)
        srcs[k].read(&srcs[k], 0, 1, &first, &end);
    } else if (b->count > 0 && fd >= 0) {
      sp_fmt_spt_calls one;
      sp_fmt_spt_calls_init(&one, fd, r, b, &failed);
      sp_fmt_source s1 = srcs[k];
      s1.ctx = &one;
      sp_fmt_spt_calls_read(&s1, 0, 1, &first, &end);
    } else if (b->count > 0) {
      first = b->starts[0];
    }
    rows[k] = (sp_imp_row){.src = srcs[k], .first = first};
  }
  free(srcs);
  if (failed) {
    free(rows);
    sp_fmt_err_set(err, "%s: cannot read calls: %s", path, strerror(failed));
    return -1;
  }
  qsort(rows, (size_t)n, sizeof *rows, by_first_start);
  for (int64_t j = 0, at = base; j < n; j++) {
    rows[j].at = at;
    at += rows[j].src.count;
  }
  *out = rows;
  return 0;
}

/* Batches of at least this many calls end where a call's place in the
 * output is a multiple of it: 256 KiB of timestamps, so each write is of
 * whole aligned pieces, which the page cache takes as large pages
 * (docs/performance.md has the figures). The output's events start on
 * such a boundary (h5_write.c). */
#define PIECE ((int64_t)32768)

/* A batch the output was busy for, kept until the source's next batch. */
typedef struct pending {
  int64_t first, n, cap;
  int64_t *buf; /* starts, then ends, cap each */
} pending;

/* The statistics' batches of one rank, written on into the output at each
 * row's place while they are still in cache: each call is read from its
 * .spt (or stream) once, and copied twice (into memory, out to the
 * output's page cache), as a file-to-file copy plus a read for the
 * statistics would. */
typedef struct tee {
  const sp_imp_row *rows;
  const sp_fmt_h5w *w;
  const int *failed;           /* a .spt's read failures */
  const sp_fmt_stream *stream; /* a stream's */
  int put_failed;              /* err says why */
  sp_fmt_err *err;
  pending *pend; /* per row */
  int64_t kept;  /* pending batches */
} tee;

/* Writes into one file from two threads queue in the kernel on its inode
 * lock, spinning (the kernel's time grows): they go one at a time here,
 * and a thread that finds another writing keeps a copy of its batch and
 * writes it with the source's next one, computing meanwhile rather than
 * waiting. */
pthread_mutex_t sp__imp_put_mu = PTHREAD_MUTEX_INITIALIZER;
void (*sp__imp_put_wait_hook)(int64_t kept);

static void lock_put(const tee *t) {
  if (sp__imp_put_wait_hook)
    sp__imp_put_wait_hook(t->kept);
  pthread_mutex_lock(&sp__imp_put_mu);
}

sp_fmt_progress sp__imp_progress; /* off until main starts it */

static void put(tee *t, int64_t i, int64_t first, int64_t n, const int64_t *s,
                const int64_t *e) {
  if (!t->put_failed &&
      sp_fmt_h5w_put(t->w, t->rows[i].at + first, s, e, n, t->err) != 0)
    t->put_failed = 1;
  sp_fmt_progress_add(&sp__imp_progress, n);
}

static void put_pending(tee *t, int64_t i) {
  pending *p = &t->pend[i];
  if (p->n) {
    lock_put(t);
    put(t, i, p->first, p->n, p->buf, p->buf + p->cap);
    pthread_mutex_unlock(&sp__imp_put_mu);
    p->n = 0;
    t->kept--;
  }
}

/* Keeps a copy of the batch; 0 when out of memory (then it is written now,
 * waiting for the output). */
static int keep(tee *t, int64_t i, int64_t first, int64_t n, const int64_t *s,
                const int64_t *e) {
  pending *p = &t->pend[i];
  if (p->cap < n) {
    int64_t *b = realloc(p->buf, (size_t)n * 16);
    if (!b)
      return 0;
    p->buf = b;
    p->cap = n;
  }
  memcpy(p->buf, s, (size_t)n * 8);
  memcpy(p->buf + p->cap, e, (size_t)n * 8);
  p->first = first;
  p->n = n;
  t->kept++;
  return 1;
}

static int64_t tee_batch_size(void *ctx, int64_t i, int64_t first, int64_t n) {
  const tee *t = ctx;
  if (first + n < t->rows[i].src.count && n >= PIECE)
    n -= (t->rows[i].at + first + n) % PIECE; /* end on a piece boundary */
  return n;
}

static void tee_batch(void *ctx, int64_t i, int64_t first, int64_t n,
                      const int64_t *s, const int64_t *e) {
  tee *t = ctx;
  if (*t->failed || (t->stream && sp_fmt_stream_failed(t->stream)))
    return;
  put_pending(t, i);
  if (first + n == t->rows[i].src.count) { /* the last batch: no later chance */
    lock_put(t);
  } else if (pthread_mutex_trylock(&sp__imp_put_mu) != 0) {
    if (keep(t, i, first, n, s, e))
      return;
    lock_put(t);
  }
  put(t, i, first, n, s, e);
  pthread_mutex_unlock(&sp__imp_put_mu);
}

int sp__imp_stats(const sp_fmt_rank *r, const char *path, int fd,
                  const sp_fmt_stream *stream, const sp_fmt_h5w *w,
                  sp_imp_row *rows, sp_fmt_err *err) {
  int64_t n = r->nblocks;
  size_t cnt = n ? (size_t)n : 1;
  sp_fmt_source *srcs = malloc(cnt * sizeof *srcs);
  sp_fmt_stats *st = malloc(cnt * sizeof *st);
  int teed = fd >= 0 || stream; /* calls go to the output from here */
  /* an index: the calls stream from the file */
  sp_fmt_spt_calls *calls = fd >= 0 ? malloc(cnt * sizeof *calls) : NULL;
  int failed = 0, rc = -1;
  tee t = {rows, w, &failed, stream, 0, err, NULL, 0};
  if (teed)
    t.pend = calloc(cnt, sizeof *t.pend);
  if (!srcs || !st || (fd >= 0 && !calls) || (teed && !t.pend)) {
    sp_fmt_err_set(err, "%s: out of memory", path);
    goto out;
  }
  for (int64_t j = 0; j < n; j++) {
    srcs[j] = rows[j].src; /* a stream's source reads the file itself */
    if (fd >= 0) {
      const sp_fmt_block *b = rows[j].src.ctx;
      sp_fmt_spt_calls_init(&calls[j], fd, r, b, &failed);
      srcs[j].read = sp_fmt_spt_calls_read;
      srcs[j].ctx = &calls[j];
    }
  }
  /* Rows are grouped by thread already; exclusive time needs every region
   * of a thread at once. */
  sp_fmt_nesting nest = {0};
  sp_fmt_stats_reader rd = {tee_batch_size, tee_batch, &t};
  int64_t bad = sp_fmt_stats_rank_read(srcs, n, st, &nest, teed ? &rd : NULL);
  if (bad < 0) {
    sp_fmt_err_set(err, "%s: out of memory", path);
    goto out;
  }
  if (!failed && stream)
    failed = sp_fmt_stream_failed(stream);
  if (failed) {
    sp_fmt_err_set(err, "%s: cannot read calls: %s", path, strerror(failed));
    goto out;
  }
  if (t.put_failed) /* err says why */
    goto out;
  /* Ranks may be done out of order on two threads: the lowest one's case
   * is the one named, whichever finished first. */
  pthread_mutex_lock(&bad_mu);
  if (bad > 0 && (nbad == 0 || r->rank < first_bad_rank)) {
    sp_fmt_nesting_describe(&nest, path, r->rank, first_bad, sizeof first_bad);
    first_bad_rank = r->rank;
  }
  nbad += bad;
  pthread_mutex_unlock(&bad_mu);
  for (int64_t j = 0; j < n; j++)
    rows[j].st = st[j];
  rc = 0;
out:
  if (t.pend)
    for (int64_t j = 0; j < n; j++)
      free(t.pend[j].buf);
  free(t.pend);
  free(srcs);
  free(st);
  free(calls);
  return rc;
}

int sp__imp_copy(sp_fmt_h5w *w, const sp_fmt_rank *r, const sp_imp_row *rows,
                 sp_fmt_err *err) {
  for (int64_t j = 0; j < r->nblocks; j++) {
    const sp_fmt_block *b = rows[j].src.ctx;
    if (b->count == 0)
      continue;
    pthread_mutex_lock(&sp__imp_put_mu);
    int rc = sp_fmt_h5w_put(w, rows[j].at, b->starts, b->ends, b->count, err);
    pthread_mutex_unlock(&sp__imp_put_mu);
    sp_fmt_progress_add(&sp__imp_progress, b->count);
    if (rc != 0)
      return -1;
  }
  return 0;
}
