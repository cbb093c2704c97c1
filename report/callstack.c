/* callstack.c - the call stack of each rank's thread, reconstructed by
 * containment over a k-way merge of its regions' calls, with the rules of
 * sp_fmt_stats_thread (start asc, end desc, source asc). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const rp_thread *t;
  const int64_t *keep; /* kept source indices */
  int64_t *pos;        /* next call of each kept source */
  int64_t *heap;       /* positions in keep[], ordered by current call */
  int64_t n;
} merger;

static int before(const merger *m, int64_t a, int64_t b) {
  const sp_fmt_block *x = m->t->blk[m->keep[a]], *y = m->t->blk[m->keep[b]];
  int64_t sa = x->starts[m->pos[a]], sb = y->starts[m->pos[b]];
  if (sa != sb)
    return sa < sb;
  int64_t ea = x->ends[m->pos[a]], eb = y->ends[m->pos[b]];
  if (ea != eb)
    return ea > eb;
  return m->keep[a] < m->keep[b];
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
  int64_t children; /* time of direct children */
} frame;

static int close_top(const rp_visitor *v, const rp_thread *t, frame *stack,
                     int64_t *depth) {
  frame *f = &stack[--*depth];
  f->c.exclusive = (f->c.end - f->c.start) - f->children;
  return v->on_close ? v->on_close(v->ctx, t, &f->c) : 0;
}

static int walk_thread(const rp_profile *p, const rp_thread *t,
                       const char *keep_name, const rp_visitor *v, int strict,
                       sp_fmt_err *err) {
  size_t cnt = t->nsrc ? (size_t)t->nsrc : 1;
  int64_t *keep = malloc(cnt * sizeof *keep);
  int64_t *pos = calloc(cnt, sizeof *pos);
  int64_t *heap = malloc(cnt * sizeof *heap);
  int64_t cap = 64, depth = 0;
  frame *stack = malloc((size_t)cap * sizeof *stack);
  int rc = -1;
  if (!keep || !pos || !heap || !stack) {
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    goto out;
  }
  merger m = {t, keep, pos, heap, 0};
  int64_t nk = 0;
  for (int64_t j = 0; j < t->nsrc; j++)
    if (keep_name[t->name[j]] && t->blk[j]->count > 0) {
      keep[nk] = j;
      heap[m.n++] = nk++;
    }
  for (int64_t i = m.n / 2; i-- > 0;)
    sift_down(&m, i);
  while (m.n) {
    int64_t h = heap[0];
    const sp_fmt_block *b = t->blk[keep[h]];
    rp_call c = {t->name[keep[h]], 0, b->starts[pos[h]],
                 b->ends[pos[h]],  0, -1};
    if (++pos[h] == b->count)
      heap[0] = heap[--m.n];
    sift_down(&m, 0);
    while (depth) {
      frame *top = &stack[depth - 1];
      if (c.start >= top->c.start && c.end <= top->c.end)
        break;
      if (c.start < top->c.end && strict) {
        sp_fmt_err_set(err,
                       "%s: rank %d thread %d: call of %s at %lld overlaps "
                       "%s at %lld without nesting",
                       p->label, t->rank, t->thread, p->names[c.name],
                       (long long)c.start, p->names[top->c.name],
                       (long long)top->c.start);
        goto out;
      }
      if (close_top(v, t, stack, &depth) != 0)
        goto stopped;
    }
    frame *parent = depth ? &stack[depth - 1] : NULL;
    if (parent)
      parent->children += c.end - c.start;
    c.depth = (int32_t)depth;
    if (v->on_open && v->on_open(v->ctx, t, &c, parent ? &parent->c : NULL))
      goto stopped;
    if (depth == cap) {
      frame *g = realloc(stack, (size_t)(2 * cap) * sizeof *stack);
      if (!g) {
        sp_fmt_err_set(err, "%s: out of memory", p->label);
        goto out;
      }
      stack = g;
      cap *= 2;
    }
    stack[depth].c = c;
    stack[depth].children = 0;
    depth++;
  }
  while (depth)
    if (close_top(v, t, stack, &depth) != 0)
      goto stopped;
  rc = 0;
  goto out;
stopped:
  sp_fmt_err_set(err, "%s: stopped", p->label);
out:
  free(keep);
  free(pos);
  free(heap);
  free(stack);
  return rc;
}

int rp_walk(const rp_profile *p, const rp_opts *o, const rp_visitor *v,
            int strict, sp_fmt_err *err) {
  char *keep = malloc(p->nnames ? (size_t)p->nnames : 1);
  if (!keep) {
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    return -1;
  }
  for (int64_t i = 0; i < p->nnames; i++)
    keep[i] = (char)rp_name_selected(o, p->names[i]);
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < p->nthreads; i++)
    rc = walk_thread(p, &p->threads[i], keep, v, strict, err);
  free(keep);
  return rc;
}
