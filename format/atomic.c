/* atomic.c - write-to-a-temporary-then-rename helpers shared by the writers,
 * error formatting, and the magic and HDF5 signature checks (no HDF5). */
#include "sp_format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
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

int sp_fmt_tmp_name(const char *path, char *buf, size_t size) {
  /* The counter keeps two writers of one process (threads, or a retry)
   * apart; the pid keeps processes sharing a directory apart. */
  static unsigned counter;
  unsigned n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
  int len = snprintf(buf, size, "%s.tmp.%ld.%u", path, (long)getpid(), n);
  return (len < 0 || (size_t)len >= size) ? -1 : 0;
}

int sp_fmt_tmp_commit(const char *tmp, const char *path, sp_fmt_err *err) {
  if (rename(tmp, path) == 0)
    return 0;
  int e = errno;
  unlink(tmp);
  sp_fmt_err_set(err, "%s: %s", path, strerror(e));
  return -1;
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
