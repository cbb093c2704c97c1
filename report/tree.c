/* tree.c - --tree: the call tree, aggregated by call path over ranks and
 * threads (recursion folded, pathtree.c), as indented text with calls,
 * inclusive and exclusive time. */
#include "report.h"

#include <string.h>

int rp_print_tree(const rp_profile *p, const rp_opts *o, FILE *f,
                  sp_fmt_err *err) {
  rp_tree t;
  if (rp_tree_build(p, o, &t, err) != 0)
    return -1;
  rp_tree_link(&t, p);
  if (t.first_root < 0) {
    rp_tree_free(&t);
    sp_fmt_err_set(err, "%s: no region matches the filters", p->label);
    return -1;
  }
  char b[2][32];
  fprintf(f, "%s: %lld rank%s, call tree over ranks and threads\n", p->label,
          (long long)p->nranks, p->nranks == 1 ? "" : "s");
  fprintf(f, "%10s %10s %10s  %s\n", "calls", "total", "excl", "region");
  /* Depth-first, children in name order, as the folded export. */
  for (int64_t x = t.first_root; x >= 0; x = rp_tree_next(&t, x)) {
    const rp_node *n = &t.v[x];
    fprintf(f, "%10lld %10s %10s  %*s", (long long)n->calls,
            rp_time((double)n->total, b[0], sizeof b[0]),
            rp_time((double)n->excl, b[1], sizeof b[1]), 2 * n->depth, "");
    char nb[64];
    rp_name_str(f, rp_tree_name(&t, p, x, nb, sizeof nb), 0);
    if (n->rec)
      fprintf(f, " (+%lld calls folded in)", (long long)n->rec);
    fputc('\n', f);
  }
  rp_tree_free(&t);
  return 0;
}
