/* rows.c - one rank's rows in DESIGN order (thread, then first start),
 * each with its statistics (exclusive time reconstructed per thread), its
 * calls written to the output on the way. */
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

/* One source of the rank: where its first call starts (the order key) and
 * where its calls go in the output. */
typedef struct {
  const sp_fmt_source *src;
  const sp_fmt_block *blk;
  int64_t first, at;
  const sp_imp_out *out;
  sp_fmt_err *werr; /* the first failed write */
  int *wfailed;
} placed;

/* A row without calls has no first start: it goes last, by name, so the
 * output is deterministic. The key is the start of the row's first call,
 * which is also its earliest when calls are in start order, as the
 * runtime writes them. */
static int by_first_start(const void *a, const void *b) {
  const placed *x = a, *y = b;
  if ((x->blk->count > 0) != (y->blk->count > 0))
    return x->blk->count > 0 ? -1 : 1;
  if (x->blk->count > 0 && x->first != y->first)
    return x->first < y->first ? -1 : 1;
  return strcmp(x->src->name, y->src->name);
}

/* Calls [first, first + n) of a source, to the output: one writer at a
 * time, since the output's inode lock would queue them anyway. */
static void put(placed *p, int64_t first, int64_t n, const int64_t *starts,
                const int64_t *ends) {
  sp_fmt_err e;
  pthread_mutex_lock(p->out->mu);
  int rc = sp_fmt_h5w_put(p->out->w, p->at + first, starts, ends, n, &e);
  if (rc != 0 && !*p->wfailed) {
    *p->wfailed = 1;
    *p->werr = e;
  }
  pthread_mutex_unlock(p->out->mu);
}

static void tee(void *ctx, int64_t first, int64_t n, const int64_t *starts,
                const int64_t *ends) {
  put(ctx, first, n, starts, ends);
}

int sp__imp_rows(const sp_fmt_rank *r, const char *path, int fd,
                 const sp_imp_out *out, sp_imp_row **rows_out,
                 sp_fmt_err *err) {
  int64_t n = r->nblocks;
  size_t cnt = n ? (size_t)n : 1;
  sp_fmt_source *srcs = malloc(cnt * sizeof *srcs);
  sp_fmt_stats *st = malloc(cnt * sizeof *st);
  sp_fmt_spt_calls *calls = fd >= 0 ? malloc(cnt * sizeof *calls) : NULL;
  placed *pl = malloc(cnt * sizeof *pl), *by_src = malloc(cnt * sizeof *pl);
  sp_imp_row *rows = malloc(cnt * sizeof *rows);
  int rfailed = 0, wfailed = 0;
  sp_fmt_err werr = {""};
  *rows_out = NULL;
  if (!srcs || !st || !pl || !by_src || !rows || (fd >= 0 && !calls)) {
    sp_fmt_err_set(err, "%s: out of memory", path);
    goto bad;
  }
  sp_fmt_rank_sources_by_thread(r, srcs);
  /* The order, hence every row's place in the output, before the
   * statistics: the calls can then be written as they are read. */
  for (int64_t k = 0; k < n; k++) {
    const sp_fmt_block *b = srcs[k].ctx;
    int64_t first = 0, end;
    if (b->count > 0 && fd >= 0) {
      sp_fmt_spt_calls one = {
          fd, r->foreign_order, b->file_offset, b->count, &rfailed, NULL, NULL};
      sp_fmt_source s1 = srcs[k];
      s1.ctx = &one;
      sp_fmt_spt_calls_read(&s1, 0, 1, &first, &end);
    } else if (b->count > 0) {
      first = b->starts[0];
    }
    pl[k] = (placed){&srcs[k], b, first, 0, out, &werr, &wfailed};
  }
  for (int64_t lo = 0, hi; lo < n; lo = hi) { /* each thread by first start */
    for (hi = lo; hi < n && srcs[hi].thread == srcs[lo].thread;)
      hi++;
    qsort(pl + lo, (size_t)(hi - lo), sizeof *pl, by_first_start);
  }
  for (int64_t j = 0, at = out->base; j < n; j++) {
    pl[j].at = at;
    at += pl[j].blk->count;
    by_src[pl[j].src - srcs] = pl[j];
  }
  for (int64_t k = 0; k < n && fd >= 0; k++) {
    calls[k] = (sp_fmt_spt_calls){fd,
                                  r->foreign_order,
                                  by_src[k].blk->file_offset,
                                  by_src[k].blk->count,
                                  &rfailed,
                                  tee,
                                  &by_src[k]};
    srcs[k].read = sp_fmt_spt_calls_read;
    srcs[k].ctx = &calls[k];
  }
  /* Exclusive time needs every region of a thread at once. */
  sp_fmt_nesting nest = {0};
  int64_t bad = sp_fmt_stats_rank(srcs, n, st, &nest);
  if (bad < 0) {
    sp_fmt_err_set(err, "%s: out of memory", path);
    goto bad;
  }
  if (rfailed) {
    sp_fmt_err_set(err, "%s: cannot read calls: %s", path, strerror(rfailed));
    goto bad;
  }
  for (int64_t k = 0; k < n && fd < 0; k++) /* calls in memory */
    if (by_src[k].blk->count > 0)
      put(&by_src[k], 0, by_src[k].blk->count, by_src[k].blk->starts,
          by_src[k].blk->ends);
  if (wfailed) {
    *err = werr;
    goto bad;
  }
  /* Ranks may be done out of order on two threads: the lowest one's case
   * is the one named, whichever finished first. */
  pthread_mutex_lock(&bad_mu);
  if (bad > 0 && (nbad == 0 || r->rank < first_bad_rank)) {
    sp_fmt_nesting_describe(&nest, path, r->rank, first_bad, sizeof first_bad);
    first_bad_rank = r->rank;
  }
  nbad += bad;
  pthread_mutex_unlock(&bad_mu);
  for (int64_t j = 0; j < n; j++) {
    int64_t k = pl[j].src - srcs;
    rows[j] = (sp_imp_row){.src = srcs[k], .st = st[k], .at = pl[j].at};
    rows[j].src.read = sp_fmt_block_read; /* no longer streamed */
    rows[j].src.ctx = pl[j].blk;
  }
  free(srcs);
  free(st);
  free(calls);
  free(pl);
  free(by_src);
  *rows_out = rows;
  return 0;
bad:
  free(srcs);
  free(st);
  free(calls);
  free(pl);
  free(by_src);
  free(rows);
  return -1;
}
