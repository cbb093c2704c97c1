/* svg_compare.c - pictures across several profiles: per-region duration
 * bars grouped by region (one bar per profile), and the speedup of each
 * region against the profile with the fewest MPI ranks. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 1000
#define LEFT 200
#define RIGHT 60
#define MAXP 16 /* profiles in one picture */

typedef struct {
  const char *name;
  double v[MAXP]; /* < 0: region absent from that profile */
  int64_t calls[MAXP], total[MAXP];
  const char *file; /* the first profile's that knows it; NULL = unknown */
  int32_t line;
} series;

/* A region's calls and total in profile q, and its source, for titles. */
static void facts(FILE *f, const series *s, int q) {
  char b[32];
  fprintf(f, "\n%lld calls, total %s", (long long)s->calls[q],
          rp_time((double)s->total[q], b, sizeof b));
  if (s->file) {
    fputs("\nsource ", f);
    rp_xml_str(f, s->file);
    if (s->line >= 0)
      fprintf(f, ":%d", s->line);
  }
}

static double metric(const rp_agg *a, const char *m) {
  if (!strcmp(m, "total"))
    return (double)a->total;
  if (!strcmp(m, "min"))
    return (double)a->min;
  if (!strcmp(m, "max"))
    return (double)a->max;
  return a->mean;
}

static int find(series *s, int64_t n, const char *name) {
  for (int64_t i = 0; i < n; i++)
    if (!strcmp(s[i].name, name))
      return (int)i;
  return -1;
}

/* One series per region selected in any profile, values by metric m. */
static series *collect(rp_profile *const *ps, int n, const rp_opts *o,
                       const char *m, int64_t *ns, sp_fmt_err *err) {
  int64_t cap = 0;
  for (int i = 0; i < n; i++)
    cap += ps[i]->nnames;
  series *s = malloc((size_t)(cap ? cap : 1) * sizeof *s);
  if (!s) {
    sp_fmt_err_set(err, "%s: out of memory", ps[0]->label);
    return NULL;
  }
  *ns = 0;
  rp_opts all = *o;
  all.top = 0;
  for (int i = 0; i < n; i++) {
    rp_agg *v;
    int64_t k;
    if (rp_aggregate(ps[i], &all, RP_BY_REGION, &v, &k, err) != 0) {
      free(s);
      return NULL;
    }
    for (int64_t j = 0; j < k; j++) {
      const char *name = ps[i]->names[v[j].name];
      int at = find(s, *ns, name);
      if (at < 0) {
        at = (int)(*ns)++;
        s[at].name = name;
        s[at].file = NULL;
        s[at].line = -1;
        for (int q = 0; q < MAXP; q++)
          s[at].v[q] = -1, s[at].calls[q] = s[at].total[q] = 0;
      }
      s[at].v[i] = metric(&v[j], m);
      s[at].calls[i] = v[j].calls;
      s[at].total[i] = v[j].total;
      if (!s[at].file && ps[i]->files[v[j].name]) {
        s[at].file = ps[i]->files[v[j].name];
        s[at].line = ps[i]->lines[v[j].name];
      }
    }
    free(v);
  }
  return s;
}

static void legend(FILE *f, rp_profile *const *ps, int n, int y) {
  for (int i = 0; i < n; i++) {
    fputs("<g><title>", f);
    rp_xml_str(f, ps[i]->label);
    fprintf(f, "\nmpi_size %lld</title>", (long long)rp_mpi_size(ps[i]));
    fprintf(f,
            "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
            "fill=\"%s\"/>",
            LEFT, y + 16 * i, rp_palette[i % RP_PALETTE_N]);
    rp_svg_text(f, ps[i]->label, LEFT + 18, y + 16 * i + 10, W - LEFT - 18 - 10,
                NULL);
    fputs("</g>\n", f);
  }
}

/* The value axis: linear from 0 to top, or, when the values span more
 * than two decades (a program's main beside its kernels: on a linear axis
 * all but the largest are slivers), logarithmic from the decade of the
 * smallest value (lo > 0). */
typedef struct {
  double top, lo; /* lo 0: linear */
} axis;

/* The regions' names as labels of px pixels: cut alike names kept
 * distinct (out of memory: NULL, each cut on its own). */
static char **fit_labels(const series *s, int64_t ns, double px, rp_fit *fit) {
  const char **nm = malloc((ns ? (size_t)ns : 1) * sizeof *nm);
  if (!nm)
    return NULL;
  for (int64_t i = 0; i < ns; i++)
    nm[i] = s[i].name;
  int ok = rp_fit_names(fit, nm, ns, (int)(px / RP_CHAR_W) - 2) == 0;
  free(nm);
  return ok ? fit->shown : NULL;
}

static double x_of(const axis *a, double v) {
  double pw = W - LEFT - RIGHT;
  if (a->lo <= 0)
    return v / a->top * pw;
  if (v <= a->lo)
    return 0;
  return (log10(v) - log10(a->lo)) / (log10(a->top) - log10(a->lo)) * pw;
}

/* Round ticks of the value axis (ns) below the bars, grid lines up to y0;
 * a log axis: one a decade. */
static void value_axis(FILE *f, const axis *a, int y0, int y1) {
  rp_ticks t;
  char b[64];
  double pw = W - LEFT - RIGHT;
  fprintf(f,
          "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
          "stroke=\"#999\"/>\n",
          LEFT, y1, W - RIGHT, y1);
  if (a->lo > 0) {
    for (double v = a->lo; v <= a->top * 1.0001; v *= 10) {
      double x = LEFT + x_of(a, v);
      fprintf(f,
              "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
              "stroke=\"#e4e4e4\"/><text class=\"tick\" x=\"%.2f\" "
              "y=\"%d\" text-anchor=\"middle\">%s</text>\n",
              x, y0 - 4, x, y1 + 3, x, y1 + 14, rp_time(v, b, sizeof b));
    }
    return;
  }
  double top = a->top;
  rp_ticks_make(0, top, pw, 0, 0, 1, &t);
  for (int i = 0; i < t.n; i++) {
    double x = LEFT + rp_tick_at(&t, i) / top * pw;
    fprintf(f,
            "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
            "stroke=\"#e4e4e4\"/><text class=\"tick\" x=\"%.2f\" y=\"%d\" "
            "text-anchor=\"middle\">%s</text>\n",
            x, y0 - 4, x, y1 + 3, x, y1 + 14,
            rp_tick_label(&t, i, b, sizeof b));
  }
}

int rp_svg_compare(rp_profile *const *ps, int n, const rp_opts *o, FILE *f,
                   sp_fmt_err *err) {
  if (n > MAXP) {
    sp_fmt_err_set(err, "%s: at most %d profiles in one picture",
                   ps[MAXP]->label, MAXP);
    return -1;
  }
  const char *m = o->metric ? o->metric : "avg";
  int64_t ns;
  series *s = collect(ps, n, o, m, &ns, err);
  if (!s)
    return -1;
  if (o->top > 0 && ns > o->top)
    ns = o->top; /* regions come in the first profile's --sort order */
  double top = 0, low = 0;
  for (int64_t i = 0; i < ns; i++)
    for (int q = 0; q < n; q++) {
      if (s[i].v[q] > top)
        top = s[i].v[q];
      if (s[i].v[q] > 0 && (low == 0 || s[i].v[q] < low))
        low = s[i].v[q];
    }
  if (top <= 0)
    top = 1;
  axis ax = {top, 0};
  if (low > 0 && top / low > 100) {
    ax.lo = pow(10, floor(log10(low)));
    ax.top = pow(10, ceil(log10(top)));
  }
  int bar = 12, group = n * bar + 10, y0 = 40 + 16 * n + 10;
  int h = y0 + (int)ns * group + 40;
  char title[160], b[32];
  static const char *const what[] = {"avg",   "average duration per call",
                                     "total", "total duration",
                                     "min",   "shortest call",
                                     "max",   "longest call"};
  const char *label = m;
  for (int i = 0; i < 8; i += 2)
    if (!strcmp(m, what[i]))
      label = what[i + 1];
  snprintf(title, sizeof title, "Duration comparison: %s%s", label,
           ax.lo > 0 ? " (log scale)" : "");
  rp_svg_begin(f, W, h, title);
  legend(f, ps, n, 36);
  value_axis(f, &ax, y0, y0 + (int)ns * group);
  rp_fit fit;
  char **lab = fit_labels(s, ns, LEFT - 12, &fit);
  for (int64_t i = 0; i < ns; i++) {
    int y = y0 + (int)i * group;
    rp_svg_text(f, lab ? lab[i] : s[i].name, LEFT - 6, y + group / 2, LEFT - 12,
                " text-anchor=\"end\"");
    fputc('\n', f);
    for (int q = 0; q < n; q++) {
      if (s[i].v[q] < 0)
        continue;
      double w = x_of(&ax, s[i].v[q]);
      fputs("<g><title>", f);
      rp_xml_str(f, s[i].name);
      fputs(" in ", f);
      rp_xml_str(f, ps[q]->label);
      fprintf(f, ": %s %s", m, rp_time(s[i].v[q], b, sizeof b));
      facts(f, &s[i], q);
      fputs("</title>", f);
      fprintf(f,
              "<rect x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
              "fill=\"%s\"/><text x=\"%.2f\" y=\"%d\">%s</text></g>\n",
              LEFT, y + q * bar, w < 0.5 ? 0.5 : w, bar - 1,
              rp_palette[q % RP_PALETTE_N], LEFT + w + 4, y + q * bar + bar - 2,
              b);
    }
  }
  if (lab)
    rp_fit_free(&fit);
  fputs("</svg>\n", f);
  free(s);
  return 0;
}

static int by_size(const void *a, const void *b) {
  int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
  return x < y ? -1 : (x > y);
}

int rp_svg_speedup(rp_profile *const *ps, int n, const rp_opts *o, FILE *f,
                   sp_fmt_err *err) {
  if (n > MAXP) {
    sp_fmt_err_set(err, "%s: at most %d profiles in one picture",
                   ps[MAXP]->label, MAXP);
    return -1;
  }
  int64_t ns;
  series *s = collect(ps, n, o, "avg", &ns, err);
  if (!s)
    return -1;
  /* Profiles in order of mpi_size; the smallest is the baseline. */
  int64_t ord[MAXP][2];
  for (int i = 0; i < n; i++)
    ord[i][0] = rp_mpi_size(ps[i]), ord[i][1] = i;
  qsort(ord, (size_t)n, sizeof ord[0], by_size);
  for (int i = 1; i < n; i++)
    if (ord[i][0] == ord[i - 1][0]) {
      free(s);
      sp_fmt_err_set(err, "%s: same mpi_size (%lld) as %s",
                     ps[ord[i][1]]->label, (long long)ord[i][0],
                     ps[ord[i - 1][1]]->label);
      return -1;
    }
  int b0 = (int)ord[0][1];
  if (o->top > 0 && ns > o->top)
    ns = o->top;
  double xmax = (double)ord[n - 1][0], ymax = xmax / (double)ord[0][0];
  for (int64_t i = 0; i < ns; i++)
    for (int q = 0; q < n; q++)
      if (s[i].v[b0] > 0 && s[i].v[q] > 0 && s[i].v[b0] / s[i].v[q] > ymax)
        ymax = s[i].v[b0] / s[i].v[q];
  int h = 520, x0 = 80, y0 = h - 60, pw = W - x0 - 260, ph = h - 120;
  double sx = pw / xmax, sy = ph / (ymax * 1.05);
  rp_svg_begin(f, W, h,
               "Speedup against the fewest MPI ranks (average per call)");
  /* Axes and ticks: one x tick per profile, five y ticks. */
  fprintf(f,
          "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>"
          "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n",
          x0, y0, x0 + pw, y0, x0, y0, x0, y0 - ph);
  /* Round ticks: whole ranks across, speedups up. */
  rp_ticks t;
  char b[64];
  rp_ticks_make(0, xmax, pw, 0, 1, 0, &t);
  for (int i = 0; i < t.n; i++)
    fprintf(f,
            "<text class=\"tick\" x=\"%.1f\" y=\"%d\" "
            "text-anchor=\"middle\">%s</text><line x1=\"%.1f\" y1=\"%d\" "
            "x2=\"%.1f\" y2=\"%d\" stroke=\"#000\"/>\n",
            x0 + rp_tick_at(&t, i) * sx, y0 + 16,
            rp_tick_label(&t, i, b, sizeof b), x0 + rp_tick_at(&t, i) * sx, y0,
            x0 + rp_tick_at(&t, i) * sx, y0 + 4);
  fprintf(f,
          "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">MPI ranks "
          "(mpi_size)</text>\n",
          x0 + pw / 2, y0 + 36);
  rp_ticks_make(0, ymax * 1.05, ph, 1, 0, 0, &t);
  for (int i = 0; i < t.n; i++) {
    double v = rp_tick_at(&t, i);
    fprintf(f,
            "<text class=\"tick\" x=\"%d\" y=\"%.1f\" "
            "text-anchor=\"end\">%s</text>"
            "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
            "stroke=\"#eee\"/>\n",
            x0 - 6, y0 - v * sy + 4, rp_tick_label(&t, i, b, sizeof b), x0,
            y0 - v * sy, x0 + pw, y0 - v * sy);
  }
  fprintf(f,
          "<text x=\"20\" y=\"%d\" transform=\"rotate(-90 20 %d)\" "
          "text-anchor=\"middle\">speedup</text>\n",
          y0 - ph / 2, y0 - ph / 2);
  /* Ideal: speedup = ranks / baseline ranks. */
  fprintf(f,
          "<g><title>ideal scaling</title><line x1=\"%.1f\" y1=\"%.1f\" "
          "x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" stroke-dasharray=\"6 4\"/>"
          "</g>\n",
          x0 + (double)ord[0][0] * sx, y0 - 1.0 * sy, x0 + xmax * sx,
          y0 - xmax / (double)ord[0][0] * sy);
  for (int64_t i = 0; i < ns; i++) {
    if (s[i].v[b0] <= 0)
      continue;
    const char *col = rp_palette[i % RP_PALETTE_N];
    fputs("<g><title>", f);
    rp_xml_str(f, s[i].name);
    fputs("</title><polyline fill=\"none\" stroke-width=\"2\" stroke=\"", f);
    fprintf(f, "%s\" points=\"", col);
    for (int k = 0; k < n; k++) {
      int q = (int)ord[k][1];
      if (s[i].v[q] > 0)
        fprintf(f, "%.1f,%.1f ", x0 + (double)ord[k][0] * sx,
                y0 - s[i].v[b0] / s[i].v[q] * sy);
    }
    fputs("\"/></g>\n", f);
    for (int k = 0; k < n; k++) {
      int q = (int)ord[k][1];
      if (s[i].v[q] <= 0)
        continue;
      double sp = s[i].v[b0] / s[i].v[q];
      fputs("<g><title>", f);
      rp_xml_str(f, s[i].name);
      fprintf(f, " on %lld rank%s: speedup %.3f\navg %s per call",
              (long long)ord[k][0], ord[k][0] == 1 ? "" : "s", sp,
              rp_time(s[i].v[q], b, sizeof b));
      facts(f, &s[i], q);
      fputs("</title>", f);
      fprintf(f,
              "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/></g>\n",
              x0 + (double)ord[k][0] * sx, y0 - sp * sy, col);
    }
    /* The legend entry: the baseline's calls and total. */
    fputs("<g><title>", f);
    rp_xml_str(f, s[i].name);
    facts(f, &s[i], b0);
    fprintf(f,
            "</title><rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
            "fill=\"%s\"/>",
            x0 + pw + 20, 50 + 16 * (int)i, col);
    rp_svg_text(f, s[i].name, x0 + pw + 38, 60 + 16 * (int)i,
                W - (x0 + pw + 38) - 5, NULL);
    fputs("</g>\n", f);
  }
  fputs("</svg>\n", f);
  free(s);
  return 0;
}
