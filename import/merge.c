/* merge.c - streams the ranks into one schema-2 file, in rank order. Each
 * rank is read (a .spt's index, a stream's index, an .h5 whole) and its
 * rows placed (their
 * order, hence where their calls go, is known before any statistics, from
 * the counts the scan found); then its statistics, which write a .spt's
 * calls to the output as they read them (an .h5's calls, in memory already,
 * are a copy step of their own); then its rows go into the output's index,
 * in rank order. Both threads take whichever step of the oldest rank is
 * ready, up to four ranks at a time (a slot holds an index, not calls).
 * --threads=0: one thread, one rank (also the default for ranks of under
 * 64 Ki calls on average); =1: two threads whatever the ranks.
 * HDF5 (not thread-safe here) is called by this thread alone: to read an
 * .h5 input, and to open and close the output. */
#include "sp_import.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 4
/* Below this many calls per rank on average, one thread does it all:
 * handing each step of thousands of tiny ranks from thread to thread costs
 * more than the steps. */
#define SMALL_RANKS 65536

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One input in memory: a .spt's rank, or every rank of an .h5, or a
 * stream's rank (its blocks only count its sources' calls). Shared by the
 * slots made from it; freed with the last of them. */
typedef struct loaded {
  int64_t input;
  sp_fmt_rank *ranks;
  int64_t n;
  int refs;
  int fd; /* a .spt: its calls are read from here; -1 for an .h5 */
  sp_fmt_stream *stream; /* a stream: its calls are read through it */
} loaded;

/* Each step of a slot's rank: to do, running (outside the lock), done. */
enum { TODO, RUNNING, DONE };

typedef struct slot {
  int64_t claim; /* -1: free */
  int read, stats, copy, rows;
  loaded *l;
  const sp_fmt_rank *r;
  sp_imp_row *rows_v;
} slot;

typedef struct pipeline {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  const sp_fmt_inputs *in;
  const sp_imp_claim *claims;
  int64_t nclaims;
  const int64_t *last; /* per input: index of its last claim */
  sp_fmt_h5w *w;
  slot slots[SLOTS];
  int nslots;
  const int64_t *base;                /* per claim: index of its first call */
  int64_t next_read, next_rows, done; /* claims read, given rows, freed */
  int reading; /* a thread is reading: reads go one at a time, in order */
  loaded *cur; /* the input being read, while claims of it remain */
  int spt_mpi; /* a .spt input has its messages beside it */
  int failed;  /* err says why */
  sp_fmt_err err;
  sp_fmt_meta meta; /* from the lowest rank that has any */
  int have_meta;
  char **per_rank; /* per claim, per SP_FMT_PER_RANK key: its value as text */
  double t[5];     /* seconds in read, statistics, copy, rows, waiting */
} pipeline;

enum { T_READ, T_STATS, T_COPY, T_ROWS, T_WAIT };

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
    if (l->fd >= 0)
      close(l->fd);
    sp_fmt_stream_close(l->stream);
    free(l);
  }
}

/* A stream's rank as the merge sees one: rank, metadata, and a block per
 * source with its count (the calls stay in the file). */
static int stream_rank(sp_fmt_stream *s, sp_fmt_rank *r) {
  sp_fmt_stream_info info;
  sp_fmt_stream_get_info(s, &info);
  int64_t n = sp_fmt_stream_nsources(s);
  const sp_fmt_source *src = sp_fmt_stream_sources(s);
  memset(r, 0, sizeof *r);
  r->rank = info.rank;
  r->blocks = calloc(n ? (size_t)n : 1, sizeof *r->blocks);
  if (!r->blocks || sp_fmt_meta_copy(&r->meta, sp_fmt_stream_meta(s)) != 0)
    return -1;
  r->nblocks = n;
  sp_fmt_err e;
  if (sp_fmt_stream_mpi(s, &r->mpi, &e) != 0)
    return -1;
  for (int64_t i = 0; i < n; i++) {
    r->blocks[i].thread = src[i].thread;
    r->blocks[i].region = (int32_t)i;
    r->blocks[i].count = src[i].count;
    r->blocks[i].file_offset = -1;
  }
  return 0;
}

static loaded *load(const sp_fmt_input *x, int64_t input, int spt_mpi,
                    sp_fmt_err *err) {
  loaded *l = calloc(1, sizeof *l);
  if (!l) {
    sp_fmt_err_set(err, "%s: out of memory", x->path);
    return NULL;
  }
  l->input = input;
  l->refs = 1;
  l->fd = -1;
  int rc;
  if (x->kind == SP_FMT_INPUT_H5) {
    rc = sp_fmt_h5_read(x->path, &l->ranks, &l->n, err);
  } else if (x->kind == SP_FMT_INPUT_STREAM) {
    /* Indexed again (the scan closed it): bounded by its records. */
    rc = sp_fmt_stream_open(x->path, SP__IMP_STREAM, &l->stream, err);
    if (rc == 0 && (!(l->ranks = calloc(1, sizeof *l->ranks)) ||
                    stream_rank(l->stream, l->ranks) != 0)) {
      sp_fmt_err_set(err, "%s: out of memory", x->path);
      if (l->ranks)
        sp_fmt_rank_free(l->ranks);
      rc = -1;
    }
    l->n = rc == 0;
  } else if (!(l->ranks = calloc(1, sizeof *l->ranks))) {
    sp_fmt_err_set(err, "%s: out of memory", x->path);
    rc = -1;
  } else {
    /* Only the index: the statistics read the calls from fd in batches
     * and the copy goes file to file. The scan parsed it already; parsing
     * it again (headers only) keeps memory to the ranks in flight rather
     * than every rank's index at once. */
    l->fd = open(x->path, O_RDONLY | O_CLOEXEC);
    if (l->fd < 0) {
      sp_fmt_err_set(err, "%s: %s", x->path, strerror(errno));
      rc = -1;
    } else {
      rc = sp_fmt_spt_index(x->path, l->ranks, err);
      /* its MPI messages, from the file beside it */
      if (rc == 0)
        sp_fmt_spt_mpi_take(x->path, l->ranks->rank, spt_mpi, "sp-import",
                            &l->ranks->mpi);
    }
    l->n = rc == 0;
  }
  if (rc != 0) {
    if (l->fd >= 0)
      close(l->fd);
    sp_fmt_stream_close(l->stream);
    free(l->ranks);
    free(l);
    return NULL;
  }
  return l;
}

/* Reads claim c into s (the reading token held): loads its input unless
 * p->cur already holds it. */
static int read_claim(pipeline *p, int64_t c, slot *s, sp_fmt_err *err) {
  const sp_imp_claim *cl = &p->claims[c];
  const sp_fmt_input *x = &p->in->v[cl->input];
  if (!p->cur || p->cur->input != cl->input) {
    release(p, p->cur);
    p->cur = NULL;
    if (!(p->cur = load(x, cl->input, p->spt_mpi, err)))
      return -1;
  }
  const sp_fmt_rank *r = NULL;
  for (int64_t i = 0; i < p->cur->n && !r; i++)
    if (p->cur->ranks[i].rank == cl->rank)
      r = &p->cur->ranks[i];
  int64_t events = 0;
  for (int64_t i = 0; r && i < r->nblocks; i++)
    events += r->blocks[i].count;
  if (!r || events != cl->events) { /* changed between scan and read */
    sp_fmt_err_set(err, "%s: rank %d changed while being merged", x->path,
                   cl->rank);
    return -1;
  }
  pthread_mutex_lock(&p->mu);
  p->cur->refs++;
  pthread_mutex_unlock(&p->mu);
  s->l = p->cur;
  s->r = r;
  if (p->last[cl->input] == c) { /* none of its ranks is still to come */
    release(p, p->cur);
    p->cur = NULL;
  }
  return sp__imp_place(
      r, s->l->stream ? sp_fmt_stream_sources(s->l->stream) : NULL, x->path,
      s->l->fd, p->base[c], &s->rows_v, err);
}

/* Claim c's values of the per-rank keys (sp_fmt_per_rank_keys), kept as
 * text. */
static int keep_per_rank(pipeline *p, int64_t c, const sp_fmt_meta *m) {
  return sp_fmt_per_rank_values(m, p->claims[c].rank,
                                &p->per_rank[(size_t)c * SP_FMT_PER_RANK]);
}

/* rank_ids and rank_<key> for the per-rank keys any rank has: one string
 * per merged rank, in rank order ("" where a rank has none); a rank merged
 * from several processes gives its first process's value. */
static int per_rank_meta(sp_fmt_meta *m, char **per, const sp_imp_claim *claims,
                         int64_t n) {
  int32_t *ranks = malloc((n > 0 ? (size_t)n : 1) * sizeof *ranks);
  if (!ranks)
    return -1;
  for (int64_t c = 0; c < n; c++)
    ranks[c] = claims[c].rank;
  int rc = sp_fmt_per_rank_meta(m, per, ranks, n);
  free(ranks);
  return rc;
}

/* The slot's rows in the writer (kept in memory until close): no HDF5
 * call, either thread, in claim order. */
static int add_rows(pipeline *p, slot *s, sp_fmt_err *err) {
  for (int64_t k = 0; k < s->r->nblocks; k++) {
    sp_imp_row *row = &s->rows_v[k];
    if (row->at != sp_fmt_h5w_events(p->w)) {
      sp_fmt_err_set(err, "%s: rank %d: row of %s at call %lld, not %lld",
                     p->in->v[s->l->input].path, s->r->rank, row->src.name,
                     (long long)row->at, (long long)sp_fmt_h5w_events(p->w));
      return -1;
    }
    sp_fmt_source src = row->src; /* in its process's place in the rank */
    src.thread += p->claims[s->claim].thread_base;
    if (sp_fmt_h5w_row(p->w, s->r->rank, &src, &row->st, err) != 0)
      return -1;
  }
  /* Its MPI messages, in the rank's thread numbers (moved: the writer
   * keeps them until close). */
  sp_fmt_mpi *mpi = &((sp_fmt_rank *)s->r)->mpi;
  for (int64_t k = 0; k < mpi->nmsgs; k++)
    mpi->msgs[k].thread += p->claims[s->claim].thread_base;
  if (sp_fmt_h5w_mpi(p->w, s->r->rank, mpi, err) != 0)
    return -1;
  if (keep_per_rank(p, s->claim, &s->r->meta) != 0) {
    sp_fmt_err_set(err, "%s: out of memory", p->in->v[s->l->input].path);
    return -1;
  }
  if (!p->have_meta && s->r->meta.n > 0) {
    p->have_meta = 1;
    if (sp_fmt_meta_copy(&p->meta, &s->r->meta) != 0) {
      sp_fmt_err_set(err, "%s: out of memory", p->in->v[s->l->input].path);
      return -1;
    }
  }
  return 0;
}

/* Frees what the slot holds; its state is the caller's to set. */
static void empty_slot(pipeline *p, slot *s) {
  free(s->rows_v);
  s->rows_v = NULL;
  release(p, s->l);
  s->l = NULL;
  s->r = NULL;
}

/* Takes the oldest ready step, does it outside the lock, and says whether
 * there may be more. Called with the lock held. */
static int step(pipeline *p, int main_thread) {
  if (p->failed || p->done == p->nclaims)
    return 0;
  slot *s = NULL;
  int what = -1;
  /* The oldest rank's rows (in claim order), then a copy, then
   * statistics, then the next read if its slot is free. */
  for (int64_t c = p->done; !s && c < p->next_read; c++) {
    slot *t = &p->slots[c % p->nslots];
    if (t->claim != c || t->read != DONE)
      continue;
    if (c == p->next_rows && t->stats == DONE && t->rows == TODO) {
      s = t;
      what = T_ROWS;
    } else if (t->copy == TODO) {
      s = t;
      what = T_COPY;
    } else if (t->stats == TODO) {
      s = t;
      what = T_STATS;
    }
  }
  /* A .spt or a stream: read without HDF5, calls written by the
   * statistics step. */
  int spt = p->next_read < p->nclaims &&
            p->in->v[p->claims[p->next_read].input].kind != SP_FMT_INPUT_H5;
  /* An .h5 is read with HDF5: this thread only. */
  if (!s && !p->reading && p->next_read < p->nclaims &&
      p->slots[p->next_read % p->nslots].claim == -1 && (main_thread || spt)) {
    s = &p->slots[p->next_read % p->nslots];
    /* A .spt's calls go to the output as its statistics read them. */
    *s = (slot){.claim = p->next_read++,
                .read = TODO,
                .stats = TODO,
                .copy = spt ? DONE : TODO,
                .rows = TODO};
    p->reading = 1;
    what = T_READ;
  }
  if (!s) {
    double t0 = now();
    pthread_cond_wait(&p->cv, &p->mu);
    p->t[T_WAIT] += now() - t0;
    return 1;
  }
  int *state = what == T_READ    ? &s->read
               : what == T_STATS ? &s->stats
               : what == T_COPY  ? &s->copy
                                 : &s->rows;
  *state = RUNNING;
  pthread_mutex_unlock(&p->mu);
  sp_fmt_err err = {""};
  const char *path = s->l ? p->in->v[s->l->input].path : NULL;
  int fd = s->l ? s->l->fd : -1;
  double t0 = now();
  int rc;
  if (what == T_READ)
    rc = read_claim(p, s->claim, s, &err);
  else if (what == T_STATS)
    rc = sp__imp_stats(s->r, path, fd, s->l->stream, p->w, s->rows_v, &err);
  else if (what == T_COPY)
    rc = sp__imp_copy(p->w, s->r, s->rows_v, &err);
  else
    rc = add_rows(p, s, &err);
  double t1 = now();
  pthread_mutex_lock(&p->mu);
  p->t[what] += t1 - t0;
  if (what == T_READ)
    p->reading = 0;
  if (rc != 0) {
    if (!p->failed)
      p->err = err;
    p->failed = 1;
    *state = TODO;
  } else {
    *state = DONE;
    if (what == T_ROWS)
      p->next_rows++;
    if (s->rows == DONE && s->copy == DONE) {
      s->claim = -2; /* being freed: not yet reusable */
      pthread_mutex_unlock(&p->mu);
      empty_slot(p, s); /* may close files: outside the lock */
      pthread_mutex_lock(&p->mu);
      s->claim = -1;
      /* Claims are freed in order of their rows and copies; done counts
       * the prefix that is. */
      while (p->done < p->next_rows &&
             p->slots[p->done % p->nslots].claim != p->done)
        p->done++;
    }
  }
  pthread_cond_broadcast(&p->cv);
  return 1;
}

static void *helper(void *arg) {
  pipeline *p = arg;
  pthread_mutex_lock(&p->mu);
  while (step(p, 0))
    ;
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

static int64_t distinct_ranks(const sp_imp_claim *claims, int64_t n) {
  int64_t d = 0;
  for (int64_t c = 0; c < n; c++)
    d += c == 0 || claims[c].rank != claims[c - 1].rank;
  return d;
}

/* Where each process of a rank merged from several went: "rank R threads
 * A-B: PATH" for every input of such a rank. Nothing when none was. */
static int processes_meta(sp_fmt_meta *m, const sp_fmt_inputs *in,
                          const sp_imp_claim *claims, int64_t n) {
  int64_t k = 0;
  char **v = calloc(n > 0 ? (size_t)n : 1, sizeof *v);
  int rc = v ? 0 : -1;
  for (int64_t c = 0; rc == 0 && c < n; c++) {
    int shared = (c > 0 && claims[c - 1].rank == claims[c].rank) ||
                 (c + 1 < n && claims[c + 1].rank == claims[c].rank);
    if (!shared)
      continue;
    const char *path = in->v[claims[c].input].path;
    size_t len = strlen(path) + 64;
    if (!(v[k] = malloc(len))) {
      rc = -1;
      break;
    }
    snprintf(v[k++], len, "rank %d threads %d-%d: %s", claims[c].rank,
             claims[c].thread_base,
             claims[c].thread_base + claims[c].threads - 1, path);
  }
  if (rc == 0 && k > 0)
    rc = sp_fmt_meta_set_strlist(m, "processes", (const char *const *)v, k);
  for (int64_t i = 0; v && i < k; i++)
    free(v[i]);
  free(v);
  return rc;
}

int sp__imp_merge(const sp_fmt_inputs *in, const sp_imp_claim *claims,
                  int64_t nclaims, const char *out, const char *label,
                  const sp_imp_opts *o, sp_fmt_err *err) {
  int64_t *last = malloc((in->n ? (size_t)in->n : 1) * sizeof *last);
  if (!last) {
    sp_fmt_err_set(err, "%s: out of memory", out);
    return -1;
  }
  for (int64_t c = 0; c < nclaims; c++)
    last[claims[c].input] = c; /* claims are sorted: this is the last */
  sp_fmt_h5w *w = sp_fmt_h5w_open(out, err);
  int64_t events = 0;
  for (int64_t c = 0; c < nclaims; c++)
    events += claims[c].events;
  if (!w || sp_fmt_h5w_reserve(w, events, err) != 0) {
    sp_fmt_h5w_abort(w);
    free(last);
    return -1;
  }
  pipeline p;
  memset(&p, 0, sizeof p);
  pthread_mutex_init(&p.mu, NULL);
  pthread_cond_init(&p.cv, NULL);
  p.in = in;
  p.spt_mpi = sp_fmt_inputs_spt_mpi(in);
  p.claims = claims;
  p.nclaims = nclaims;
  p.last = last;
  p.w = w;
  int64_t *base = malloc((nclaims ? (size_t)nclaims : 1) * sizeof *base);
  if (!base) {
    sp_fmt_err_set(err, "%s: out of memory", out);
    sp_fmt_h5w_abort(w);
    free(last);
    return -1;
  }
  for (int64_t c = 0, at = 0; c < nclaims; c++) {
    base[c] = at;
    at += claims[c].events;
  }
  p.base = base;
  p.per_rank =
      calloc(nclaims ? (size_t)nclaims * SP_FMT_PER_RANK : 1, sizeof(char *));
  if (!p.per_rank) {
    sp_fmt_err_set(err, "%s: out of memory", out);
    sp_fmt_h5w_abort(w);
    free(base);
    free(last);
    return -1;
  }
  int one = o->threads >= 0 ? o->threads == 0 : events <= SMALL_RANKS * nclaims;
  p.nslots = one ? 1 : SLOTS;
  for (int i = 0; i < SLOTS; i++)
    p.slots[i].claim = -1;
  pthread_t th;
  int started = !one && pthread_create(&th, NULL, helper, &p) == 0;
  pthread_mutex_lock(&p.mu);
  while (step(&p, 1))
    ;
  pthread_cond_broadcast(&p.cv);
  pthread_mutex_unlock(&p.mu);
  if (started)
    pthread_join(th, NULL);
  int failed = p.failed;
  if (failed)
    *err = p.err;
  for (int i = 0; i < SLOTS; i++) /* after a failure */
    empty_slot(&p, &p.slots[i]);
  release(&p, p.cur);
  if (!failed && (sp_fmt_meta_set_str(&p.meta, "label", label) != 0 ||
                  sp_fmt_meta_set_int(&p.meta, "mpi_size",
                                      distinct_ranks(claims, nclaims)) != 0 ||
                  processes_meta(&p.meta, in, claims, nclaims) != 0 ||
                  per_rank_meta(&p.meta, p.per_rank, claims, nclaims) != 0)) {
    sp_fmt_err_set(err, "%s: out of memory", out);
    failed = 1;
  }
  if (!failed && sp__imp_counters(in, claims, nclaims, w, err) != 0)
    failed = 1;
  int rc = -1;
  double t0 = now();
  if (failed || sp_fmt_h5w_meta(w, &p.meta, err) != 0) {
    sp_fmt_h5w_abort(w);
  } else {
    rc = sp_fmt_h5w_close(w, err);
  }
  if (o->times)
    fprintf(stderr,
            "sp-import: read %.3f s, statistics %.3f s, copy %.3f s, rows "
            "%.3f s, close %.3f s (both threads' sums); waited %.3f s; %s\n",
            p.t[T_READ], p.t[T_STATS], p.t[T_COPY], p.t[T_ROWS], now() - t0,
            p.t[T_WAIT], started ? "two threads" : "one thread");
  sp_fmt_meta_free(&p.meta);
  for (int64_t i = 0; i < nclaims * (int64_t)SP_FMT_PER_RANK; i++)
    free(p.per_rank[i]);
  free(p.per_rank);
  pthread_mutex_destroy(&p.mu);
  free(base);
  pthread_cond_destroy(&p.cv);
  free(last);
  return rc;
}
