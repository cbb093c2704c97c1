/* pathtree.c - calls aggregated by call path (caller chain of region
 * names), recursion and deep paths folded, for --tree, the folded export
 * and the flame graph. */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix(int64_t parent, int32_t name) {
  uint64_t h = (uint64_t)parent * 0x9e3779b97f4a7c15ull ^ (uint32_t)name;
  return h * 0xff51afd7ed558ccdull ^ (h >> 29);
}

/* The node for (parent, name), made on first sight; -1: out of memory. */
static int64_t child(rp_tree *t, int64_t parent, int32_t name, int32_t depth) {
  sp__hash_it it;
  int64_t i = sp__hash_first(&t->ix, mix(parent, name), &it);
  for (; i >= 0; i = sp__hash_next(&t->ix, &it))
    if (t->v[i].parent == parent && t->v[i].name == name)
      return i;
  if (t->n == t->cap) {
    int64_t c = t->cap ? 2 * t->cap : 1024;
    rp_node *v = realloc(t->v, (size_t)c * sizeof *v);
    if (!v)
      return -1;
    t->v = v;
    t->cap = c;
  }
  rp_node *x = &t->v[t->n];
  memset(x, 0, sizeof *x);
  x->parent = parent;
  x->name = name;
  x->depth = depth;
  x->first_child = x->next_sibling = -1;
  if (sp__hash_add(&t->ix, &it, t->n) != 0)
    return -1;
  return t->n++;
}

/* The note node keeps the depths of the calls folded into it, for its
 * "N deeper levels" (call depths, which direct recursion may have made
 * deeper than node depths). */
static void fold_depth(rp_node *x, int32_t depth) {
  if (x->name != RP_FOLDED)
    return;
  if (x->calls + x->rec == 1 || depth < x->lo)
    x->lo = depth;
  if (x->calls + x->rec == 1 || depth > x->hi)
    x->hi = depth;
}

static int on_open(void *ctx, const rp_thread *th, rp_call *c,
                   const rp_call *parent) {
  rp_tree *t = ctx;
  int64_t up = parent ? parent->node : -1;
  if (up >= 0 && (t->v[up].name == c->name || t->v[up].name == RP_FOLDED)) {
    /* Folded into the caller's node: its time is inside the entering
     * call's, which the node's total already holds. */
    c->node = up;
    t->v[up].rec++;
    fold_depth(&t->v[up], c->depth);
    return t->hook &&
           t->hook->seen(t->hook->ctx, th->rank, th->thread, c->name, up, 1);
  }
  int32_t depth = up >= 0 ? t->v[up].depth + 1 : 0;
  c->node = child(t, up, depth < RP_TREE_DEPTH ? c->name : RP_FOLDED, depth);
  if (c->node < 0)
    return 1;
  rp_node *x = &t->v[c->node];
  x->calls++;
  x->total = rp_add(x->total, rp_sub(c->end, c->start));
  fold_depth(x, c->depth);
  return t->hook &&
         t->hook->seen(t->hook->ctx, th->rank, th->thread, c->name, c->node, 0);
}

static int on_close(void *ctx, const rp_thread *th, const rp_call *c) {
  (void)th;
  rp_tree *t = ctx;
  t->v[c->node].excl += c->exclusive;
  return 0;
}

/* A profile's stored call paths (SP_MODE=profile), merged over ranks and
 * threads; a region the filters drop gives its place, and its own time,
 * to its nearest kept caller. A node's total is its outer total: a
 * recursive call folded into it is not counted twice. */
static int tree_from_paths(const rp_profile *p, const rp_opts *o, rp_tree *t,
                           sp_fmt_err *err) {
  int64_t *node = malloc((p->npaths ? (size_t)p->npaths : 1) * sizeof *node);
  if (!node)
    goto oom;
  for (int64_t i = 0; i < p->npaths; i++) {
    const sp_fmt_ppath *x = &p->paths[i];
    int64_t up = x->parent >= 0 ? node[x->parent] : -1;
    if (!rp_name_selected(o, p->names[x->region])) {
      node[i] = up;
      if (up >= 0)
        t->v[up].excl += x->s.excl;
      continue;
    }
    node[i] = child(t, up, x->region, up >= 0 ? t->v[up].depth + 1 : 0);
    if (node[i] < 0)
      goto oom;
    rp_node *n = &t->v[node[i]];
    n->calls += x->s.calls;
    n->total = rp_add(n->total, x->s.outer);
    n->excl = rp_add(n->excl, x->s.excl);
    /* outer below total: calls of the path inside calls of it */
    if (t->hook && t->hook->seen(t->hook->ctx, x->rank, x->thread, x->region,
                                 node[i], x->s.outer != x->s.total))
      goto oom;
  }
  free(node);
  return 0;
oom:
  free(node);
  rp_tree_free(t);
  sp_fmt_err_set(err, "%s: out of memory", p->label);
  return -1;
}

int rp_tree_build(const rp_profile *p, const rp_opts *o, rp_tree *t,
                  sp_fmt_err *err) {
  return rp_tree_build_hooked(p, o, t, NULL, err);
}

int rp_tree_build_hooked(const rp_profile *p, const rp_opts *o, rp_tree *t,
                         const rp_tree_hook *hook, sp_fmt_err *err) {
  memset(t, 0, sizeof *t);
  t->hook = hook;
  if (p->profile_input)
    return tree_from_paths(p, o, t, err);
  rp_visitor v = {on_open, on_close, t};
  if (rp_walk(p, o, &v, RP_WALK_STRICT | RP_WALK_OMP, err) != 0) {
    if (strstr(err->msg, ": stopped"))
      sp_fmt_err_set(err, "%s: out of memory", p->label);
    rp_tree_free(t);
    return -1;
  }
  return 0;
}

static const rp_tree *sort_t;
static const rp_profile *sort_p;

static int by_name(const void *a, const void *b) {
  const rp_node *x = &sort_t->v[*(const int64_t *)a],
                *y = &sort_t->v[*(const int64_t *)b];
  /* The note node last among its siblings. */
  if ((x->name == RP_FOLDED) != (y->name == RP_FOLDED))
    return x->name == RP_FOLDED ? 1 : -1;
  int c = x->name == RP_FOLDED
              ? 0
              : strcmp(sort_p->names[x->name], sort_p->names[y->name]);
  if (c)
    return c;
  return x->parent < y->parent ? -1 : (x->parent > y->parent);
}

int64_t rp_tree_next(const rp_tree *t, int64_t x) {
  if (t->v[x].first_child >= 0)
    return t->v[x].first_child;
  return rp_tree_skip(t, x);
}

int64_t rp_tree_skip(const rp_tree *t, int64_t x) {
  while (x >= 0 && t->v[x].next_sibling < 0)
    x = t->v[x].parent;
  return x >= 0 ? t->v[x].next_sibling : -1;
}

const char *rp_tree_name(const rp_tree *t, const rp_profile *p, int64_t x,
                         char *buf, size_t size) {
  const rp_node *n = &t->v[x];
  if (n->name != RP_FOLDED)
    return p->names[n->name];
  int levels = n->hi - n->lo + 1;
  snprintf(buf, size, "[%d deeper level%s folded]", levels,
           levels == 1 ? "" : "s");
  return buf;
}

void rp_tree_link(rp_tree *t, const rp_profile *p) {
  t->first_root = -1;
  int64_t *ix = malloc((t->n ? (size_t)t->n : 1) * sizeof *ix);
  if (!ix)
    return;
  for (int64_t i = 0; i < t->n; i++) {
    ix[i] = i;
    t->v[i].first_child = t->v[i].next_sibling = -1;
  }
  sort_t = t;
  sort_p = p;
  qsort(ix, (size_t)t->n, sizeof *ix, by_name);
  /* Prepend in reverse name order, so each list comes out in name order. */
  for (int64_t k = t->n; k-- > 0;) {
    rp_node *x = &t->v[ix[k]];
    if (x->parent >= 0) {
      x->next_sibling = t->v[x->parent].first_child;
      t->v[x->parent].first_child = ix[k];
    } else {
      x->next_sibling = t->first_root;
      t->first_root = ix[k];
    }
  }
  free(ix);
}

void rp_tree_free(rp_tree *t) {
  free(t->v);
  sp__hash_free(&t->ix);
  memset(t, 0, sizeof *t);
}

void rp_tree_fpath(const rp_tree *t, const rp_profile *p, int64_t node,
                   const char *sep, FILE *f,
                   void (*put)(FILE *f, const char *s)) {
  /* Recursion could be deeper than the C stack likes: walk up, then out. */
  int64_t n = t->v[node].depth + 1;
  int64_t *chain = malloc((size_t)n * sizeof *chain);
  if (!chain)
    return;
  int64_t k = 0;
  for (int64_t x = node; x >= 0 && k < n; x = t->v[x].parent)
    chain[k++] = x;
  char b[64];
  while (k-- > 0) {
    put(f, rp_tree_name(t, p, chain[k], b, sizeof b));
    if (k)
      fputs(sep, f);
  }
  free(chain);
}
