/* rows.c - one rank's rows in DESIGN order (thread, then first start):
 * their places in the output, their statistics (exclusive time
 * reconstructed per thread) and the copy of their calls. */
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

int sp__imp_place(const sp_fmt_rank *r, const char *path, int fd, int64_t base,
                  sp_imp_row **out, sp_fmt_err *err) {
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
  sp_fmt_rank_sources(r, srcs);
  for (int64_t k = 0; k < n; k++) {
    const sp_fmt_block *b = srcs[k].ctx;
    int64_t first = 0, end;
    if (b->count > 0 && fd >= 0) {
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

int sp__imp_stats(const sp_fmt_rank *r, const char *path, int fd,
                  sp_imp_row *rows, sp_fmt_err *err) {
  int64_t n = r->nblocks;
  size_t cnt = n ? (size_t)n : 1;
  sp_fmt_source *srcs = malloc(cnt * sizeof *srcs);
  sp_fmt_stats *st = malloc(cnt * sizeof *st);
  sp_fmt_spt_calls *calls = fd >= 0 ? malloc(cnt * sizeof *calls) : NULL;
  int failed = 0, rc = -1;
  if (!srcs || !st || (fd >= 0 && !calls)) {
    sp_fmt_err_set(err, "%s: out of memory", path);
    goto out;
  }
  for (int64_t j = 0; j < n; j++) {
    srcs[j] = rows[j].src;
    if (fd >= 0) { /* an index: the calls stream from the file */
      const sp_fmt_block *b = rows[j].src.ctx;
      calls[j] = (sp_fmt_spt_calls){fd, r->foreign_order, b->file_offset,
                                    b->count, &failed};
      srcs[j].read = sp_fmt_spt_calls_read;
      srcs[j].ctx = &calls[j];
    }
  }
  /* Rows are grouped by thread already; exclusive time needs every region
   * of a thread at once. */
  sp_fmt_nesting nest = {0};
  int64_t bad = sp_fmt_stats_rank(srcs, n, st, &nest);
  if (bad < 0) {
    sp_fmt_err_set(err, "%s: out of memory", path);
    goto out;
  }
  if (failed) {
    sp_fmt_err_set(err, "%s: cannot read calls: %s", path, strerror(failed));
    goto out;
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
  for (int64_t j = 0; j < n; j++)
    rows[j].st = st[j];
  rc = 0;
out:
  free(srcs);
  free(st);
  free(calls);
  return rc;
}

int sp__imp_copy(sp_fmt_h5w *w, const sp_fmt_rank *r, int fd,
                 const sp_imp_row *rows, sp_fmt_err *err) {
  for (int64_t j = 0; j < r->nblocks; j++) {
    const sp_fmt_block *b = rows[j].src.ctx;
    int64_t n = b->count;
    if (n == 0)
      continue;
    int rc;
    if (fd >= 0 && !r->foreign_order &&
        __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
      rc = sp_fmt_h5w_copy(w, rows[j].at, fd, b->file_offset,
                           b->file_offset + 8 * n, n, err);
    } else if (fd >= 0) { /* swapped on the way, in pieces */
      int64_t buf[2 * 8192];
      int failed = 0;
      sp_fmt_spt_calls c = {fd, r->foreign_order, b->file_offset, n, &failed};
      sp_fmt_source s = rows[j].src;
      s.ctx = &c;
      rc = 0;
      for (int64_t k = 0; k < n && rc == 0; k += 8192) {
        int64_t m = n - k < 8192 ? n - k : 8192;
        sp_fmt_spt_calls_read(&s, k, m, buf, buf + 8192);
        if (failed) {
          sp_fmt_err_set(err, "cannot read calls: %s", strerror(failed));
          rc = -1;
        } else {
          rc = sp_fmt_h5w_put(w, rows[j].at + k, buf, buf + 8192, m, err);
        }
      }
    } else {
      rc = sp_fmt_h5w_put(w, rows[j].at, b->starts, b->ends, n, err);
    }
    if (rc != 0)
      return -1;
  }
  return 0;
}
