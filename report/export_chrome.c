/* export_chrome.c - the Trace Event Format (JSON object form) that
 * Perfetto and chrome://tracing load: one complete ("X") event per call,
 * pid = rank, tid = thread, times in microseconds from the first call; a
 * flow arrow from each OpenMP parallel call to its workers' tasks. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* A worker's implicit task and the parallel call it belongs to. */
typedef struct {
  int32_t rank, from, to; /* threads */
  int64_t from_ts, to_ts;
} flow;

typedef struct {
  const rp_profile *p;
  FILE *f;
  int64_t origin;
  int32_t rank, thread; /* the lane whose name was last written */
  const char *sep;      /* before the next event: "" first, then ",\n" */
  rp_omp *omp;
  flow *fl;
  int64_t nfl, capfl;
  int64_t lo, hi, min_dur; /* --window (overlapping calls), --min-duration */
} chrome;

/* Microseconds with the nanoseconds kept: "12.345". */
static void us(FILE *f, int64_t ns) {
  uint64_t a = (uint64_t)ns;
  if (ns < 0) {
    fputc('-', f);
    a = 0 - a; /* INT64_MIN too */
  }
  fprintf(f, "%llu.%03llu", (unsigned long long)(a / 1000),
          (unsigned long long)(a % 1000));
}

static void lane_names(chrome *x, const rp_thread *t) {
  FILE *f = x->f;
  if (t->rank != x->rank) {
    fprintf(f,
            "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,"
            "\"tid\":%d,\"args\":{\"name\":\"rank %d\"}}",
            x->sep, t->rank, t->thread, t->rank);
    x->sep = ",\n";
  }
  fprintf(f,
          "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
          "\"args\":{\"name\":\"thread %d\"}}",
          x->sep, t->rank, t->thread, t->thread);
  x->sep = ",\n";
  x->rank = t->rank;
  x->thread = t->thread;
}

static int on_open(void *ctx, const rp_thread *t, rp_call *c,
                   const rp_call *parent) {
  chrome *x = ctx;
  const rp_omp_call *team = rp_omp_match(x->omp, t, c, parent);
  /* Left out: outside the window, or shorter than --min-duration (and
   * the flow to a task left out with it). */
  if (c->end < x->lo || c->start > x->hi ||
      (x->min_dur && rp_sub(c->end, c->start) < x->min_dur))
    return 0;
  if (team && team->kept) {
    if (x->nfl == x->capfl) {
      int64_t cap = x->capfl ? 2 * x->capfl : 64;
      flow *g = realloc(x->fl, (size_t)cap * sizeof *g);
      if (!g)
        return 1;
      x->fl = g;
      x->capfl = cap;
    }
    x->fl[x->nfl++] =
        (flow){t->rank, team->thread, t->thread, team->start, c->start};
  }
  FILE *f = x->f;
  if (t->rank != x->rank || t->thread != x->thread)
    lane_names(x, t);
  fprintf(f, "%s{\"name\":", x->sep);
  rp_json_str(f, x->p->names[c->name]);
  fputs(",\"cat\":\"region\",\"ph\":\"X\",\"ts\":", f);
  us(f, rp_sub(c->start, x->origin));
  fputs(",\"dur\":", f);
  us(f, rp_sub(c->end, c->start));
  fprintf(f, ",\"pid\":%d,\"tid\":%d,\"args\":{", t->rank, t->thread);
  const char *file = x->p->files[c->name];
  if (file) {
    fputs("\"file\":", f);
    rp_json_str(f, file);
    fprintf(f, ",\"line\":%d,", x->p->lines[c->name]);
  }
  fprintf(f, "\"depth\":%d}}", c->depth);
  return 0;
}

static void meta(FILE *f, const sp_fmt_meta *m, const rp_opts *o) {
  for (int64_t i = 0; i < m->n; i++) {
    const sp_fmt_meta_item *it = &m->items[i];
    if (!rp_meta_exported(o, it->key))
      continue;
    fputc(',', f);
    rp_json_str(f, it->key);
    fputc(':', f);
    if (it->type == SP_FMT_META_INT) {
      fprintf(f, "%lld", (long long)it->i64);
    } else if (it->type == SP_FMT_META_STR) {
      rp_json_str(f, it->str);
    } else {
      fputc('[', f);
      for (int64_t k = 0; k < it->nstrs; k++) {
        fputs(k ? "," : "", f);
        rp_json_str(f, it->strs[k]);
      }
      fputc(']', f);
    }
  }
}

/* Flow events bind to the slice they share pid, tid, ts and cat with
 * (chrome://tracing), or that encloses ts (Perfetto; "bp":"e" for the
 * end): the parallel call at its start, the task at its start. They come
 * after every slice, so a reader that sorts by time alone still sees each
 * slice open before its flow. */
static void flows(const chrome *x) {
  for (int64_t i = 0; i < x->nfl; i++) {
    const flow *w = &x->fl[i];
    for (int end = 0; end < 2; end++) {
      fprintf(x->f,
              ",\n{\"name\":\"omp team\",\"cat\":\"region\",\"ph\":\"%s\","
              "\"id\":%lld,\"ts\":",
              end ? "f\",\"bp\":\"e" : "s", (long long)(i + 1));
      us(x->f, rp_sub(end ? w->to_ts : w->from_ts, x->origin));
      fprintf(x->f, ",\"pid\":%d,\"tid\":%d}", w->rank, end ? w->to : w->from);
    }
  }
}

int rp_export_chrome(const rp_profile *p, const rp_opts *o, FILE *f,
                     sp_fmt_err *err) {
  chrome x = {p,    f, p->span_lo, -1,        -1,        "",        NULL,
              NULL, 0, 0,          INT64_MIN, INT64_MAX, o->min_dur};
  if (o->win_lo >= 0) {
    /* Calls that overlap the window, whole, on their own stamps. */
    double lo = (double)p->span_lo + o->win_lo * 1e9,
           hi = (double)p->span_lo + o->win_hi * 1e9;
    x.lo = lo < 9.2e18 ? (int64_t)lo : INT64_MAX;
    x.hi = hi < 9.2e18 ? (int64_t)hi : INT64_MAX;
  }
  if (!(x.omp = rp_omp_new(p, o, err)))
    return -1;
  fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"profile\":", f);
  rp_json_str(f, p->label);
  fprintf(f, ",\"origin_ns\":%lld", (long long)p->span_lo);
  meta(f, &p->meta, o);
  fputs("},\n\"traceEvents\":[\n", f);
  rp_visitor v = {on_open, NULL, &x};
  /* A trace viewer shows overlapping calls as they are: no need to refuse
   * improper nesting here. */
  int rc = rp_walk(p, o, &v, 0, err);
  if (rc != 0 && strstr(err->msg, ": stopped"))
    sp_fmt_err_set(err, "%s: out of memory", p->label);
  if (rc == 0) {
    flows(&x);
    fputs("\n]}\n", f);
  }
  rp_omp_free(x.omp);
  free(x.fl);
  return rc;
}
