/* svg_timeline.c - a Gantt timeline as self-contained SVG: one lane per
 * rank/thread, nested calls stacked by depth, decimated to pixel columns. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LEFT 130 /* lane labels */
#define RIGHT 10
#define TOP 50 /* title and time axis */
#define ROW 14
#define MAXD 8        /* deeper calls are not drawn */
#define BUDGET 400000 /* cells (bound on rectangles) */

/* Calls are binned into pixel columns, each cell drawn in the region that
 * covers most of it, and runs of equal cells merged: the number of
 * rectangles is bounded by lanes x depths x columns whatever the number
 * of calls, so a profile of millions of calls still opens in a browser. */

typedef struct {
  const rp_profile *p;
  int64_t lo, hi;    /* window, ns */
  int cols;          /* columns per lane */
  double colw;       /* ns per column */
  int32_t *region;   /* [lane][depth][col], -1 = empty */
  float *cover;      /* ns of region[] in the cell */
  int32_t *maxdepth; /* per lane */
  int64_t drawn, hidden;
} timeline;

static int on_open(void *ctx, const rp_thread *t, rp_call *c,
                   const rp_call *parent) {
  (void)parent;
  timeline *g = ctx;
  int64_t lane = t - g->p->threads;
  if (c->end < g->lo || c->start > g->hi)
    return 0;
  if (c->depth >= MAXD) {
    g->hidden++;
    return 0;
  }
  g->drawn++;
  if (c->depth > g->maxdepth[lane])
    g->maxdepth[lane] = c->depth;
  int64_t s = c->start < g->lo ? g->lo : c->start;
  int64_t e = c->end > g->hi ? g->hi : c->end;
  /* In double: the difference of two stamps may not fit in int64 (a
   * crafted file), and a column outside the lane is clamped into it. */
  double f0 = ((double)s - (double)g->lo) / g->colw,
         f1 = ((double)e - (double)g->lo) / g->colw;
  int64_t c0 = f0 < 0 ? 0 : f0 >= g->cols ? g->cols - 1 : (int64_t)f0;
  int64_t c1 = f1 < 0 ? 0 : f1 >= g->cols ? g->cols - 1 : (int64_t)f1;
  size_t base = ((size_t)lane * MAXD + (size_t)c->depth) * (size_t)g->cols;
  for (int64_t k = c0; k <= c1; k++) {
    double a = (double)g->lo + (double)k * g->colw, b = a + g->colw;
    double ov = fmin(b, (double)e) - fmax(a, (double)s);
    if (ov <= 0 && s != e)
      continue;
    if (ov < 0.5)
      ov = 0.5; /* a zero-length call still marks its cell */
    if (g->region[base + k] < 0 || ov > g->cover[base + k]) {
      g->region[base + k] = c->name;
      g->cover[base + k] = (float)ov;
    }
  }
  return 0;
}

static void axis(FILE *f, const timeline *g, int width, int height) {
  char b[32];
  double span = (double)g->hi - (double)g->lo;
  for (int i = 0; i <= 10; i++) {
    double x = LEFT + (double)(width - LEFT - RIGHT) * i / 10.0;
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
            "stroke=\"#ddd\"/>\n<text x=\"%.1f\" y=\"%d\" "
            "text-anchor=\"%s\">",
            x, TOP - 6, x, height - 10, x, TOP - 9,
            i == 10 ? "end" : "middle"); /* the last would be cut off */
    double at = ((double)g->lo - (double)g->p->span_lo) + span * i / 10.0;
    rp_xml_str(f, rp_time(at, b, sizeof b));
    fputs("</text>\n", f);
  }
}

static void lanes(FILE *f, const timeline *g, int width) {
  const rp_profile *p = g->p;
  double pxcol = (double)(width - LEFT - RIGHT) / g->cols;
  int y = TOP;
  for (int64_t l = 0; l < p->nthreads; l++) {
    const rp_thread *t = &p->threads[l];
    int rows = g->maxdepth[l] + 1;
    fprintf(f, "<text x=\"5\" y=\"%d\">rank %d thread %d</text>\n", y + ROW - 3,
            t->rank, t->thread);
    for (int d = 0; d < rows; d++) {
      size_t base = ((size_t)l * MAXD + (size_t)d) * (size_t)g->cols;
      for (int k = 0; k < g->cols;) {
        int32_t r = g->region[base + k];
        int e = k + 1;
        while (e < g->cols && g->region[base + e] == r)
          e++;
        if (r >= 0) {
          char col[32], b1[32], b2[32];
          double x = LEFT + k * pxcol, w = (e - k) * pxcol;
          rp_color(p->names[r], col, sizeof col);
          fputs("<g><title>", f);
          rp_xml_str(f, p->names[r]);
          fprintf(f, " (rank %d thread %d, depth %d)\n%s to %s", t->rank,
                  t->thread, d,
                  rp_time((double)g->lo - (double)p->span_lo + k * g->colw, b1,
                          sizeof b1),
                  rp_time((double)g->lo - (double)p->span_lo + e * g->colw, b2,
                          sizeof b2));
          if (p->files[r]) {
            fputs("\nsource ", f);
            rp_xml_str(f, p->files[r]);
            fprintf(f, ":%d", p->lines[r]);
          }
          fprintf(f,
                  "</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
                  "height=\"%d\" fill=\"%s\"/>",
                  x, y + d * ROW, w, ROW - 1, col);
          if (w > 40) {
            int fit = (int)((w - 4) / 6.7);
            fprintf(f, "<text x=\"%.2f\" y=\"%d\">", x + 2,
                    y + d * ROW + ROW - 3);
            char buf[256];
            snprintf(buf, sizeof buf, "%.*s", fit < 250 ? fit : 250,
                     p->names[r]);
            rp_xml_str(f, buf);
            fputs("</text>", f);
          }
          fputs("</g>\n", f);
        }
        k = e;
      }
    }
    y += rows * ROW + 6;
    fprintf(f,
            "<line x1=\"0\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>\n",
            y - 3, width, y - 3);
  }
}

int rp_svg_timeline(const rp_profile *p, const rp_opts *o, FILE *f,
                    sp_fmt_err *err) {
  const int width = 1400;
  timeline g;
  memset(&g, 0, sizeof g);
  g.p = p;
  g.lo = p->span_lo;
  g.hi = p->span_hi;
  if (o->win_lo >= 0) {
    g.lo = p->span_lo + (int64_t)(o->win_lo * 1e9);
    g.hi = p->span_lo + (int64_t)(o->win_hi * 1e9);
    if (g.hi > p->span_hi)
      g.hi = p->span_hi;
  }
  if (g.hi <= g.lo) {
    sp_fmt_err_set(err, "%s: the window holds no time of the run", p->label);
    return -1;
  }
  int64_t nl = p->nthreads ? p->nthreads : 1;
  int64_t cols = BUDGET / (nl * MAXD);
  g.cols = (int)(cols > width - LEFT - RIGHT ? width - LEFT - RIGHT
                 : cols < 100                ? 100
                                             : cols);
  g.colw = ((double)g.hi - (double)g.lo) / g.cols;
  size_t cells = (size_t)nl * MAXD * (size_t)g.cols;
  g.region = malloc(cells * sizeof *g.region);
  g.cover = calloc(cells, sizeof *g.cover);
  g.maxdepth = calloc((size_t)nl, sizeof *g.maxdepth);
  if (!g.region || !g.cover || !g.maxdepth) {
    free(g.region), free(g.cover), free(g.maxdepth);
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    return -1;
  }
  memset(g.region, 0xff, cells * sizeof *g.region);
  rp_visitor v = {on_open, NULL, &g};
  int rc = rp_walk(p, o, &v, 0, err);
  if (rc == 0) {
    int height = TOP + 20;
    for (int64_t l = 0; l < p->nthreads; l++)
      height += (g.maxdepth[l] + 1) * ROW + 6;
    char title[700], b1[32], b2[32];
    snprintf(title, sizeof title, "Timeline: %.500s (%s to %s%s)", p->label,
             rp_time((double)g.lo - (double)p->span_lo, b1, sizeof b1),
             rp_time((double)g.hi - (double)p->span_lo, b2, sizeof b2),
             g.hidden ? "; calls deeper than 8 not drawn" : "");
    rp_svg_begin(f, width, height, title);
    axis(f, &g, width, height);
    lanes(f, &g, width);
    fputs("</svg>\n", f);
  }
  free(g.region);
  free(g.cover);
  free(g.maxdepth);
  return rc;
}
