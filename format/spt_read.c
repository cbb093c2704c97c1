/* spt_read.c - the .spt reader (versions 1-4, either byte order). Every
 * length and count is checked against the bytes left before allocating. */
#include "sp_common.h"
#include "sp_hash.h"
#include "sp_progress.h"
#include "sp_rank.h"
#include "sp_spt.h"
#include "sp_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Timestamps copied into arrays, or skipped (counts only). */
enum { TIMES_COPY, TIMES_SKIP };

/* The bytes are an image in memory, or a file read through a window: the
 * headers between the timestamp arrays are all a parse looks at. */
typedef struct {
  const unsigned char *buf; /* holds bytes [off, off + have) */
  size_t len, pos;          /* of the whole image or file */
  size_t off, have;
  int swap;           /* file byte order differs from ours */
  int fd;             /* the file, read for the window and timestamps; or -1 */
  unsigned char *win; /* the window's memory (a file only) */
  size_t cap;
  int mode;              /* how timestamps are taken: one of the TIMES_ above */
  sp_fmt_progress *prog; /* counts calls as their stamps arrive; or NULL */
  int64_t stamps;        /* stamps read, for prog: two per call */
  const char *name;
  sp_fmt_err *err;
} reader;

/* Bytes of a file read at once for headers: most files' whole header, and
 * little of the timestamps skipped after it. The tests and the fuzzer
 * build it with a window of a few bytes, so every field crosses an edge. */
#ifndef SP_SPT_WINDOW
#define SP_SPT_WINDOW ((size_t)16 << 10)
#endif

static int fail(reader *r, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(reader *r, size_t off, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sp_fmt_err_vat(r->err, r->name, (int64_t)off, fmt, ap);
  va_end(ap);
  return -1;
}

/* want bytes of the file from pos on into dst; a failure names the byte
 * where reading stopped. */
static int pread_all(reader *r, void *dst, size_t want) {
  size_t got;
  if (sp__pread_full(r->fd, dst, want, (off_t)r->pos, &got) != 0)
    return fail(r, r->pos + got, "cannot read: %s",
                errno ? strerror(errno) : "file shrank while reading");
  return 0;
}

/* The window over [pos, pos + n) of the file, n already checked against
 * the bytes left: so a string's length allocates no more than is there. */
static int load(reader *r, size_t n) {
  size_t want = n > SP_SPT_WINDOW ? n : SP_SPT_WINDOW;
  if (want > r->len - r->pos)
    want = r->len - r->pos;
  if (want > r->cap) {
    unsigned char *grown = realloc(r->win, want);
    if (!grown)
      return fail(r, r->pos, "out of memory");
    r->win = grown;
    r->cap = want;
  }
  r->buf = r->win;
  r->off = r->pos;
  r->have = 0;
  if (pread_all(r, r->win, want) != 0)
    return -1;
  r->have = want;
  return 0;
}

static int need(reader *r, size_t n, const char *what) {
  size_t left = r->len - r->pos;
  if (left < n)
    return fail(r, r->pos, "truncated: expected %s (%zu bytes), %zu left", what,
                n, left);
  if (r->pos < r->off || r->pos + n > r->off + r->have)
    return load(r, n);
  return 0;
}

/* The bytes at file position at, which need() has brought in. */
static const unsigned char *at_pos(const reader *r, size_t at) {
  return r->buf + (at - r->off);
}

static uint32_t raw32(reader *r, size_t at) {
  uint32_t v;
  memcpy(&v, at_pos(r, at), 4);
  return r->swap ? __builtin_bswap32(v) : v;
}

static int get_i32(reader *r, const char *what, int32_t *out) {
  if (need(r, 4, what))
    return -1;
  *out = (int32_t)raw32(r, r->pos);
  r->pos += 4;
  return 0;
}

static int get_i64(reader *r, const char *what, int64_t *out) {
  if (need(r, 8, what))
    return -1;
  uint64_t v;
  memcpy(&v, at_pos(r, r->pos), 8);
  *out = (int64_t)(r->swap ? __builtin_bswap64(v) : v);
  r->pos += 8;
  return 0;
}

/* A length-prefixed string; *len = 0 and *s = NULL when empty. The length
 * is checked against the bytes left before it is allocated. */
static int get_str(reader *r, const char *lenwhat, const char *what, char **s,
                   int32_t *len) {
  size_t at = r->pos;
  char field[64];
  snprintf(field, sizeof field, "int32 %s", lenwhat);
  if (get_i32(r, field, len))
    return -1;
  if (*len < 0)
    return fail(r, at, "negative %s %d", lenwhat, *len);
  *s = NULL;
  if (*len == 0)
    return 0;
  if (need(r, (size_t)*len, what))
    return -1;
  if (memchr(at_pos(r, r->pos), 0, (size_t)*len))
    return fail(r, r->pos, "%s contains a NUL byte", what);
  *s = malloc((size_t)*len + 1);
  if (!*s)
    return fail(r, r->pos, "out of memory");
  memcpy(*s, at_pos(r, r->pos), (size_t)*len);
  (*s)[*len] = 0;
  r->pos += (size_t)*len;
  return 0;
}

/* Reads n timestamps of the file straight into dst with pread: the one
 * copy the kernel makes anyway, and no page of the file is mapped (in a VM
 * a page fault can cost more than copying the page). */
static int pread_times(reader *r, int64_t *dst, int64_t n) {
  size_t want = (size_t)n * 8;
  if (r->prog) {
    /* In pieces of 8 MiB, so a large array moves the progress line. */
    for (size_t done = 0, piece = (size_t)8 << 20; done < want;) {
      size_t k = want - done < piece ? want - done : piece;
      size_t pos = r->pos;
      r->pos += done;
      int bad = pread_all(r, (char *)dst + done, k);
      r->pos = pos;
      if (bad)
        return -1;
      done += k;
      int64_t before = r->stamps / 2;
      r->stamps += (int64_t)(k / 8);
      sp_fmt_progress_add(r->prog, r->stamps / 2 - before);
    }
  } else if (pread_all(r, dst, want) != 0) {
    return -1;
  }
  if (r->swap)
    for (int64_t i = 0; i < n; i++)
      dst[i] = (int64_t)__builtin_bswap64((uint64_t)dst[i]);
  r->pos += want;
  return 0;
}

/* A timestamp array. Large ones (1 Mi calls and up) are aligned to and
 * backed by 2 MiB pages where the kernel allows: in a VM a 4 KiB page
 * fault can cost more than copying the page, and the statistics' passes
 * over the arrays miss the TLB less (both reading and the statistics got
 * markedly faster; docs/performance.md). Smaller ones stay plain: their
 * heap memory is reused from rank to rank anyway. Freed with free(). */
static int64_t *times_alloc(int64_t count) {
  size_t n = (size_t)count * 8, huge = (size_t)2 << 20;
  if (n < 4 * huge)
    return malloc(n);
  void *p = NULL;
  if (posix_memalign(&p, huge, n) != 0)
    return NULL;
  madvise(p, n & ~(huge - 1), MADV_HUGEPAGE); /* a hint: may be refused */
  return p;
}

/* n timestamps into dst: from the file if there is one, else from the
 * image in memory. */
static int get_times(reader *r, int64_t *dst, int64_t n) {
  if (r->fd >= 0)
    return pread_times(r, dst, n);
  const unsigned char *p = at_pos(r, r->pos);
  if (!r->swap) {
    memcpy(dst, p, (size_t)n * 8);
  } else {
    for (int64_t i = 0; i < n; i++) {
      uint64_t v;
      memcpy(&v, p + i * 8, 8);
      dst[i] = (int64_t)__builtin_bswap64(v);
    }
  }
  r->pos += (size_t)n * 8;
  return 0;
}

static uint64_t hash_bytes(const char *s, size_t n) {
  uint64_t h = sp__fnv1a_n(SP__FNV_SEED, s, n);
  return h ^ (h >> 29);
}

static uint64_t hash_pair(int64_t region, int32_t thread) {
  uint64_t h = ((uint64_t)region << 32) ^ (uint32_t)thread;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

/* Version 1 and 2 files never carry anything but a small positive version,
 * so the byte order is the one in which the field reads 1..65535; in the
 * other order such a value reads 65536 or more. */
static int detect_order(reader *r, int32_t *version) {
  uint32_t v;
  memcpy(&v, at_pos(r, 8), 4);
  uint32_t sw = __builtin_bswap32(v);
  if (v >= 1 && v <= 0xffff) {
    r->swap = 0;
    *version = (int32_t)v;
  } else if (sw >= 1 && sw <= 0xffff) {
    r->swap = 1;
    *version = (int32_t)sw;
  } else {
    /* Report it as read in host order: 0 and -1 read the same either way. */
    return fail(r, 8, "unknown version %d (supports 1-%d)", (int32_t)v,
                SP_FMT_SPT_MAX_VERSION);
  }
  if (*version > SP_FMT_SPT_MAX_VERSION)
    return fail(r, 8, "version %d is newer than this reader (supports 1-%d)",
                *version, SP_FMT_SPT_MAX_VERSION);
  r->pos = 12;
  return 0;
}

/* Smallest possible block: lengths, a one-byte name, location, count. */
static size_t min_block(int version) {
  return version == 1   ? 4 + 1 + 8
         : version == 2 ? 4 + 1 + 4 + 4 + 8
         : version == 3 ? 4 + 4 + 1 + 4 + 4 + 8
                        : 4 + 4 + 1 + 4 + 4 + 8 + 8;
}

/* ---- version 4: the calls as varints ------------------------------------ */

/* Where a decode of a version-4 block's varints stands. */
typedef struct {
  int64_t call;  /* calls decoded */
  int64_t at;    /* bytes of the varints used */
  uint64_t prev; /* the last call's start */
} zpos;

/* Bytes of varints decoded per read: far more than one call's 20. */
#define SP_SPT_ZCHUNK ((size_t)64 << 10)

/* The varint at p[*i] (below len): 0, 1 when len cuts it, -1 when it runs
 * past 10 bytes or 64 bits. */
static int varint(const unsigned char *p, size_t len, size_t *i, uint64_t *v) {
  uint64_t x = 0;
  for (unsigned shift = 0; *i < len; shift += 7) {
    unsigned char c = p[(*i)++];
    if (shift == 63 && c > 1)
      return -1;
    x |= (uint64_t)(c & 0x7f) << shift;
    if (!(c & 0x80)) {
      *v = x;
      return 0;
    }
    if (shift == 63)
      return -1;
  }
  return 1;
}

/* Up to n calls from the len bytes at p (the varints from pos->at on) into
 * st/en (NULL: decoded only): the calls decoded whole; *bad set to 1 when a
 * varint is too long (pos->at then at its call). */
static int64_t zdecode(const unsigned char *p, size_t len, zpos *pos, int64_t n,
                       int64_t *st, int64_t *en, int *bad) {
  size_t i = 0;
  int64_t k = 0;
  for (; k < n; k++) {
    size_t j = i;
    uint64_t d, dur;
    int rc = varint(p, len, &j, &d);
    if (rc == 0)
      rc = varint(p, len, &j, &dur);
    if (rc) {
      *bad = rc < 0;
      break;
    }
    uint64_t a = pos->prev + d;
    if (st) {
      st[k] = (int64_t)a;
      en[k] = (int64_t)(a + dur);
    }
    pos->prev = a;
    i = j;
  }
  pos->call += k;
  pos->at += (int64_t)i;
  return k;
}

/* n calls of a version-4 block from where pos stands: its zb bytes of
 * varints at offset off of the file fd (or of the image img) into st/en
 * (NULL: checked only). 0, or -1 with *why and *bad_at, the offset in the
 * file of the call at fault. */
static int zread(int fd, const unsigned char *img, int64_t off, int64_t zb,
                 zpos *pos, int64_t n, int64_t *st, int64_t *en,
                 const char **why, int64_t *bad_at) {
  unsigned char buf[SP_SPT_ZCHUNK];
  for (int64_t done = 0; done < n;) {
    /* An image holds all the bytes left; a file gives a chunk at a time. */
    size_t take = (size_t)(zb - pos->at);
    const unsigned char *p = img ? img + off + pos->at : buf;
    if (!img && take) {
      size_t got;
      take = take < SP_SPT_ZCHUNK ? take : SP_SPT_ZCHUNK;
      if (sp__pread_full(fd, buf, take, (off_t)(off + pos->at), &got) != 0) {
        *why = errno ? strerror(errno) : "file shrank while reading";
        *bad_at = off + pos->at + (int64_t)got;
        return -1;
      }
    }
    int bad = 0;
    int64_t k = zdecode(p, take, pos, n - done, st ? st + done : NULL,
                        en ? en + done : NULL, &bad);
    done += k;
    if (done < n && (bad || k == 0)) {
      *why = bad ? "a varint longer than 10 bytes"
                 : "the block's bytes end inside a call";
      *bad_at = off + pos->at;
      return -1;
    }
  }
  return 0;
}

/* A version-4 block's calls, after its count and byte count: decoded into
 * the block's arrays, or checked only (TIMES_SKIP). */
static int get_zcalls(reader *r, sp_fmt_block *blk, int64_t zb) {
  int64_t n = blk->count;
  if (r->mode != TIMES_SKIP && n) {
    blk->starts = times_alloc(n);
    blk->ends = times_alloc(n);
    if (!blk->starts || !blk->ends)
      return fail(r, r->pos, "out of memory");
  }
  zpos pos = {0, 0, 0};
  const char *why = NULL;
  int64_t bad_at = 0;
  const unsigned char *img = r->fd < 0 ? r->buf : NULL;
  if (zread(r->fd, img, (int64_t)r->pos, zb, &pos, n, blk->starts, blk->ends,
            &why, &bad_at) != 0)
    return fail(r, (size_t)bad_at, "calls: %s", why);
  if (pos.at != zb)
    return fail(r, r->pos + (size_t)pos.at,
                "%lld byte(s) after the block's %lld calls",
                (long long)(zb - pos.at), (long long)n);
  if (r->prog)
    sp_fmt_progress_add(r->prog, n);
  r->pos += (size_t)zb;
  return 0;
}

/* Lookup state of one parse, sized from the header's region count: names
 * to region indices, (region, thread) to block indices. */
typedef struct {
  sp__hash names, pairs;
  int32_t *namelens; /* byte length of each region's name */
} scratch;

static int parse(reader *r, sp_fmt_rank *out, scratch *sc) {
  sp__hash *names = &sc->names, *pairs = &sc->pairs;
  if (need(r, 8, "magic \"" SP_FMT_MAGIC "\""))
    return -1;
  if (memcmp(at_pos(r, 0), SP_FMT_MAGIC, 8) != 0)
    return fail(r, 0, "bad magic: not a ScopeProf .spt trace");
  r->pos = 8;
  if (need(r, 4, "int32 version"))
    return -1;
  int32_t version = 0;
  if (detect_order(r, &version))
    return -1;
  out->version = version;
  out->foreign_order = r->swap;
  size_t at = r->pos;
  if (get_i32(r, "int32 rank", &out->rank))
    return -1;
  if (out->rank < 0)
    return fail(r, at, "negative rank %d", out->rank);
  at = r->pos;
  int64_t n;
  if (get_i64(r, "int64 number of regions", &n))
    return -1;
  if (n < 0)
    return fail(r, at, "negative number of regions %lld", (long long)n);
  size_t left = r->len - r->pos, mb = min_block(version);
  if ((uint64_t)n > left / mb)
    return fail(r, at,
                "number of regions %lld does not fit in the %zu bytes left "
                "(at least %zu each)",
                (long long)n, left, mb);
  if (n > INT32_MAX) /* region indices are int32 */
    return fail(r, at,
                "number of regions %lld is more than this reader "
                "supports (%d)",
                (long long)n, INT32_MAX);
  if (n > 0) {
    out->blocks = calloc((size_t)n, sizeof *out->blocks);
    out->regions = calloc((size_t)n, sizeof *out->regions);
    sc->namelens = malloc((size_t)n * sizeof *sc->namelens);
    if (!out->blocks || !out->regions || !sc->namelens ||
        sp__hash_reserve(names, n) || sp__hash_reserve(pairs, n))
      return fail(r, at, "out of memory");
  }
  int32_t *namelens = sc->namelens;
  for (int64_t b = 0; b < n; b++) {
    size_t block_at = r->pos;
    int32_t thread = 0;
    if (version >= 3) {
      if (get_i32(r, "int32 thread", &thread))
        return -1;
      if (thread < 0)
        return fail(r, block_at, "negative thread %d", thread);
    }
    char *name, *file = NULL;
    int32_t nlen, flen, line = -1;
    size_t name_at = r->pos;
    if (get_str(r, "name length", "region name", &name, &nlen))
      return -1;
    if (!name)
      return fail(r, name_at, "empty region name");
    if (version >= 2) {
      if (get_str(r, "file length", "source file path", &file, &flen)) {
        free(name);
        return -1;
      }
      size_t line_at = r->pos;
      if (get_i32(r, "int32 source line", &line) ||
          (line < -1 && fail(r, line_at, "invalid source line %d", line))) {
        free(name);
        free(file);
        return -1;
      }
    }
    /* Find or add the region: one entry per name, whatever the thread. */
    sp__hash_it it;
    int64_t reg = sp__hash_first(names, hash_bytes(name, (size_t)nlen), &it);
    for (; reg >= 0; reg = sp__hash_next(names, &it))
      if (namelens[reg] == nlen &&
          memcmp(out->regions[reg].name, name, (size_t)nlen) == 0)
        break;
    if (reg < 0) {
      reg = out->nregions;
      if (sp__hash_add(names, &it, reg) != 0) {
        free(name);
        free(file);
        return fail(r, block_at, "out of memory");
      }
      out->nregions++;
      sp_fmt_region *rg = &out->regions[reg];
      rg->name = name;
      rg->file = file;
      rg->line = line;
      namelens[reg] = nlen;
    } else {
      /* Known name: a location fills in one not known yet, else the first
       * one stays (as the runtime keeps a name's first registered location). */
      sp_fmt_region *rg = &out->regions[reg];
      if (!rg->file && rg->line == -1 && (file || line != -1)) {
        rg->file = file;
        rg->line = line;
        file = NULL;
      }
      free(name);
      free(file);
    }
    for (int64_t o = sp__hash_first(pairs, hash_pair(reg, thread), &it); o >= 0;
         o = sp__hash_next(pairs, &it))
      if (out->blocks[o].region == reg && out->blocks[o].thread == thread)
        return fail(r, block_at,
                    "duplicate block for region \"%s\" on thread %d",
                    out->regions[reg].name, thread);
    if (sp__hash_add(pairs, &it, b) != 0)
      return fail(r, block_at, "out of memory");
    sp_fmt_block *blk = &out->blocks[b];
    blk->thread = thread;
    blk->region = (int32_t)reg;
    out->nblocks = b + 1;
    at = r->pos;
    int64_t count;
    if (get_i64(r, "int64 number of calls", &count))
      return -1;
    if (count < 0)
      return fail(r, at, "negative number of calls %lld", (long long)count);
    if (version >= 4) {
      int64_t zb;
      size_t zb_at = r->pos;
      if (get_i64(r, "int64 bytes of calls", &zb))
        return -1;
      left = r->len - r->pos;
      if (zb < 0 || (uint64_t)zb > left)
        return fail(r, zb_at, "bytes of calls %lld: %zu left", (long long)zb,
                    left);
      if ((uint64_t)count > (uint64_t)zb / 2)
        return fail(r, at,
                    "number of calls %lld does not fit in its %lld bytes "
                    "(at least 2 each)",
                    (long long)count, (long long)zb);
      blk->count = count;
      blk->file_offset = (int64_t)r->pos;
      blk->zbytes = zb;
      if (get_zcalls(r, blk, zb))
        return -1;
      continue;
    }
    left = r->len - r->pos;
    if ((uint64_t)count > left / 16)
      return fail(r, at,
                  "number of calls %lld does not fit in the %zu bytes left "
                  "(16 each)",
                  (long long)count, left);
    blk->count = count;
    blk->file_offset = (int64_t)r->pos;
    if (count && r->mode == TIMES_SKIP) {
      r->pos += (size_t)count * 16;
    } else if (count) {
      blk->starts = times_alloc(count);
      blk->ends = times_alloc(count);
      if (!blk->starts || !blk->ends)
        return fail(r, r->pos, "out of memory");
      if (get_times(r, blk->starts, count) || get_times(r, blk->ends, count))
        return -1;
    }
  }
  if (r->pos != r->len)
    return fail(r, r->pos, "%zu trailing byte(s) after the last region block",
                r->len - r->pos);
  return 0;
}

/* Parses an image in memory (fd < 0) or the open file fd of len bytes. */
static int parse_image(const unsigned char *buf, size_t len, const char *name,
                       int fd, int mode, sp_fmt_progress *prog,
                       sp_fmt_rank *out, sp_fmt_err *err) {
  reader r = {.buf = fd < 0 ? buf : NULL,
              .len = len,
              .have = fd < 0 ? len : 0,
              .fd = fd,
              .mode = mode,
              .prog = prog,
              .name = name ? name : "<memory>",
              .err = err};
  scratch sc = {{0}, {0}, NULL};
  memset(out, 0, sizeof *out);
  int rc = parse(&r, out, &sc);
  free(r.win);
  sp__hash_free(&sc.names);
  sp__hash_free(&sc.pairs);
  free(sc.namelens);
  if (rc) {
    sp_fmt_rank_free(out);
    memset(out, 0, sizeof *out);
  }
  return rc;
}

int sp_fmt_spt_parse(const unsigned char *buf, size_t len, const char *name,
                     sp_fmt_rank *out, sp_fmt_err *err) {
  return parse_image(buf, len, name, -1, TIMES_COPY, NULL, out, err);
}

/* Parses the file at path with timestamps taken per mode: its headers
 * through a window, its timestamps with pread (a mapping cost more:
 * mapping and unmapping a large file to read a few kilobytes of headers
 * costs more than reading them, and a page fault in a VM more than copying
 * the page). */
static int read_file(const char *path, int mode, sp_fmt_progress *prog,
                     sp_fmt_rank *out, sp_fmt_err *err) {
  memset(out, 0, sizeof *out);
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    sp_fmt_err_set(err, "%s: %s", path, strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    sp_fmt_err_set(err, "%s: not a regular file", path);
    close(fd);
    return -1;
  }
  int rc =
      parse_image(NULL, (size_t)st.st_size, path, fd, mode, prog, out, err);
  close(fd);
  return rc;
}

int sp_fmt_spt_read(const char *path, sp_fmt_rank *out, sp_fmt_err *err) {
  return read_file(path, TIMES_COPY, NULL, out, err);
}

int sp_fmt_spt_read_progress(const char *path, sp_fmt_rank *out,
                             sp_fmt_progress *p, sp_fmt_err *err) {
  return read_file(path, TIMES_COPY, p, out, err);
}

int sp_fmt_spt_index(const char *path, sp_fmt_rank *out, sp_fmt_err *err) {
  return read_file(path, TIMES_SKIP, NULL, out, err);
}

int sp_fmt_is_spt(const char *path) {
  return sp_fmt_starts_with(path, SP_FMT_MAGIC);
}

void sp_fmt_spt_calls_init(sp_fmt_spt_calls *c, int fd, const sp_fmt_rank *r,
                           const sp_fmt_block *b, int *failed) {
  memset(c, 0, sizeof *c);
  c->fd = fd;
  c->swap = r->foreign_order;
  c->offset = b->file_offset;
  c->count = b->count;
  c->failed = failed;
  c->zbytes = b->zbytes;
}

/* Calls [first, first + n) of a version-4 block: decoded on from the last
 * read, which a sequential reader continues (from the start otherwise). */
static void zcalls_read(sp_fmt_spt_calls *c, int64_t first, int64_t n,
                        int64_t *starts, int64_t *ends) {
  zpos pos = {c->zcall, c->zat, c->zprev};
  if (first < pos.call)
    pos = (zpos){0, 0, 0};
  const char *why;
  int64_t bad_at;
  if (zread(c->fd, NULL, c->offset, c->zbytes, &pos, first - pos.call, NULL,
            NULL, &why, &bad_at) != 0 ||
      zread(c->fd, NULL, c->offset, c->zbytes, &pos, n, starts, ends, &why,
            &bad_at) != 0) {
    *c->failed = errno ? errno : EIO; /* the caller learns it here */
    memset(starts, 0, (size_t)n * 8);
    memset(ends, 0, (size_t)n * 8);
    pos = (zpos){0, 0, 0};
  }
  c->zcall = pos.call;
  c->zat = pos.at;
  c->zprev = pos.prev;
}

void sp_fmt_spt_calls_read(const sp_fmt_source *src, int64_t first, int64_t n,
                           int64_t *starts, int64_t *ends) {
  /* The context is the caller's, writable: a version-4 cursor lives there. */
  sp_fmt_spt_calls *c = (sp_fmt_spt_calls *)(uintptr_t)src->ctx;
  if (c->zbytes) {
    zcalls_read(c, first, n, starts, ends);
    return;
  }
  int64_t *dst[2] = {starts, ends};
  for (int k = 0; k < 2; k++) {
    size_t want = (size_t)n * 8, got;
    off_t at = (off_t)(c->offset + (k * c->count + first) * 8);
    if (sp__pread_full(c->fd, dst[k], want, at, &got) != 0) {
      *c->failed = errno ? errno : EIO; /* the caller learns it here */
      memset((char *)dst[k] + got, 0, want - got);
    }
    if (c->swap)
      for (int64_t i = 0; i < n; i++)
        dst[k][i] = (int64_t)__builtin_bswap64((uint64_t)dst[k][i]);
  }
}
