/* rows.c - one rank's rows in DESIGN order (thread, then first start),
 * each with its statistics, exclusive time reconstructed per thread. */
#include "sp_import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_thread(const void *a, const void *b) {
  const sp_fmt_source *x = a, *y = b;
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  return x->aux < y->aux ? -1 : (x->aux > y->aux); /* aux: block index */
}

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
static int64_t nbad;
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

int sp__imp_rows(const sp_fmt_rank *r, const char *path, sp_imp_row **out,
                 sp_fmt_err *err) {
  int64_t n = r->nblocks;
  size_t cnt = n ? (size_t)n : 1;
  sp_fmt_source *srcs = malloc(cnt * sizeof *srcs);
  sp_imp_row *rows = malloc(cnt * sizeof *rows);
  sp_fmt_stats *st = malloc(cnt * sizeof *st);
  *out = NULL;
  if (!srcs || !rows || !st) {
    sp_fmt_err_set(err, "%s: out of memory", path);
    goto bad;
  }
  sp_fmt_rank_sources(r, srcs);
  qsort(srcs, (size_t)n, sizeof *srcs, by_thread);
  for (int64_t lo = 0; lo < n;) {
    int64_t hi = lo;
    while (hi < n && srcs[hi].thread == srcs[lo].thread)
      hi++;
    /* Exclusive time needs every region of the thread at once. */
    sp_fmt_nesting nest = {0};
    if (sp_fmt_stats_thread(srcs + lo, hi - lo, st, &nest) != 0) {
      sp_fmt_err_set(err, "%s: out of memory", path);
      goto bad;
    }
    if (nest.bad && nbad++ == 0)
      snprintf(first_bad, sizeof first_bad,
               "%s: rank %d thread %d: call of %s at %lld overlaps %s at "
               "%lld without nesting",
               path, r->rank, nest.thread, nest.inner,
               (long long)nest.inner_start, nest.outer,
               (long long)nest.outer_start);
    for (int64_t k = lo; k < hi; k++) {
      rows[k].src = srcs[k];
      rows[k].st = st[k - lo];
    }
    qsort(rows + lo, (size_t)(hi - lo), sizeof *rows, by_first_start);
    lo = hi;
  }
  free(srcs);
  free(st);
  *out = rows;
  return 0;
bad:
  free(srcs);
  free(rows);
  free(st);
  return -1;
}
