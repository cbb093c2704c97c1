/* raw.c - timestamps written straight into a file's reserved events
 * (little-endian int64 at a known offset), without HDF5: the writer's own
 * puts and the ranks of a merged runtime profile share it. */
#include "sp_h5.h"
#include "sp_util.h"

#include <errno.h>
#include <string.h>

/* Writes end on these boundaries: h5_write.c's SP__H5W_PIECE says why. */
#define PIECE ((int64_t)256 << 10)

static int put_bytes(int fd, int64_t at, const void *p, size_t n) {
  const char *c = p;
  while (n > 0) {
    size_t piece = (size_t)(PIECE - at % PIECE);
    piece = n > piece ? piece : n;
    if (sp__pwrite_full(fd, c, piece, (off_t)at, NULL) != 0)
      return -1;
    c += piece;
    at += (int64_t)piece;
    n -= piece;
  }
  return 0;
}

int sp_fmt_put_le64(int fd, int64_t at, const void *p, int64_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  uint64_t buf[4096];
  for (int64_t done = 0; done < n;) {
    int64_t k = n - done < 4096 ? n - done : 4096;
    for (int64_t i = 0; i < k; i++) {
      uint64_t v;
      memcpy(&v, (const char *)p + (done + i) * 8, 8);
      buf[i] = __builtin_bswap64(v);
    }
    if (put_bytes(fd, at + done * 8, buf, (size_t)k * 8) != 0)
      return -1;
    done += k;
  }
  return 0;
#else
  return put_bytes(fd, at, p, (size_t)n * 8);
#endif
}
