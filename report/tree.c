/* tree.c - --tree: the call tree, aggregated by call path over ranks and
 * threads (recursion folded, pathtree.c), as indented text with calls,
 * inclusive and exclusive time and the share of the time; --depth,
 * --min-percent and --top (the heaviest children of each node) prune it. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static const rp_tree *heavy_t;

static int by_total(const void *a, const void *b) {
  const rp_node *x = &heavy_t->v[*(const int64_t *)a],
                *y = &heavy_t->v[*(const int64_t *)b];
  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  return *(const int64_t *)a < *(const int64_t *)b ? -1 : 1;
}

/* hide[x] = 1 for the children of each node (and the roots) past the top
 * heaviest; -1 when out of memory. */
static int mark_top(const rp_tree *t, int64_t top, char *hide) {
  int64_t *kids = malloc((t->n ? (size_t)t->n : 1) * sizeof *kids);
  if (!kids)
    return -1;
  heavy_t = t;
  for (int64_t up = -1; up < t->n; up++) {
    int64_t k = 0;
    for (int64_t c = up < 0 ? t->first_root : t->v[up].first_child; c >= 0;
         c = t->v[c].next_sibling)
      kids[k++] = c;
    if (k <= top)
      continue;
    qsort(kids, (size_t)k, sizeof *kids, by_total);
    for (int64_t i = top; i < k; i++)
      hide[kids[i]] = 1;
  }
  free(kids);
  return 0;
}

int rp_print_tree(const rp_profile *p, const rp_opts *o, FILE *f,
                  sp_fmt_err *err) {
  rp_tree t;
  rp_ctr_tree *ct = NULL; /* --counters */
  if (o->counters && !(ct = rp_ctr_tree_new(p, o, err)))
    return -1;
  if (rp_tree_build_hooked(p, o, &t, ct ? rp_ctr_tree_hook(ct) : NULL, err) !=
      0) {
    rp_ctr_tree_free(ct);
    return -1;
  }
  rp_tree_link(&t, p);
  char *hide = NULL;
  int failed = 1;
  if (t.first_root < 0)
    sp_fmt_err_set(err, "%s: no region matches the filters", p->label);
  else if (!(hide = calloc(t.n ? (size_t)t.n : 1, 1)) ||
           (o->top > 0 && mark_top(&t, o->top, hide) != 0))
    sp_fmt_err_set(err, "%s: out of memory", p->label);
  else
    failed = ct && rp_ctr_tree_done(ct, &t, err) != 0;
  if (failed) {
    free(hide);
    rp_tree_free(&t);
    rp_ctr_tree_free(ct);
    return -1;
  }
  /* The share of each node: of the roots' time, all ranks and threads. */
  int64_t all = 0;
  for (int64_t x = t.first_root; x >= 0; x = t.v[x].next_sibling)
    all = rp_add(all, t.v[x].total);
  char b[2][32];
  fprintf(f, "%s: %lld rank%s, call tree over ranks and threads%s\n", p->label,
          (long long)p->nranks, p->nranks == 1 ? "" : "s",
          ct ? "; counters inclusive (NAME:excl without the regions inside), "
               "'-' where a node's are not known exactly"
             : "");
  fprintf(f, "%10s %10s %10s %6s", "calls", "total", "excl", "%");
  if (ct)
    rp_ctr_tree_titles(ct, f);
  fprintf(f, "  %s\n", "region");
  int64_t hidden = 0;
  /* Depth-first, children in name order, as the folded export. */
  for (int64_t x = t.first_root; x >= 0;) {
    const rp_node *n = &t.v[x];
    double pct = all > 0 ? 100.0 * (double)n->total / (double)all : 0;
    if (hide[x] || (o->tree_depth && n->depth >= o->tree_depth) ||
        pct < o->min_pct) {
      hidden++;
      x = rp_tree_skip(&t, x);
      continue;
    }
    fprintf(f, "%10lld %10s %10s %6.1f", (long long)n->calls,
            rp_time((double)n->total, b[0], sizeof b[0]),
            rp_time((double)n->excl, b[1], sizeof b[1]), pct);
    if (ct)
      rp_ctr_tree_put(ct, &t, x, f);
    fprintf(f, "  %*s", 2 * n->depth, "");
    char nb[64];
    const char *name = rp_tree_name(&t, p, x, nb, sizeof nb);
    int cols = rp_name_cols(name);
    rp_name_str(f, name, o->wide || cols <= 60 ? 0 : 60);
    if (n->rec)
      fprintf(f, " (+%lld calls folded in)", (long long)n->rec);
    fputc('\n', f);
    x = rp_tree_next(&t, x);
  }
  if (hidden)
    fprintf(f, "(%lld subtree%s not shown: --depth, --min-percent, --top)\n",
            (long long)hidden, hidden == 1 ? "" : "s");
  free(hide);
  rp_tree_free(&t);
  rp_ctr_tree_free(ct);
  return 0;
}
