/* rows.c - one rank's rows in DESIGN order (thread, then first start),
 * each with its statistics, exclusive time reconstructed per thread. */
#include "sp_import.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A row without calls has no first start: it goes last, by name, so the
 * output is deterministic. */
static int by_first_start(const void *a, const void *b) {
  const sp_imp_row *x = a, *y = b;
  if ((x->st.calls > 0) != (y->st.calls > 0))
    return x->st.calls > 0 ? -1 : 1;
  if (x->st.calls > 0 && x->st.first_start_ns != y->st.first_start_ns)
    return x->st.first_start_ns < y->st.first_start_ns ? -1 : 1;
  return strcmp(x->src.name, y->src.name);
}

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

int sp__imp_rows(const sp_fmt_rank *r, const char *path, int fd,
                 sp_imp_row **out, sp_fmt_err *err) {
  int64_t n = r->nblocks;
  size_t cnt = n ? (size_t)n : 1;
  sp_fmt_source *srcs = malloc(cnt * sizeof *srcs);
  sp_imp_row *rows = malloc(cnt * sizeof *rows);
  sp_fmt_stats *st = malloc(cnt * sizeof *st);
  sp_fmt_spt_calls *calls = fd >= 0 ? malloc(cnt * sizeof *calls) : NULL;
  const sp_fmt_block **blk = malloc(cnt * sizeof *blk);
  int failed = 0;
  *out = NULL;
  if (!srcs || !rows || !st || !blk || (fd >= 0 && !calls)) {
    sp_fmt_err_set(err, "%s: out of memory", path);
    goto bad;
  }
  sp_fmt_rank_sources_by_thread(r, srcs);
  for (int64_t k = 0; k < n; k++) {
    blk[k] = srcs[k].ctx;
    if (fd >= 0) { /* an index: the calls stream from the file */
      calls[k] = (sp_fmt_spt_calls){fd, r->foreign_order, blk[k]->file_offset,
                                    blk[k]->count, &failed};
      srcs[k].read = sp_fmt_spt_calls_read;
      srcs[k].ctx = &calls[k];
    }
  }
  /* Exclusive time needs every region of a thread at once. */
  sp_fmt_nesting nest = {0};
  int64_t bad = sp_fmt_stats_rank(srcs, n, st, &nest);
  if (bad < 0) {
    sp_fmt_err_set(err, "%s: out of memory", path);
    goto bad;
  }
  if (failed) {
    sp_fmt_err_set(err, "%s: cannot read calls: %s", path, strerror(failed));
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
  for (int64_t k = 0; k < n; k++) {
    rows[k] = (sp_imp_row){.src = srcs[k], .st = st[k], .at = -1, .blk = blk[k]};
    rows[k].src.read = sp_fmt_block_read; /* calls no longer streamed */
    rows[k].src.ctx = blk[k];
  }
  for (int64_t lo = 0, hi; lo < n; lo = hi) { /* each thread by first start */
    for (hi = lo; hi < n && srcs[hi].thread == srcs[lo].thread;)
      hi++;
    qsort(rows + lo, (size_t)(hi - lo), sizeof *rows, by_first_start);
  }
  free(srcs);
  free(st);
  free(calls);
  free(blk);
  *out = rows;
  return 0;
bad:
  free(srcs);
  free(rows);
  free(st);
  free(calls);
  free(blk);
  return -1;
}
