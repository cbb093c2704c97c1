/* merge.c - streams the ranks into one schema-2 file rank by rank. This
 * thread reads each rank and writes it; a statistics thread computes the
 * rows of rank i+1 meanwhile (two ranks in memory), unless
 * SP_IMPORT_THREAD=0. */
#include "sp_import.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* Ranks flow: this thread loads them (todo), the statistics thread makes
 * their rows (ready), this thread writes them. At most two are in flight,
 * so each queue holds at most two. All HDF5 calls stay on this thread
 * (Debian's HDF5 is not thread-safe). */
typedef struct pipeline {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  const sp_imp_inputs *in;
  const sp_imp_claim *claims;
  const int64_t *last; /* per input: index of its last claim */
  item todo[2], ready[2];
  int todo_head, ntodo, ready_head, nready;
  int stop;       /* no more todo: the statistics thread ends */
  int failed;     /* the statistics thread failed: err says why */
  sp_fmt_err err; /* the statistics thread's failure */
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
    rc = sp_fmt_h5_read(x->path, &l->ranks, &l->n, err);
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

/* Claim c as an item without rows: loads its input unless *cur already
 * holds it. */
static int load_item(pipeline *p, int64_t c, loaded **cur, item *it,
                     sp_fmt_err *err) {
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
  p->t_read += now() - t0;
  if (!r) { /* changed between scan and read */
    sp_fmt_err_set(err, "%s: rank %d no longer in the file", x->path,
                   p->claims[c].rank);
    return -1;
  }
  pthread_mutex_lock(&p->mu);
  (*cur)->refs++;
  pthread_mutex_unlock(&p->mu);
  *it = (item){*cur, r, NULL};
  if (p->last[(*cur)->input] == c) { /* none of its ranks is still to come */
    release(p, *cur);
    *cur = NULL;
  }
  return 0;
}

/* The item's rows with their statistics; t is where the time adds up. */
static int make_rows(pipeline *p, item *it, double *t, sp_fmt_err *err) {
  double t0 = now();
  int rc = sp__imp_rows(it->r, p->in->v[it->l->input].path, &it->rows, err);
  *t += now() - t0;
  return rc;
}

/* The statistics thread: todo items to ready ones, in order. */
static void *stats_thread(void *arg) {
  pipeline *p = arg;
  double t = 0;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->ntodo == 0 && !p->stop)
      pthread_cond_wait(&p->cv, &p->mu);
    if (p->ntodo == 0)
      break;
    item it = p->todo[p->todo_head];
    pthread_mutex_unlock(&p->mu);
    sp_fmt_err err = {""};
    int rc = make_rows(p, &it, &t, &err);
    pthread_mutex_lock(&p->mu);
    p->todo_head = (p->todo_head + 1) % 2;
    p->ntodo--;
    if (rc != 0) {
      p->failed = 1;
      p->err = err;
      pthread_cond_broadcast(&p->cv);
      break;
    }
    p->ready[(p->ready_head + p->nready++) % 2] = it;
    pthread_cond_broadcast(&p->cv);
  }
  p->t_stats = t;
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

static int write_item(sp_fmt_h5w *w, const item *it, sp_fmt_err *err) {
  int rc = 0;
  for (int64_t k = 0; k < it->r->nblocks && rc == 0; k++)
    rc = sp_fmt_h5w_row(w, it->r->rank, &it->rows[k].src, &it->rows[k].st, err);
  return rc;
}

static void drop_item(pipeline *p, item *it) {
  free(it->rows);
  release(p, it->l);
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
  p.last = last;
  /* On the 64-rank bench the statistics thread was faster in every run
   * but one tie (docs/import.md). SP_IMPORT_THREAD=0 keeps one rank in
   * memory at a time. */
  const char *thr = getenv("SP_IMPORT_THREAD");
  pthread_t th;
  int started = !(thr && strcmp(thr, "0") == 0) &&
                pthread_create(&th, NULL, stats_thread, &p) == 0;
  loaded *cur = NULL;

  sp_fmt_meta meta = {0, NULL};
  int have_meta = 0, failed = 0;
  double t_write = 0, t_wait = 0, t_stats = 0;
  int64_t next = 0, inflight = 0;
  for (int64_t done = 0; done < nclaims && !failed;) {
    item it;
    if (next < nclaims && inflight < (started ? 2 : 1)) {
      if (load_item(&p, next, &cur, &it, err) != 0) {
        failed = 1;
        break;
      }
      next++;
      inflight++;
      if (!started) {
        if (make_rows(&p, &it, &t_stats, err) != 0) {
          drop_item(&p, &it);
          failed = 1;
          break;
        }
        pthread_mutex_lock(&p.mu);
        p.ready[(p.ready_head + p.nready++) % 2] = it;
        pthread_mutex_unlock(&p.mu);
      } else {
        pthread_mutex_lock(&p.mu);
        p.todo[(p.todo_head + p.ntodo++) % 2] = it;
        pthread_cond_broadcast(&p.cv);
        pthread_mutex_unlock(&p.mu);
        continue; /* load the next one while this one's rows are made */
      }
    }
    double t0 = now();
    pthread_mutex_lock(&p.mu);
    while (p.nready == 0 && !p.failed)
      pthread_cond_wait(&p.cv, &p.mu);
    if (p.nready == 0) { /* the statistics thread failed */
      *err = p.err;
      pthread_mutex_unlock(&p.mu);
      failed = 1;
      break;
    }
    it = p.ready[p.ready_head];
    p.ready_head = (p.ready_head + 1) % 2;
    p.nready--;
    pthread_mutex_unlock(&p.mu);
    double t1 = now();
    t_wait += t1 - t0;
    if (write_item(w, &it, err) != 0)
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
    drop_item(&p, &it);
    inflight--;
    done++;
  }
  if (started) {
    pthread_mutex_lock(&p.mu);
    p.stop = 1;
    pthread_cond_broadcast(&p.cv);
    pthread_mutex_unlock(&p.mu);
    pthread_join(th, NULL);
    t_stats = p.t_stats;
  }
  /* After a failure: whatever is still queued. */
  for (; p.ntodo > 0; p.ntodo--, p.todo_head = (p.todo_head + 1) % 2)
    drop_item(&p, &p.todo[p.todo_head]);
  for (; p.nready > 0; p.nready--, p.ready_head = (p.ready_head + 1) % 2)
    drop_item(&p, &p.ready[p.ready_head]);
  release(&p, cur);
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
            "sp-import: read %.3f s, write %.3f s, waited for statistics "
            "%.3f s; statistics %.3f s%s\n",
            p.t_read, t_write, t_wait, t_stats,
            started ? " (on their own thread)" : "");
  sp_fmt_meta_free(&meta);
  pthread_mutex_destroy(&p.mu);
  pthread_cond_destroy(&p.cv);
  free(last);
  return rc;
}
