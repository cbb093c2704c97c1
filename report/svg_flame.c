/* svg_flame.c - an aggregated flame graph as self-contained SVG: one frame
 * per call path, width = inclusive time summed over ranks and threads (with
 * the time of OpenMP workers joined under it), hover titles with the path,
 * time, calls and source. Recursion folded as in the call tree (pathtree.c). */
#include "report.h"

#include <stdlib.h>

#define W 1200
#define PAD 10
#define ROW 17

typedef struct {
  const rp_profile *p;
  const rp_tree *t;
  const int64_t *w; /* per node: exclusive time of its subtree */
  FILE *f;
  double scale; /* px per ns */
  int height;
  int64_t all;
} flame;

static void put_xml(FILE *f, const char *s) { rp_xml_str(f, s); }

/* The label: the whole call path if it fits, else the node's name, else
 * as much of the name as fits (rp_svg_text). */
static void label(const flame *g, int64_t x, const char *name, double w,
                  double px, int y) {
  const rp_node *n = &g->t->v[x];
  /* Path width: names plus " > " separators, counted only as far as the
   * frame is wide (a deep path would make this quadratic). */
  double room = (w - 6) / RP_CHAR_W;
  int cols = 0;
  char b[64];
  for (int64_t k = x; k >= 0 && cols <= room; k = g->t->v[k].parent)
    cols += rp_text_cols(rp_tree_name(g->t, g->p, k, b, sizeof b)) +
            (k == x ? 0 : 3);
  if (cols <= room && n->parent >= 0) {
    fprintf(g->f, "<text x=\"%.2f\" y=\"%d\">", px + 3, y + ROW - 5);
    rp_tree_fpath(g->t, g->p, x, " &gt; ", g->f, put_xml);
    fputs("</text>", g->f);
  } else {
    rp_svg_text(g->f, name, px + 3, y + ROW - 5, w - 6, NULL);
  }
  fputc('\n', g->f);
}

/* One frame at px, width g->w[x]; 0, or 1 when it is too narrow to draw
 * (its subtree neither). */
static int frame(const flame *g, int64_t x, double px) {
  const rp_node *n = &g->t->v[x];
  double w = (double)g->w[x] * g->scale;
  if (w < 0.1) /* invisible frames only make the file bigger */
    return 1;
  int y = g->height - PAD - ROW * (n->depth + 2);
  char col[32], b1[32], b2[32], nb[64];
  const char *name = rp_tree_name(g->t, g->p, x, nb, sizeof nb);
  rp_color(name, col, sizeof col);
  fputs("<g><title>", g->f);
  rp_tree_fpath(g->t, g->p, x, " &gt; ", g->f, put_xml);
  fprintf(g->f, "\ntotal %s", rp_time((double)n->total, b1, sizeof b1));
  if (g->w[x] != n->total) /* workers joined: the frame is wider */
    fprintf(g->f, ", with its team's threads %s",
            rp_time((double)g->w[x], b1, sizeof b1));
  fprintf(g->f, " (%.2f%%), exclusive %s, %lld calls",
          100.0 * (double)g->w[x] / (double)g->all,
          rp_time((double)n->excl, b2, sizeof b2), (long long)n->calls);
  if (n->rec)
    fprintf(g->f, " (+%lld folded in)", (long long)n->rec);
  if (n->name != RP_FOLDED && g->p->files[n->name]) {
    fputs("\nsource ", g->f);
    rp_xml_str(g->f, g->p->files[n->name]);
    if (g->p->lines[n->name] >= 0)
      fprintf(g->f, ":%d", g->p->lines[n->name]);
  }
  fprintf(g->f,
          "</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
          "fill=\"%s\" rx=\"2\"/>\n",
          px, y, w, ROW - 1, col);
  label(g, x, name, w, px, y);
  fputs("</g>\n", g->f);
  return 0;
}

int rp_svg_flame(const rp_profile *p, const rp_opts *o, FILE *f,
                 sp_fmt_err *err) {
  rp_tree t;
  if (rp_tree_build(p, o, &t, err) != 0)
    return -1;
  rp_tree_link(&t, p);
  /* A frame's width is its subtree's exclusive time: its total, unless
   * OpenMP workers' calls joined below it add their threads' time. A child
   * is made after its parent, so one backward pass sums the subtrees. */
  int64_t *w = calloc(t.n ? (size_t)t.n : 1, sizeof *w);
  if (!w) {
    rp_tree_free(&t);
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    return -1;
  }
  for (int64_t i = t.n; i-- > 0;) {
    w[i] += t.v[i].excl;
    if (t.v[i].parent >= 0)
      w[t.v[i].parent] += w[i];
  }
  flame g = {p, &t, w, f, 0, 0, 0};
  int depth = 0;
  for (int64_t i = 0; i < t.n; i++)
    if (t.v[i].depth + 1 > depth)
      depth = t.v[i].depth + 1;
  int64_t calls = 0;
  for (int64_t x = t.first_root; x >= 0; x = t.v[x].next_sibling)
    g.all += w[x];
  for (int64_t i = 0; i < t.n; i++)
    calls += t.v[i].calls;
  if (g.all <= 0) {
    free(w);
    rp_tree_free(&t);
    sp_fmt_err_set(err, "%s: no calls to draw", p->label);
    return -1;
  }
  g.scale = (double)(W - 2 * PAD) / (double)g.all;
  g.height = 40 + ROW * (depth + 1) + PAD;
  char title[600], b[32];
  snprintf(title, sizeof title, "Flame graph: %.500s", p->label);
  rp_svg_begin(f, W, g.height, title);
  /* The base frame: everything, over every rank and thread. */
  int y = g.height - PAD - ROW;
  fprintf(f,
          "<g><title>all: %s over %lld rank(s), %lld thread(s)\n"
          "%lld calls</title>"
          "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#ccc\" "
          "rx=\"2\"/><text x=\"%d\" y=\"%d\">all</text></g>\n",
          rp_time((double)g.all, b, sizeof b), (long long)p->nranks,
          (long long)p->nthreads, (long long)calls, PAD, y, W - 2 * PAD,
          ROW - 1, PAD + 3, y + ROW - 5);
  /* Depth-first without recursion: a node's first child starts where it
   * does, its next sibling where it ends. */
  double *px = malloc((t.n ? (size_t)t.n : 1) * sizeof *px);
  if (!px) {
    free(w);
    rp_tree_free(&t);
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    return -1;
  }
  if (t.first_root >= 0)
    px[t.first_root] = PAD;
  for (int64_t x = t.first_root; x >= 0;) {
    const rp_node *n = &t.v[x];
    if (n->next_sibling >= 0)
      px[n->next_sibling] = px[x] + (double)w[x] * g.scale;
    if (frame(&g, x, px[x]) != 0) {
      x = rp_tree_skip(&t, x);
      continue;
    }
    if (n->first_child >= 0)
      px[n->first_child] = px[x];
    x = rp_tree_next(&t, x);
  }
  fputs("</svg>\n", f);
  free(px);
  free(w);
  rp_tree_free(&t);
  return 0;
}
