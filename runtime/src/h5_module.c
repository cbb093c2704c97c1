/* h5_module.c - libscopeprof_h5.so, the runtime's HDF5 writer: loaded by
 * h5_load.c only when a rank writes .h5; entry points sp__h5_write (a
 * rank's file) and sp__h5_merge_get (rank 0's part of SP_MERGE). Built
 * again against parallel HDF5 as libscopeprof_h5mpi.so, which adds
 * sp__h5_par_get (every rank's part of SP_MERGE's parallel write). */
#include "h5_merge.h"
#include "sp_format.h"
#include "sp_h5_util.h"
#include "sp_profile.h"
#ifdef SP_H5_PARALLEL
#include "sp_h5p.h"
#endif

#include <stdio.h>
#include <stdlib.h>

/* The HDF5 this module uses may be the application's own (the same shared
 * library, when the application links Debian's serial HDF5): everything
 * it could observe is put back as it was. The error printing it chose
 * (H5Eset_auto2, or H5Eset_auto1 in older code) and its current error
 * stack are saved and restored around the write; the writer's file driver
 * is registered for the write only; the library is never closed (no
 * H5close, no H5dont_atexit). */
typedef struct app_state {
  int vers; /* 2: auto2 saved, 1: auto1 saved, 0: nothing */
  H5E_auto2_t f2;
  H5E_auto1_t f1;
  void *data;
  hid_t stack; /* the application's error stack, or -1 */
} app_state;

static void save(app_state *s) {
  s->vers = 0;
  s->stack = H5Eget_current_stack(); /* a copy; the current one is cleared */
  if (H5Eget_auto2(H5E_DEFAULT, &s->f2, &s->data) >= 0) {
    s->vers = 2;
    return;
  }
  H5Eclear2(H5E_DEFAULT); /* "wrong API function": H5Eset_auto1 is in use */
#ifndef H5_NO_DEPRECATED_SYMBOLS
  if (H5Eget_auto1(&s->f1, &s->data) >= 0)
    s->vers = 1;
#endif
}

static void restore(const app_state *s) {
  H5Eclear2(H5E_DEFAULT);
  if (s->vers == 2)
    H5Eset_auto2(H5E_DEFAULT, s->f2, s->data);
#ifndef H5_NO_DEPRECATED_SYMBOLS
  else if (s->vers == 1)
    H5Eset_auto1(s->f1, s->data);
#endif
  if (s->stack >= 0)
    H5Eset_current_stack(s->stack); /* also closes the copy */
}

static int write_rank(const char *path, int32_t rank, const sp_fmt_source *srcs,
                      int64_t n, const sp_fmt_meta *meta, sp_fmt_mpi *mpi,
                      sp_fmt_err *err) {
  sp_fmt_stats *stats = calloc((size_t)(n ? n : 1), sizeof *stats);
  if (!stats || sp_fmt_stats_rank(srcs, n, stats, NULL) < 0) {
    free(stats);
    sp_fmt_err_set(err, "%.900s: out of memory", path);
    return -1;
  }
  /* path is the runtime's own temporary name (finalize renames it into
   * place, and its signal handler removes it if cut short): written
   * straight into, not through a second temporary. */
  sp_fmt_h5w *w = sp_fmt_h5w_open_as(path, path, err); /* silences HDF5 */
  int rc = w ? sp_fmt_h5w_meta(w, meta, err) : -1;
  for (int64_t i = 0; rc == 0 && i < n; i++)
    rc = sp_fmt_h5w_row(w, rank, &srcs[i], &stats[i], err);
  if (rc == 0 && mpi)
    rc = sp_fmt_h5w_mpi(w, rank, mpi, err);
  if (w)
    rc = rc ? (sp_fmt_h5w_abort(w), -1) : sp_fmt_h5w_close(w, err);
  free(stats);
  return rc;
}

__attribute__((visibility("default"))) int
sp__h5_write(const char *path, int32_t rank, const sp_fmt_source *srcs,
             int64_t n, const sp_fmt_meta *meta, sp_fmt_mpi *mpi,
             sp_fmt_err *err) {
  app_state s;
  save(&s);
  int rc = write_rank(path, rank, srcs, n, meta, mpi, err);
  restore(&s);
  return rc;
}

/* SP_MODE=profile: a rank's statistics and call paths, no events. */
__attribute__((visibility("default"))) int
sp__h5_write_profile(const char *path, const sp_fmt_profile *p,
                     const sp_fmt_meta *meta, sp_fmt_err *err) {
  app_state s;
  save(&s);
  int rc = sp_fmt_h5_write_profile(path, path, p, meta, err);
  restore(&s);
  return rc;
}

/* SP_COUNTERS: a rank's counters added to its finished file. */
__attribute__((visibility("default"))) int
sp__h5_write_counters(const char *path, const sp_fmt_ctr *c, sp_fmt_err *err) {
  app_state s;
  save(&s);
  int rc = sp_fmt_h5_add_counters(path, c, err);
  restore(&s);
  return rc;
}

/* ---- SP_MERGE: rank 0's writer; HDF5 is called in open, close and abort
 * only (rows of a reserved writer wait in memory until close). */
static void *merge_open(const char *path, int64_t events, const char **tmp,
                        int64_t at[2], sp_fmt_err *err) {
  app_state s;
  save(&s);
  sp_fmt_h5w *w = sp_fmt_h5w_open(path, err);
  if (w && (sp_fmt_h5w_reserve(w, events, err) != 0 ||
            sp_fmt_h5w_layout(w, tmp, at) != 0)) {
    sp_fmt_h5w_abort(w);
    w = NULL;
  }
  restore(&s);
  return w;
}

static int merge_row(void *w, int32_t rank, const sp_fmt_source *src,
                     const sp_fmt_stats *st, sp_fmt_err *err) {
  return sp_fmt_h5w_row(w, rank, src, st, err);
}

static int merge_close(void *w, const sp_fmt_meta *meta, sp_fmt_err *err) {
  app_state s;
  save(&s);
  int rc = -1;
  if (sp_fmt_h5w_meta(w, meta, err) != 0)
    sp_fmt_h5w_abort(w);
  else
    rc = sp_fmt_h5w_close(w, err);
  restore(&s);
  return rc;
}

static void merge_abort(void *w) {
  app_state s;
  save(&s);
  sp_fmt_h5w_abort(w);
  restore(&s);
}

static void *merge_adopt(const char *path, const char *tmp, int64_t events,
                         sp_fmt_err *err) {
  app_state s;
  save(&s);
  sp_fmt_h5w *w = sp_fmt_h5w_adopt(path, tmp, events, err);
  restore(&s);
  return w;
}

/* No HDF5 call: the messages wait in memory until close. */
static int merge_mpi(void *w, int32_t rank, sp_fmt_mpi *m, sp_fmt_err *err) {
  return sp_fmt_h5w_mpi(w, rank, m, err);
}

static int merge_counters(void *w, const sp_fmt_ctr *c, sp_fmt_err *err) {
  app_state s;
  save(&s);
  int rc = sp_fmt_h5w_counters(w, c, err);
  restore(&s);
  return rc;
}

__attribute__((visibility("default"))) const sp__h5_merge_ops *
sp__h5_merge_get(void) {
  static const sp__h5_merge_ops ops = {
      merge_open,  merge_row,   merge_close,    merge_abort,
      merge_adopt, merge_mpi,   merge_counters};
  return &ops;
}

#ifdef SP_H5_PARALLEL
/* ---- SP_MERGE's parallel write: every rank, collectively. */
static void *par_create(const char *tmp, int64_t events, sp_fmt_err *err) {
  app_state s;
  save(&s);
  sp_fmt_h5p *p = sp_fmt_h5p_create(tmp, MPI_COMM_WORLD, events, err);
  restore(&s);
  return p;
}

/* No HDF5 call below: MPI-IO alone. */
static int par_put(void *p, int64_t first, int64_t *starts, int64_t *ends,
                   int64_t n, sp_fmt_err *err) {
  return sp_fmt_h5p_put(p, first, starts, ends, n, err);
}

static int par_close(void *p, sp_fmt_err *err) {
  return sp_fmt_h5p_close(p, err);
}

__attribute__((visibility("default"))) const sp__h5_par_ops *
sp__h5_par_get(void) {
  static const sp__h5_par_ops ops = {par_create, par_put, par_close};
  return &ops;
}
#endif
