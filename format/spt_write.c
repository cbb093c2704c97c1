/* spt_write.c - the .spt writer: streams sources in batches through one
 * large buffer into a temporary file, then renames it into place. */
#include "sp_common.h"
#include "sp_hash.h"
#include "sp_rank.h"
#include "sp_spt.h"
#include "sp_tmp.h"
#include "sp_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Calls pulled from a source per read(): 1 MiB of timestamps. */
#ifndef SP_SPT_BATCH
#define SP_SPT_BATCH ((int64_t)64 * 1024)
#endif
/* Output buffer: large writes cost little more than the copy into it. */
#ifndef SP_SPT_OUTBUF
#define SP_SPT_OUTBUF ((size_t)4 << 20)
#endif
/* Bytes a call takes at most in a version-4 block: two 10-byte varints. */
#define SP_SPT_ZMAX 20
/* Calls in a block for which an early flush (a short write) is cheaper
 * than copying its timestamps through the batch buffer. */
#define SP_SPT_ALIGN ((int64_t)4096)

typedef struct {
  int fd;
  int swap;
  int err;      /* first errno; once set, output is dropped */
  int64_t done; /* bytes written from buf: the file offset of buf[0] */
  size_t pos;
  unsigned char *buf;
} out;

/* n bytes at p to file offset at (every write says where: a large
 * block's ends go ahead of the buffer's bytes, see put_block_times). A
 * helper thread writing one buffer while the next was filled took more CPU
 * and no less time on a shared 2-core machine. */
static void put_at(out *o, const void *p, size_t n, int64_t at) {
  if (!o->err && sp__pwrite_full(o->fd, p, n, (off_t)at, NULL) != 0)
    o->err = errno ? errno : ENOSPC;
}

static void flush(out *o) {
  put_at(o, o->buf, o->pos, o->done);
  o->done += (int64_t)o->pos;
  o->pos = 0;
}

static void put(out *o, const void *p, size_t n) {
  if (SP_SPT_OUTBUF - o->pos < n)
    flush(o);
  memcpy(o->buf + o->pos, p, n);
  o->pos += n;
}

static void put_i32(out *o, int32_t v) {
  uint32_t u = (uint32_t)v;
  if (o->swap)
    u = __builtin_bswap32(u);
  put(o, &u, 4);
}

static void put_i64(out *o, int64_t v) {
  uint64_t u = (uint64_t)v;
  if (o->swap)
    u = __builtin_bswap64(u);
  put(o, &u, 8);
}

static void put_str(out *o, const char *s) {
  size_t n = s ? strlen(s) : 0;
  put_i32(o, (int32_t)n);
  if (n)
    put(o, s, n);
}

static void put_times(out *o, const int64_t *v, int64_t n) {
  while (n > 0) {
    if (SP_SPT_OUTBUF - o->pos < 8)
      flush(o);
    int64_t room = (int64_t)((SP_SPT_OUTBUF - o->pos) / 8);
    int64_t k = n < room ? n : room;
    unsigned char *p = o->buf + o->pos;
    if (!o->swap) {
      memcpy(p, v, (size_t)k * 8);
    } else {
      for (int64_t i = 0; i < k; i++) {
        uint64_t u = __builtin_bswap64((uint64_t)v[i]);
        memcpy(p + i * 8, &u, 8);
      }
    }
    o->pos += (size_t)k * 8;
    v += k;
    n -= k;
  }
}

static int aligned(const out *o) {
  return ((uintptr_t)(o->buf + o->pos) & 7) == 0;
}

/* Starts, then ends, one batch in memory at a time. Without byte
 * swapping, read() fills the output buffer directly where it is 8-byte
 * aligned, so each call is copied once (as by fwrite); a block of at least
 * SP_SPT_ALIGN calls is worth a flush to get there, and a block of more
 * than one batch is read once, its ends written to their place as they
 * come. Swapped, a large block is read twice: starts, then ends. */
static void put_block_times(out *o, const sp_fmt_source *s, int64_t *st,
                            int64_t *en) {
  int64_t n = s->count;
  if (n == 0)
    return;
  int direct = !o->swap;
  if (direct && !aligned(o) && n >= SP_SPT_ALIGN)
    flush(o);
  direct = direct && aligned(o);
  if (n <= SP_SPT_BATCH) {
    size_t need = (size_t)n * 16;
    if (SP_SPT_OUTBUF - o->pos < need)
      flush(o); /* pos 0 keeps alignment */
    if (direct) {
      int64_t *d = (int64_t *)(void *)(o->buf + o->pos);
      s->read(s, 0, n, d, d + n);
      o->pos += need;
    } else {
      s->read(s, 0, n, st, en);
      put_times(o, st, n);
      put_times(o, en, n);
    }
    return;
  }
  if (direct) {
    /* One pass: starts through the buffer, each batch's ends written
     * straight to their place after all the starts (the sequential
     * writes then skip it), so each call is read once, not twice: a
     * source that reads a file (a .spts stream) pays for every read. */
    int64_t ends_at = o->done + (int64_t)o->pos + n * 8;
    for (int64_t first = 0; first < n && !o->err; first += SP_SPT_BATCH) {
      int64_t k = n - first < SP_SPT_BATCH ? n - first : SP_SPT_BATCH;
      if (SP_SPT_OUTBUF - o->pos < (size_t)k * 8)
        flush(o);
      int64_t *d = (int64_t *)(void *)(o->buf + o->pos);
      s->read(s, first, k, d, en);
      o->pos += (size_t)k * 8;
      put_at(o, en, (size_t)k * 8, ends_at + first * 8);
    }
    /* The buffer goes on after the ends. */
    flush(o);
    o->done += n * 8;
    return;
  }
  for (int pass = 0; pass < 2; pass++)
    for (int64_t first = 0; first < n && !o->err; first += SP_SPT_BATCH) {
      int64_t k = n - first < SP_SPT_BATCH ? n - first : SP_SPT_BATCH;
      if (direct) {
        if (SP_SPT_OUTBUF - o->pos < (size_t)k * 8)
          flush(o);
        int64_t *d = (int64_t *)(void *)(o->buf + o->pos);
        s->read(s, first, k, pass ? st : d, pass ? d : en);
        o->pos += (size_t)k * 8;
      } else {
        s->read(s, first, k, st, en);
        put_times(o, pass ? en : st, k);
      }
    }
}

/* v as an unsigned LEB128 varint at p (at most 10 bytes): its length. */
static size_t put_varint(unsigned char *p, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  p[n++] = (unsigned char)v;
  return n;
}

/* A version-4 block's calls: per call the start minus the previous call's
 * start (the first's minus 0) and the end minus the start, both modulo
 * 2^64, as varints; a batch at a time. Returns the bytes written. */
static int64_t put_block_varints(out *o, const sp_fmt_source *s, int64_t *st,
                                 int64_t *en) {
  int64_t bytes = 0;
  uint64_t prev = 0;
  for (int64_t first = 0; first < s->count && !o->err; first += SP_SPT_BATCH) {
    int64_t k =
        s->count - first < SP_SPT_BATCH ? s->count - first : SP_SPT_BATCH;
    s->read(s, first, k, st, en);
    if (SP_SPT_OUTBUF - o->pos < (size_t)k * SP_SPT_ZMAX)
      flush(o);
    unsigned char *p = o->buf + o->pos, *p0 = p;
    for (int64_t i = 0; i < k; i++) {
      uint64_t a = (uint64_t)st[i];
      p += put_varint(p, a - prev);
      p += put_varint(p, (uint64_t)en[i] - a);
      prev = a;
    }
    o->pos += (size_t)(p - p0);
    bytes += p - p0;
  }
  return bytes;
}

/* The int64 at file offset at, written after the bytes that follow it. */
static void patch_i64(out *o, int64_t at, int64_t v) {
  uint64_t u = (uint64_t)v;
  if (o->swap)
    u = __builtin_bswap64(u);
  if (at >= o->done)
    memcpy(o->buf + (at - o->done), &u, 8);
  else
    put_at(o, &u, 8, at);
}

/* Index of an earlier source with srcs[i]'s (thread, name), or -1 after
 * adding i to t; -2 when out of memory. */
static int64_t seen(const sp_fmt_source *srcs, int64_t i, sp__hash *t) {
  uint64_t h = sp__fnv1a(SP__FNV_SEED ^ (uint32_t)srcs[i].thread, srcs[i].name);
  sp__hash_it it;
  int64_t j = sp__hash_first(t, h ^ (h >> 29), &it);
  for (; j >= 0; j = sp__hash_next(t, &it))
    if (srcs[j].thread == srcs[i].thread &&
        strcmp(srcs[j].name, srcs[i].name) == 0)
      return j;
  return sp__hash_add(t, &it, i) == 0 ? -1 : -2;
}

/* Rejects what the reader would reject, before any file is created. */
static int check(const char *path, int32_t rank, int version,
                 const sp_fmt_source *srcs, int64_t n, sp_fmt_err *err) {
  if (version < 1 || version > SP_FMT_SPT_MAX_VERSION) {
    sp_fmt_err_set(err, "%s: cannot write .spt version %d (writes 1-%d)", path,
                   version, SP_FMT_SPT_MAX_VERSION);
    return -1;
  }
  if (rank < 0) {
    sp_fmt_err_set(err, "%s: negative rank %d", path, rank);
    return -1;
  }
  if (n < 0 || (n > 0 && !srcs)) {
    sp_fmt_err_set(err, "%s: invalid number of sources %lld", path,
                   (long long)n);
    return -1;
  }
  for (int64_t i = 0; i < n; i++) {
    const sp_fmt_source *s = &srcs[i];
    const char *bad = NULL;
    if (!s->name || !s->name[0])
      bad = "has an empty region name";
    else if (strlen(s->name) > INT32_MAX ||
             (s->file && strlen(s->file) > INT32_MAX))
      bad = "has a name or file longer than 2 GiB";
    else if (s->count < 0)
      bad = "has a negative number of calls";
    else if (s->count > 0 && !s->read)
      bad = "has calls but no read function";
    else if (s->thread < 0)
      bad = "has a negative thread";
    else if (version >= 2 && s->line < -1)
      bad = "has a source line below -1";
    else if (version < 3 && s->thread != srcs[0].thread)
      bad = "is on another thread than source 0, and versions 1 and 2 "
            "carry no thread";
    if (bad) {
      sp_fmt_err_set(err, "%s: source %lld %s", path, (long long)i, bad);
      return -1;
    }
  }
  /* A hash set, not a sort: a runtime may have millions of blocks. */
  if (n >= (int64_t)UINT32_MAX) {
    sp_fmt_err_set(err, "%s: too many sources (%lld)", path, (long long)n);
    return -1;
  }
  sp__hash t = {0};
  if (sp__hash_reserve(&t, n) != 0) {
    sp_fmt_err_set(err, "%s: %s", path, strerror(ENOMEM));
    return -1;
  }
  int64_t dup = -1;
  for (int64_t i = 0; i < n && dup == -1; i++) {
    if ((dup = seen(srcs, i, &t)) >= 0)
      sp_fmt_err_set(err, "%s: two sources for region \"%s\" on thread %d",
                     path, srcs[i].name, srcs[i].thread);
    else if (dup == -2)
      sp_fmt_err_set(err, "%s: %s", path, strerror(ENOMEM));
  }
  sp__hash_free(&t);
  return dup == -1 ? 0 : -1;
}

int sp_fmt_spt_write(const char *path, int32_t rank, int version,
                     const sp_fmt_source *srcs, int64_t n, int big_endian,
                     sp_fmt_err *err) {
  if (check(path, rank, version, srcs, n, err))
    return -1;
  char tmp[4096];
  out o = {.fd = -1};
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  o.swap = big_endian != 0;
#else
  o.swap = big_endian == 0;
#endif
  int64_t *st = malloc((size_t)SP_SPT_BATCH * 16);
  o.buf = malloc(SP_SPT_OUTBUF);
  if (!st || !o.buf) {
    free(st);
    free(o.buf);
    sp_fmt_err_set(err, "%s: %s", path, strerror(ENOMEM));
    return -1;
  }
  int64_t *en = st + SP_SPT_BATCH;
  o.fd = sp_fmt_tmp_create(path, tmp, sizeof tmp, err);
  if (o.fd < 0) {
    free(st);
    free(o.buf);
    return -1;
  }

  if (!o.err) {
    put(&o, SP_FMT_MAGIC, 8);
    put_i32(&o, version);
    put_i32(&o, rank);
    put_i64(&o, n);
  }
  for (int64_t i = 0; i < n && !o.err; i++) {
    const sp_fmt_source *s = &srcs[i];
    if (version >= 3)
      put_i32(&o, s->thread);
    put_str(&o, s->name);
    if (version >= 2) {
      put_str(&o, s->file);
      put_i32(&o, s->line);
    }
    put_i64(&o, s->count);
    if (version >= 4) {
      int64_t at = o.done + (int64_t)o.pos;
      put_i64(&o, 0); /* the varints' bytes, known once they are written */
      patch_i64(&o, at, put_block_varints(&o, s, st, en));
    } else {
      put_block_times(&o, s, st, en);
    }
  }
  flush(&o);
  if (o.fd >= 0 && close(o.fd) != 0 && !o.err)
    o.err = errno;
  free(st);
  free(o.buf);
  if (o.err) {
    sp_fmt_tmp_discard(tmp);
    sp_fmt_err_set(err, "%s: %s", path, strerror(o.err));
    return -1;
  }
  return sp_fmt_tmp_commit(tmp, path, err);
}
