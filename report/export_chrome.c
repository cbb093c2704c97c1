/* export_chrome.c - the Trace Event Format (JSON object form) that
 * Perfetto and chrome://tracing load: one complete ("X") event per call,
 * pid = rank, tid = thread, times in microseconds from the first call. */
#include "report.h"

typedef struct {
  const rp_profile *p;
  FILE *f;
  int64_t origin;
  int32_t rank, thread; /* the lane whose name was last written */
  const char *sep;      /* before the next event: "" first, then ",\n" */
} chrome;

/* Microseconds with the nanoseconds kept: "12.345". */
static void us(FILE *f, int64_t ns) {
  if (ns < 0) {
    fputc('-', f);
    ns = -ns;
  }
  fprintf(f, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
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
  (void)parent;
  chrome *x = ctx;
  FILE *f = x->f;
  if (t->rank != x->rank || t->thread != x->thread)
    lane_names(x, t);
  fprintf(f, "%s{\"name\":", x->sep);
  rp_json_str(f, x->p->names[c->name]);
  fputs(",\"cat\":\"region\",\"ph\":\"X\",\"ts\":", f);
  us(f, c->start - x->origin);
  fputs(",\"dur\":", f);
  us(f, c->end - c->start);
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

static void meta(FILE *f, const sp_fmt_meta *m) {
  for (int64_t i = 0; i < m->n; i++) {
    const sp_fmt_meta_item *it = &m->items[i];
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

int rp_export_chrome(const rp_profile *p, const rp_opts *o, FILE *f,
                     sp_fmt_err *err) {
  chrome x = {p, f, p->span_lo, -1, -1, ""};
  fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"profile\":", f);
  rp_json_str(f, p->label);
  fprintf(f, ",\"origin_ns\":%lld", (long long)p->span_lo);
  meta(f, &p->meta);
  fputs("},\n\"traceEvents\":[\n", f);
  rp_visitor v = {on_open, NULL, &x};
  /* A trace viewer shows overlapping calls as they are: no need to refuse
   * improper nesting here. */
  if (rp_walk(p, o, &v, 0, err) != 0)
    return -1;
  fputs("\n]}\n", f);
  return 0;
}
