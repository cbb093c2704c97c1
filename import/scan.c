/* scan.c - learns which ranks each input holds without reading events, so
 * rank collisions are caught before anything is written. */
#include "sp_import.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int by_rank(const void *a, const void *b) {
  const sp_imp_claim *x = a, *y = b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return x->input < y->input ? -1 : (x->input > y->input);
}

static void view_claim(const void *c, sp_fmt_claim_view *v) {
  const sp_imp_claim *x = c;
  *v = (sp_fmt_claim_view){x->rank, x->input, x->events == 0};
}

static int push(sp_imp_claim **v, int64_t *n, int64_t *cap, int32_t rank,
                int64_t input, int64_t events, int32_t threads) {
  if (*n == *cap) {
    int64_t c = *cap ? *cap * 2 : 64;
    sp_imp_claim *p = realloc(*v, (size_t)c * sizeof *p);
    if (!p)
      return -1;
    *v = p;
    *cap = c;
  }
  (*v)[(*n)++] =
      (sp_imp_claim){rank, input, events, threads > 0 ? threads : 1, 0};
  return 0;
}

int sp__imp_scan(const sp_fmt_inputs *in, int processes, sp_imp_claim **claims,
                 int64_t *nclaims, sp_fmt_err *err) {
  sp_imp_claim *v = NULL;
  int64_t n = 0, cap = 0;
  for (int64_t i = 0; i < in->n; i++) {
    const char *path = in->v[i].path;
    int rc = 0;
    if (in->v[i].kind == SP_FMT_INPUT_STREAM) {
      /* Read whole here (index only): the one warning line it gets. */
      sp_fmt_stream *s;
      rc = sp_fmt_stream_open(path, SP__IMP_STREAM, &s, err);
      if (rc == 0) {
        sp_fmt_stream_info info;
        sp_fmt_stream_get_info(s, &info);
        char line[2048];
        sp_fmt_stream_describe(&info, path, line, sizeof line);
        fprintf(stderr, "sp-import: warning: %s\n", line);
        sp_fmt_stream_put_warnings(s, "sp-import");
        sp_fmt_stream_close(s);
        if (push(&v, &n, &cap, info.rank, i, info.calls, info.threads) != 0)
          rc = -2;
      }
    } else if (in->v[i].kind == SP_FMT_INPUT_SPT) {
      sp_fmt_rank r;
      rc = sp_fmt_spt_index(path, &r, err);
      int64_t events = 0;
      int32_t threads = 1;
      for (int64_t k = 0; rc == 0 && k < r.nblocks; k++) {
        events += r.blocks[k].count;
        if (r.blocks[k].thread >= threads)
          threads = r.blocks[k].thread + 1;
      }
      if (rc == 0 && push(&v, &n, &cap, r.rank, i, events, threads) != 0)
        rc = -2;
      if (rc != -1)
        sp_fmt_rank_free(&r);
    } else {
      sp_fmt_h5_summary s;
      rc = sp_fmt_h5_read_summary(path, &s, err);
      /* A merged file holds a rank in several rows; claim each once. */
      sp_imp_claim *rk =
          rc == 0 ? malloc((size_t)(s.nrows + 1) * sizeof *rk) : NULL;
      if (rc == 0 && !rk)
        rc = -2;
      for (int64_t k = 0; rc == 0 && k < s.nrows; k++)
        rk[k] = (sp_imp_claim){s.rows[k].rank, i, s.rows[k].event_count,
                               s.rows[k].thread + 1, 0};
      if (rc == 0)
        qsort(rk, (size_t)s.nrows, sizeof *rk, by_rank);
      for (int64_t k = 0, lo = 0; rc == 0 && k < s.nrows; k++) {
        if (k + 1 < s.nrows && rk[k + 1].rank == rk[k].rank)
          continue;
        int64_t events = 0;
        int32_t threads = 1;
        for (; lo <= k; lo++) {
          events += rk[lo].events;
          if (rk[lo].threads > threads)
            threads = rk[lo].threads;
        }
        if (push(&v, &n, &cap, rk[k].rank, i, events, threads))
          rc = -2;
      }
      free(rk);
      if (rc != -1)
        sp_fmt_h5_summary_free(&s);
    }
    if (rc == -2)
      sp_fmt_err_set(err, "%s: out of memory", path);
    if (rc != 0) {
      free(v);
      return -1;
    }
  }
  qsort(v, (size_t)n, sizeof *v, by_rank);
  /* An input with no call of a rank another input holds is left out, with
   * a warning, rather than blocking the merge. */
  n = sp_fmt_claims_drop_empty(v, n, sizeof *v, view_claim, in, "sp-import");
  for (int64_t k = 1; k < n; k++) {
    if (v[k].rank != v[k - 1].rank)
      continue;
    int64_t base = (int64_t)v[k - 1].thread_base + v[k - 1].threads;
    if (!processes || base > INT32_MAX - v[k].threads) {
      if (processes)
        sp_fmt_err_set(err, "%s: rank %d: too many threads in one rank",
                       in->v[v[k].input].path, v[k].rank);
      else
        sp_fmt_err_set(err,
                       "%s: rank %d is also in %s (processes of one rank? "
                       "--merge-processes merges them)",
                       in->v[v[k].input].path, v[k].rank,
                       in->v[v[k - 1].input].path);
      free(v);
      return -1;
    }
    v[k].thread_base = (int32_t)base;
  }
  *claims = v;
  *nclaims = n;
  return 0;
}
