/* callstack.c - the call stack of each rank's thread, reconstructed by
 * containment over a k-way merge of its regions' calls, with the rules of
 * sp_fmt_stats_thread (start asc, end desc, source asc); OpenMP workers'
 * implicit tasks joined to the parallel call of their team. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* The calls of a group of threads (one thread, or every thread of a rank
 * when OpenMP teams are joined), merged. A kept source is (thread of the
 * group, source); kept sources are numbered in that order, so their number
 * breaks ties as the source index does within one thread. */
typedef struct {
  const sp_fmt_block **kb; /* the calls of each kept source */
  int64_t *pos;            /* next call of each kept source */
  int64_t *heap;           /* kept source numbers, ordered by current call */
  int64_t n;
} merger;

static int before(const merger *m, int64_t a, int64_t b) {
  const sp_fmt_block *x = m->kb[a], *y = m->kb[b];
  int64_t sa = x->starts[m->pos[a]], sb = y->starts[m->pos[b]];
  if (sa != sb)
    return sa < sb;
  int64_t ea = x->ends[m->pos[a]], eb = y->ends[m->pos[b]];
  if (ea != eb)
    return ea > eb;
  return a < b;
}

static void sift_down(merger *m, int64_t i) {
  for (;;) {
    int64_t l = 2 * i + 1, best = i;
    if (l < m->n && before(m, m->heap[l], m->heap[best]))
      best = l;
    if (l + 1 < m->n && before(m, m->heap[l + 1], m->heap[best]))
      best = l + 1;
    if (best == i)
      return;
    int64_t x = m->heap[i];
    m->heap[i] = m->heap[best];
    m->heap[best] = x;
    i = best;
  }
}

typedef struct {
  rp_call c;
  int64_t children; /* time of direct children on the same thread */
} frame;

typedef struct saved {
  frame *f;
  int64_t depth, cap;
} saved; /* a thread's stack while another thread's calls are walked */

static int close_top(const rp_visitor *v, const rp_thread *t, frame *stack,
                     int64_t *depth) {
  frame *f = &stack[--*depth];
  f->c.exclusive = rp_sub(rp_sub(f->c.end, f->c.start), f->children);
  return v->on_close ? v->on_close(v->ctx, t, &f->c) : 0;
}

/* What the workers' tasks of a parallel call x need: the call they go
 * under. */
static void seen(rp_omp_call *x, const rp_call *c) {
  x->as = c->name;
  x->depth = c->depth;
  x->node = c->node;
  x->seen = 1;
}

sp_fmt_progress rp_progress; /* off unless main starts it */

static int walk_group(const rp_profile *p, const rp_thread *t, int64_t nt,
                      const char *keep_name, const rp_visitor *v, int flags,
                      rp_omp *omp, sp_fmt_err *err) {
  int64_t total = 0;
  for (int64_t i = 0; i < nt; i++)
    total += t[i].nsrc;
  size_t cnt = total ? (size_t)total : 1;
  int64_t *kt = malloc(cnt * sizeof *kt);
  const sp_fmt_block **kb = malloc(cnt * sizeof *kb);
  int32_t *kn = malloc(cnt * sizeof *kn);
  int64_t *pos = calloc(cnt, sizeof *pos);
  int64_t *heap = malloc(cnt * sizeof *heap);
  saved *st = calloc((size_t)nt, sizeof *st);
  /* The stack of the thread the last call was on, in locals: with one
   * thread (no OpenMP team) it never changes. */
  int64_t cur = 0, depth = 0, cap = 0;
  frame *stack = NULL;
  int rc = -1;
  if (!kt || !kb || !kn || !pos || !heap || !st)
    goto oom;
  int64_t walked = 0; /* calls, for the progress line */
  merger m = {kb, pos, heap, 0};
  for (int64_t i = 0; i < nt; i++)
    for (int64_t j = 0; j < t[i].nsrc; j++)
      if ((keep_name[t[i].name[j]] ||
           (omp && rp_omp_parallel(omp, t[i].name[j]))) &&
          t[i].blk[j]->count > 0) {
        kt[m.n] = i;
        kb[m.n] = t[i].blk[j];
        kn[m.n] = t[i].name[j];
        heap[m.n] = m.n;
        m.n++;
      }
  for (int64_t i = m.n / 2; i-- > 0;)
    sift_down(&m, i);
  while (m.n) {
    if ((++walked & 0xffff) == 0)
      sp_fmt_progress_add(&rp_progress, 0x10000);
    int64_t h = heap[0];
    const rp_thread *th = &t[kt[h]];
    const sp_fmt_block *b = kb[h];
    rp_call c = {kn[h], 0, b->starts[pos[h]], b->ends[pos[h]], 0, -1};
    if (++pos[h] == b->count)
      heap[0] = heap[--m.n];
    sift_down(&m, 0);
    if (kt[h] != cur) {
      st[cur] = (saved){stack, depth, cap};
      cur = kt[h];
      stack = st[cur].f;
      depth = st[cur].depth;
      cap = st[cur].cap;
    }
    if (omp && !keep_name[c.name]) {
      /* A parallel call filtered out: never visited, but its workers'
       * tasks join its nearest kept caller, as its own thread's do. */
      rp_omp_call *x = rp_omp_self(omp, th, &c);
      for (int64_t d = depth; x && d-- > 0;)
        if (c.start >= stack[d].c.start && c.end <= stack[d].c.end) {
          seen(x, &stack[d].c);
          break;
        }
      continue;
    }
    while (depth) {
      frame *top = &stack[depth - 1];
      if (c.start >= top->c.start && c.end <= top->c.end)
        break;
      if (c.start < top->c.end && (flags & RP_WALK_STRICT)) {
        sp_fmt_err_set(err,
                       "%s: rank %d thread %d: call of %s at %lld overlaps "
                       "%s at %lld without nesting",
                       p->label, th->rank, th->thread, p->names[c.name],
                       (long long)c.start, p->names[top->c.name],
                       (long long)top->c.start);
        goto out;
      }
      if (close_top(v, th, stack, &depth) != 0)
        goto stopped;
    }
    frame *parent = depth ? &stack[depth - 1] : NULL;
    const rp_call *pc = parent ? &parent->c : NULL;
    rp_call team;
    if (parent)
      parent->children = rp_add(parent->children, rp_sub(c.end, c.start));
    c.depth = (int32_t)depth;
    if (omp) {
      /* The team's parallel call is the parent, but the task's time stays
       * out of its exclusive time: that runs on another thread. */
      rp_omp_call *x = rp_omp_match(omp, th, &c, pc);
      if (x && x->seen) {
        team = (rp_call){x->as, x->depth, x->start, x->end, 0, x->node};
        pc = &team;
      }
      c.depth = pc ? pc->depth + 1 : 0;
    }
    if (v->on_open && v->on_open(v->ctx, th, &c, pc))
      goto stopped;
    if (omp) {
      rp_omp_call *x = rp_omp_self(omp, th, &c);
      if (x)
        seen(x, &c);
    }
    if (depth == cap) {
      int64_t c2 = cap ? 2 * cap : 64;
      frame *g = realloc(stack, (size_t)c2 * sizeof *g);
      if (!g)
        goto oom;
      stack = g;
      cap = c2;
    }
    stack[depth].c = c;
    stack[depth].children = 0;
    depth++;
  }
  sp_fmt_progress_add(&rp_progress, walked & 0xffff);
  if (st)
    st[cur] = (saved){stack, depth, cap};
  stack = NULL;
  for (int64_t i = 0; i < nt; i++)
    while (st[i].depth)
      if (close_top(v, &t[i], st[i].f, &st[i].depth) != 0)
        goto stopped;
  rc = 0;
  goto out;
oom:
  sp_fmt_err_set(err, "%s: out of memory", p->label);
  goto out;
stopped:
  sp_fmt_err_set(err, "%s: stopped", p->label);
out:
  if (st && stack)
    st[cur] = (saved){stack, depth, cap};
  free(kt);
  free(kb);
  free(kn);
  free(pos);
  free(heap);
  for (int64_t i = 0; st && i < nt; i++)
    free(st[i].f);
  free(st);
  return rc;
}

int rp_walk(const rp_profile *p, const rp_opts *o, const rp_visitor *v,
            int flags, sp_fmt_err *err) {
  char *keep = malloc(p->nnames ? (size_t)p->nnames : 1);
  if (!keep) {
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    return -1;
  }
  for (int64_t i = 0; i < p->nnames; i++)
    keep[i] = (char)rp_name_selected(o, p->names[i]);
  rp_omp *omp = NULL;
  if (flags & RP_WALK_OMP) {
    if (!(omp = rp_omp_new(p, o, err))) {
      free(keep);
      return -1;
    }
    if (!rp_omp_any(omp)) { /* no team: thread after thread, as always */
      rp_omp_free(omp);
      omp = NULL;
    }
  }
  int rc = 0;
  for (int64_t i = 0, j; rc == 0 && i < p->nthreads; i = j) {
    j = i + 1;
    while (omp && j < p->nthreads && p->threads[j].rank == p->threads[i].rank)
      j++;
    rc = walk_group(p, &p->threads[i], j - i, keep, v, flags, omp, err);
  }
  rp_omp_free(omp);
  free(keep);
  return rc;
}
