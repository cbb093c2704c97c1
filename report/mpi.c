/* mpi.c - sp-report --mpi: each rank's time inside MPI; per MPI function its
 * calls, total and the ranks with the least and the most, and the bytes the
 * MPI layer saw sent and received per rank and function, their wait states
 * and what the rank could have saved (text, csv, json), from a trace's
 * calls or a profile's call paths. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

int rp_mpi_name(const char *name) {
  return strncmp(name, "MPI_", 4) == 0 || strncmp(name, "PMPI_", 5) == 0;
}

typedef struct {
  int64_t calls, total;
  int64_t sent, recvd; /* bytes, from the MPI layer's messages */
  int64_t late;        /* late sender, ns */
  int64_t lrecv;       /* late receiver, ns */
  int64_t cwait;       /* collectives: before the last rank arrived, ns */
} cell;

/* What a rank could have saved: the sum of its wait states. */
static int64_t waiting(int64_t late, int64_t lrecv, int64_t cwait) {
  return rp_add(rp_add(late, lrecv), cwait);
}

typedef struct {
  int32_t name;
  int64_t calls, total, sent, recvd, late, lrecv, cwait;
  int32_t min_rank, max_rank; /* indexes into rp_profile.ranks */
} func;

typedef struct {
  const rp_profile *p;
  int64_t nf, nr;
  func *fn;
  cell *at;                    /* [function][rank index] */
  int64_t *mpi, *calls, *span; /* per rank index */
  int64_t *sent, *recvd;       /* per rank index: bytes */
  int64_t *late;               /* per rank index: late sender, ns */
  int64_t *lrecv;              /* per rank index: late receiver, ns */
  int64_t *cwait;              /* per rank index: collective wait, ns */
} view;

typedef struct {
  int64_t s, e;
} span;

static int by_start(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->s != y->s)
    return x->s < y->s ? -1 : 1;
  return (x->e < y->e) - (x->e > y->e); /* the outer call first */
}

/* The time of thread t inside the kept MPI regions: the union of their
 * calls, which is the sum of the outermost ones when calls nest (an MPI
 * call made inside another counts once) and does not count an overlap
 * twice when they do not. */
static int thread_mpi(const rp_thread *t, const char *keep, int64_t *out) {
  int64_t n = 0;
  for (int64_t j = 0; j < t->nsrc; j++)
    if (keep[t->name[j]])
      n += t->blk[j]->count;
  *out = 0;
  if (n == 0)
    return 0;
  span *v = malloc((size_t)n * sizeof *v);
  if (!v)
    return -1;
  int64_t k = 0;
  for (int64_t j = 0; j < t->nsrc; j++)
    if (keep[t->name[j]])
      for (int64_t c = 0; c < t->blk[j]->count; c++)
        v[k++] = (span){t->blk[j]->starts[c], t->blk[j]->ends[c]};
  qsort(v, (size_t)n, sizeof *v, by_start);
  int64_t sum = 0, end = INT64_MIN;
  for (int64_t i = 0; i < n; i++) {
    if (v[i].e <= end)
      continue; /* inside the call before */
    sum = rp_add(sum, rp_sub(v[i].e, v[i].s > end ? v[i].s : end));
    end = v[i].e;
  }
  free(v);
  *out = sum;
  return 0;
}

/* The same from a profile's call paths (SP_MODE=profile), per rank: the
 * outer time of each path of a kept MPI region with no kept region above
 * it. A call of a region on its own path folds into that path, and its
 * outer time leaves out the calls inside another of its region: so these
 * are the outermost kept calls, which the events would give. */
static int paths_mpi(const rp_profile *p, const char *keep, int64_t *mpi) {
  /* A path's parent comes before it: one pass marks the kept ancestors. */
  char *under = malloc(p->npaths ? (size_t)p->npaths : 1);
  if (!under)
    return -1;
  for (int64_t i = 0; i < p->npaths; i++) {
    const sp_fmt_ppath *x = &p->paths[i];
    int32_t up = x->parent;
    under[i] =
        (char)(up >= 0 && up < i && (under[up] || keep[p->paths[up].region]));
    int64_t r = rp_rank_index(p, x->rank);
    if (r < 0 || under[i] || !keep[x->region] || x->s.calls <= 0)
      continue;
    mpi[r] = rp_add(mpi[r], x->s.outer);
  }
  free(under);
  return 0;
}

static const view *sort_v; /* qsort has no context in C11 */

static int by_total(const void *a, const void *b) {
  const func *x = a, *y = b;
  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  return strcmp(sort_v->p->names[x->name], sort_v->p->names[y->name]);
}

static void view_free(view *v) {
  free(v->fn);
  free(v->at);
  free(v->mpi);
  free(v->calls);
  free(v->span);
  free(v->sent);
  free(v->recvd);
  free(v->late);
  free(v->lrecv);
  free(v->cwait);
}

static int view_build(const rp_profile *p, const rp_opts *o, view *v,
                      sp_fmt_err *err) {
  memset(v, 0, sizeof *v);
  v->p = p;
  v->nr = p->nranks;
  size_t nn = p->nnames ? (size_t)p->nnames : 1, nr = v->nr ? (size_t)v->nr : 1;
  char *keep = calloc(nn, 1);
  int64_t *fix = malloc(nn * sizeof *fix);
  v->mpi = calloc(nr, sizeof *v->mpi);
  v->calls = calloc(nr, sizeof *v->calls);
  v->span = calloc(nr, sizeof *v->span);
  v->sent = calloc(nr, sizeof *v->sent);
  v->recvd = calloc(nr, sizeof *v->recvd);
  v->late = calloc(nr, sizeof *v->late);
  v->lrecv = calloc(nr, sizeof *v->lrecv);
  v->cwait = calloc(nr, sizeof *v->cwait);
  int64_t *lo = malloc(nr * sizeof *lo), *hi = malloc(nr * sizeof *hi);
  if (!keep || !fix || !v->mpi || !v->calls || !v->span || !v->sent ||
      !v->recvd || !v->late || !v->lrecv || !v->cwait || !lo || !hi)
    goto oom;
  for (int64_t i = 0; i < p->nnames; i++) {
    keep[i] =
        (char)(rp_mpi_name(p->names[i]) && rp_name_selected(o, p->names[i]));
    fix[i] = keep[i] ? v->nf++ : -1;
  }
  v->fn = calloc(v->nf ? (size_t)v->nf : 1, sizeof *v->fn);
  v->at = calloc((v->nf ? (size_t)v->nf : 1) * nr, sizeof *v->at);
  if (!v->fn || !v->at)
    goto oom;
  for (int64_t i = 0; i < p->nnames; i++)
    if (fix[i] >= 0)
      v->fn[fix[i]].name = (int32_t)i;
  /* A rank's span: its first start to its last end over all its calls,
   * whatever the filters keep. */
  for (int64_t r = 0; r < v->nr; r++) {
    lo[r] = INT64_MAX;
    hi[r] = INT64_MIN;
  }
  for (int64_t i = 0; i < p->nrows; i++) {
    const rp_row *w = &p->rows[i];
    int64_t r = rp_rank_index(p, w->rank);
    if (r < 0 || w->st.calls == 0)
      continue;
    if (w->st.first_start_ns < lo[r])
      lo[r] = w->st.first_start_ns;
    if (w->st.last_end_ns > hi[r])
      hi[r] = w->st.last_end_ns;
    if (fix[w->name] < 0)
      continue;
    cell *c = &v->at[fix[w->name] * v->nr + r];
    c->calls += w->st.calls;
    c->total = rp_add(c->total, w->st.total_ns);
    v->calls[r] += w->st.calls;
  }
  for (int64_t r = 0; r < v->nr; r++)
    v->span[r] = hi[r] > lo[r] ? rp_sub(hi[r], lo[r]) : 0;
  /* Bytes: every message record of a kept function (sends, receives,
   * completions, collectives; a posted receive has none yet). */
  for (int64_t k = 0; k < p->nmpi; k++) {
    int64_t r = rp_rank_index(p, p->mpi[k].rank);
    const sp_fmt_mpi *m = &p->mpi[k].mpi;
    for (int64_t i = 0; r >= 0 && i < m->nmsgs; i++) {
      const sp_fmt_mpimsg *g = &m->msgs[i];
      int32_t id = g->region >= 0 ? rp_name_find(p, m->names[g->region]) : -1;
      if (id < 0 || fix[id] < 0)
        continue;
      cell *c = &v->at[fix[id] * v->nr + r];
      c->sent += g->sent;
      c->recvd += g->recvd;
      v->sent[r] += g->sent;
      v->recvd[r] += g->recvd;
    }
  }
  if (p->nmpi && p->nranks) {
    size_t cnt = (size_t)(p->nnames * p->nranks);
    int64_t *late = calloc(cnt, sizeof *late), *cw = calloc(cnt, sizeof *cw),
            *lr = calloc(cnt, sizeof *lr);
    if (!late || !cw || !lr || rp_late_sender(p, late, lr) != 0 ||
        rp_coll_wait(p, cw) != 0) {
      free(late);
      free(cw);
      free(lr);
      goto oom;
    }
    for (int64_t id = 0; id < p->nnames; id++)
      for (int64_t r = 0; fix[id] >= 0 && r < v->nr; r++) {
        cell *c = &v->at[fix[id] * v->nr + r];
        c->late += late[id * p->nranks + r];
        c->lrecv += lr[id * p->nranks + r];
        c->cwait += cw[id * p->nranks + r];
        v->late[r] += late[id * p->nranks + r];
        v->lrecv[r] += lr[id * p->nranks + r];
        v->cwait[r] += cw[id * p->nranks + r];
      }
    free(late);
    free(cw);
    free(lr);
  }
  if (p->profile_input && paths_mpi(p, keep, v->mpi) != 0)
    goto oom;
  for (int64_t i = 0; i < p->nthreads; i++) {
    const rp_thread *t = &p->threads[i];
    int64_t r = rp_rank_index(p, t->rank), x;
    if (r < 0 || !rp_rank_selected(o, t->rank))
      continue;
    if (thread_mpi(t, keep, &x) != 0)
      goto oom;
    v->mpi[r] = rp_add(v->mpi[r], x);
  }
  /* Per function: the ranks with the least and the most time in it (ranks
   * that never called it count 0); ties go to the lower rank. */
  for (int64_t f = 0; v->nr > 0 && f < v->nf; f++) {
    func *fn = &v->fn[f];
    const cell *c = &v->at[f * v->nr];
    for (int64_t r = 0; r < v->nr; r++) {
      fn->calls += c[r].calls;
      fn->total = rp_add(fn->total, c[r].total);
      fn->sent += c[r].sent;
      fn->recvd += c[r].recvd;
      fn->late += c[r].late;
      fn->lrecv += c[r].lrecv;
      fn->cwait += c[r].cwait;
      if (c[r].total < c[fn->min_rank].total)
        fn->min_rank = (int32_t)r;
      if (c[r].total > c[fn->max_rank].total)
        fn->max_rank = (int32_t)r;
    }
  }
  /* A function no selected rank called (a merged file names every rank's
   * regions) is no row. */
  int64_t kept = 0;
  for (int64_t f = 0; f < v->nf; f++)
    if (v->fn[f].calls > 0)
      v->fn[kept++] = v->fn[f];
  /* Largest total first; the cells move with their function. */
  cell *at = malloc((v->nf ? (size_t)v->nf : 1) * nr * sizeof *at);
  if (!at)
    goto oom;
  /* fix[] still maps each name to its function's cells. */
  sort_v = v;
  qsort(v->fn, (size_t)kept, sizeof *v->fn, by_total);
  for (int64_t f = 0; f < kept; f++)
    memcpy(&at[f * v->nr], &v->at[fix[v->fn[f].name] * v->nr],
           (size_t)v->nr * sizeof *at);
  free(v->at);
  v->at = at;
  v->nf = kept;
  if (o->top > 0 && v->nf > o->top)
    v->nf = o->top;
  free(keep);
  free(fix);
  free(lo);
  free(hi);
  return 0;
oom:
  free(keep);
  free(fix);
  free(lo);
  free(hi);
  view_free(v);
  sp_fmt_err_set(err, "%s: out of memory", p->label);
  return -1;
}

static double pct(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The rank index with the most waiting (ties: the lower rank), -1 when no
 * rank waited. */
static int64_t waits_most(const view *v) {
  int64_t most = -1, w = 0;
  for (int64_t r = 0; r < v->nr; r++) {
    int64_t x = waiting(v->late[r], v->lrecv[r], v->cwait[r]);
    if (x > w)
      most = r, w = x;
  }
  return most;
}

static void text(const view *v, const rp_opts *o, FILE *f) {
  const rp_profile *p = v->p;
  char b[4][32];
  fprintf(f,
          "%s: %lld rank%s, time inside MPI (outermost MPI_* calls per "
          "thread)\n",
          p->label, (long long)v->nr, v->nr == 1 ? "" : "s");
  int bytes = p->nmpi > 0; /* the MPI layer's messages are in the files */
  fprintf(f, "%6s %10s %10s %10s %6s", "rank", "calls", "in MPI", "span",
          "%span");
  if (bytes)
    fprintf(f, " %14s %14s %12s %12s %12s %12s", "bytes sent", "bytes recv",
            "late sender", "late recv", "coll. wait", "waiting");
  fputs("\n", f);
  for (int64_t r = 0; r < v->nr; r++) {
    fprintf(f, "%6d %10lld %10s %10s %6.1f", p->ranks[r],
            (long long)v->calls[r],
            rp_time((double)v->mpi[r], b[0], sizeof b[0]),
            rp_time((double)v->span[r], b[1], sizeof b[1]),
            pct(v->mpi[r], v->span[r]));
    if (bytes) {
      fprintf(f, " %14lld %14lld %12s", (long long)v->sent[r],
              (long long)v->recvd[r],
              rp_time((double)v->late[r], b[2], sizeof b[2]));
      fprintf(f, " %12s %12s %12s",
              rp_time((double)v->lrecv[r], b[0], sizeof b[0]),
              rp_time((double)v->cwait[r], b[1], sizeof b[1]),
              rp_time((double)waiting(v->late[r], v->lrecv[r], v->cwait[r]),
                      b[3], sizeof b[3]));
    }
    fputs("\n", f);
  }
  int64_t most = bytes ? waits_most(v) : -1;
  if (most >= 0)
    fprintf(
        f, "waiting most: rank %d, %s, %.1f%% of its time in MPI\n",
        p->ranks[most],
        rp_time((double)waiting(v->late[most], v->lrecv[most], v->cwait[most]),
                b[0], sizeof b[0]),
        pct(waiting(v->late[most], v->lrecv[most], v->cwait[most]),
            v->mpi[most]));
  int w = 12;
  for (int64_t i = 0; i < v->nf; i++) {
    int l = rp_name_cols(p->names[v->fn[i].name]);
    w = l > w ? l : w;
  }
  if (w > 48 && !o->wide)
    w = 48;
  rp_fit fit; /* out of memory: names as rp_name_str cuts them */
  int fitted =
      rp_fit_names(&fit, (const char *const *)p->names, p->nnames, w) == 0;
  fprintf(f, "\n%-*s %10s %10s %10s %8s %10s %8s", w, "MPI function", "calls",
          "total", "min", "min at", "max", "max at");
  if (bytes)
    fprintf(f, " %14s %14s %12s %12s %12s %12s", "bytes sent", "bytes recv",
            "late sender", "late recv", "coll. wait", "waiting");
  fputs("\n", f);
  for (int64_t i = 0; i < v->nf; i++) {
    const func *fn = &v->fn[i];
    const cell *c = &v->at[i * v->nr];
    if (fitted)
      rp_fit_put(f, &fit, fn->name);
    else
      rp_name_str(f, p->names[fn->name], w);
    fprintf(f, " %10lld %10s %10s %8d %10s %8d", (long long)fn->calls,
            rp_time((double)fn->total, b[0], sizeof b[0]),
            rp_time((double)c[fn->min_rank].total, b[1], sizeof b[1]),
            p->ranks[fn->min_rank],
            rp_time((double)c[fn->max_rank].total, b[2], sizeof b[2]),
            p->ranks[fn->max_rank]);
    if (bytes) {
      fprintf(f, " %14lld %14lld %12s", (long long)fn->sent,
              (long long)fn->recvd,
              rp_time((double)fn->late, b[3], sizeof b[3]));
      fprintf(f, " %12s %12s %12s",
              rp_time((double)fn->lrecv, b[0], sizeof b[0]),
              rp_time((double)fn->cwait, b[1], sizeof b[1]),
              rp_time((double)waiting(fn->late, fn->lrecv, fn->cwait), b[2],
                      sizeof b[2]));
    }
    fputs("\n", f);
  }
  if (fitted)
    rp_fit_free(&fit);
}

static void csv(const view *v, FILE *f) {
  const rp_profile *p = v->p;
  fputs("rank,region,calls,total_ns,rank_mpi_ns,rank_span_ns,bytes_sent,"
        "bytes_recv,late_sender_ns,coll_wait_ns,late_receiver_ns,waiting_ns\n",
        f);
  for (int64_t r = 0; r < v->nr; r++)
    for (int64_t i = 0; i < v->nf; i++) {
      const cell *c = &v->at[i * v->nr + r];
      fprintf(f, "%d,", p->ranks[r]);
      rp_csv_str(f, p->names[v->fn[i].name]);
      fprintf(f, ",%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld\n",
              (long long)c->calls, (long long)c->total, (long long)v->mpi[r],
              (long long)v->span[r], (long long)c->sent, (long long)c->recvd,
              (long long)c->late, (long long)c->cwait, (long long)c->lrecv,
              (long long)waiting(c->late, c->lrecv, c->cwait));
    }
}

static void json(const view *v, FILE *f) {
  const rp_profile *p = v->p;
  fputs("{\"file\": ", f);
  rp_json_str(f, p->label);
  fputs(", \"units\": \"ns\", \"ranks\": [", f);
  for (int64_t r = 0; r < v->nr; r++)
    fprintf(f,
            "%s\n  {\"rank\": %d, \"calls\": %lld, \"mpi_ns\": %lld, "
            "\"span_ns\": %lld, \"span_pct\": %.4f, \"bytes_sent\": %lld, "
            "\"bytes_recv\": %lld, \"late_sender_ns\": %lld, "
            "\"coll_wait_ns\": %lld, \"late_receiver_ns\": %lld, "
            "\"waiting_ns\": %lld, \"waiting_mpi_pct\": %.4f}",
            r ? "," : "", p->ranks[r], (long long)v->calls[r],
            (long long)v->mpi[r], (long long)v->span[r],
            pct(v->mpi[r], v->span[r]), (long long)v->sent[r],
            (long long)v->recvd[r], (long long)v->late[r],
            (long long)v->cwait[r], (long long)v->lrecv[r],
            (long long)waiting(v->late[r], v->lrecv[r], v->cwait[r]),
            pct(waiting(v->late[r], v->lrecv[r], v->cwait[r]), v->mpi[r]));
  int64_t most = waits_most(v);
  if (most >= 0)
    fprintf(f, "],\n\"waiting_most\": {\"rank\": %d, \"waiting_ns\": %lld}",
            p->ranks[most],
            (long long)waiting(v->late[most], v->lrecv[most], v->cwait[most]));
  else
    fputs("],\n\"waiting_most\": null", f);
  fputs(",\n\"functions\": [", f);
  for (int64_t i = 0; i < v->nf; i++) {
    const func *fn = &v->fn[i];
    const cell *c = &v->at[i * v->nr];
    fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
    rp_json_str(f, p->names[fn->name]);
    fprintf(f,
            ", \"calls\": %lld, \"total_ns\": %lld, \"min_rank\": %d, "
            "\"min_ns\": %lld, \"max_rank\": %d, \"max_ns\": %lld, "
            "\"bytes_sent\": %lld, \"bytes_recv\": %lld, "
            "\"late_sender_ns\": %lld, \"coll_wait_ns\": %lld, "
            "\"late_receiver_ns\": %lld, \"waiting_ns\": %lld, "
            "\"per_rank\": {",
            (long long)fn->calls, (long long)fn->total, p->ranks[fn->min_rank],
            (long long)c[fn->min_rank].total, p->ranks[fn->max_rank],
            (long long)c[fn->max_rank].total, (long long)fn->sent,
            (long long)fn->recvd, (long long)fn->late, (long long)fn->cwait,
            (long long)fn->lrecv,
            (long long)waiting(fn->late, fn->lrecv, fn->cwait));
    for (int64_t r = 0; r < v->nr; r++)
      fprintf(f,
              "%s\"%d\": {\"calls\": %lld, \"total_ns\": %lld, "
              "\"bytes_sent\": %lld, \"bytes_recv\": %lld, "
              "\"late_sender_ns\": %lld, \"coll_wait_ns\": %lld, "
              "\"late_receiver_ns\": %lld, \"waiting_ns\": %lld}",
              r ? ", " : "", p->ranks[r], (long long)c[r].calls,
              (long long)c[r].total, (long long)c[r].sent,
              (long long)c[r].recvd, (long long)c[r].late,
              (long long)c[r].cwait, (long long)c[r].lrecv,
              (long long)waiting(c[r].late, c[r].lrecv, c[r].cwait));
    fputs("}}", f);
  }
  fputs("]}\n", f);
}

int rp_print_mpi(const rp_profile *p, const rp_opts *o, FILE *f,
                 sp_fmt_err *err) {
  view v;
  if (view_build(p, o, &v, err) != 0)
    return -1;
  const char *x = o->export_fmt;
  if (x && !strcmp(x, "csv"))
    csv(&v, f);
  else if (x && !strcmp(x, "json"))
    json(&v, f);
  else if (v.nf == 0)
    fprintf(f, "%s: no MPI calls (no region named MPI_* or PMPI_*%s)\n",
            p->label,
            o->have_include || o->have_exclude ? " passes the filters" : "");
  else
    text(&v, o, f);
  view_free(&v);
  return 0;
}
