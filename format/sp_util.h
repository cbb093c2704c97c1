/* sp_util.h - small helpers shared by the format library and the tools:
 * whole reads and writes at an offset that retry on EINTR, and the string
 * hash of their open-addressing tables. Internal; static inline. */
#ifndef SP_UTIL_H
#define SP_UTIL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

/* n bytes between buf and file offset off (out: written, else read),
 * retrying on EINTR and short transfers. Returns 0, or -1 with *done the
 * bytes moved and errno set (0 when a transfer made no progress). */
static inline int sp__pio_full(int fd, void *buf, size_t n, off_t off,
                               size_t *done, int out) {
  size_t moved = 0;
  int rc = 0;
  while (moved < n) {
    ssize_t k =
        out ? pwrite(fd, (char *)buf + moved, n - moved, off + (off_t)moved)
            : pread(fd, (char *)buf + moved, n - moved, off + (off_t)moved);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0) {
      if (k == 0)
        errno = 0;
      rc = -1;
      break;
    }
    moved += (size_t)k;
  }
  if (done)
    *done = moved;
  return rc;
}

/* Reads n bytes at file offset off into dst (errno 0: the file ended
 * first). */
static inline int sp__pread_full(int fd, void *dst, size_t n, off_t off,
                                 size_t *done) {
  return sp__pio_full(fd, dst, n, off, done, 0);
}

/* Writes n bytes from src at file offset off. */
static inline int sp__pwrite_full(int fd, const void *src, size_t n, off_t off,
                                  size_t *done) {
  return sp__pio_full(fd, (void *)(uintptr_t)src, n, off, done, 1);
}

/* FNV-1a over a NUL-terminated string, from seed (SP__FNV_SEED, or that
 * mixed with more of the key). */
#define SP__FNV_SEED 1469598103934665603ull

static inline uint64_t sp__fnv1a(uint64_t seed, const char *s) {
  uint64_t h = seed;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* The same over n bytes. */
static inline uint64_t sp__fnv1a_n(uint64_t seed, const char *s, size_t n) {
  uint64_t h = seed;
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

#endif /* SP_UTIL_H */
