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

/* A row without calls has no first start: it goes last, by name, so the
 * output is deterministic. The key is the start of the row's first call,
 * which is also its earliest when calls are in start order, as the
 * runtime writes them. */
static int by_first_start(const void *a, const void *b) {
  const sp_imp_row *x = a, *y = b;
  if (x->src.thread != y->src.thread)
    return x->src.thread < y->src.thread ? -1 : 1;
  if ((x->src.count > 0) != (y->src.count > 0))
    return x->src.count > 0 ? -1 : 1;
  if (x->src.count > 0 && x->first != y->first)
    return x->first < y->first ? -1 : 1;
  return strcmp(x->src.name, y->src.name);
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
      sp_fmt_spt_calls one = {fd, r->foreign_order, b->file_offset, b->count,
                              &failed};
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

/* A block's calls as the statistics read them, batch by batch, and on
 * into the output at the row's place while the batch is still in cache:
 * each call is read from its .spt (or stream) once, and copied twice (into
 * memory, out to the output's page cache), as a file-to-file copy plus a
 * read for the statistics would. */
typedef struct tee {
  sp_fmt_spt_calls calls;
  sp_fmt_source inner; /* reads the calls: of calls, or a stream's source */
  const sp_fmt_stream *stream; /* its read failures */
  const sp_fmt_h5w *w;
  int64_t at; /* the row's first call in the output */
  int *put_failed;
  sp_fmt_err *err;
  int64_t pend_first, pend_n; /* a batch read but not yet written */
  const int64_t *pend_s, *pend_e;
} tee;

/* Writes into one file from two threads queue in the kernel on its inode
 * lock, spinning (the kernel's share of the time rose by half): they go one
 * at a time here, and a thread that finds another writing keeps its batch
 * and writes it before its buffer is read into again, computing meanwhile
 * rather than waiting. */
pthread_mutex_t sp__imp_put_mu = PTHREAD_MUTEX_INITIALIZER;

static void put(tee *t, int64_t first, int64_t n, const int64_t *s,
                const int64_t *e) {
  if (!*t->put_failed &&
      sp_fmt_h5w_put(t->w, t->at + first, s, e, n, t->err) != 0)
    *t->put_failed = 1;
}

static void tee_read(const sp_fmt_source *src, int64_t first, int64_t n,
                     int64_t *starts, int64_t *ends) {
  tee *t = (tee *)src->ctx; /* ours: sp__imp_stats made it writable */
  if (t->pend_n) {
    pthread_mutex_lock(&sp__imp_put_mu);
    put(t, t->pend_first, t->pend_n, t->pend_s, t->pend_e);
    pthread_mutex_unlock(&sp__imp_put_mu);
    t->pend_n = 0;
  }
  t->inner.read(&t->inner, first, n, starts, ends);
  if (*t->calls.failed || (t->stream && sp_fmt_stream_failed(t->stream)))
    return;
  if (first + n == t->calls.count) { /* the last batch: no later chance */
    pthread_mutex_lock(&sp__imp_put_mu);
  } else if (pthread_mutex_trylock(&sp__imp_put_mu) != 0) {
    t->pend_first = first;
    t->pend_n = n;
    t->pend_s = starts;
    t->pend_e = ends;
    return;
  }
  put(t, first, n, starts, ends);
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
  tee *calls = teed ? malloc(cnt * sizeof *calls) : NULL;
  int64_t *at = malloc(cnt * sizeof *at); /* where batches are written */
  int failed = 0, put_failed = 0, rc = -1;
  if (!srcs || !st || !at || (teed && !calls)) {
    sp_fmt_err_set(err, "%s: out of memory", path);
    goto out;
  }
  for (int64_t j = 0; j < n; j++) {
    srcs[j] = rows[j].src;
    at[j] = rows[j].at;
    if (stream) { /* a stream's source reads the file itself */
      calls[j] = (tee){.calls = {.failed = &failed},
                       .inner = rows[j].src,
                       .stream = stream,
                       .w = w,
                       .at = rows[j].at,
                       .put_failed = &put_failed,
                       .err = err};
    } else if (fd >= 0) { /* an index: the calls stream from the file */
      const sp_fmt_block *b = rows[j].src.ctx;
      calls[j] = (tee){
          .calls = {fd, r->foreign_order, b->file_offset, b->count, &failed},
          .w = w,
          .at = rows[j].at,
          .put_failed = &put_failed,
          .err = err};
      calls[j].inner = rows[j].src;
      calls[j].inner.read = sp_fmt_spt_calls_read;
      calls[j].inner.ctx = &calls[j].calls;
    }
    if (teed) {
      srcs[j].read = tee_read;
      srcs[j].ctx = &calls[j];
    }
  }
  /* Rows are grouped by thread already; exclusive time needs every region
   * of a thread at once. */
  sp_fmt_nesting nest = {0};
  int64_t bad = sp_fmt_stats_rank_at(srcs, n, at, st, &nest);
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
  if (put_failed) /* err says why */
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
  free(srcs);
  free(st);
  free(calls);
  free(at);
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
    if (rc != 0)
      return -1;
  }
  return 0;
}
