/* merge.c - streams the ranks into one schema-2 file rank by rank; a
 * reader thread prepares the next rank (loads it, computes its statistics)
 * while this thread writes the previous one, unless SP_IMPORT_THREAD=0. */
#include "sp_import.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Debian's HDF5 is built without thread safety: every HDF5 call of either
 * thread (reading an .h5 input, writing the output) holds this lock. */
static pthread_mutex_t h5_lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One input in memory: a .spt's rank, or every rank of an .h5. Shared by
 * the rows made from it; freed when the last of them is written. */
typedef struct loaded {
  int64_t input;
  sp_fmt_rank *ranks;
  int64_t n;
  int refs;
} loaded;

typedef struct item {
  loaded *l;
  const sp_fmt_rank *r;
  sp_imp_row *rows;
} item;

typedef struct pipeline {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  const sp_imp_inputs *in;
  const sp_imp_claim *claims;
  int64_t nclaims;
  const int64_t *last; /* per input: index of its last claim */
  item q[2];
  int head, count;
  int inflight; /* items made and not yet written */
  int done, cancel, failed;
  sp_fmt_err err; /* the reader's failure */
  double t_read, t_stats;
} pipeline;

static void release(pipeline *p, loaded *l) {
  if (!l)
    return;
  pthread_mutex_lock(&p->mu);
  int last = --l->refs == 0;
  pthread_mutex_unlock(&p->mu);
  if (last) {
    for (int64_t i = 0; i < l->n; i++)
      sp_fmt_rank_free(&l->ranks[i]);
    free(l->ranks);
    free(l);
  }
}

static loaded *load(const sp_imp_input *x, int64_t input, sp_fmt_err *err) {
  loaded *l = calloc(1, sizeof *l);
  if (!l) {
    sp_fmt_err_set(err, "%s: out of memory", x->path);
    return NULL;
  }
  l->input = input;
  l->refs = 1;
  int rc;
  if (x->kind == SP_IMP_H5) {
    pthread_mutex_lock(&h5_lock);
    rc = sp_fmt_h5_read(x->path, &l->ranks, &l->n, err);
    pthread_mutex_unlock(&h5_lock);
  } else if (!(l->ranks = calloc(1, sizeof *l->ranks))) {
    sp_fmt_err_set(err, "%s: out of memory", x->path);
    rc = -1;
  } else {
    rc = sp_fmt_spt_read(x->path, l->ranks, err);
    l->n = rc == 0;
  }
  if (rc != 0) {
    free(l->ranks);
    free(l);
    return NULL;
  }
  return l;
}

/* Prepares claim c as an item on the queue: loads its input unless *cur
 * already holds it, builds its rows with statistics. */
static int produce(pipeline *p, int64_t c, loaded **cur, sp_fmt_err *err) {
  const sp_imp_input *x = &p->in->v[p->claims[c].input];
  double t0 = now();
  if (!*cur || (*cur)->input != p->claims[c].input) {
    release(p, *cur);
    if (!(*cur = load(x, p->claims[c].input, err)))
      return -1;
  }
  const sp_fmt_rank *r = NULL;
  for (int64_t i = 0; i < (*cur)->n && !r; i++)
    if ((*cur)->ranks[i].rank == p->claims[c].rank)
      r = &(*cur)->ranks[i];
  double t1 = now();
  p->t_read += t1 - t0;
  if (!r) { /* changed between scan and read */
    sp_fmt_err_set(err, "%s: rank %d no longer in the file", x->path,
                   p->claims[c].rank);
    return -1;
  }
  sp_imp_row *rows = NULL;
  if (sp__imp_rows(r, x->path, &rows, err) != 0)
    return -1;
  p->t_stats += now() - t1;
  pthread_mutex_lock(&p->mu);
  (*cur)->refs++;
  p->q[(p->head + p->count++) % 2] = (item){*cur, r, rows};
  p->inflight++;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  if (p->last[(*cur)->input] == c) { /* none of its ranks is still to come */
    release(p, *cur);
    *cur = NULL;
  }
  return 0;
}

/* The reader thread: claims in rank order to items, at most two ahead
 * of the writer (the one being written and the next). */
static void *reader(void *arg) {
  pipeline *p = arg;
  loaded *cur = NULL;
  sp_fmt_err err = {""};
  int failed = 0;
  for (int64_t c = 0; c < p->nclaims && !failed; c++) {
    pthread_mutex_lock(&p->mu);
    while (p->inflight >= 2 && !p->cancel)
      pthread_cond_wait(&p->cv, &p->mu);
    int cancel = p->cancel;
    pthread_mutex_unlock(&p->mu);
    if (cancel)
      break;
    failed = produce(p, c, &cur, &err) != 0;
  }
  release(p, cur);
  pthread_mutex_lock(&p->mu);
  p->done = 1;
  if (failed) {
    p->failed = 1;
    p->err = err;
  }
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

static int write_item(sp_fmt_h5w *w, const item *it, sp_fmt_err *err) {
  int rc = 0;
  pthread_mutex_lock(&h5_lock);
  for (int64_t k = 0; k < it->r->nblocks && rc == 0; k++)
    rc = sp_fmt_h5w_row(w, it->r->rank, &it->rows[k].src, &it->rows[k].st, err);
  pthread_mutex_unlock(&h5_lock);
  return rc;
}

int sp__imp_merge(const sp_imp_inputs *in, const sp_imp_claim *claims,
                  int64_t nclaims, const char *out, const char *label,
                  sp_fmt_err *err) {
  int64_t *last = malloc((in->n ? (size_t)in->n : 1) * sizeof *last);
  if (!last) {
    sp_fmt_err_set(err, "%s: out of memory", out);
    return -1;
  }
  for (int64_t c = 0; c < nclaims; c++)
    last[claims[c].input] = c; /* claims are sorted: this is the last */
  sp_fmt_h5w *w = sp_fmt_h5w_open(out, err);
  if (!w) {
    free(last);
    return -1;
  }
  pipeline p;
  memset(&p, 0, sizeof p);
  pthread_mutex_init(&p.mu, NULL);
  pthread_cond_init(&p.cv, NULL);
  p.in = in;
  p.claims = claims;
  p.nclaims = nclaims;
  p.last = last;
  /* By default the reader thread prepares the next rank while this one
   * writes (two ranks in memory): on the 64-rank bench it was faster in
   * every run but one tie (docs/import.md). SP_IMPORT_THREAD=0 keeps one
   * rank in memory at a time. */
  const char *thr = getenv("SP_IMPORT_THREAD");
  pthread_t th;
  int started = !(thr && strcmp(thr, "0") == 0) &&
                pthread_create(&th, NULL, reader, &p) == 0;
  int64_t next = 0; /* without the thread: the next claim to prepare */
  loaded *cur = NULL;

  sp_fmt_meta meta = {0, NULL};
  int have_meta = 0, failed = 0;
  double t_write = 0, t_wait = 0;
  for (;;) {
    double t0 = now();
    if (!started && !failed) {
      if (next == nclaims)
        p.done = 1;
      else if (produce(&p, next++, &cur, err) != 0)
        failed = 1;
    }
    if (failed && !started)
      break;
    pthread_mutex_lock(&p.mu);
    while (p.count == 0 && !p.done)
      pthread_cond_wait(&p.cv, &p.mu);
    if (p.count == 0) {
      pthread_mutex_unlock(&p.mu);
      break;
    }
    item it = p.q[p.head];
    p.head = (p.head + 1) % 2;
    p.count--;
    pthread_mutex_unlock(&p.mu);
    double t1 = now();
    t_wait += t1 - t0;
    if (!failed && write_item(w, &it, err) != 0)
      failed = 1;
    if (!failed && !have_meta && it.r->meta.n > 0) {
      /* The lowest rank that has any. */
      if (sp_fmt_meta_copy(&meta, &it.r->meta) != 0) {
        sp_fmt_err_set(err, "%s: out of memory", in->v[it.l->input].path);
        failed = 1;
      }
      have_meta = 1;
    }
    t_write += now() - t1;
    free(it.rows);
    release(&p, it.l);
    pthread_mutex_lock(&p.mu);
    p.inflight--;
    if (failed)
      p.cancel = 1;
    pthread_cond_broadcast(&p.cv);
    pthread_mutex_unlock(&p.mu);
  }
  if (started)
    pthread_join(th, NULL);
  release(&p, cur);
  if (!failed && p.failed) {
    *err = p.err;
    failed = 1;
  }
  if (!failed && (sp_fmt_meta_set_str(&meta, "label", label) != 0 ||
                  sp_fmt_meta_set_int(&meta, "mpi_size", nclaims) != 0)) {
    sp_fmt_err_set(err, "%s: out of memory", out);
    failed = 1;
  }
  int rc = -1;
  double t0 = now();
  if (failed || sp_fmt_h5w_meta(w, &meta, err) != 0) {
    sp_fmt_h5w_abort(w);
  } else {
    rc = sp_fmt_h5w_close(w, err);
  }
  t_write += now() - t0;
  if (getenv("SP_IMPORT_TIMES"))
    fprintf(stderr,
            "sp-import: read %.3f s, stats %.3f s; "
            "writer: write %.3f s, waited %.3f s\n",
            p.t_read, p.t_stats, t_write, t_wait);
  sp_fmt_meta_free(&meta);
  pthread_mutex_destroy(&p.mu);
  pthread_cond_destroy(&p.cv);
  free(last);
  return rc;
}
