/* svg.c - what sp-report's pictures share: the SVG header, region colours
 * (hashed warm hues and a categorical palette), round axis ticks and their
 * labels, and text cut to the width it is drawn in. */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Tableau's ten categorical colours without their grey (kept for "others"),
 * and three more picked for the largest least CIELAB distance to the rest:
 * every two of these and RP_OTHERS differ by a CIE76 delta E above 24 (a
 * just noticeable difference is about 2), and each is light enough for
 * black text. */
const char *const rp_palette[RP_PALETTE_N] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#dbdb8d", "#ffbb78", "#e377c2"};

/* Warm hues, as flame graphs are usually drawn, picked by a hash of the
 * name so one region keeps its colour in every flame graph. */
void rp_color(const char *name, char *buf, size_t size) {
  uint32_t h = 2166136261u;
  for (const char *p = name; *p; p++)
    h = (h ^ (unsigned char)*p) * 16777619u;
  int r = 205 + (int)(h % 50), g = 60 + (int)((h >> 8) % 150),
      b = 40 + (int)((h >> 16) % 40);
  snprintf(buf, size, "rgb(%d,%d,%d)", r, g, b);
}

void rp_svg_begin(FILE *f, int w, int h, const char *title) {
  fprintf(
      f,
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
      "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
      "font-family=\"monospace\" font-size=\"11\">\n"
      "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fdfdf8\"/>\n"
      "<text x=\"%d\" y=\"20\" font-size=\"14\" text-anchor=\"middle\">",
      w, h, w, h, w, h, w / 2);
  rp_xml_str(f, title);
  fputs("</text>\n", f);
}

/* ---- text widths ---------------------------------------------------------
 * No font is measured: the pictures are drawn in an 11 px monospace font,
 * whose advance is 0.6 em in the usual ones (DejaVu, Liberation), and
 * RP_CHAR_W rounds that up. A character is what rp_xml_str writes (a byte
 * that is not UTF-8 becomes one '?'); East Asian and emoji characters
 * (U+1100 and up) count two, as a monospace font draws them wide. */

/* Columns of the character at p (of n bytes, 0 when not UTF-8). */
static int char_cols(const unsigned char *p, int n) {
  if (n == 4)
    return 2;
  if (n == 3 && (((p[0] & 0x0f) << 12) | ((p[1] & 0x3f) << 6)) >= 0x1100)
    return 2;
  return 1;
}

int rp_text_cols(const char *s) {
  int c = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    int n = sp_fmt_utf8_len(p);
    c += char_cols(p, n);
    p += n ? n : 1;
  }
  return c;
}

int rp_svg_text(FILE *f, const char *s, double x, double y, double px,
                const char *attrs) {
  int cols = rp_text_cols(s);
  char buf[1024];
  const char *draw = s;
  if (cols * RP_CHAR_W > px) {
    /* As much of s as fits with "..": at least three characters of it,
     * else nothing (a stub says nothing). Whole characters only. */
    int room = (int)(px / RP_CHAR_W) - 2, c = 0;
    size_t at = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
      int n = sp_fmt_utf8_len(p), k = char_cols(p, n);
      size_t b = n ? (size_t)n : 1;
      if (c + k > room || at + b + 3 > sizeof buf)
        break;
      memcpy(buf + at, p, b);
      at += b, c += k, p += b;
    }
    if (c < 3)
      return 0;
    memcpy(buf + at, "..", 3);
    /* Room for twenty or more: the start and the end around "..", the end
     * the larger part (template arguments and signatures differ there:
     * "void qsort_rec<..>(int*, long, long)", not "void qsort_rec<__gnu.."). */
    int tail_cols = room >= 20 ? room - room * 2 / 5 : 0;
    if (tail_cols > 0) {
      /* back up to room * 2 / 5 columns of the start */
      int keep = room * 2 / 5, kc = 0;
      size_t kb = 0;
      const unsigned char *q = (const unsigned char *)s;
      while (q[kb]) {
        int n = sp_fmt_utf8_len(q + kb), k = char_cols(q + kb, n);
        if (kc + k > keep)
          break;
        kb += n ? (size_t)n : 1, kc += k;
      }
      /* the last tail_cols columns of s */
      size_t len = strlen(s), tb = len;
      int tc = 0;
      while (tb > kb) {
        size_t b0 = tb - 1;
        while (b0 > kb && (q[b0] & 0xc0) == 0x80)
          b0--;
        int n = sp_fmt_utf8_len(q + b0), k = char_cols(q + b0, n);
        if (tc + k > tail_cols)
          break;
        tb = b0, tc += k;
      }
      if (kb + 2 + (len - tb) + 1 <= sizeof buf) {
        memcpy(buf, s, kb);
        memcpy(buf + kb, "..", 2);
        memcpy(buf + kb + 2, s + tb, len - tb + 1);
      }
    }
    draw = buf;
  }
  fprintf(f, "<text x=\"%.2f\" y=\"%.2f\"%s>", x, y, attrs ? attrs : "");
  rp_xml_str(f, draw);
  fputs("</text>", f);
  return 1;
}

/* ---- round axis ticks ---------------------------------------------------- */

/* The smallest 1, 2 or 5 x 10^k at least raw (raw > 0). */
static double nice_step(double raw) {
  double p = pow(10, floor(log10(raw)));
  static const double m[] = {1, 2, 5, 10};
  for (int i = 0; i < 4; i++)
    if (m[i] * p >= raw * (1 - 1e-9))
      return m[i] * p;
  return 10 * p;
}

double rp_tick_at(const rp_ticks *t, int i) { return (t->k0 + i) * t->step; }

const char *rp_tick_label(const rp_ticks *t, int i, char *buf, size_t size) {
  double v = rp_tick_at(t, i);
  if (fabs(v) < t->step * 1e-6) {
    snprintf(buf, size, "0");
    return buf;
  }
  int n = snprintf(buf, size, "%.*f", t->decimals, v / t->unit);
  if (n > 0 && (size_t)n < size && t->decimals > 0) {
    while (n > 0 && buf[n - 1] == '0')
      buf[--n] = '\0';
    if (n > 0 && buf[n - 1] == '.')
      buf[--n] = '\0';
  }
  if (t->suffix[0] && n > 0 && (size_t)n < size)
    snprintf(buf + n, size - (size_t)n, " %s", t->suffix);
  return buf;
}

/* Unit and decimals of the labels for the current step. */
static void label_form(rp_ticks *t, int time) {
  t->unit = 1;
  t->suffix = "";
  if (time) {
    double a = fmax(fabs(rp_tick_at(t, 0)), fabs(rp_tick_at(t, t->n - 1)));
    static const double u[] = {1, 1e3, 1e6, 1e9};
    static const char *const s[] = {"ns", "us", "ms", "s"};
    int k = a < 999.5 ? 0 : a < 999.5e3 ? 1 : a < 999.5e6 ? 2 : 3;
    t->unit = u[k];
    t->suffix = s[k];
  }
  double e = floor(log10(t->step / t->unit) + 1e-9);
  t->decimals = e < 0 ? (int)-e : 0;
}

void rp_ticks_make(double lo, double hi, double px, int vertical,
                   double min_step, int time, rp_ticks *t) {
  memset(t, 0, sizeof *t);
  t->suffix = "";
  t->unit = 1;
  if (!(hi > lo) || !isfinite(lo) || !isfinite(hi) || !(px > 0))
    return;
  /* Start from a tick every 70 px (26 px up an axis), then widen the step
   * until the widest label fits between two ticks. */
  double most = fmax(2, floor(px / (vertical ? 26 : 70)));
  double step = nice_step((hi - lo) / most);
  for (int tries = 0; tries < 40; tries++, step = nice_step(step * 1.01)) {
    if (min_step > 0 && step < min_step)
      step = min_step;
    rp_ticks c = *t;
    c.step = step;
    c.k0 = ceil(lo / step - 1e-9);
    double n = floor(hi / step + 1e-9) - c.k0 + 1;
    if (n > 1000)
      continue;
    if (n < 1) /* wider steps leave no tick: keep the last that had some */
      return;
    c.n = (int)n;
    label_form(&c, time);
    *t = c;
    double gap = step / (hi - lo) * px;
    int widest = 0;
    char b[64];
    for (int i = 0; i < t->n && !vertical; i++) {
      int w = rp_text_cols(rp_tick_label(t, i, b, sizeof b));
      widest = w > widest ? w : widest;
    }
    if (t->n == 1 || (vertical ? gap >= 14 : widest * RP_CHAR_W + 10 <= gap))
      return;
  }
}
