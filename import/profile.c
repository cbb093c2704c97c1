/* profile.c - sp-import of profiles (SP_MODE=profile): their call paths and
 * exact sums gathered into one profile .h5; a profile is never merged with
 * a trace. */
#include "sp_import.h"
#include "sp_profile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct one {
  sp_fmt_profile p;
  sp_fmt_meta meta;
  int64_t input;
  int32_t rank; /* its lowest */
} one;

/* 1 with *o filled when input i is a profile, 0 when it is a trace, -1. */
static int load(const sp_fmt_input *in, one *o, sp_fmt_err *err) {
  memset(o, 0, sizeof *o);
  if (in->kind == SP_FMT_INPUT_H5) {
    int is = sp_fmt_h5_is_profile(in->path, err);
    if (is != 1)
      return is;
    return sp_fmt_h5_read_profile(in->path, &o->p, &o->meta, err) ? -1 : 1;
  }
  if (in->kind != SP_FMT_INPUT_STREAM)
    return 0;
  sp_fmt_stream *s;
  if (sp_fmt_stream_open(in->path, SP__IMP_STREAM, &s, err) != 0)
    return -1;
  int got = sp_fmt_stream_profile(s, &o->p);
  if (got == 1) {
    sp_fmt_stream_info info;
    sp_fmt_stream_get_info(s, &info);
    char line[2048];
    sp_fmt_stream_describe(&info, in->path, line, sizeof line);
    fprintf(stderr, "sp-import: warning: %s\n", line);
    sp_fmt_stream_put_warnings(s, "sp-import");
    if (sp_fmt_meta_copy(&o->meta, sp_fmt_stream_meta(s)) != 0)
      got = -1;
  }
  if (got < 0)
    sp_fmt_err_set(err, "%s: out of memory", in->path);
  sp_fmt_stream_close(s);
  return got;
}

typedef struct claim_t {
  int32_t rank;
  int32_t threads; /* the input's highest thread of the rank, plus one */
  int64_t input;
  int64_t base; /* --merge-processes: added to the input's threads */
} claim_t;

static int by_claim(const void *a, const void *b) {
  const claim_t *x = a, *y = b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return x->input < y->input ? -1 : x->input > y->input;
}

static int by_rank(const void *a, const void *b) {
  const one *x = a, *y = b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return x->input < y->input ? -1 : x->input > y->input;
}

/* Ranks claimed by several inputs: refused, or (processes) their threads
 * numbered on, input after input, as for traces. c: one claim a path,
 * sorted. */
static int processes_of_a_rank(const sp_fmt_inputs *in, one *v, int64_t n,
                               claim_t *c, int64_t nc, int processes,
                               sp_fmt_err *err) {
  int64_t m = 0; /* one claim per (rank, input) */
  for (int64_t i = 0; i < nc; i++) {
    if (m && c[m - 1].rank == c[i].rank && c[m - 1].input == c[i].input) {
      if (c[i].threads > c[m - 1].threads)
        c[m - 1].threads = c[i].threads;
      continue;
    }
    c[m++] = c[i];
  }
  int dup = 0;
  for (int64_t i = 0; i < m; i++) {
    c[i].base = 0;
    if (i && c[i].rank == c[i - 1].rank) {
      dup = 1;
      if (!processes) {
        sp_fmt_err_set(err,
                       "%s: rank %d is also in %s (processes of one rank? "
                       "--merge-processes merges them)",
                       in->v[c[i].input].path, c[i].rank,
                       in->v[c[i - 1].input].path);
        return -1;
      }
      int64_t b = c[i - 1].base + c[i - 1].threads;
      if (b + c[i].threads > INT32_MAX) {
        sp_fmt_err_set(err, "%s: rank %d: too many threads in one rank",
                       in->v[c[i].input].path, c[i].rank);
        return -1;
      }
      c[i].base = b;
    }
  }
  for (int64_t i = 0; dup && i < n; i++)
    for (int64_t k = 0; k < v[i].p.npaths; k++) {
      sp_fmt_ppath *q = &v[i].p.paths[k];
      claim_t key = {q->rank, 0, v[i].input, 0};
      const claim_t *at = bsearch(&key, c, (size_t)m, sizeof *c, by_claim);
      if (at)
        q->thread += (int32_t)at->base;
    }
  return 0;
}

/* v's paths into m, regions by name, parents renumbered. */
static int gather(one *v, int64_t n, sp_fmt_profile *m) {
  for (int64_t i = 0; i < n; i++)
    if (sp_fmt_profile_append(m, &v[i].p) != 0)
      return -1;
  return 0;
}

/* The inputs' counters per region (SP_COUNTERS), one table per rank in
 * ascending order; processes of one rank keep their thread numbers. */
static int profile_counters(const sp_fmt_inputs *in, const one *v, int64_t n,
                            sp_fmt_ctr **out, int64_t *nout, sp_fmt_err *err) {
  sp_fmt_ctr *acc = NULL;
  int64_t nacc = 0;
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < n; i++) {
    const char *path = in->v[v[i].input].path;
    sp_fmt_ctr *t;
    int64_t nt;
    if (sp_fmt_ctr_read(path, &t, &nt, err) != 0) {
      rc = -1;
      break;
    }
    for (int64_t k = 0; rc == 0 && k < nt; k++) {
      int32_t rank = t[k].rank;
      int64_t a = 0;
      while (a < nacc && acc[a].rank != rank)
        a++;
      if (a == nacc) {
        sp_fmt_ctr *g = realloc(acc, (size_t)(nacc + 1) * sizeof *g);
        if (!g) {
          sp_fmt_err_set(err, "%s: out of memory", path);
          rc = -1;
          break;
        }
        acc = g;
        memset(&acc[nacc], 0, sizeof *acc);
        acc[nacc++].rank = rank;
      }
      rc = sp__imp_ctr_append(&acc[a], &t[k], 0, path, err);
    }
    for (int64_t k = 0; k < nt; k++)
      sp_fmt_ctr_free(&t[k]);
    free(t);
  }
  for (int64_t a = 0; a < nacc; a++)
    sp_fmt_ctr_normalize(&acc[a]);
  for (int64_t a = 1; a < nacc; a++) /* ranks ascending */
    for (int64_t b = a; b > 0 && acc[b - 1].rank > acc[b].rank; b--) {
      sp_fmt_ctr x = acc[b];
      acc[b] = acc[b - 1];
      acc[b - 1] = x;
    }
  if (rc != 0) {
    for (int64_t a = 0; a < nacc; a++)
      sp_fmt_ctr_free(&acc[a]);
    free(acc);
    acc = NULL;
    nacc = 0;
  }
  *out = acc;
  *nout = nacc;
  return rc;
}

int sp__imp_profiles(const sp_fmt_inputs *in, const char *out,
                     const char *label, int processes, sp_fmt_err *err) {
  one *v = calloc(in->n ? (size_t)in->n : 1, sizeof *v);
  int64_t n = 0, trace = -1;
  int rc = -1;
  if (!v) {
    sp_fmt_err_set(err, "%s: out of memory", out);
    return -1;
  }
  for (int64_t i = 0; i < in->n; i++) {
    int got = load(&in->v[i], &v[n], err);
    if (got < 0)
      goto done;
    if (got == 0) {
      if (trace < 0)
        trace = i;
      continue;
    }
    v[n].input = i;
    v[n].rank = v[n].p.npaths ? v[n].p.paths[0].rank : 0;
    for (int64_t k = 0; k < v[n].p.npaths; k++)
      if (v[n].p.paths[k].rank < v[n].rank)
        v[n].rank = v[n].p.paths[k].rank;
    n++;
  }
  if (n == 0) {
    rc = 0; /* traces only: the usual merge */
    goto done;
  }
  if (trace >= 0) {
    sp_fmt_err_set(err,
                   "%s: a profile (SP_MODE=profile) cannot be merged with the "
                   "trace %s",
                   in->v[v[0].input].path, in->v[trace].path);
    goto done;
  }
  qsort(v, (size_t)n, sizeof *v, by_rank);
  /* Ranks of different inputs must differ, as for traces. */
  int64_t npairs = 0;
  for (int64_t i = 0; i < n; i++)
    npairs += v[i].p.npaths;
  claim_t *c = malloc((npairs ? (size_t)npairs : 1) * sizeof *c);
  if (!c) {
    sp_fmt_err_set(err, "%s: out of memory", out);
    goto done;
  }
  int64_t nc = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = 0; k < v[i].p.npaths; k++)
      c[nc++] = (claim_t){v[i].p.paths[k].rank, v[i].p.paths[k].thread + 1,
                          v[i].input, 0};
  qsort(c, (size_t)nc, sizeof *c, by_claim);
  int bad = processes_of_a_rank(in, v, n, c, nc, processes, err);
  free(c);
  if (bad)
    goto done;
  sp_fmt_profile m;
  memset(&m, 0, sizeof m);
  sp_fmt_meta meta = {0};
  if (gather(v, n, &m) != 0 || sp_fmt_meta_copy(&meta, &v[0].meta) ||
      sp_fmt_meta_set_str(&meta, "label", label) != 0 ||
      sp_fmt_meta_set_int(&meta, "calls_open_at_exit", m.open_calls) != 0) {
    sp_fmt_err_set(err, "%s: out of memory", out);
  } else {
    sp_fmt_ctr *ctr = NULL;
    int64_t nctr = 0;
    if (profile_counters(in, v, n, &ctr, &nctr, err) == 0)
      rc =
          sp_fmt_h5_write_profile_ctr(out, NULL, &m, &meta, ctr, nctr, err) == 0
              ? 1
              : -1;
    for (int64_t i = 0; i < nctr; i++)
      sp_fmt_ctr_free(&ctr[i]);
    free(ctr);
  }
  sp_fmt_meta_free(&meta);
  sp_fmt_profile_free(&m);
done:
  for (int64_t i = 0; i < n; i++) {
    sp_fmt_profile_free(&v[i].p);
    sp_fmt_meta_free(&v[i].meta);
  }
  free(v);
  return rc;
}
