/* text.c - how sp-report writes times and quotes names in text, CSV,
 * JSON and XML. */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at p, or 0: names come from files
 * and must not break the XML or JSON they are written into. */

const char *rp_time(double ns, char *buf, size_t size) {
  double a = ns < 0 ? -ns : ns;
  /* Switch units where three digits would round up to 1000. */
  if (a < 999.5)
    snprintf(buf, size, "%.0f ns", ns);
  else if (a < 999.5e3)
    snprintf(buf, size, "%.3g us", ns / 1e3);
  else if (a < 999.5e6)
    snprintf(buf, size, "%.3g ms", ns / 1e6);
  else
    snprintf(buf, size, "%.3f s", ns / 1e9);
  return buf;
}

void rp_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p == '\n')
      fputs("\\n", f);
    else if (*p == '\t')
      fputs("\\t", f);
    else if (*p < 0x20 || *p == 0x7f)
      fprintf(f, "\\u%04x", *p);
    else if (*p < 0x80)
      fputc(*p, f);
    else if (sp_fmt_utf8_len(p) == 0)
      fputs("\\ufffd", f);
    else {
      int n = sp_fmt_utf8_len(p);
      fwrite(p, 1, (size_t)n, f);
      p += n - 1;
    }
  }
  fputc('"', f);
}

/* Whether the n-byte character at p (well-formed, sp_fmt_utf8_len's) is
 * one XML 1.0 allows: it leaves out only U+FFFE and U+FFFF (EF BF BE/BF). */
static int xml_char(const unsigned char *p, int n) {
  return !(n == 3 && p[0] == 0xef && p[1] == 0xbf && (p[2] & 0xfe) == 0xbe);
}

void rp_xml_str(FILE *f, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '<':
      fputs("&lt;", f);
      break;
    case '>':
      fputs("&gt;", f);
      break;
    case '&':
      fputs("&amp;", f);
      break;
    case '"':
      fputs("&quot;", f);
      break;
    case '\'':
      fputs("&apos;", f);
      break;
    default:
      /* XML 1.0 forbids most control characters even when escaped. */
      if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f ||
          (*p >= 0x80 && sp_fmt_utf8_len(p) == 0)) {
        fputc('?', f);
      } else if (*p >= 0x80) {
        int n = sp_fmt_utf8_len(p);
        if (xml_char(p, n))
          fwrite(p, 1, (size_t)n, f);
        else
          fputc('?', f); /* one '?' for the sequence, as rp_text_cols counts */
        p += n - 1;
      } else {
        fputc(*p, f);
      }
    }
  }
}

void rp_utf8_str(FILE *f, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    int n = sp_fmt_utf8_len(p);
    if (n == 0) {
      fputs("\xef\xbf\xbd", f); /* U+FFFD */
    } else {
      fwrite(p, 1, (size_t)n, f);
      p += n - 1;
    }
  }
}

/* One byte of a name as the table shows it: \n, \t, \\, or \xNN for
 * other control bytes; NULL when it stands for itself. */
static const char *esc(unsigned char c, char *b) {
  if (c == '\n')
    return "\\n";
  if (c == '\t')
    return "\\t";
  if (c == '\\')
    return "\\\\";
  if (c < 0x20 || c == 0x7f) {
    snprintf(b, 5, "\\x%02x", c);
    return b;
  }
  return NULL;
}

/* name escaped (invalid UTF-8 bytes as \xNN too) into d, which has room
 * for 4 bytes a byte of name plus one, or only measured when d is NULL;
 * returns its width in characters. */
static int escape(const char *name, char *d) {
  size_t at = 0;
  int c = 0;
  char b[8];
  for (const unsigned char *p = (const unsigned char *)name; *p;) {
    int k = sp_fmt_utf8_len(p);
    const char *e = k == 1 ? esc(*p, b) : NULL;
    if (k == 0) {
      snprintf(b, sizeof b, "\\x%02x", *p);
      e = b;
    }
    size_t l = e ? strlen(e) : (size_t)k;
    if (d)
      memcpy(d + at, e ? e : (const char *)p, l);
    at += l;
    c += e ? (int)l : 1;
    p += k ? k : 1;
  }
  if (d)
    d[at] = '\0';
  return c;
}

/* Bytes of the first k characters of the valid UTF-8 string s. */
static size_t chars(const char *s, int k) {
  const unsigned char *p = (const unsigned char *)s;
  for (; k > 0 && *p; k--)
    p += sp_fmt_utf8_len(p);
  return (size_t)(p - (const unsigned char *)s);
}

int rp_name_cols(const char *name) { return escape(name, NULL); }

void rp_csv_str(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\n\r")) {
    rp_utf8_str(f, s);
    return;
  }
  fputc('"', f);
  for (const char *q; (q = strchr(s, '"')); s = q + 1) {
    fwrite(s, 1, (size_t)(q - s), f); /* '"' never ends a UTF-8 sequence */
    fputs("\"\"", f);
  }
  rp_utf8_str(f, s);
  fputc('"', f);
}

/* ---- names shortened to a column, kept distinct ------------------------ */

/* The characters [from, from + k) of the valid UTF-8 string s appended to
 * d at *at. */
static void put_chars(char *d, size_t *at, const char *s, int from, int k) {
  size_t b0 = chars(s, from), b1 = chars(s, from + k);
  memcpy(d + *at, s + b0, b1 - b0);
  *at += b1 - b0;
  d[*at] = '\0';
}

/* Characters a and b share from their start. */
static int common_chars(const char *a, const char *b) {
  int c = 0;
  for (const unsigned char *p = (const unsigned char *)a,
                           *q = (const unsigned char *)b;
       *p;) {
    int k = sp_fmt_utf8_len(p);
    if (k <= 0 || memcmp(p, q, (size_t)k) != 0)
      break;
    p += k, q += k, c++;
  }
  return c;
}

typedef struct fit_key {
  const char *s;
  int64_t i;
} fit_key;

static int by_shown(const void *a, const void *b) {
  const fit_key *x = a, *y = b;
  int c = strcmp(x->s, y->s);
  return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Runs of equal shown names among the cut ones: calls fix(fit, e, cols,
 * members, count) for each. */
static int each_clash(rp_fit *fit, char **e, const int *cols,
                      void (*fix)(rp_fit *, char **, const int *,
                                  const int64_t *, int64_t)) {
  fit_key *k = malloc((fit->n ? (size_t)fit->n : 1) * sizeof *k);
  int64_t *m = malloc((fit->n ? (size_t)fit->n : 1) * sizeof *m);
  if (!k || !m) {
    free(k), free(m);
    return -1;
  }
  int64_t n = 0;
  for (int64_t i = 0; i < fit->n; i++)
    if (fit->shown[i] && cols[i] > fit->width)
      k[n++] = (fit_key){fit->shown[i], i};
  qsort(k, (size_t)n, sizeof *k, by_shown);
  for (int64_t a = 0, b; a < n; a = b) {
    for (b = a + 1; b < n && !strcmp(k[b].s, k[a].s); b++)
      ;
    if (b - a < 2)
      continue;
    for (int64_t j = a; j < b; j++)
      m[j - a] = k[j].i;
    fix(fit, e, cols, m, b - a);
  }
  free(k), free(m);
  return 0;
}

/* Names cut alike that differ in their middle: start, "...", the part
 * around where each differs from the closest of the others, "...", end. */
static void show_middle(rp_fit *fit, char **e, const int *cols,
                        const int64_t *m, int64_t n) {
  int w = fit->width, h = (w - 6) / 5, mid = 2 * (w - 6) / 5,
      t = w - 6 - h - mid;
  if (h < 1 || mid < 1)
    return;
  for (int64_t a = 0; a < n; a++) {
    int64_t i = m[a];
    int at = 0;
    for (int64_t b = 0; b < n; b++)
      if (b != a && e[m[b]] && strcmp(e[i], e[m[b]]) != 0) {
        int c = common_chars(e[i], e[m[b]]);
        at = c > at ? c : at;
      }
    int from = at - mid / 3;
    if (from > cols[i] - t - mid)
      from = cols[i] - t - mid;
    if (from < h)
      from = h;
    size_t o = 0;
    char *d = fit->shown[i];
    d[0] = '\0';
    put_chars(d, &o, e[i], 0, h);
    memcpy(d + o, "...", 4), o += 3;
    put_chars(d, &o, e[i], from, mid);
    memcpy(d + o, "...", 4), o += 3;
    put_chars(d, &o, e[i], cols[i] - t, t);
  }
}

/* Still alike: numbered, "~1", "~2"..., in place of their last
 * characters. */
static void show_number(rp_fit *fit, char **e, const int *cols,
                        const int64_t *m, int64_t n) {
  (void)e, (void)cols;
  for (int64_t a = 0; a < n; a++) {
    char tag[24];
    int k = snprintf(tag, sizeof tag, "~%lld", (long long)(a + 1));
    char *d = fit->shown[m[a]];
    if (k >= fit->width)
      continue;
    size_t cut = chars(d, fit->width - k);
    memcpy(d + cut, tag, (size_t)k + 1);
  }
}

int rp_fit_names(rp_fit *fit, const char *const *names, int64_t n, int width) {
  memset(fit, 0, sizeof *fit);
  fit->width = width;
  fit->n = n;
  fit->shown = calloc(n ? (size_t)n : 1, sizeof *fit->shown);
  char **e = calloc(n ? (size_t)n : 1, sizeof *e);
  int *cols = calloc(n ? (size_t)n : 1, sizeof *cols);
  int rc = fit->shown && e && cols ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < n; i++) {
    if (!names[i])
      continue;
    size_t len = strlen(names[i]);
    e[i] = malloc(4 * len + 1);
    /* room for the escaped name, or a cut one with its tag */
    fit->shown[i] = malloc(4 * len + (size_t)width * 4 + 32);
    if (!e[i] || !fit->shown[i]) {
      rc = -1;
      break;
    }
    cols[i] = escape(names[i], e[i]);
    char *d = fit->shown[i];
    if (width > 3 && cols[i] > width) {
      /* Its start and its end around "...", the end the larger part:
       * names that share a start (templates, overloads) differ at the end. */
      int head = (width - 3) / 3, tail = width - 3 - head;
      size_t o = 0;
      d[0] = '\0';
      put_chars(d, &o, e[i], 0, head);
      memcpy(d + o, "...", 4), o += 3;
      put_chars(d, &o, e[i], cols[i] - tail, tail);
    } else {
      memcpy(d, e[i], strlen(e[i]) + 1);
    }
  }
  if (rc == 0 && width > 3)
    rc = each_clash(fit, e, cols, show_middle) ||
                 each_clash(fit, e, cols, show_number)
             ? -1
             : 0;
  for (int64_t i = 0; e && i < n; i++)
    free(e[i]);
  free(e);
  free(cols);
  if (rc != 0)
    rp_fit_free(fit);
  return rc;
}

void rp_fit_put(FILE *f, const rp_fit *fit, int64_t i) {
  const char *s = fit->shown && fit->shown[i] ? fit->shown[i] : "?";
  fputs(s, f);
  int c = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; c++) {
    int k = sp_fmt_utf8_len(p);
    p += k > 0 ? k : 1;
  }
  for (; c < fit->width; c++)
    fputc(' ', f);
}

void rp_fit_free(rp_fit *fit) {
  for (int64_t i = 0; fit->shown && i < fit->n; i++)
    free(fit->shown[i]);
  free(fit->shown);
  memset(fit, 0, sizeof *fit);
}

/* One name is a column of one: the same cut, the same padding. */
void rp_name_str(FILE *f, const char *name, int width) {
  rp_fit fit;
  if (rp_fit_names(&fit, &name, 1, width) != 0) {
    fputs("?", f);
    return;
  }
  rp_fit_put(f, &fit, 0);
  rp_fit_free(&fit);
}
