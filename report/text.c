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

void rp_name_str(FILE *f, const char *name, int width) {
  char *d = malloc(4 * strlen(name) + 1);
  if (!d) {
    fputs("?", f);
    return;
  }
  int cols = escape(name, d);
  if (width > 3 && cols > width) {
    /* Its start and its end around "...", the end the larger part: names
     * that share a start (C++ templates, overloads) differ at the end. */
    int head = (width - 3) / 3, tail = width - 3 - head;
    fwrite(d, 1, chars(d, head), f);
    fputs("...", f);
    fputs(d + chars(d, cols - tail), f);
    cols = width;
  } else {
    fputs(d, f);
  }
  for (int i = cols; i < width; i++)
    fputc(' ', f);
  free(d);
}

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
