/* matrix.c - sp-report --matrix: point-to-point messages and bytes, sender
 * (row) x receiver (column), from the senders' records (every send, and
 * every nonblocking send when started); text, --export csv or json, and
 * --svg matrix, a heat map of the bytes. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct mx {
  int64_t n;             /* ranks: rows and columns 0..n-1 */
  int64_t *msgs, *bytes; /* [from * n + to] */
  int64_t tmsgs, tbytes;
} mx;

static int is_send(const sp_fmt_mpimsg *m) {
  return (m->kind == 1 || m->kind == 2) && m->peer >= 0; /* SP_MPI_K_*SEND */
}

static int build(const rp_profile *p, const rp_opts *o, mx *x,
                 sp_fmt_err *err) {
  memset(x, 0, sizeof *x);
  int64_t n = rp_mpi_size(p);
  for (int64_t i = 0; i < p->nranks; i++)
    n = p->ranks[i] + 1 > n ? p->ranks[i] + 1 : n;
  for (int64_t r = 0; r < p->nmpi; r++) {
    const sp_fmt_mpi *m = &p->mpi[r].mpi;
    n = p->mpi[r].rank + 1 > n ? p->mpi[r].rank + 1 : n;
    for (int64_t k = 0; k < m->nmsgs; k++)
      if (is_send(&m->msgs[k]) && m->msgs[k].peer + 1 > n)
        n = m->msgs[k].peer + 1;
  }
  if (n > 4096) {
    sp_fmt_err_set(err, "%s: a matrix of %lld ranks is too large to show",
                   p->label, (long long)n);
    return -1;
  }
  x->n = n;
  x->msgs = calloc((size_t)(n * n) + 1, sizeof *x->msgs);
  x->bytes = calloc((size_t)(n * n) + 1, sizeof *x->bytes);
  if (!x->msgs || !x->bytes) {
    free(x->msgs);
    free(x->bytes);
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    return -1;
  }
  for (int64_t r = 0; r < p->nmpi; r++) {
    const sp_fmt_mpi *m = &p->mpi[r].mpi;
    int64_t from = p->mpi[r].rank;
    for (int64_t k = 0; k < m->nmsgs; k++) {
      const sp_fmt_mpimsg *g = &m->msgs[k];
      if (!is_send(g))
        continue;
      if (g->region >= 0 && !rp_name_selected(o, m->names[g->region]))
        continue;
      x->msgs[from * n + g->peer]++;
      x->bytes[from * n + g->peer] += g->sent;
      x->tmsgs++;
      x->tbytes += g->sent;
    }
  }
  return 0;
}

static void mx_free(mx *x) {
  free(x->msgs);
  free(x->bytes);
}

/* "12.3 KB": three significant digits in B, KB, MB, GB (10^3 steps). */
static const char *size_str(double b, char *buf, size_t size) {
  static const char *const unit[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (b >= 999.5 && u < 4)
    b /= 1000, u++;
  if (u == 0)
    snprintf(buf, size, "%.0f B", b);
  else
    snprintf(buf, size, "%.*f %s",
             b < 9.995   ? 2
             : b < 99.95 ? 1
                         : 0,
             b, unit[u]);
  return buf;
}

static void table(FILE *f, const mx *x, const int64_t *v, const char *what) {
  int w = 7;
  for (int64_t i = 0; i < x->n * x->n; i++)
    while (v[i] >= 1 && (int)log10((double)v[i]) + 2 > w)
      w++;
  int64_t tot = 0;
  for (int64_t i = 0; i < x->n * x->n; i++)
    tot += v[i];
  if (tot)
    w = (int)log10((double)tot) + 2 > w ? (int)log10((double)tot) + 2 : w;
  fprintf(f, "%s\n%*s", what, 9, "from\\to");
  for (int64_t c = 0; c < x->n; c++)
    fprintf(f, " %*lld", w, (long long)c);
  fprintf(f, " %*s\n", w, "total");
  for (int64_t r = 0; r < x->n; r++) {
    int64_t sum = 0;
    fprintf(f, "%9lld", (long long)r);
    for (int64_t c = 0; c < x->n; c++) {
      int64_t e = v[r * x->n + c];
      sum += e;
      if (e)
        fprintf(f, " %*lld", w, (long long)e);
      else
        fprintf(f, " %*s", w, ".");
    }
    fprintf(f, " %*lld\n", w, (long long)sum);
  }
  fprintf(f, "%9s", "total");
  for (int64_t c = 0; c < x->n; c++) {
    int64_t sum = 0;
    for (int64_t r = 0; r < x->n; r++)
      sum += v[r * x->n + c];
    fprintf(f, " %*lld", w, (long long)sum);
  }
  fprintf(f, " %*lld\n", w, (long long)tot);
}

int rp_print_matrix(const rp_profile *p, const rp_opts *o, FILE *f,
                    sp_fmt_err *err) {
  mx x;
  if (build(p, o, &x, err) != 0)
    return -1;
  const char *e = o->export_fmt;
  if (e && !strcmp(e, "csv")) {
    fputs("sender,receiver,messages,bytes\n", f);
    for (int64_t r = 0; r < x.n; r++)
      for (int64_t c = 0; c < x.n; c++)
        if (x.msgs[r * x.n + c])
          fprintf(f, "%lld,%lld,%lld,%lld\n", (long long)r, (long long)c,
                  (long long)x.msgs[r * x.n + c],
                  (long long)x.bytes[r * x.n + c]);
  } else if (e && !strcmp(e, "json")) {
    fprintf(f,
            "{\"ranks\": %lld, \"messages_total\": %lld, "
            "\"bytes_total\": %lld",
            (long long)x.n, (long long)x.tmsgs, (long long)x.tbytes);
    for (int k = 0; k < 2; k++) {
      const int64_t *v = k ? x.bytes : x.msgs;
      fprintf(f, ", \"%s\": [", k ? "bytes" : "messages");
      for (int64_t r = 0; r < x.n; r++) {
        fputs(r ? ", [" : "[", f);
        for (int64_t c = 0; c < x.n; c++)
          fprintf(f, "%s%lld", c ? ", " : "", (long long)v[r * x.n + c]);
        fputs("]", f);
      }
      fputs("]", f);
    }
    fputs("}\n", f);
  } else if (x.tmsgs == 0) {
    fprintf(f,
            "%s: no point-to-point messages recorded (they need the MPI "
            "layer and an .h5 or stream: SP_FORMAT=h5)\n",
            p->label);
  } else {
    char b[32];
    fprintf(f,
            "MPI point-to-point messages, sender (row) x receiver "
            "(column): %lld ranks, %lld messages, %s\n\n",
            (long long)x.n, (long long)x.tmsgs,
            size_str((double)x.tbytes, b, sizeof b));
    table(f, &x, x.msgs, "messages");
    fputs("\n", f);
    table(f, &x, x.bytes, "bytes");
  }
  mx_free(&x);
  return 0;
}

/* White to the palette's blue by the square root of the bytes (small
 * cells stay visible beside large ones). */
static void heat(double t, char *buf, size_t size) {
  t = t < 0 ? 0 : t > 1 ? 1 : sqrt(t);
  int r = (int)lround(255 + t * (0x2f - 255)),
      g = (int)lround(255 + t * (0x5b - 255)),
      b = (int)lround(255 + t * (0x8a - 255));
  snprintf(buf, size, "rgb(%d,%d,%d)", r, g, b);
}

int rp_svg_matrix(const rp_profile *p, const rp_opts *o, FILE *f,
                  sp_fmt_err *err) {
  mx x;
  if (build(p, o, &x, err) != 0)
    return -1;
  int64_t n = x.n ? x.n : 1;
  int cell = (int)(520 / n);
  cell = cell > 64 ? 64 : cell < 6 ? 6 : cell;
  int left = 80, top = 70, grid = cell * (int)n;
  int w = left + grid + 40, h = top + grid + 60;
  w = w < 360 ? 360 : w;
  char title[512], b[32], c2[32];
  snprintf(title, sizeof title, "MPI messages: %lld, %s (%.200s)",
           (long long)x.tmsgs, size_str((double)x.tbytes, b, sizeof b),
           p->label);
  rp_svg_begin(f, w, h, title);
  int64_t max = 0;
  for (int64_t i = 0; i < x.n * x.n; i++)
    max = x.bytes[i] > max ? x.bytes[i] : max;
  fprintf(f,
          "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">receiver</text>\n"
          "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
          "transform=\"rotate(-90 %d %d)\">sender</text>\n",
          left + grid / 2, top - 24, 24, top + grid / 2, 24, top + grid / 2);
  int step = cell >= 16 ? 1 : (16 + cell - 1) / cell;
  for (int64_t i = 0; i < x.n; i += step) {
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%lld</text>\n",
            left + (int)i * cell + cell / 2, top - 6, (long long)i);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%lld</text>\n",
            left - 6, top + (int)i * cell + cell / 2 + 4, (long long)i);
  }
  for (int64_t r = 0; r < x.n; r++)
    for (int64_t c = 0; c < x.n; c++) {
      int64_t v = x.bytes[r * x.n + c], m = x.msgs[r * x.n + c];
      heat(max ? (double)v / (double)max : 0, c2, sizeof c2);
      fprintf(f,
              "<g><title>%lld -&gt; %lld: %lld messages, %lld bytes</title>"
              "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
              "fill=\"%s\" stroke=\"#d0d0c8\" stroke-width=\"0.5\"/>",
              (long long)r, (long long)c, (long long)m, (long long)v,
              left + (int)c * cell, top + (int)r * cell, cell, cell, c2);
      if (v && cell >= 48)
        fprintf(f,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                "font-size=\"9\" fill=\"%s\">%s</text>",
                left + (int)c * cell + cell / 2,
                top + (int)r * cell + cell / 2 + 3,
                max && (double)v / (double)max > 0.35 ? "#ffffff" : "#000000",
                size_str((double)v, b, sizeof b));
      fputs("</g>\n", f);
    }
  fprintf(f,
          "<text x=\"%d\" y=\"%d\">colour: bytes (square-root scale, "
          "white 0, dark %s)</text>\n</svg>\n",
          left, top + grid + 30, size_str((double)max, b, sizeof b));
  mx_free(&x);
  return 0;
}
