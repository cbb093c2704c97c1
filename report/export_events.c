/* export_events.c - one CSV row per call (scope-profiler's long-form
 * events view): rank, thread, region, times from the first call, depth. */
#include "report.h"

typedef struct {
  const rp_profile *p;
  FILE *f;
} events;

static int on_open(void *ctx, const rp_thread *t, rp_call *c,
                   const rp_call *parent) {
  (void)parent;
  events *x = ctx;
  fprintf(x->f, "%d,%d,", t->rank, t->thread);
  rp_csv_str(x->f, x->p->names[c->name]);
  fprintf(x->f, ",%lld,%lld,%lld,%d\n",
          (long long)rp_sub(c->start, x->p->span_lo),
          (long long)rp_sub(c->end, x->p->span_lo),
          (long long)rp_sub(c->end, c->start), c->depth);
  return 0;
}

int rp_export_events(const rp_profile *p, const rp_opts *o, FILE *f,
                     sp_fmt_err *err) {
  events x = {p, f};
  fputs("rank,thread,region,start_ns,end_ns,duration_ns,depth\n", f);
  rp_visitor v = {on_open, NULL, &x};
  return rp_walk(p, o, &v, 0, err);
}
