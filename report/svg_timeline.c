/* svg_timeline.c - a Gantt timeline as self-contained SVG: one lane per
 * rank/thread, nested calls stacked by depth, decimated to pixel columns,
 * regions in palette colours by their time in the run, with a legend. */
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
  int8_t *colour; /* per name: palette index, RP_PALETTE_N = others, -1 */
  int32_t *order; /* the regions drawn, most time first */
  int32_t norder;
  int32_t npal;   /* the first npal of order have palette colours */
  sp__hash rowix; /* (rank, thread, name) to its row of p->rows */
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

/* Round ticks (time from the run's first call) along the top. */
static void axis(FILE *f, const timeline *g, int width, int bottom) {
  char b[64];
  double t0 = (double)g->lo - (double)g->p->span_lo,
         t1 = (double)g->hi - (double)g->p->span_lo, px = width - LEFT - RIGHT;
  rp_ticks t;
  rp_ticks_make(t0, t1, px, 0, 0, 1, &t);
  fprintf(f,
          "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
          "stroke=\"#999\"/>\n",
          LEFT, TOP - 6, width - RIGHT, TOP - 6);
  for (int i = 0; i < t.n; i++) {
    double x = LEFT + (rp_tick_at(&t, i) - t0) / (t1 - t0) * px;
    const char *l = rp_tick_label(&t, i, b, sizeof b);
    /* A label that would cross the picture's edge ends at its tick. */
    double half = rp_text_cols(l) * RP_CHAR_W / 2;
    fprintf(f,
            "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
            "stroke=\"#ddd\"/>\n<text class=\"tick\" x=\"%.2f\" y=\"%d\" "
            "text-anchor=\"%s\">%s</text>\n",
            x, TOP - 6, x, bottom - 3, x, TOP - 9,
            x + half > width ? "end" : "middle", l);
  }
}

static uint64_t row_hash(int32_t rank, int32_t thread, int32_t name) {
  uint64_t h = ((uint64_t)(uint32_t)rank << 32 | (uint32_t)thread) *
                   0x9e3779b97f4a7c15ull ^
               (uint32_t)name;
  return h * 0xff51afd7ed558ccdull ^ (h >> 29);
}

/* The row of (rank, thread, name), or NULL. */
static const rp_row *lane_row(const timeline *g, int32_t rank, int32_t thread,
                              int32_t name) {
  sp__hash_it it;
  int64_t i = sp__hash_first(&g->rowix, row_hash(rank, thread, name), &it);
  for (; i >= 0; i = sp__hash_next(&g->rowix, &it)) {
    const rp_row *r = &g->p->rows[i];
    if (r->rank == rank && r->thread == thread && r->name == name)
      return r;
  }
  return NULL;
}

static const char *fill(const timeline *g, int32_t name) {
  int c = g->colour[name];
  return c >= 0 && c < RP_PALETTE_N ? rp_palette[c] : RP_OTHERS;
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
          char b1[32], b2[32];
          double x = LEFT + k * pxcol, w = (e - k) * pxcol;
          fputs("<g><title>", f);
          rp_xml_str(f, p->names[r]);
          fprintf(f, " (rank %d thread %d, depth %d)\n%s to %s", t->rank,
                  t->thread, d,
                  rp_time((double)g->lo - (double)p->span_lo + k * g->colw, b1,
                          sizeof b1),
                  rp_time((double)g->lo - (double)p->span_lo + e * g->colw, b2,
                          sizeof b2));
          const rp_row *row = lane_row(g, t->rank, t->thread, r);
          if (row)
            fprintf(f, "\n%lld calls on this thread, total %s",
                    (long long)row->st.calls,
                    rp_time((double)row->st.total_ns, b1, sizeof b1));
          if (p->files[r]) {
            fputs("\nsource ", f);
            rp_xml_str(f, p->files[r]);
            if (p->lines[r] >= 0)
              fprintf(f, ":%d", p->lines[r]);
          }
          fprintf(f,
                  "</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
                  "height=\"%d\" fill=\"%s\"/>",
                  x, y + d * ROW, w, ROW - 1, fill(g, r));
          rp_svg_text(f, p->names[r], x + 2, y + d * ROW + ROW - 3, w - 4,
                      NULL);
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

typedef struct {
  double shown;
  const char *name;
  int32_t id;
} ranked;

static int by_shown(const void *a, const void *b) {
  const ranked *x = a, *y = b;
  if (x->shown != y->shown)
    return x->shown > y->shown ? -1 : 1;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* The regions that won a cell, ranked by their time over the whole run
 * on the selected ranks (ties by name): palette colours in that order, so
 * the colours do not depend on hashes that may fall close, neighbours
 * differ, and a --window of the run colours each region as the whole
 * timeline does (a region's time in the window would reorder them); the
 * rest share RP_OTHERS. -1 when out of memory. */
static int colours(timeline *g, const rp_opts *o, size_t cells) {
  const rp_profile *p = g->p;
  int64_t nn = p->nnames;
  for (size_t i = 0; i < cells; i++)
    if (g->region[i] >= 0)
      g->colour[g->region[i]] = 0;
  ranked *v = malloc((size_t)(nn ? nn : 1) * sizeof *v);
  double *whole = calloc((size_t)(nn ? nn : 1), sizeof *whole);
  if (!v || !whole) {
    free(v), free(whole);
    return -1;
  }
  for (int64_t k = 0; k < p->nrows; k++)
    if (rp_rank_selected(o, p->rows[k].rank))
      whole[p->rows[k].name] += (double)p->rows[k].st.total_ns;
  /* Every region with time ranked, so a region's colour is the same
   * whichever others a window draws; the drawn ones kept in that order. */
  int32_t n = 0, drawn = 0, pal = 0;
  for (int32_t i = 0; i < nn; i++)
    if (g->colour[i] == 0 || whole[i] > 0)
      v[n++] = (ranked){whole[i], p->names[i], i};
  free(whole);
  qsort(v, (size_t)n, sizeof *v, by_shown);
  for (int32_t i = 0; i < n; i++) {
    if (g->colour[v[i].id] != 0)
      continue;
    g->order[drawn++] = v[i].id;
    g->colour[v[i].id] = (int8_t)(i < RP_PALETTE_N ? i : RP_PALETTE_N);
    pal += i < RP_PALETTE_N;
  }
  g->norder = drawn;
  g->npal = pal;
  free(v);
  return 0;
}

#define LEGW 230 /* a legend entry's width */

static int legend_rows(const timeline *g, int width) {
  int per = (width - 20) / LEGW, n = g->npal + (g->norder > g->npal);
  return (n + per - 1) / per;
}

/* Region name -> colour for the regions drawn, the palette's first; the
 * rest as one "others" entry. Titles: calls and total over the selected
 * ranks and threads. */
static void legend(FILE *f, const timeline *g, int width, int y0) {
  const rp_profile *p = g->p;
  int per = (width - 20) / LEGW;
  int n = g->npal + (g->norder > g->npal); /* the drawn in colour, others */
  char b[32];
  /* The entries' names cut to the entry, kept distinct (out of memory:
   * each cut on its own) */
  const char *nm[RP_PALETTE_N];
  int shown = g->npal;
  for (int i = 0; i < shown; i++)
    nm[i] = p->names[g->order[i]];
  rp_fit fit;
  int fitted =
      rp_fit_names(&fit, nm, shown, (int)((LEGW - 26) / RP_CHAR_W)) == 0;
  for (int i = 0; i < n; i++) {
    int x = 10 + (i % per) * LEGW, y = y0 + (i / per) * 16;
    int others = i == g->npal;
    int64_t calls = 0, total = 0, count = 0;
    for (int64_t k = 0; k < p->nrows; k++) {
      int32_t nm = p->rows[k].name;
      if (others ? g->colour[nm] == RP_PALETTE_N : nm == g->order[i])
        calls += p->rows[k].st.calls,
            total = rp_add(total, p->rows[k].st.total_ns);
    }
    fputs("<g><title>", f);
    if (others) {
      count = g->norder - g->npal;
      fprintf(f, "others: %lld regions", (long long)count);
    } else {
      rp_xml_str(f, p->names[g->order[i]]);
    }
    fprintf(f, "\n%lld calls, total %s", (long long)calls,
            rp_time((double)total, b, sizeof b));
    if (others) {
      for (int32_t k = g->npal; k < g->norder && k < g->npal + 30; k++) {
        fputc('\n', f);
        rp_xml_str(f, p->names[g->order[k]]);
      }
      if (g->norder > g->npal + 30)
        fputs("\n...", f);
    } else if (p->files[g->order[i]]) {
      fputs("\nsource ", f);
      rp_xml_str(f, p->files[g->order[i]]);
      if (p->lines[g->order[i]] >= 0)
        fprintf(f, ":%d", p->lines[g->order[i]]);
    }
    fprintf(f,
            "</title><rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
            "fill=\"%s\"/>",
            x, y, others ? RP_OTHERS : rp_palette[g->colour[g->order[i]]]);
    if (others) {
      char l[48];
      snprintf(l, sizeof l, "others (%lld)", (long long)count);
      rp_svg_text(f, l, x + 18, y + 10, LEGW - 26, NULL);
    } else {
      rp_svg_text(f, fitted ? fit.shown[i] : p->names[g->order[i]], x + 18,
                  y + 10, LEGW - 26, NULL);
    }
    fputs("</g>\n", f);
  }
  if (fitted)
    rp_fit_free(&fit);
}

int rp_svg_timeline(const rp_profile *p, const rp_opts *o, FILE *f,
                    sp_fmt_err *err) {
  const int width = 1400;
  timeline g;
  memset(&g, 0, sizeof g);
  g.p = p;
  g.lo = p->span_lo;
  g.hi = p->span_hi;
  int64_t init_end = 0; /* the default view starts after MPI_Init */
  if (o->win_lo >= 0) {
    g.lo = p->span_lo + (int64_t)(o->win_lo * 1e9);
    g.hi = p->span_lo + (int64_t)(o->win_hi * 1e9);
    if (g.hi > p->span_hi)
      g.hi = p->span_hi;
  } else {
    /* MPI's start-up often takes most of a short run's span: with no
     * window the picture starts where the last rank left MPI_Init (when
     * that is a fifth of the span or more), and the title says how to see
     * it all. */
    for (int64_t k = 0; k < p->nrows; k++) {
      const char *n = p->names[p->rows[k].name];
      if (rp_rank_selected(o, p->rows[k].rank) &&
          (!strcmp(n, "MPI_Init") || !strcmp(n, "MPI_Init_thread")) &&
          p->rows[k].st.last_end_ns > init_end)
        init_end = p->rows[k].st.last_end_ns;
    }
    double span = (double)p->span_hi - (double)p->span_lo;
    if (init_end > p->span_lo && init_end < p->span_hi &&
        ((double)init_end - (double)p->span_lo) * 5 >= span)
      g.lo = init_end;
    else
      init_end = 0;
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
  size_t nn = p->nnames ? (size_t)p->nnames : 1;
  g.colour = malloc(nn * sizeof *g.colour);
  g.order = malloc(nn * sizeof *g.order);
  if (!g.region || !g.cover || !g.maxdepth || !g.colour || !g.order ||
      sp__hash_reserve(&g.rowix, p->nrows) != 0) {
    free(g.region), free(g.cover), free(g.maxdepth);
    free(g.colour), free(g.order), sp__hash_free(&g.rowix);
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    return -1;
  }
  memset(g.region, 0xff, cells * sizeof *g.region);
  memset(g.colour, 0xff, nn * sizeof *g.colour);
  for (int64_t i = 0; i < p->nrows; i++) {
    const rp_row *r = &p->rows[i];
    sp__hash_it it;
    sp__hash_first(&g.rowix, row_hash(r->rank, r->thread, r->name), &it);
    sp__hash_add(&g.rowix, &it, i); /* reserved: cannot fail */
  }
  rp_visitor v = {on_open, NULL, &g};
  int rc = rp_walk(p, o, &v, 0, err);
  if (rc == 0 && colours(&g, o, cells) != 0) {
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    rc = -1;
  }
  if (rc == 0) {
    int bottom = TOP;
    for (int64_t l = 0; l < p->nthreads; l++)
      bottom += (g.maxdepth[l] + 1) * ROW + 6;
    int height = bottom + 14 + legend_rows(&g, width) * 16 + 10;
    char title[800], b1[32], b2[32], from[96] = "";
    if (init_end)
      snprintf(from, sizeof from, ", after MPI_Init; --window 0:%.6g for all",
               ((double)p->span_hi - (double)p->span_lo) * 1e-9);
    snprintf(title, sizeof title, "Timeline: %.500s (%s to %s%s%s)", p->label,
             rp_time((double)g.lo - (double)p->span_lo, b1, sizeof b1),
             rp_time((double)g.hi - (double)p->span_lo, b2, sizeof b2), from,
             g.hidden ? "; calls deeper than 8 not drawn" : "");
    rp_svg_begin(f, width, height, title);
    axis(f, &g, width, bottom);
    lanes(f, &g, width);
    legend(f, &g, width, bottom + 10);
    fputs("</svg>\n", f);
  }
  free(g.region);
  free(g.cover);
  free(g.maxdepth);
  free(g.colour);
  free(g.order);
  sp__hash_free(&g.rowix);
  return rc;
}
