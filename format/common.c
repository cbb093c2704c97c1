/* common.c - what every part of the format library uses: one-line error
 * messages, UTF-8 checks, the magic and HDF5 signature checks. */
#include "sp_common.h"
#include "sp_h5.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sp_fmt_err_set(sp_fmt_err *err, const char *fmt, ...) {
  if (!err)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
}

void sp_fmt_err_vat(sp_fmt_err *err, const char *file, int64_t off,
                    const char *fmt, va_list ap) {
  if (!err)
    return;
  int n = off < 0 ? snprintf(err->msg, sizeof err->msg, "%s: ", file)
                  : snprintf(err->msg, sizeof err->msg,
                             "%s: offset %lld: ", file, (long long)off);
  if (n < 0 || (size_t)n >= sizeof err->msg)
    return;
  vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
  for (char *c = err->msg + n; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f)
      *c = '?';
}

int sp_fmt_utf8_len(const unsigned char *p) {
  int n = *p < 0x80                 ? 1
          : *p >= 0xc2 && *p < 0xe0 ? 2
          : *p >= 0xe0 && *p < 0xf0 ? 3
          : *p >= 0xf0 && *p < 0xf5 ? 4
                                    : 0;
  /* The second byte's range after E0, ED, F0 and F4 is what keeps out
   * overlong forms, surrogates and code points past U+10FFFF, which
   * strict decoders (Python's, XML parsers) refuse. */
  unsigned lo = *p == 0xe0 ? 0xa0 : *p == 0xf0 ? 0x90 : 0x80;
  unsigned hi = *p == 0xed ? 0x9f : *p == 0xf4 ? 0x8f : 0xbf;
  if (n > 1 && (p[1] < lo || p[1] > hi))
    return 0;
  for (int i = 2; i < n; i++)
    if ((p[i] & 0xc0) != 0x80)
      return 0;
  return n;
}

char *sp_fmt_utf8_dup(const char *s, int *oom) {
  *oom = 0;
  const unsigned char *p = (const unsigned char *)s;
  size_t bad = 0, n = 0;
  while (p[n]) {
    int k = sp_fmt_utf8_len(p + n);
    bad += k == 0;
    n += k ? (size_t)k : 1;
  }
  if (!bad)
    return NULL;
  char *d = malloc(n + 3 * bad + 1);
  if (!d) {
    *oom = 1;
    return NULL;
  }
  size_t at = 0;
  for (size_t i = 0; i < n;) {
    int k = sp_fmt_utf8_len(p + i);
    if (k == 0) {
      snprintf(d + at, 5, "\\x%02x", p[i]);
      at += 4;
      i++;
    } else {
      memcpy(d + at, p + i, (size_t)k);
      at += (size_t)k;
      i += (size_t)k;
    }
  }
  d[at] = '\0';
  return d;
}

int sp_fmt_starts_with(const char *path, const char magic[8]) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return 0;
  char b[8];
  ssize_t n = read(fd, b, 8);
  close(fd);
  return n == 8 && memcmp(b, magic, 8) == 0;
}

/* HDF5 files start with the signature at 0, or at 512, 1024, ... after a
 * user block; 64 KiB of user block covers every file HDF5 tools make. */
int sp_fmt_is_h5(const char *path) {
  static const unsigned char sig[8] = {0x89, 'H',  'D',  'F',
                                       '\r', '\n', 0x1a, '\n'};
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return 0;
  int found = 0;
  for (off_t off = 0; off <= 65536 && !found; off = off ? off * 2 : 512) {
    unsigned char b[8];
    if (pread(fd, b, 8, off) != 8)
      break;
    found = memcmp(b, sig, 8) == 0;
  }
  close(fd);
  return found;
}
