/* load.c - reads the inputs of one profile (found as sp-import finds them)
 * into rows of statistics and, when asked, the events of every thread. */
#include "report.h"
#include "sp_h5.h"
#include "sp_inputs.h"
#include "sp_spt.h"
#include "sp_util.h"

#include <stdlib.h>
#include <string.h>

int32_t rp_name_find(const rp_profile *p, const char *name) {
  sp__hash_it it;
  int64_t i = sp__hash_first(&p->ids, sp__fnv1a(SP__FNV_SEED, name), &it);
  for (; i >= 0; i = sp__hash_next(&p->ids, &it))
    if (strcmp(p->names[i], name) == 0)
      return (int32_t)i;
  return -1;
}

int32_t rp_name_id(rp_profile *p, const char *name) {
  sp__hash_it it;
  int64_t i = sp__hash_first(&p->ids, sp__fnv1a(SP__FNV_SEED, name), &it);
  for (; i >= 0; i = sp__hash_next(&p->ids, &it))
    if (strcmp(p->names[i], name) == 0)
      return (int32_t)i;
  if (p->nnames == p->capnames) {
    int64_t c = p->capnames ? 2 * p->capnames : 64;
    char **n = realloc(p->names, (size_t)c * sizeof *n);
    if (n)
      p->names = n;
    char **f = realloc(p->files, (size_t)c * sizeof *f);
    if (f)
      p->files = f;
    int32_t *l = realloc(p->lines, (size_t)c * sizeof *l);
    if (l)
      p->lines = l;
    if (!n || !f || !l)
      return -1;
    p->capnames = c;
  }
  if (!(p->names[p->nnames] = strdup(name)))
    return -1;
  p->files[p->nnames] = NULL;
  p->lines[p->nnames] = -1;
  if (sp__hash_add(&p->ids, &it, p->nnames) != 0) {
    free(p->names[p->nnames]);
    return -1;
  }
  return (int32_t)p->nnames++;
}

/* The first known source location of a name is kept, as the runtime does. */
static int set_source(rp_profile *p, int32_t id, const char *file,
                      int32_t line) {
  if (p->files[id] || !file || !file[0])
    return 0;
  if (!(p->files[id] = strdup(file)))
    return -1;
  p->lines[id] = line;
  return 0;
}

static int add_row(rp_profile *p, int32_t rank, int32_t thread, int32_t name,
                   const sp_fmt_stats *st) {
  if (p->nrows == p->caprows) {
    int64_t c = p->caprows ? 2 * p->caprows : 256;
    rp_row *r = realloc(p->rows, (size_t)c * sizeof *r);
    if (!r)
      return -1;
    p->rows = r;
    p->caprows = c;
  }
  rp_row *r = &p->rows[p->nrows++];
  r->rank = rank;
  r->thread = thread;
  r->name = name;
  r->st = *st;
  if (st->calls > 0) {
    if (st->first_start_ns < p->span_lo)
      p->span_lo = st->first_start_ns;
    if (st->last_end_ns > p->span_hi)
      p->span_hi = st->last_end_ns;
  }
  return 0;
}

/* Improper nesting: said once per run, as sp-import does. */
static int64_t nbad;
static char first_bad[1024];

/* Statistics of one in-memory rank, per thread across its regions (the
 * exclusive time needs every region of a thread at once). */
static int rank_rows(rp_profile *p, const sp_fmt_rank *r, const char *path,
                     sp_fmt_err *err) {
  size_t cnt = r->nblocks ? (size_t)r->nblocks : 1;
  sp_fmt_source *srcs = malloc(cnt * sizeof *srcs);
  sp_fmt_stats *st = malloc(cnt * sizeof *st);
  int rc = -1;
  if (!srcs || !st)
    goto oom;
  sp_fmt_rank_sources_by_thread(r, srcs);
  sp_fmt_nesting nest = {0};
  /* Thread by thread, so the progress line moves with the statistics. */
  int64_t bad = 0;
  for (int64_t lo = 0, hi; lo < r->nblocks; lo = hi) {
    int64_t calls = 0;
    for (hi = lo; hi < r->nblocks && srcs[hi].thread == srcs[lo].thread; hi++)
      calls += srcs[hi].count;
    sp_fmt_nesting one = {0};
    int64_t b = sp_fmt_stats_rank(srcs + lo, hi - lo, st + lo, &one);
    if (b < 0)
      goto oom;
    if (b > 0 && bad++ == 0)
      nest = one;
    sp_fmt_progress_add(&rp_progress, calls);
  }
  if (bad > 0 && nbad == 0)
    sp_fmt_nesting_describe(&nest, path, r->rank, first_bad, sizeof first_bad);
  nbad += bad;
  for (int64_t i = 0; i < r->nblocks; i++) {
    int32_t id = rp_name_id(p, srcs[i].name);
    if (id < 0 || set_source(p, id, srcs[i].file, srcs[i].line) != 0 ||
        add_row(p, r->rank, srcs[i].thread, id, &st[i]) != 0)
      goto oom;
  }
  rc = 0;
  goto out;
oom:
  sp_fmt_err_set(err, "%s: out of memory", path);
out:
  free(srcs);
  free(st);
  return rc;
}

static int keep_meta(rp_profile *p, const sp_fmt_meta *m) {
  if (p->meta.n || !m->n)
    return 0;
  return sp_fmt_meta_copy(&p->meta, m);
}

/* The rank of a claimed input, to catch two files claiming one rank. */
typedef struct claim {
  int32_t rank;
  int empty; /* the input holds no call of the rank */
  int64_t input;
} claim;

static int push_claim(claim **v, int64_t *n, int64_t *cap, int32_t rank,
                      int64_t input, int empty) {
  if (*n && (*v)[*n - 1].rank == rank && (*v)[*n - 1].input == input) {
    (*v)[*n - 1].empty &= empty;
    return 0;
  }
  if (*n == *cap) {
    int64_t c = *cap ? 2 * *cap : 64;
    claim *x = realloc(*v, (size_t)c * sizeof *x);
    if (!x)
      return -1;
    *v = x;
    *cap = c;
  }
  (*v)[(*n)++] = (claim){rank, empty, input};
  return 0;
}

static void view_claim(const void *c, sp_fmt_claim_view *v) {
  const claim *x = c;
  *v = (sp_fmt_claim_view){x->rank, x->input, x->empty};
}

static int by_claim(const void *a, const void *b) {
  const claim *x = a, *y = b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return x->input < y->input ? -1 : (x->input > y->input);
}

static int keep_rank(rp_profile *p, sp_fmt_rank *r) {
  if (p->nrk % 16 == 0) {
    sp_fmt_rank *v = realloc(p->rk, (size_t)(p->nrk + 16) * sizeof *v);
    if (!v)
      return -1;
    p->rk = v;
  }
  p->rk[p->nrk++] = *r;
  memset(r, 0, sizeof *r);
  return 0;
}

static int64_t rank_calls(const sp_fmt_rank *r) {
  int64_t n = 0;
  for (int64_t i = 0; i < r->nblocks; i++)
    n += r->blocks[i].count;
  return n;
}

/* The calls the inputs' files hold that loading them reads: 0 for an .h5
 * read through its summary records. Unreadable inputs count 0 (loading
 * them says what is wrong). */
int64_t rp_count_calls(char *const *args, int nargs, int events) {
  sp_fmt_inputs in;
  sp_fmt_err err = {""};
  if (sp_fmt_inputs_find(args, nargs, &in, &err) != 0)
    return 0;
  int64_t total = 0;
  for (int64_t i = 0; i < in.n; i++) {
    const char *path = in.v[i].path;
    if (in.v[i].kind == SP_FMT_INPUT_H5) {
#ifdef SP_USE_HDF5
      if (!events && sp_fmt_h5_has_summary(path))
        continue;
      sp_fmt_h5_summary s;
      memset(&s, 0, sizeof s);
      if (sp_fmt_h5_read_summary(path, &s, &err) == 0)
        for (int64_t k = 0; k < s.nrows; k++)
          total += s.rows[k].event_count;
      sp_fmt_h5_summary_free(&s);
#endif
    } else if (in.v[i].kind == SP_FMT_INPUT_STREAM) {
      sp_fmt_stream *st;
      if (sp_fmt_stream_open(path, 0, &st, &err) == 0) {
        sp_fmt_stream_info info;
        sp_fmt_stream_get_info(st, &info);
        total += info.calls;
        sp_fmt_stream_close(st);
      }
    } else {
      sp_fmt_rank r;
      if (sp_fmt_spt_index(path, &r, &err) == 0)
        total += rank_calls(&r);
      sp_fmt_rank_free(&r);
    }
  }
  sp_fmt_inputs_free(&in);
  return total;
}

/* ---- SP_MODE=profile inputs: rows from their statistics, their call paths
 * kept for the tree, the folded export and the flame graph. */

/* f's paths of selected ranks appended to p's, names and parents renumbered
 * (a path's parent is of its rank, so it is kept when it is). */
/* How sp-report opens a stream: regions the process left as addresses
 * named from the object files; what it could not name from said on stderr,
 * one line an object. */
#define RP_STREAM (SP_FMT_STREAM_SYMBOLS | SP_FMT_STREAM_SYMBOLS_LOAD)

static int keep_paths(rp_profile *p, const sp_fmt_profile *f,
                      const rp_opts *o) {
  int64_t *at = malloc((f->npaths ? (size_t)f->npaths : 1) * sizeof *at);
  if (!at)
    return -1;
  for (int64_t i = 0; i < f->npaths; i++) {
    const sp_fmt_ppath *x = &f->paths[i];
    at[i] = -1;
    if (!rp_rank_selected(o, x->rank))
      continue;
    if (p->npaths == p->cappaths) {
      int64_t c = p->cappaths ? 2 * p->cappaths : 256;
      sp_fmt_ppath *v = realloc(p->paths, (size_t)c * sizeof *v);
      if (!v)
        goto oom;
      p->paths = v;
      p->cappaths = c;
    }
    sp_fmt_ppath *y = &p->paths[p->npaths];
    *y = *x;
    y->region = rp_name_id(p, f->regions[x->region].name);
    y->parent = x->parent >= 0 ? (int32_t)at[x->parent] : -1;
    if (y->region < 0)
      goto oom;
    at[i] = p->npaths++;
  }
  free(at);
  return 0;
oom:
  free(at);
  return -1;
}

/* 1 when in is a profile (loaded into p), 0 when it is not, -1 on error. */
static int load_profile(rp_profile *p, const sp_fmt_input *in, int64_t ix,
                        const rp_opts *o, claim **cl, int64_t *ncl,
                        int64_t *capcl, sp_fmt_err *err) {
  sp_fmt_profile f;
  sp_fmt_meta m = {0, NULL};
  int got = 0;
  if (in->kind == SP_FMT_INPUT_H5) {
#ifdef SP_USE_HDF5
    got = sp_fmt_h5_is_profile(in->path, err);
    if (got == 1 && sp_fmt_h5_read_profile(in->path, &f, &m, err) != 0)
      got = -1;
#endif
  } else if (in->kind == SP_FMT_INPUT_STREAM) {
    sp_fmt_stream *s;
    if (sp_fmt_stream_open(in->path, RP_STREAM, &s, err) != 0)
      return -1;
    got = sp_fmt_stream_profile(s, &f);
    if (got == 1 && sp_fmt_meta_copy(&m, sp_fmt_stream_meta(s)) != 0)
      got = -2;
    if (got == 1) {
      sp_fmt_stream_info info;
      sp_fmt_stream_get_info(s, &info);
      char line[2048];
      sp_fmt_stream_describe(&info, in->path, line, sizeof line);
      fprintf(stderr, "sp-report: warning: %s\n", line);
      sp_fmt_stream_put_warnings(s, "sp-report");
    }
    sp_fmt_stream_close(s);
    if (got == -1)
      sp_fmt_err_set(err, "%s: out of memory", in->path);
  }
  if (got <= 0) {
    if (got < -1)
      sp_fmt_profile_free(&f);
    if (got == 0 && !p->trace_input && !(p->trace_input = strdup(in->path)))
      got = -1;
    return got < 0 ? -1 : 0;
  }
  sp_fmt_prow *rows = NULL;
  int64_t nrows = sp_fmt_profile_rows(&f, &rows);
  int rc = nrows < 0 || keep_meta(p, &m) != 0 || keep_paths(p, &f, o) != 0 ||
                   (!p->profile_input && !(p->profile_input = strdup(in->path)))
               ? -1
               : 0;
  for (int64_t i = 0; rc == 0 && i < nrows; i++) {
    if (push_claim(cl, ncl, capcl, rows[i].rank, ix, rows[i].s.calls == 0) !=
        0) {
      rc = -1;
      break;
    }
    if (!rp_rank_selected(o, rows[i].rank))
      continue;
    const sp_fmt_region *g = &f.regions[rows[i].region];
    int32_t id = rp_name_id(p, g->name);
    sp_fmt_stats st;
    sp_fmt_psum_stats(&rows[i].s, &st);
    if (id < 0 || set_source(p, id, g->file, g->line) != 0 ||
        add_row(p, rows[i].rank, rows[i].thread, id, &st) != 0)
      rc = -1;
  }
  if (rc != 0)
    sp_fmt_err_set(err, "%s: out of memory", in->path);
  free(rows);
  sp_fmt_profile_free(&f);
  sp_fmt_meta_free(&m);
  return rc < 0 ? -1 : 1;
}

static int load_input(rp_profile *p, const sp_fmt_input *in, int64_t ix,
                      const rp_opts *o, int events, claim **cl, int64_t *ncl,
                      int64_t *capcl, sp_fmt_err *err) {
  int prof = load_profile(p, in, ix, o, cl, ncl, capcl, err);
  if (prof != 0)
    return prof < 0 ? -1 : 0;
#ifdef SP_USE_HDF5
  if (in->kind == SP_FMT_INPUT_H5 && !events &&
      sp_fmt_h5_has_summary(in->path)) {
    sp_fmt_h5_summary s;
    memset(&s, 0, sizeof s);
    if (sp_fmt_h5_read_summary(in->path, &s, err) != 0)
      return -1;
    int rc = keep_meta(p, &s.meta);
    for (int64_t i = 0; rc == 0 && i < s.nrows; i++) {
      const sp_fmt_h5_row *w = &s.rows[i];
      if (push_claim(cl, ncl, capcl, w->rank, ix, w->stats.calls == 0) != 0) {
        rc = -1;
        break;
      }
      if (!rp_rank_selected(o, w->rank))
        continue;
      int32_t id = rp_name_id(p, s.names[w->region]);
      if (id < 0 || set_source(p, id, w->source_file, w->source_line) != 0 ||
          add_row(p, w->rank, w->thread, id, &w->stats) != 0)
        rc = -1;
    }
    sp_fmt_h5_summary_free(&s);
    if (rc != 0)
      sp_fmt_err_set(err, "%s: out of memory", in->path);
    return rc;
  }
#endif
  sp_fmt_rank *rs = NULL, one;
  int64_t n = 0;
  sp_fmt_progress *prog = rp_progress.mode ? &rp_progress : NULL;
  if (in->kind == SP_FMT_INPUT_H5) {
#ifdef SP_USE_HDF5
    if (sp_fmt_h5_read_progress(in->path, &rs, &n, prog, err) != 0)
      return -1;
#else
    sp_fmt_err_set(err, "%s: HDF5 input needs a build with SP_USE_HDF5",
                   in->path);
    return -1;
#endif
  } else if (in->kind == SP_FMT_INPUT_STREAM) {
    /* A stream (a run that has not finished, or crashed): its complete
     * records, said once on stderr as sp-import says it. */
    sp_fmt_stream *s;
    if (sp_fmt_stream_open(in->path, RP_STREAM, &s, err) != 0)
      return -1;
    sp_fmt_stream_info info;
    sp_fmt_stream_get_info(s, &info);
    char line[2048];
    sp_fmt_stream_describe(&info, in->path, line, sizeof line);
    fprintf(stderr, "sp-report: warning: %s\n", line);
    sp_fmt_stream_put_warnings(
        s, "sp-report"); /* the read below names them again, silently */
    sp_fmt_stream_close(s);
    if (sp_fmt_stream_read(in->path, &one, err) != 0)
      return -1;
    rs = &one;
    n = 1;
    sp_fmt_progress_add(prog, rank_calls(&one)); /* read whole */
  } else {
    if (sp_fmt_spt_read_progress(in->path, &one, prog, err) != 0)
      return -1;
    rs = &one;
    n = 1;
  }
  int rc = 0;
  for (int64_t i = 0; i < n; i++) {
    if (rc == 0 && push_claim(cl, ncl, capcl, rs[i].rank, ix,
                              rank_calls(&rs[i]) == 0) != 0) {
      sp_fmt_err_set(err, "%s: out of memory", in->path);
      rc = -1;
    }
    /* A rank not selected makes no more passes: they are done. */
    if (rc == 0 && !rp_rank_selected(o, rs[i].rank) && rp_progress.passes > 1)
      sp_fmt_progress_add(prog, rank_calls(&rs[i]) * (rp_progress.passes - 1));
    if (rc == 0 && rp_rank_selected(o, rs[i].rank)) {
      if (keep_meta(p, &rs[i].meta) != 0) {
        sp_fmt_err_set(err, "%s: out of memory", in->path);
        rc = -1;
      } else {
        rc = rank_rows(p, &rs[i], in->path, err);
      }
      if (rc == 0 && events && keep_rank(p, &rs[i]) != 0) {
        sp_fmt_err_set(err, "%s: out of memory", in->path);
        rc = -1;
      }
    }
    sp_fmt_rank_free(&rs[i]);
  }
  if (rs != &one)
    free(rs);
  return rc;
}

/* Threads of every kept rank, each with its sources, for call stacks. */
static int build_threads(rp_profile *p, sp_fmt_err *err) {
  int64_t total = 0;
  for (int64_t i = 0; i < p->nrk; i++)
    total += p->rk[i].nblocks;
  size_t cnt = total ? (size_t)total : 1;
  p->srcbuf = malloc(cnt * sizeof *p->srcbuf);
  p->namebuf = malloc(cnt * sizeof *p->namebuf);
  p->blkbuf = malloc(cnt * sizeof *p->blkbuf);
  p->threads = malloc(cnt * sizeof *p->threads);
  if (!p->srcbuf || !p->namebuf || !p->blkbuf || !p->threads) {
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    return -1;
  }
  int64_t k = 0;
  for (int64_t i = 0; i < p->nrk; i++) {
    sp_fmt_rank *r = &p->rk[i];
    sp_fmt_source *s = p->srcbuf + k;
    sp_fmt_rank_sources_by_thread(r, s);
    for (int64_t lo = 0, hi; lo < r->nblocks; lo = hi) {
      for (hi = lo; hi < r->nblocks && s[hi].thread == s[lo].thread;)
        hi++;
      rp_thread *t = &p->threads[p->nthreads++];
      t->rank = r->rank;
      t->thread = s[lo].thread;
      t->nsrc = hi - lo;
      t->srcs = s + lo;
      t->name = p->namebuf + k + lo;
      t->blk = p->blkbuf + k + lo;
      for (int64_t j = lo; j < hi; j++) {
        t->name[j - lo] = rp_name_id(p, s[j].name);
        t->blk[j - lo] = &r->blocks[s[j].aux];
        if (t->name[j - lo] < 0) {
          sp_fmt_err_set(err, "%s: out of memory", p->label);
          return -1;
        }
      }
    }
    k += r->nblocks;
  }
  return 0;
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return x < y ? -1 : (x > y);
}

int rp_load(char *const *args, int nargs, const rp_opts *o, int events,
            rp_profile *p, sp_fmt_err *err) {
  memset(p, 0, sizeof *p);
  p->span_lo = INT64_MAX;
  p->span_hi = INT64_MIN;
  size_t len = 1;
  for (int i = 0; i < nargs; i++)
    len += strlen(args[i]) + 1;
  if (!(p->label = calloc(len, 1))) {
    sp_fmt_err_set(err, "%s: out of memory", args[0]);
    return -1;
  }
  for (int i = 0; i < nargs; i++)
    strcat(strcat(p->label, i ? " " : ""), args[i]);

  sp_fmt_inputs in;
  if (sp_fmt_inputs_find(args, nargs, &in, err) != 0)
    return -1;
  claim *cl = NULL;
  int64_t ncl = 0, capcl = 0;
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < in.n; i++)
    rc = load_input(p, &in.v[i], i, o, events, &cl, &ncl, &capcl, err);
  /* --region shows a region's counters whenever the profile has some */
  for (int64_t i = 0; rc == 0 && (o->counters || o->region) && i < in.n; i++)
    rc = rp_load_counters(p, in.v[i].path, o, err);
  if (rc == 0 && p->profile_input && p->trace_input) {
    sp_fmt_err_set(err,
                   "%s: a profile (SP_MODE=profile) cannot be reported "
                   "together with the trace %s",
                   p->profile_input, p->trace_input);
    rc = -1;
  }
  if (rc == 0 && ncl)
    qsort(cl, (size_t)ncl, sizeof *cl, by_claim);
  /* An input with no call of a rank another input holds: left out with a
   * warning, as sp-import does, not a clash. */
  if (rc == 0)
    ncl = sp_fmt_claims_drop_empty(cl, ncl, sizeof *cl, view_claim, &in,
                                   "sp-report");
  for (int64_t i = 1; rc == 0 && i < ncl; i++)
    if (cl[i].rank == cl[i - 1].rank && cl[i].input != cl[i - 1].input) {
      sp_fmt_err_set(err,
                     "%s: rank %d is also in %s (processes of one rank? "
                     "sp-import --merge-processes merges them)",
                     in.v[cl[i].input].path, cl[i].rank,
                     in.v[cl[i - 1].input].path);
      rc = -1;
    }
  /* Distinct selected ranks. */
  if (rc == 0 && ncl) {
    p->ranks = malloc((size_t)ncl * sizeof *p->ranks);
    if (!p->ranks) {
      sp_fmt_err_set(err, "%s: out of memory", p->label);
      rc = -1;
    }
    for (int64_t i = 0; rc == 0 && i < ncl; i++)
      if (rp_rank_selected(o, cl[i].rank) &&
          (p->nranks == 0 || p->ranks[p->nranks - 1] != cl[i].rank))
        p->ranks[p->nranks++] = cl[i].rank;
    if (rc == 0)
      qsort(p->ranks, (size_t)p->nranks, sizeof *p->ranks, cmp_i32);
  }
  free(cl);
  if (rc == 0 && !events && nbad == 1)
    fprintf(stderr,
            "sp-report: warning: %s; its exclusive times count only nested "
            "calls\n",
            first_bad);
  else if (rc == 0 && !events && nbad > 1)
    fprintf(stderr,
            "sp-report: warning: %s, and calls overlap in %lld more threads; "
            "their exclusive times count only nested calls\n",
            first_bad, (long long)(nbad - 1));
  nbad = 0;
  if (rc == 0 && events)
    rc = build_threads(p, err);
  if (rc == 0 && p->nrows == 0) {
    sp_fmt_err_set(err, "%s: the profile holds no regions%s",
                   in.n ? in.v[0].path : p->label,
                   o->ranks ? " on the selected ranks" : "");
    rc = -1;
  }
  sp_fmt_inputs_free(&in);
  return rc;
}

void rp_profile_free(rp_profile *p) {
  for (int64_t i = 0; i < p->nnames; i++) {
    free(p->names[i]);
    free(p->files[i]);
  }
  free(p->names);
  free(p->files);
  free(p->lines);
  sp__hash_free(&p->ids);
  free(p->rows);
  free(p->ranks);
  sp_fmt_meta_free(&p->meta);
  for (int64_t i = 0; i < p->nrk; i++)
    sp_fmt_rank_free(&p->rk[i]);
  free(p->rk);
  free(p->threads);
  free(p->srcbuf);
  free(p->namebuf);
  free(p->blkbuf);
  free(p->paths);
  free(p->profile_input);
  free(p->trace_input);
  for (int64_t i = 0; i < p->nctr; i++)
    sp_fmt_ctr_free(&p->ctr[i]);
  free(p->ctr);
  free(p->label);
  rp_mpi_free(p);
  memset(p, 0, sizeof *p);
}

int64_t rp_rank_index(const rp_profile *p, int32_t rank) {
  int64_t lo = 0, hi = p->nranks;
  while (lo < hi) {
    int64_t m = (lo + hi) / 2;
    if (p->ranks[m] < rank)
      lo = m + 1;
    else
      hi = m;
  }
  return lo < p->nranks && p->ranks[lo] == rank ? lo : -1;
}

int64_t rp_mpi_size(const rp_profile *p) {
  const sp_fmt_meta_item *m = sp_fmt_meta_get(&p->meta, "mpi_size");
  if (m && m->type == SP_FMT_META_INT && m->i64 > 0)
    return m->i64;
  if (m && m->type == SP_FMT_META_STR && atoll(m->str) > 0)
    return atoll(m->str);
  return p->nranks;
}
