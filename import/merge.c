/* merge.c - streams ranks, one input in memory at a time, into one
 * schema-2 file: rows per (rank, thread, region), stats per thread. */
#include "sp_import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Rows of one thread are ordered by first start; a row without calls has
 * none and goes last, by name, so the output is deterministic. */
typedef struct row_ref {
  sp_fmt_source src;
  sp_fmt_stats st;
} row_ref;

/* Seconds spent per phase, printed when SP_IMPORT_TIMES is set. */
static double t_read, t_stats, t_write;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_thread(const void *a, const void *b) {
  const sp_fmt_source *x = a, *y = b;
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  return x->aux < y->aux ? -1 : (x->aux > y->aux);
}

static int by_first_start(const void *a, const void *b) {
  const row_ref *x = a, *y = b;
  if ((x->st.calls > 0) != (y->st.calls > 0))
    return x->st.calls > 0 ? -1 : 1;
  if (x->st.calls > 0 && x->st.first_start_ns != y->st.first_start_ns)
    return x->st.first_start_ns < y->st.first_start_ns ? -1 : 1;
  return strcmp(x->src.name, y->src.name);
}

static int write_rank(sp_fmt_h5w *w, const sp_fmt_rank *r, const char *path,
                      sp_fmt_err *err) {
  int64_t n = r->nblocks;
  size_t cnt = n ? (size_t)n : 1;
  sp_fmt_source *srcs = malloc(cnt * sizeof *srcs), *thr = NULL;
  row_ref *rows = malloc(cnt * sizeof *rows);
  sp_fmt_stats *st = malloc(cnt * sizeof *st);
  int rc = -1;
  if (!srcs || !rows || !st) {
    sp_fmt_err_set(err, "%s: out of memory", path);
    goto out;
  }
  sp_fmt_rank_sources(r, srcs); /* aux = block index: a stable tie-break */
  qsort(srcs, (size_t)n, sizeof *srcs, by_thread);
  for (int64_t lo = 0; lo < n;) {
    int64_t hi = lo;
    while (hi < n && srcs[hi].thread == srcs[lo].thread)
      hi++;
    thr = srcs + lo;
    /* Exclusive time needs every region of the thread at once. */
    sp_fmt_nesting nest = {0};
    double t0 = now();
    int src_rc = sp_fmt_stats_thread(thr, hi - lo, st, &nest);
    t_stats += now() - t0;
    if (src_rc != 0) {
      sp_fmt_err_set(err, "%s: out of memory", path);
      goto out;
    }
    if (nest.bad)
      fprintf(stderr,
              "sp-import: warning: %s: rank %d thread %d: call of %s at %lld "
              "overlaps %s at %lld without nesting; exclusive times count "
              "only nested calls\n",
              path, r->rank, nest.thread, nest.inner,
              (long long)nest.inner_start, nest.outer,
              (long long)nest.outer_start);
    for (int64_t k = lo; k < hi; k++) {
      rows[k - lo].src = srcs[k];
      rows[k - lo].st = st[k - lo];
    }
    qsort(rows, (size_t)(hi - lo), sizeof *rows, by_first_start);
    t0 = now();
    for (int64_t k = 0; k < hi - lo; k++)
      if (sp_fmt_h5w_row(w, r->rank, &rows[k].src, &rows[k].st, err) != 0)
        goto out;
    t_write += now() - t0;
    lo = hi;
  }
  rc = 0;
out:
  free(srcs);
  free(rows);
  free(st);
  return rc;
}

/* The input currently in memory: one .spt rank, or every rank of an .h5. */
typedef struct loaded {
  int64_t input;
  sp_fmt_rank *ranks;
  int64_t n;
} loaded;

static void unload(loaded *l) {
  for (int64_t i = 0; i < l->n; i++)
    sp_fmt_rank_free(&l->ranks[i]);
  free(l->ranks);
  l->ranks = NULL;
  l->n = 0;
  l->input = -1;
}

static int load(loaded *l, const sp_imp_inputs *in, int64_t input,
                sp_fmt_err *err) {
  if (l->input == input)
    return 0;
  unload(l);
  double t0 = now();
  const sp_imp_input *x = &in->v[input];
  if (x->kind == SP_IMP_H5) {
    if (sp_fmt_h5_read(x->path, &l->ranks, &l->n, err) != 0)
      return -1;
  } else {
    l->ranks = calloc(1, sizeof *l->ranks);
    if (!l->ranks) {
      sp_fmt_err_set(err, "%s: out of memory", x->path);
      return -1;
    }
    if (sp_fmt_spt_read(x->path, l->ranks, err) != 0) {
      free(l->ranks);
      l->ranks = NULL;
      return -1;
    }
    l->n = 1;
  }
  l->input = input;
  t_read += now() - t0;
  return 0;
}

int sp__imp_merge(const sp_imp_inputs *in, const sp_imp_claim *claims,
                  int64_t nclaims, const char *out, const char *label,
                  sp_fmt_err *err) {
  sp_fmt_h5w *w = sp_fmt_h5w_open(out, err);
  if (!w)
    return -1;
  loaded l = {-1, NULL, 0};
  sp_fmt_meta meta = {0, NULL};
  int have_meta = 0, rc = -1;
  int64_t *last = malloc((in->n ? (size_t)in->n : 1) * sizeof *last);
  if (!last) {
    sp_fmt_err_set(err, "%s: out of memory", out);
    goto out;
  }
  for (int64_t c = 0; c < nclaims; c++)
    last[claims[c].input] = c; /* claims are sorted: this is the last */
  for (int64_t c = 0; c < nclaims; c++) {
    const char *path = in->v[claims[c].input].path;
    if (load(&l, in, claims[c].input, err) != 0)
      goto out;
    const sp_fmt_rank *r = NULL;
    for (int64_t i = 0; i < l.n && !r; i++)
      if (l.ranks[i].rank == claims[c].rank)
        r = &l.ranks[i];
    if (!r) { /* changed between scan and read */
      sp_fmt_err_set(err, "%s: rank %d no longer in the file", path,
                     claims[c].rank);
      goto out;
    }
    if (write_rank(w, r, path, err) != 0)
      goto out;
    if (!have_meta && r->meta.n > 0) { /* the lowest rank that has any */
      if (sp_fmt_meta_copy(&meta, &r->meta) != 0) {
        sp_fmt_err_set(err, "%s: out of memory", path);
        goto out;
      }
      have_meta = 1;
    }
    /* Free an input as soon as none of its ranks is still to come. */
    if (last[l.input] == c)
      unload(&l);
  }
  if (sp_fmt_meta_set_str(&meta, "label", label) != 0 ||
      sp_fmt_meta_set_int(&meta, "mpi_size", nclaims) != 0) {
    sp_fmt_err_set(err, "%s: out of memory", out);
    goto out;
  }
  if (sp_fmt_h5w_meta(w, &meta, err) != 0)
    goto out;
  double t0 = now();
  rc = sp_fmt_h5w_close(w, err);
  t_write += now() - t0;
  w = NULL;
  if (getenv("SP_IMPORT_TIMES"))
    fprintf(stderr, "sp-import: read %.3f s, stats %.3f s, write %.3f s\n",
            t_read, t_stats, t_write);
out:
  if (w)
    sp_fmt_h5w_abort(w);
  unload(&l);
  sp_fmt_meta_free(&meta);
  free(last);
  return rc;
}
