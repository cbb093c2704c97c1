/* stream_read.c - the .spts stream reader: indexes a stream's complete
 * records (its torn tail ignored) and serves its calls as sources read from
 * the file in batches; memory grows with records, never with calls. */
#include "sp_common.h"
#include "sp_ctr.h"
#include "sp_hash.h"
#include "sp_profile.h"
#include "sp_rank.h"
#include "sp_stream.h"
#include "sp_sym.h"
#include "sp_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes of the file read at once while indexing: 1 MiB, which stays in
 * cache while it is scanned (indexing 256 MiB here: 4 MiB 0.15 s, 1 MiB
 * 0.07-0.11 s; a mapping of the file scanned at 0.5 GB/s, its 4 KiB pages
 * costly in this VM). Tests and the fuzzer build it with 64 bytes, so
 * records and their fields cross its edges everywhere. */
#ifndef SP_STREAM_WINDOW
#define SP_STREAM_WINDOW ((size_t)1 << 20)
#endif
/* Calls resolved at once by read(): 256 KiB of pairs, to stay in the
 * core's cache between the pread and the copy out (4 Ki to 64 Ki calls
 * measured alike in bench_stream here). */
#ifndef SP_STREAM_BATCH
#define SP_STREAM_BATCH ((int64_t)16384)
#endif

_Static_assert(sizeof(sp_stream_header) == 32, "stream header layout");
_Static_assert(sizeof(sp_stream_rec) == 16, "record head layout");
_Static_assert(sizeof(sp_stream_region) == 24, "REGION layout");
_Static_assert(sizeof(sp_stream_calls) == 32, "CALLS layout");
_Static_assert(sizeof(sp_stream_end) == 24, "ENDS entry layout");
_Static_assert(sizeof(sp_stream_clock) == 16, "CLOCK layout");
_Static_assert(sizeof(sp_stream_meta) == 24, "META layout");
_Static_assert(sizeof(sp_stream_stop) == 16, "STOP layout");
/* Chunks of four words for the check, whole pairs from a CALLS record's
 * payload on, and room for any record's fixed part. */
_Static_assert(SP_STREAM_WINDOW % 32 == 0 && SP_STREAM_WINDOW >= 64,
               "window: a multiple of 32 bytes, at least 64");

/* One CALLS record. Its offset is also its place in stream order. */
typedef struct crec {
  int64_t off; /* file offset of its first pair */
  int64_t first, count;
  int64_t zeros;        /* pairs with start 0 */
  int64_t open;         /* pairs with a start and end 0 */
  uint64_t first_start; /* its first non-zero start; 0 = none */
  int64_t lane;
  int64_t zlen;  /* ZCALLS: bytes of varints at off; 0: pairs at off */
  uint64_t base; /* ZCALLS: the first call's start */
} crec;

/* A ZCALLS record decoded: its pairs, native order. */
typedef struct zcache {
  int64_t off; /* the record's off; -1: none */
  uint64_t *v;
  int64_t cap; /* pairs */
} zcache;

/* An ENDS entry; seq is its own file offset (stream order). */
typedef struct endent {
  int64_t lane; /* -1 while indexing: (thread, region) below */
  int32_t thread, region;
  int64_t index, seq;
  uint64_t end;
} endent;

/* Indices [lo, hi) of one lane that one set of CALLS records covers:
 * rec is the latest of them. */
typedef struct piece {
  int64_t lo, hi, rec;
  int64_t before;       /* calls of the lane in earlier pieces */
  int64_t calls, zeros; /* indices with a start / with start 0 */
  int64_t open;         /* calls without an end */
  uint64_t first_start; /* raw start of its first call; 0 = none */
  int64_t e0, e1;       /* its ENDS entries: s->ends[e0..e1) */
  int32_t multi;        /* more than one record covers it */
  int32_t plain;        /* call k is index lo + k, as the record holds it */
} piece;

/* The calls of one (writer thread, region id). */
typedef struct lane {
  int32_t thread, region;
  int64_t r0, nr; /* its records: s->lrec[r0 .. r0 + nr), by first */
  int64_t p0, np; /* its pieces: s->pieces[p0 .. p0 + np) */
  int64_t e0, ne; /* its ENDS entries, by (index, seq) */
  int64_t calls;
  uint64_t first_start;
} lane;

typedef struct region {
  int32_t id, line;
  char *name, *file;
} region; /* s->regs is in stream order */

/* A MAP record: a loaded object of address regions. */
typedef struct smap {
  char *path;
  unsigned char build_id[SP_STREAM_BUILD_ID_MAX];
  uint32_t nbuild_id;
  uint64_t bias;
} smap;

/* Where a lane is read: the next call's number, piece and index. */
typedef struct cursor {
  int64_t call, piece, index;
} cursor;

/* A lane's share of a merged source: a buffer of its next calls (ns). */
typedef struct mlane {
  int64_t lane;
  int32_t region;
  cursor cur;
  int64_t *s, *e;
  int64_t n, at;
} mlane;

/* One source's state: a single lane read through its cursor, or several
 * lanes (region ids of one name) merged. */
typedef struct ssrc {
  sp_fmt_stream *st;
  int64_t l0, nl; /* s->slanes[l0 .. l0 + nl) */
  int32_t wthread;
  int64_t first_ns;
  const region *loc; /* the REGION record its location comes from */
  cursor cur;
  mlane *m; /* merged sources: allocated at the first read */
  int64_t *heap, nheap;
  int64_t pos; /* calls given out so far */
} ssrc;

struct sp_fmt_stream {
  int fd, swap, clock, flags;
  char *path;
  sp_fmt_stream_info info;
  sp_fmt_meta meta;
  int32_t rank;
  uint64_t last; /* the stream's last stamp (raw) */
  /* TSC: stamps map through (tsc0, mono0) with slope mult (32.32) */
  int nclock;
  uint64_t tsc0, tsc1, mult;
  int64_t mono0, mono1;
  crec *recs;
  int64_t nrecs, caprecs;
  int64_t *lrec; /* record indices grouped by lane */
  lane *lanes;
  int64_t nlanes, caplanes;
  sp__hash lane_ix;
  piece *pieces;
  int64_t npieces;
  endent *ends;
  int64_t nends, capends;
  region *regs;
  int64_t nregs, capregs;
  sp__hash reg_ix;
  char **owned; /* names made up for ids without a REGION record */
  int64_t nowned;
  sp_fmt_source *srcs;
  ssrc *ss;
  int64_t nsrcs;
  int64_t *slanes;         /* lanes of each source, by region id */
  uint64_t *pairs, *older; /* read() scratch: SP_STREAM_BATCH pairs each */
  int64_t *endseq;
  zcache zc[2];        /* fetch(): the record read, an older one */
  unsigned char *zraw; /* a ZCALLS record's bytes */
  size_t zrawcap;
  int failed;
  /* indexing */
  unsigned char *win;
  int64_t woff, wlen;
  size_t wcap;
  const sp_stream_hint *hint; /* the writer's heads, or NULL */
  int64_t nhint, hk;          /* hk: the hint at or before the last need */
  sp_fmt_err *err;
  struct pthread *pth; /* SP_MODE=profile: each thread's paths and frames */
  int64_t npth, cappth;
  /* PATHS and FRAMES records since the last PSNAP, taken in at the next:
   * each a type, a length and the payload (8-byte aligned) */
  unsigned char *pend;
  int64_t npend, cappend;
  int64_t psnaps; /* PSNAP records read */
  /* MPI records (offset of the payload, messages) and COMM records */
  int64_t *mpioff, nmpi, capmpi;
  sp_fmt_mpicomm *comms;
  int64_t ncomms, capcomms;
  int32_t *tmap; /* the writer's thread numbers, ascending (sources') */
  int64_t ntmap;
  int64_t *ctr_off; /* COUNTERS records' payload offsets, in stream order */
  int64_t nctr, capctr;
  uint32_t ctr_n; /* their counters */
  unsigned char ctr_names[SP_STREAM_CTR_MAX * SP_STREAM_CTR_NAME];
  smap *maps; /* MAP records, by object number */
  int64_t nmaps, capmaps;
  sp_stream_addr *addrs; /* ADDR records, in stream order */
  int64_t naddrs, capaddrs;
  char *warn; /* SP_FMT_STREAM_SYMBOLS' lines */
};

static int fail(sp_fmt_stream *s, int64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(sp_fmt_stream *s, int64_t off, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sp_fmt_err_vat(s->err, s->path, off < 0 ? 0 : off, fmt, ap);
  va_end(ap);
  return -1;
}

/* ---- small helpers -------------------------------------------------------
 */

static uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

/* The index stored under an integer key, or -1; with add >= 0, stores add
 * when the key is absent and returns -2 (-3 when out of memory). key_of
 * gives the key of a stored index (the table keeps a tag of the hash). */
static int64_t table_find(sp__hash *t, uint64_t key, int64_t add,
                          uint64_t (*key_of)(const sp_fmt_stream *, int64_t),
                          const sp_fmt_stream *s) {
  sp__hash_it it;
  int64_t ix = sp__hash_first(t, mix(key), &it);
  for (; ix >= 0; ix = sp__hash_next(t, &it))
    if (key_of(s, ix) == key)
      return ix;
  if (add < 0)
    return -1;
  return sp__hash_add(t, &it, add) == 0 ? -2 : -3;
}

static uint64_t pair_key(int32_t thread, int32_t region) {
  return ((uint64_t)(uint32_t)thread << 32) | (uint32_t)region;
}

static uint64_t region_key(const sp_fmt_stream *s, int64_t k) {
  return (uint32_t)s->regs[k].id;
}

static uint64_t lane_key(const sp_fmt_stream *s, int64_t l) {
  return pair_key(s->lanes[l].thread, s->lanes[l].region);
}

static int grow(void **v, int64_t *cap, int64_t n, size_t size) {
  if (n < *cap)
    return 0;
  int64_t c = *cap ? *cap * 2 : 64;
  void *p = realloc(*v, (size_t)c * size);
  if (!p)
    return -1;
  *v = p;
  *cap = c;
  return 0;
}

static uint32_t get32(const sp_fmt_stream *s, const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return s->swap ? __builtin_bswap32(v) : v;
}

static uint64_t get64(const sp_fmt_stream *s, const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return s->swap ? __builtin_bswap64(v) : v;
}

/* pread of exactly n bytes at off; -1 with errno set (EIO: end of file). */
/* All n bytes at off; a file that ends first is EIO ("file shrank"). */
static int pread_all(int fd, void *dst, size_t n, int64_t off) {
  if (sp__pread_full(fd, dst, n, (off_t)off, NULL) == 0)
    return 0;
  if (errno == 0)
    errno = EIO;
  return -1;
}

/* ---- indexing ------------------------------------------------------------
 */

/* The window from the writer's copy of the head of the record holding
 * [at, at + n), if it has one (the index walks forwards): 1 if so. */
static int from_hint(sp_fmt_stream *s, int64_t at, size_t n) {
  while (s->hk + 1 < s->nhint && s->hint[s->hk + 1].off <= at)
    s->hk++;
  const sp_stream_hint *h = &s->hint[s->hk];
  uint32_t size = get32(s, h->head + 4);
  int64_t len = size < SP_STREAM_HINT_HEAD ? size : SP_STREAM_HINT_HEAD;
  if (at < h->off || at + (int64_t)n > h->off + len ||
      h->off + len > s->info.size)
    return 0;
  if (s->wcap < SP_STREAM_HINT_HEAD) {
    unsigned char *w = realloc(s->win, SP_STREAM_HINT_HEAD);
    if (!w)
      return 0;
    s->win = w;
    s->wcap = SP_STREAM_HINT_HEAD;
  }
  memcpy(s->win, h->head, (size_t)len);
  s->woff = h->off;
  s->wlen = len;
  return 1;
}

/* Makes the window hold bytes [at, at + n) of the file, n <= len - at
 * checked by the caller (so a length from the file allocates no more than
 * the file holds). */
static int need(sp_fmt_stream *s, int64_t at, size_t n) {
  if (at >= s->woff && at + (int64_t)n <= s->woff + s->wlen)
    return 0;
  if (s->nhint && from_hint(s, at, n))
    return 0;
  /* A trusted stream's index reads record heads, not calls: a small
   * window keeps it from reading the calls on the way. */
  size_t min = (s->flags & SP_FMT_STREAM_TRUST) && SP_STREAM_WINDOW > 512
                   ? 512
                   : SP_STREAM_WINDOW;
  size_t want = n > min ? n : min;
  if ((int64_t)want > s->info.size - at)
    want = (size_t)(s->info.size - at);
  if (want > s->wcap) {
    unsigned char *w = realloc(s->win, want);
    if (!w)
      return fail(s, at, "out of memory");
    s->win = w;
    s->wcap = want;
  }
  s->woff = at;
  s->wlen = 0;
  if (pread_all(s->fd, s->win, want, at) != 0)
    return fail(s, at, "cannot read: %s",
                errno == EIO ? "file shrank while reading" : strerror(errno));
  s->wlen = (int64_t)want;
  return 0;
}

static const unsigned char *wat(const sp_fmt_stream *s, int64_t at) {
  return s->win + (at - s->woff);
}

/* Why the record at the torn offset is not complete: the first failed
 * rule, kept for the info (and the tools' warning). */
static int torn(sp_fmt_stream *s, int64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int torn(sp_fmt_stream *s, int64_t off, const char *fmt, ...) {
  s->info.torn_offset = off;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->info.torn_what, sizeof s->info.torn_what, fmt, ap);
  va_end(ap);
  return 1;
}

/* The loops over every call: vectorised where AVX2 is there (unsigned
 * 64-bit compares; SSE2 has none), as stats.c does. Indexing is mostly
 * the kernel's copy into the window; these loops took 6-18% of it. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&         \
    !defined(__SANITIZE_ADDRESS__)
#define SP_VECTOR                                                              \
  __attribute__((target_clones("avx2", "default"), optimize("O3")))
#elif defined(__x86_64__) && defined(__clang__) &&                             \
    !defined(__SANITIZE_ADDRESS__)
#define SP_VECTOR __attribute__((target_clones("avx2", "default")))
#else
#define SP_VECTOR
#endif

/* n pairs at v (swap: of the other byte order): *last gets their latest
 * stamp, *zeros the pairs with start 0, *open those with a start but end
 * 0. */
SP_VECTOR static void pair_counts(const uint64_t *restrict v, size_t n,
                                  int swap, uint64_t *last, int64_t *zeros,
                                  int64_t *open) {
  uint64_t mx = *last;
  int64_t z = 0, o = 0;
  if (!swap) {
    for (size_t i = 0; i < n; i++) {
      uint64_t st = v[2 * i], en = v[2 * i + 1];
      z += st == 0;
      o += (st != 0) & (en == 0);
      mx = st > mx ? st : mx;
      mx = en > mx ? en : mx;
    }
  } else {
    for (size_t i = 0; i < n; i++) {
      uint64_t st = __builtin_bswap64(v[2 * i]);
      uint64_t en = __builtin_bswap64(v[2 * i + 1]);
      z += st == 0;
      o += (st != 0) & (en == 0);
      mx = st > mx ? st : mx;
      mx = en > mx ? en : mx;
    }
  }
  *last = mx;
  *zeros += z;
  *open += o;
}

/* m resolved pairs at v to calls in ns (stamps as they are), ends of 0
 * closed at last and clamped to their starts: the common case. */
SP_VECTOR static void pairs_out(const uint64_t *restrict v, int64_t m,
                                uint64_t last, int64_t *restrict os,
                                int64_t *restrict oe) {
  for (int64_t j = 0; j < m; j++) {
    int64_t st = (int64_t)v[2 * j];
    uint64_t e = v[2 * j + 1];
    int64_t en = (int64_t)(e ? e : last);
    os[j] = st;
    oe[j] = en < st ? st : en;
  }
}

/* The payload's words fed to the check and, for CALLS, counted: zeros,
 * open calls, first start, latest stamp. Returns 0 or -1 (read error). */
static int scan_payload(sp_fmt_stream *s, int64_t at, int64_t n,
                        sp_stream_checker *k, crec *c) {
  while (n > 0) {
    /* Chunks start at the payload and every window size after it, so a
     * CALLS record's pairs never straddle two. */
    size_t chunk = n < (int64_t)SP_STREAM_WINDOW ? (size_t)n : SP_STREAM_WINDOW;
    if (need(s, at, chunk) != 0)
      return -1;
    const unsigned char *p = wat(s, at);
    if (k) /* p is 8-aligned: windows start at record or payload offsets */
      sp_stream_check_add(k, (const uint64_t *)(const void *)p, chunk / 8,
                          s->swap);
    if (c) {
      /* Pairs only: the CALLS fixed part is in front of them. */
      int64_t skip = c->off > at ? c->off - at : 0;
      const uint64_t *v = (const uint64_t *)(const void *)(p + skip);
      size_t np = (chunk - (size_t)skip) / 16;
      for (size_t i = 0; i < np && !c->first_start; i++)
        c->first_start = s->swap ? __builtin_bswap64(v[2 * i]) : v[2 * i];
      pair_counts(v, np, s->swap, &s->last, &c->zeros, &c->open);
    }
    at += (int64_t)chunk;
    n -= (int64_t)chunk;
  }
  return 0;
}

/* The n pairs of the ZCALLS varints at p (len bytes, the padding after
 * them included) into z: 0, 1 if they are not n calls and padding, -1
 * when out of memory. */
static int zdecode(const unsigned char *p, int64_t len, int64_t n,
                   uint64_t base, zcache *z) {
  if (n > z->cap) {
    uint64_t *v = realloc(z->v, (size_t)n * 16);
    if (!v)
      return -1;
    z->v = v;
    z->cap = n;
  }
  int64_t used = sp_stream_zdecode(p, (size_t)len, n, base, z->v);
  if (used < 0 || len - used >= 8)
    return 1;
  for (int64_t i = used; i < len; i++)
    if (p[i])
      return 1;
  return 0;
}

/* A ZCALLS record's payload (pl bytes at at, of the record at off):
 * checked unless trusted, decoded and counted as scan_payload counts
 * pairs. 0, 1 (torn: err says why) or -1. */
static int zscan(sp_fmt_stream *s, int64_t off, int64_t at, int64_t pl,
                 uint64_t check, crec *c) {
  if (need(s, at, (size_t)pl) != 0)
    return -1;
  const unsigned char *p = wat(s, at);
  if (!(s->flags & SP_FMT_STREAM_TRUST) &&
      sp_stream_check_words(SP_STREAM_ZCALLS, (uint32_t)pl + 16,
                            (const uint64_t *)(const void *)p, (size_t)pl / 8,
                            s->swap) != check)
    return torn(s, off, "ZCALLS record fails its check");
  zcache *z = &s->zc[0];
  z->off = -1;
  int rc = zdecode(p + sizeof(sp_stream_zcalls), c->zlen, c->count, c->base, z);
  if (rc < 0)
    return fail(s, off, "out of memory");
  if (rc)
    return torn(s, off, "ZCALLS record: its bytes are not %lld calls",
                (long long)c->count);
  for (int64_t i = 0; i < c->count && !c->first_start; i++)
    c->first_start = z->v[2 * i];
  pair_counts(z->v, (size_t)c->count, 0, &s->last, &c->zeros, &c->open);
  return 0;
}

/* Pairs [i, i + m) of record r into out, native order: 0 or an errno. A
 * ZCALLS record is decoded whole into cache slot k, which keeps it for
 * the next batches of the same record. */
static int rec_pairs(sp_fmt_stream *s, const crec *r, int64_t i, int64_t m,
                     uint64_t *out, int k) {
  if (!r->zlen) {
    if (pread_all(s->fd, out, (size_t)m * 16, r->off + (i - r->first) * 16))
      return errno;
    if (s->swap)
      for (int64_t j = 0; j < 2 * m; j++)
        out[j] = __builtin_bswap64(out[j]);
    return 0;
  }
  zcache *z = &s->zc[k];
  if (z->off != r->off) {
    z->off = -1;
    if ((size_t)r->zlen > s->zrawcap) {
      unsigned char *b = realloc(s->zraw, (size_t)r->zlen);
      if (!b)
        return ENOMEM;
      s->zraw = b;
      s->zrawcap = (size_t)r->zlen;
    }
    if (pread_all(s->fd, s->zraw, (size_t)r->zlen, r->off))
      return errno;
    int rc = zdecode(s->zraw, r->zlen, r->count, r->base, z);
    if (rc)
      return rc < 0 ? ENOMEM : EILSEQ;
    z->off = r->off;
  }
  memcpy(out, z->v + 2 * (i - r->first), (size_t)m * 16);
  return 0;
}

static int has_nul(const unsigned char *p, size_t n) {
  return n && memchr(p, 0, n) != NULL;
}

static char *dup_bytes(const unsigned char *p, size_t n) {
  char *c = malloc(n + 1);
  if (c) {
    memcpy(c, p, n);
    c[n] = 0;
  }
  return c;
}

static int64_t pad8(int64_t n) { return (n + 7) & ~(int64_t)7; }

/* ---- SP_MODE=profile: a thread's call paths and open calls, raw ---- */
typedef struct pnode {
  int32_t parent, region;
  uint64_t calls, total, excl, min, max, sq_lo, sq_hi, first, last, outer;
} pnode;

typedef struct pframe {
  int32_t node, region;
  uint32_t flags;
  uint64_t start, child;
} pframe;

struct pthread {
  int32_t thread;
  pnode *nodes;
  int64_t nnodes, capnodes; /* nnodes: the latest record's total */
  pframe *frames;
  int64_t nframes, capframes;
};

/* A PATHS or FRAMES record's items into its thread's arrays (p: the
 * payload, checked); 0, or -1 when out of memory. */
static int prof_take(sp_fmt_stream *s, uint32_t type, const unsigned char *p) {
  int32_t thread = (int32_t)get32(s, p);
  int64_t first = (int64_t)get64(s, p + 8), count = (int64_t)get64(s, p + 16),
          total = (int64_t)get64(s, p + 24);
  struct pthread *t = NULL;
  for (int64_t i = s->npth; i-- > 0 && !t;)
    if (s->pth[i].thread == thread)
      t = &s->pth[i];
  if (!t) {
    if (grow((void **)&s->pth, &s->cappth, s->npth, sizeof *s->pth))
      return -1;
    t = &s->pth[s->npth++];
    memset(t, 0, sizeof *t);
    t->thread = thread;
  }
  p += sizeof(sp_stream_profile);
  if (type == SP_STREAM_PATHS) {
    while (t->capnodes < total)
      if (grow((void **)&t->nodes, &t->capnodes, t->capnodes, sizeof *t->nodes))
        return -1;
    for (int64_t i = t->nnodes; i < total; i++) {
      memset(&t->nodes[i], 0, sizeof t->nodes[i]);
      t->nodes[i].region = -1; /* none until a record gives it */
    }
    t->nnodes = total;
    for (int64_t i = 0; i < count; i++, p += sizeof(sp_stream_pnode)) {
      pnode *n = &t->nodes[first + i];
      n->parent = (int32_t)get32(s, p);
      n->region = (int32_t)get32(s, p + 4);
      uint64_t *v = &n->calls;
      for (int k = 0; k < 9; k++)
        v[k] = get64(s, p + 8 + 8 * k);
      n->outer = get64(s, p + 88);
    }
    return 0;
  }
  if (first == 0)
    t->nframes = 0;
  while (t->capframes < total)
    if (grow((void **)&t->frames, &t->capframes, t->capframes,
             sizeof *t->frames))
      return -1;
  for (int64_t i = 0; i < count; i++, p += sizeof(sp_stream_pframe)) {
    pframe *f = &t->frames[first + i];
    f->node = (int32_t)get32(s, p);
    f->region = (int32_t)get32(s, p + 4);
    f->flags = get32(s, p + 8);
    f->start = get64(s, p + 16);
    f->child = get64(s, p + 24);
  }
  if (first + count > t->nframes)
    t->nframes = first + count;
  return 0;
}

/* A PATHS or FRAMES record's payload (pl bytes at p) kept for the next
 * PSNAP record; 0, or -1 when out of memory. */
static int prof_keep(sp_fmt_stream *s, uint32_t type, const unsigned char *p,
                     int64_t pl) {
  int64_t want = s->npend + 8 + pl;
  while (s->cappend < want)
    if (grow((void **)&s->pend, &s->cappend, s->cappend, 1))
      return -1;
  uint32_t head[2] = {type, (uint32_t)pl};
  memcpy(s->pend + s->npend, head, 8);
  memcpy(s->pend + s->npend + 8, p, (size_t)pl);
  s->npend = want;
  return 0;
}

/* The kept records into the threads' arrays (a snapshot complete). */
static int prof_commit(sp_fmt_stream *s) {
  for (int64_t at = 0; at < s->npend;) {
    uint32_t head[2];
    memcpy(head, s->pend + at, 8);
    if (prof_take(s, head[0], s->pend + at + 8))
      return -1;
    at += 8 + (int64_t)head[1];
  }
  s->npend = 0;
  return 0;
}

/* One record being indexed: its head, and what each phase of record()
 * learns of its fixed fields for the next. */
typedef struct rec_read {
  int64_t off, at, pl; /* the record's offset, its payload's, payload bytes */
  uint32_t type, size;
  uint64_t check;
  size_t fixed;              /* the payload's fixed part */
  const char *what;          /* its type's name, for messages */
  const unsigned char *p;    /* the fixed part, in the window */
  crec c;                    /* CALLS, ZCALLS: the record's calls */
  uint32_t klen, vlen, kind; /* META */
  int64_t ival, count;       /* META's integer; ENDS', PATHS' items */
  int is_calls;
} rec_read;

/* Phase 1: the fixed part's size for the type, and the fixed part in the
 * window. */
static int rec_head(sp_fmt_stream *s, rec_read *r) {
  static const char *const names[] = {
      "REGION", "CALLS", "ENDS", "CLOCK", "META",     "STOP", "PATHS", "FRAMES",
      "ZCALLS", "PSNAP", "MPI",  "COMM",  "COUNTERS", "MAP",  "ADDR"};
  uint32_t type = r->type;
  /* MAP and ADDR after COUNTERS in names[], apart in numbers */
  uint32_t ix =
      type >= SP_STREAM_MAP ? type - SP_STREAM_MAP + 13 : (type & 0xffff) - 1;
  r->fixed = type == SP_STREAM_REGION     ? sizeof(sp_stream_region)
             : type == SP_STREAM_CALLS    ? sizeof(sp_stream_calls)
             : type == SP_STREAM_ZCALLS   ? sizeof(sp_stream_zcalls)
             : type == SP_STREAM_ENDS     ? 8
             : type == SP_STREAM_CLOCK    ? sizeof(sp_stream_clock)
             : type == SP_STREAM_META     ? sizeof(sp_stream_meta)
             : type == SP_STREAM_STOP     ? sizeof(sp_stream_stop)
             : type == SP_STREAM_PSNAP    ? sizeof(sp_stream_psnap)
             : type == SP_STREAM_MPI      ? sizeof(sp_stream_mpi)
             : type == SP_STREAM_COMM     ? sizeof(sp_stream_comm)
             : type == SP_STREAM_COUNTERS ? sizeof(sp_stream_counters)
             : type == SP_STREAM_MAP      ? sizeof(sp_stream_map)
             : type == SP_STREAM_ADDR     ? sizeof(sp_stream_addr)
                                          : sizeof(sp_stream_profile);
  r->what = names[ix];
  r->is_calls = type == SP_STREAM_CALLS || type == SP_STREAM_ZCALLS;
  if (r->pl < (int64_t)r->fixed)
    return torn(s, r->off, "%s record of %u bytes is shorter than %zu", r->what,
                r->size, r->fixed + 16);
  if (need(s, r->at, r->fixed) != 0)
    return -1;
  r->p = wat(s, r->at);
  return 0;
}

/* CALLS and ZCALLS: the calls the fixed part describes; *want gets the
 * payload bytes they take. */
static int rec_calls_fields(sp_fmt_stream *s, rec_read *r, int64_t *want) {
  const unsigned char *p = r->p;
  crec *c = &r->c;
  int64_t room = r->pl - (int64_t)r->fixed;
  c->lane = pair_key((int32_t)get32(s, p), (int32_t)get32(s, p + 4));
  c->first = (int64_t)get64(s, p + 8);
  c->count = (int64_t)get64(s, p + 16);
  if ((int32_t)get32(s, p) < 0 || (int32_t)get32(s, p + 4) < 0)
    return torn(s, r->off, "CALLS record: negative thread or region id");
  if (c->first < 0 || c->count < 0 || c->first > INT64_MAX - c->count)
    return torn(s, r->off, "CALLS record: calls %lld + %lld out of range",
                (long long)c->first, (long long)c->count);
  c->off = r->at + (int64_t)r->fixed;
  if (r->type == SP_STREAM_ZCALLS) {
    /* two bytes a call at least; decoded whole, so bounded */
    if ((uint64_t)c->count > (uint64_t)room / 2 ||
        r->size > SP_STREAM_ZCALLS_MAX)
      return torn(s, r->off, "ZCALLS record: %lld calls in %u bytes",
                  (long long)c->count, r->size);
    c->zlen = room;
    c->base = get64(s, p + offsetof(sp_stream_zcalls, base));
    *want = r->pl;
    return 0;
  }
  if ((uint64_t)c->count > (uint64_t)room / 16)
    return torn(s, r->off, "CALLS record: %lld calls do not fit in %u bytes",
                (long long)c->count, r->size);
  *want = (int64_t)r->fixed + 16 * c->count;
  return 0;
}

/* Phase 2: the fixed fields, checked for consistency before anything is
 * allocated or the check computed; they must take the payload exactly. */
static int rec_fields(sp_fmt_stream *s, rec_read *r) {
  const unsigned char *p = r->p;
  int64_t fixed = (int64_t)r->fixed, want = fixed, off = r->off;
  int rc = 0;
  switch (r->type) {
  case SP_STREAM_REGION: {
    int32_t id = (int32_t)get32(s, p), line = (int32_t)get32(s, p + 4);
    uint32_t nl = get32(s, p + 8), fl = get32(s, p + 12);
    if (id < 0)
      return torn(s, off, "REGION record: negative region id %d", id);
    if (line < -1)
      return torn(s, off, "REGION record: invalid source line %d", line);
    if (nl == 0)
      return torn(s, off, "REGION record: empty region name");
    want = pad8(fixed + nl + fl);
    break;
  }
  case SP_STREAM_MAP: {
    uint32_t bl = get32(s, p + 4), pl = get32(s, p + 8);
    if (pl == 0)
      return torn(s, off, "MAP record: empty path");
    want = pad8(fixed + (int64_t)bl + (int64_t)pl);
    break;
  }
  case SP_STREAM_ZCALLS:
  case SP_STREAM_CALLS:
    rc = rec_calls_fields(s, r, &want);
    break;
  case SP_STREAM_ENDS:
    r->count = (int64_t)get64(s, p);
    if (r->count < 0 || (uint64_t)r->count > (uint64_t)(r->pl - 8) / 24)
      return torn(s, off, "ENDS record: %lld entries do not fit in %u bytes",
                  (long long)r->count, r->size);
    want = 8 + 24 * r->count;
    break;
  case SP_STREAM_META:
    r->kind = get32(s, p);
    r->klen = get32(s, p + 4);
    r->vlen = get32(s, p + 8);
    r->ival = (int64_t)get64(s, p + 16);
    if (r->kind != 's' && r->kind != 'i')
      return torn(s, off, "META record: unknown kind %u", r->kind);
    if (r->klen == 0)
      return torn(s, off, "META record: empty key");
    if (r->kind == 'i' && r->vlen != 0)
      return torn(s, off, "META record: integer with a %u-byte value", r->vlen);
    want = pad8(fixed + r->klen + r->vlen);
    break;
  case SP_STREAM_PATHS:
  case SP_STREAM_FRAMES: {
    int64_t item = r->type == SP_STREAM_PATHS
                       ? (int64_t)sizeof(sp_stream_pnode)
                       : (int64_t)sizeof(sp_stream_pframe);
    int64_t first = (int64_t)get64(s, p + 8), total = (int64_t)get64(s, p + 24);
    int64_t count = r->count = (int64_t)get64(s, p + 16);
    /* A thread's items in all fit in the file (no record holds more). */
    if ((int32_t)get32(s, p) < 0 || first < 0 || count < 0 ||
        total > INT32_MAX || total > s->info.size / item || first > total ||
        count > total - first ||
        (uint64_t)count > (uint64_t)(r->pl - fixed) / (uint64_t)item)
      return torn(s, off, "%s record: items %lld + %lld of %lld out of range",
                  r->what, (long long)first, (long long)count,
                  (long long)total);
    want = fixed + item * count;
    break;
  }
  case SP_STREAM_MPI:
    r->count = (int64_t)get64(s, p + 8);
    if ((int32_t)get32(s, p) < 0 || r->count < 0 ||
        (uint64_t)r->count >
            (uint64_t)(r->pl - fixed) / sizeof(sp_stream_mpislot))
      return torn(s, off, "MPI record: %lld slots do not fit in %u bytes",
                  (long long)r->count, r->size);
    want = fixed + (int64_t)sizeof(sp_stream_mpislot) * r->count;
    break;
  case SP_STREAM_COMM:
    r->count = (int32_t)get32(s, p + 4);
    if (r->count < 0 || r->count > (r->pl - fixed) / 4)
      return torn(s, off, "COMM record: %lld members do not fit in %u bytes",
                  (long long)r->count, r->size);
    want = pad8(fixed + 4 * r->count);
    break;
  case SP_STREAM_COUNTERS: {
    uint32_t k = get32(s, p + 4);
    int64_t rows = (int64_t)get64(s, p + 8);
    int64_t row = (int64_t)sizeof(sp_stream_ctr_row) + 16 * (int64_t)k;
    int64_t room = r->pl - fixed - (int64_t)k * SP_STREAM_CTR_NAME;
    if ((int32_t)get32(s, p) < 0 || k < 1 || k > SP_STREAM_CTR_MAX ||
        rows < 0 || room < 0 || rows > room / row)
      return torn(s, off, "COUNTERS record: %u counters, %lld rows in %u bytes",
                  k, (long long)rows, r->size);
    want = fixed + (int64_t)k * SP_STREAM_CTR_NAME + rows * row;
    break;
  }
  default:
    break;
  }
  if (rc != 0)
    return rc;
  if (want != r->pl)
    return torn(s, off,
                "%s record: its fields take %lld bytes, its size says %lld",
                r->what, (long long)want + 16, (long long)r->size);
  return 0;
}

/* Phase 3: the whole payload is there; its variable parts (strings, ENDS
 * entries) checked before the check (each is one window load, bounded by
 * the record's size). */
static int rec_contents(sp_fmt_stream *s, rec_read *r) {
  int64_t off = r->off;
  if (r->type == SP_STREAM_MAP) {
    if (need(s, r->at, (size_t)r->pl) != 0)
      return -1;
    const unsigned char *p = r->p = wat(s, r->at);
    uint32_t bl = get32(s, p + 4), pl = get32(s, p + 8);
    if (has_nul(p + r->fixed + bl, pl))
      return torn(s, off, "MAP record: the path holds a NUL byte");
  }
  if (r->type == SP_STREAM_REGION || r->type == SP_STREAM_META) {
    if (need(s, r->at, (size_t)r->pl) != 0)
      return -1;
    const unsigned char *p = r->p = wat(s, r->at), *v = p + r->fixed;
    int region = r->type == SP_STREAM_REGION;
    uint32_t a = region ? get32(s, p + 8) : r->klen;
    uint32_t b = region ? get32(s, p + 12) : r->vlen;
    if (has_nul(v, a) || has_nul(v + a, b))
      return torn(s, off, "%s record: a string holds a NUL byte", r->what);
    if (!region && r->klen == 4 && memcmp(v, "rank", 4) == 0 &&
        (r->kind != 'i' || r->ival < 0 || r->ival > INT32_MAX))
      return torn(s, off, "META record: rank is not an integer 0..%d",
                  INT32_MAX);
  }
  if (r->type == SP_STREAM_COUNTERS) {
    uint32_t k = get32(s, r->p + 4);
    size_t nb = (size_t)k * SP_STREAM_CTR_NAME;
    if (need(s, r->at + (int64_t)r->fixed, nb) != 0)
      return -1;
    const unsigned char *v = wat(s, r->at + (int64_t)r->fixed);
    for (uint32_t i = 0; i < k; i++) {
      const unsigned char *nm = v + (size_t)i * SP_STREAM_CTR_NAME;
      if (!nm[0] || !memchr(nm, 0, SP_STREAM_CTR_NAME))
        return torn(s, off, "COUNTERS record: counter %u has no name", i);
    }
    if (s->ctr_n && (k != s->ctr_n || memcmp(v, s->ctr_names, nb) != 0))
      return torn(s, off, "COUNTERS record: counters differ from the first's");
    if (need(s, r->at, r->fixed) != 0) /* back to the fixed part */
      return -1;
    r->p = wat(s, r->at);
  }
  if (r->type == SP_STREAM_ENDS) {
    for (int64_t i = 0; i < r->count; i++) {
      int64_t e = r->at + 8 + 24 * i;
      if (need(s, e, 24) != 0)
        return -1;
      const unsigned char *q = wat(s, e);
      if ((int32_t)get32(s, q) < 0 || (int32_t)get32(s, q + 4) < 0 ||
          (int64_t)get64(s, q + 8) < 0)
        return torn(s, off, "ENDS record: entry %lld is negative",
                    (long long)i);
    }
  }
  return 0;
}

/* Phase 4: the check, and a CALLS record's first start and pair counts.
 * Trusted: a CALLS record has no start of 0 unless marked partial (its
 * first start is its first pair's; open ends are closed at the STOP
 * record's stamp, the latest); else its pairs are counted. */
static int rec_verify(sp_fmt_stream *s, rec_read *r) {
  crec *c = &r->c;
  int trust = !!(s->flags & SP_FMT_STREAM_TRUST);
  int trusted_calls =
      trust && r->is_calls && !(get64(s, r->p + 24) & SP_STREAM_CALLS_PARTIAL);
  if (trusted_calls && c->count > 0 && c->zlen) {
    c->first_start = c->base;
  } else if (r->type == SP_STREAM_ZCALLS) {
    return zscan(s, r->off, r->at, r->pl, r->check, c);
  } else if (trusted_calls && c->count > 0) {
    if (need(s, c->off, 16) != 0)
      return -1;
    c->first_start = get64(s, wat(s, c->off));
  } else if (!trust || r->is_calls) {
    sp_stream_checker k;
    sp_stream_check_begin(&k, r->type, r->size);
    uint64_t saved = s->last;
    if (scan_payload(s, r->at, r->pl, trust ? NULL : &k,
                     r->type == SP_STREAM_CALLS ? c : NULL) != 0)
      return -1;
    if (!trust && sp_stream_check_end(&k) != r->check) {
      s->last = saved; /* the stamps of a torn record do not count */
      return torn(s, r->off, "%s record fails its check", r->what);
    }
  }
  return 0;
}

/* A REGION record taken in: the first record of an id wins. */
static int take_region(sp_fmt_stream *s, const rec_read *r) {
  const unsigned char *p = r->p;
  int32_t id = (int32_t)get32(s, p);
  int64_t found = table_find(&s->reg_ix, (uint32_t)id, s->nregs, region_key, s);
  if (found == -3)
    return fail(s, r->off, "out of memory");
  if (found != -2)
    return 0;
  if (need(s, r->at, (size_t)r->pl) != 0)
    return -1;
  p = wat(s, r->at);
  uint32_t nl = get32(s, p + 8), fl = get32(s, p + 12);
  region g = {id, (int32_t)get32(s, p + 4), dup_bytes(p + r->fixed, nl),
              fl ? dup_bytes(p + r->fixed + nl, fl) : NULL};
  if (!g.name || (fl && !g.file) ||
      grow((void **)&s->regs, &s->capregs, s->nregs, sizeof *s->regs)) {
    free(g.name);
    free(g.file);
    return fail(s, r->off, "out of memory");
  }
  s->regs[s->nregs++] = g;
  return 0;
}

static int take_ends(sp_fmt_stream *s, const rec_read *r) {
  for (int64_t i = 0; i < r->count; i++) {
    int64_t e = r->at + 8 + 24 * i;
    if (need(s, e, 24) != 0)
      return -1;
    const unsigned char *q = wat(s, e);
    endent x = {-1,
                (int32_t)get32(s, q),
                (int32_t)get32(s, q + 4),
                (int64_t)get64(s, q + 8),
                e,
                get64(s, q + 16)};
    if (grow((void **)&s->ends, &s->capends, s->nends, sizeof *s->ends))
      return fail(s, r->off, "out of memory");
    s->ends[s->nends++] = x;
    s->last = x.end > s->last ? x.end : s->last;
  }
  return 0;
}

/* A META record: the rank into s->rank, the rest into the metadata. */
static int take_meta(sp_fmt_stream *s, const rec_read *r) {
  if (need(s, r->at, (size_t)r->pl) != 0)
    return -1;
  const unsigned char *p = wat(s, r->at) + r->fixed;
  char *key = dup_bytes(p, r->klen);
  char *val = r->kind == 's' ? dup_bytes(p + r->klen, r->vlen) : NULL;
  int rc = !key || (r->kind == 's' && !val);
  if (!rc && strcmp(key, "rank") == 0)
    s->rank = (int32_t)r->ival;
  else if (!rc)
    rc = r->kind == 's' ? sp_fmt_meta_set_str(&s->meta, key, val)
                        : sp_fmt_meta_set_int(&s->meta, key, r->ival);
  free(key);
  free(val);
  return rc ? fail(s, r->off, "out of memory") : 0;
}

/* A COMM record: a later one of an id replaces it. */
static int take_comm(sp_fmt_stream *s, const rec_read *r) {
  if (need(s, r->at, (size_t)r->pl) != 0)
    return -1;
  const unsigned char *p = wat(s, r->at);
  sp_fmt_mpicomm c = {(int32_t)get32(s, p), (int32_t)r->count, NULL};
  c.members = malloc((size_t)c.size * 4 + 4);
  if (!c.members)
    return fail(s, r->off, "out of memory");
  for (int32_t i = 0; i < c.size; i++)
    c.members[i] = (int32_t)get32(s, p + 8 + 4 * i);
  for (int64_t i = 0; i < s->ncomms; i++)
    if (s->comms[i].id == c.id) {
      free(s->comms[i].members);
      s->comms[i] = c;
      return 0;
    }
  if (grow((void **)&s->comms, &s->capcomms, s->ncomms, sizeof *s->comms)) {
    free(c.members);
    return fail(s, r->off, "out of memory");
  }
  s->comms[s->ncomms++] = c;
  return 0;
}

/* A MAP record, complete and checked: its fields must hold, as a writer
 * makes them; objects are numbered in order. */
static int take_map(sp_fmt_stream *s, const rec_read *r) {
  if (need(s, r->at, (size_t)r->pl) != 0)
    return -1;
  const unsigned char *p = wat(s, r->at);
  int32_t id = (int32_t)get32(s, p);
  uint32_t bl = get32(s, p + 4), pl = get32(s, p + 8);
  if (id != s->nmaps)
    return fail(s, r->off, "MAP record: object %d where object %lld is due", id,
                (long long)s->nmaps);
  if (bl > SP_STREAM_BUILD_ID_MAX)
    return fail(s, r->off, "MAP record: a build-id of %u bytes (at most %d)",
                bl, SP_STREAM_BUILD_ID_MAX);
  if (grow((void **)&s->maps, &s->capmaps, s->nmaps, sizeof *s->maps))
    return fail(s, r->off, "out of memory");
  smap *m = &s->maps[s->nmaps];
  memset(m, 0, sizeof *m);
  if (!(m->path = dup_bytes(p + r->fixed + bl, pl)))
    return fail(s, r->off, "out of memory");
  memcpy(m->build_id, p + r->fixed, bl);
  m->nbuild_id = bl;
  m->bias = get64(s, p + 16);
  s->nmaps++;
  return 0;
}

/* An ADDR record: its object must be one a MAP record gave before. */
static int take_addr(sp_fmt_stream *s, const rec_read *r) {
  const unsigned char *p = r->p;
  sp_stream_addr a = {(int32_t)get32(s, p), (int32_t)get32(s, p + 4),
                      (int32_t)get32(s, p + 8), get32(s, p + 12),
                      get64(s, p + 16)};
  if (a.region < 0 || a.kind < 0 || a.kind > 127 ||
      (a.flags & ~SP_STREAM_ADDR_UNNAMED))
    return fail(s, r->off, "ADDR record: region %d, kind %d, flags %u",
                a.region, a.kind, a.flags);
  if (a.map < 0 || a.map >= s->nmaps)
    return fail(s, r->off,
                "ADDR record: region %d in object %d, which no MAP record "
                "before it gives",
                a.region, a.map);
  if (grow((void **)&s->addrs, &s->capaddrs, s->naddrs, sizeof *s->addrs))
    return fail(s, r->off, "out of memory");
  s->addrs[s->naddrs++] = a;
  return 0;
}

/* Phase 5: the complete record taken in. */
static int rec_take(sp_fmt_stream *s, rec_read *r) {
  if (need(s, r->at,
           !r->is_calls && (size_t)r->pl < SP_STREAM_WINDOW ? (size_t)r->pl
                                                            : r->fixed) != 0)
    return -1;
  const unsigned char *p = r->p = wat(s, r->at);
  switch (r->type) {
  case SP_STREAM_REGION:
    return take_region(s, r);
  case SP_STREAM_MAP:
    return take_map(s, r);
  case SP_STREAM_ADDR:
    return take_addr(s, r);
  case SP_STREAM_CALLS:
  case SP_STREAM_ZCALLS:
    if (grow((void **)&s->recs, &s->caprecs, s->nrecs, sizeof *s->recs))
      return fail(s, r->off, "out of memory");
    s->recs[s->nrecs++] = r->c;
    return 0;
  case SP_STREAM_ENDS:
    return take_ends(s, r);
  case SP_STREAM_CLOCK: {
    uint64_t stamp = get64(s, p);
    int64_t mono = (int64_t)get64(s, p + 8);
    if (s->nclock++ == 0) {
      s->tsc0 = stamp;
      s->mono0 = mono;
    }
    s->tsc1 = stamp;
    s->mono1 = mono;
    s->last = stamp > s->last ? stamp : s->last;
    return 0;
  }
  case SP_STREAM_META:
    return take_meta(s, r);
  case SP_STREAM_PATHS:
  case SP_STREAM_FRAMES:
    if (need(s, r->at, (size_t)r->pl) != 0)
      return -1;
    return prof_keep(s, r->type, wat(s, r->at), r->pl)
               ? fail(s, r->off, "out of memory")
               : 0;
  case SP_STREAM_MPI:
    if (grow((void **)&s->mpioff, &s->capmpi, s->nmpi, sizeof *s->mpioff))
      return fail(s, r->off, "out of memory");
    s->mpioff[s->nmpi++] = r->at;
    return 0;
  case SP_STREAM_COMM:
    return take_comm(s, r);
  case SP_STREAM_COUNTERS: {
    uint32_t k = get32(s, p + 4);
    if (!s->ctr_n) {
      size_t nb = (size_t)k * SP_STREAM_CTR_NAME;
      if (need(s, r->at + (int64_t)r->fixed, nb) != 0)
        return -1;
      memcpy(s->ctr_names, wat(s, r->at + (int64_t)r->fixed), nb);
      s->ctr_n = k;
    }
    if (grow((void **)&s->ctr_off, &s->capctr, s->nctr, sizeof *s->ctr_off))
      return fail(s, r->off, "out of memory");
    s->ctr_off[s->nctr++] = r->at;
    return 0;
  }
  case SP_STREAM_PSNAP: {
    uint64_t stamp = get64(s, p);
    s->psnaps++;
    s->last = stamp > s->last ? stamp : s->last;
    return prof_commit(s) ? fail(s, r->off, "out of memory") : 0;
  }
  default: { /* STOP */
    uint64_t stamp = get64(s, p);
    if (prof_commit(s)) /* a stream from before PSNAP records */
      return fail(s, r->off, "out of memory");
    s->info.stopped = 1;
    s->info.stop_cause = (int32_t)get32(s, p + 8);
    s->last = stamp > s->last ? stamp : s->last;
    return 0;
  }
  }
}

/* The record at off of type/size (head checked) whose payload fits in the
 * file: 0 if complete and indexed, 1 if it starts the torn tail, -1 on a
 * failure (err says it). Each phase returns the same way; 0 goes on. */
static int record(sp_fmt_stream *s, int64_t off, uint32_t type, uint32_t size,
                  uint64_t check) {
  rec_read r = {.off = off,
                .at = off + 16,
                .pl = (int64_t)size - 16,
                .type = type,
                .size = size,
                .check = check};
  int rc = rec_head(s, &r);
  if (rc == 0)
    rc = rec_fields(s, &r);
  if (rc == 0)
    rc = rec_contents(s, &r);
  if (rc == 0)
    rc = rec_verify(s, &r);
  return rc == 0 ? rec_take(s, &r) : rc;
}

static int known_type(uint32_t t) {
  return (t >= SP_STREAM_REGION && t <= SP_STREAM_COUNTERS) ||
         t == SP_STREAM_MAP || t == SP_STREAM_ADDR;
}

/* Every record from offset 32 on, up to the end or the torn tail. */
static int index_records(sp_fmt_stream *s) {
  int64_t off = 32, len = s->info.size;
  while (off < len) {
    if (len - off < 16) {
      torn(s, off, "record head cut short (%lld of 16 bytes)",
           (long long)(len - off));
      break;
    }
    if (need(s, off, 16) != 0)
      return -1;
    const unsigned char *h = wat(s, off);
    uint32_t type = get32(s, h), size = get32(s, h + 4);
    uint64_t check = get64(s, h + 8);
    if (!known_type(type)) {
      torn(s, off, "unknown record type 0x%08x", type);
      break;
    }
    if (size < 16 || size % 8 != 0) {
      torn(s, off, "record size %u is not a multiple of 8 from 16 on", size);
      break;
    }
    if ((int64_t)size > len - off) {
      torn(s, off, "record of %u bytes cut short (%lld left)", size,
           (long long)(len - off));
      break;
    }
    int rc = record(s, off, type, size, check);
    if (rc < 0)
      return -1;
    if (rc > 0)
      break;
    off += size;
  }
  return 0;
}

/* ---- lanes, pieces, sources ----------------------------------------------
 */

/* Index arrays are sorted with glibc's (and musl's) qsort_r: the records
 * or lanes they index come as its context, so no file-scope state holds
 * a stream and two streams may be read at once. */
static int by_lane_first(const void *a, const void *b, void *ctx) {
  const crec *recs = ctx, *x = &recs[*(const int64_t *)a],
             *y = &recs[*(const int64_t *)b];
  if (x->lane != y->lane)
    return x->lane < y->lane ? -1 : 1;
  if (x->first != y->first)
    return x->first < y->first ? -1 : 1;
  return x->off < y->off ? -1 : (x->off > y->off);
}

static int by_lane_index(const void *a, const void *b) {
  const endent *x = a, *y = b;
  if (x->lane != y->lane)
    return x->lane < y->lane ? -1 : 1;
  if (x->index != y->index)
    return x->index < y->index ? -1 : 1;
  return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

/* Lanes from the records: crec.lane holds (thread, region) until here. */
static int make_lanes(sp_fmt_stream *s) {
  for (int64_t i = 0; i < s->nrecs; i++) {
    crec *c = &s->recs[i];
    uint64_t key = (uint64_t)c->lane;
    int64_t l = table_find(&s->lane_ix, key, s->nlanes, lane_key, s);
    if (l == -3 || (l == -2 && grow((void **)&s->lanes, &s->caplanes, s->nlanes,
                                    sizeof *s->lanes)))
      return fail(s, 32, "out of memory");
    if (l == -2) {
      l = s->nlanes++;
      s->lanes[l] = (lane){.thread = (int32_t)(key >> 32),
                           .region = (int32_t)(uint32_t)key};
    }
    c->lane = l;
    s->lanes[l].nr++;
  }
  s->lrec = malloc((size_t)(s->nrecs ? s->nrecs : 1) * sizeof *s->lrec);
  if (!s->lrec)
    return fail(s, 32, "out of memory");
  for (int64_t i = 0; i < s->nrecs; i++)
    s->lrec[i] = i;
  qsort_r(s->lrec, (size_t)s->nrecs, sizeof *s->lrec, by_lane_first, s->recs);
  for (int64_t i = 0, l = -1; i < s->nrecs; i++)
    if (s->recs[s->lrec[i]].lane != l) {
      l = s->recs[s->lrec[i]].lane;
      s->lanes[l].r0 = i;
    }
  /* ENDS entries of lanes that exist, by lane, index, stream order. */
  int64_t k = 0;
  for (int64_t i = 0; i < s->nends; i++) {
    endent *e = &s->ends[i];
    int64_t l = table_find(&s->lane_ix, pair_key(e->thread, e->region), -1,
                           lane_key, s);
    if (l < 0)
      continue; /* no call of it was written: nothing to end */
    e->lane = l;
    s->ends[k++] = *e;
  }
  s->nends = k;
  if (k > 0)
    qsort(s->ends, (size_t)k, sizeof *s->ends, by_lane_index);
  for (int64_t i = 0; i < k; i++) {
    lane *L = &s->lanes[s->ends[i].lane];
    if (L->ne++ == 0)
      L->e0 = i;
  }
  return 0;
}

/* Records by their end, for the sweep over an overlapping lane. */
static int by_end(const void *a, const void *b, void *ctx) {
  const crec *recs = ctx, *x = &recs[*(const int64_t *)a],
             *y = &recs[*(const int64_t *)b];
  int64_t ex = x->first + x->count, ey = y->first + y->count;
  return ex < ey ? -1 : (ex > ey);
}

static int add_piece(sp_fmt_stream *s, int64_t *cap, piece p) {
  if (grow((void **)&s->pieces, cap, s->npieces, sizeof *s->pieces))
    return fail(s, 32, "out of memory");
  s->pieces[s->npieces++] = p;
  return 0;
}

/* Max-heap of record indices by offset (the latest on top). */
static void heap_push(const crec *r, int64_t *h, int64_t *n, int64_t x) {
  int64_t i = (*n)++;
  while (i > 0 && r[h[(i - 1) / 2]].off < r[x].off) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = x;
}

static void heap_pop(const crec *r, int64_t *h, int64_t *n) {
  int64_t x = h[--*n], i = 0;
  for (;;) {
    int64_t c = 2 * i + 1;
    if (c >= *n)
      break;
    if (c + 1 < *n && r[h[c + 1]].off > r[h[c]].off)
      c++;
    if (r[h[c]].off <= r[x].off)
      break;
    h[i] = h[c];
    i = c;
  }
  if (*n)
    h[i] = x;
}

/* A lane's pieces: its records themselves when none overlaps another (the
 * runtime's case); else the intervals between all their bounds, each
 * taken by the latest record covering it (a sweep, n log n). */
static int make_pieces(sp_fmt_stream *s, int64_t l, int64_t *cap) {
  lane *L = &s->lanes[l];
  const int64_t *lr = s->lrec + L->r0;
  L->p0 = s->npieces;
  int overlap = 0;
  int64_t reach = 0;
  for (int64_t i = 0; i < L->nr; i++) {
    const crec *c = &s->recs[lr[i]];
    if (c->count == 0)
      continue;
    overlap |= c->first < reach;
    reach = c->first + c->count > reach ? c->first + c->count : reach;
  }
  if (!overlap) {
    for (int64_t i = 0; i < L->nr; i++) {
      const crec *c = &s->recs[lr[i]];
      if (c->count > 0 && add_piece(s, cap,
                                    (piece){.lo = c->first,
                                            .hi = c->first + c->count,
                                            .rec = lr[i]}) != 0)
        return -1;
    }
  } else {
    int64_t *byend = malloc((size_t)L->nr * sizeof *byend);
    int64_t *heap = malloc((size_t)L->nr * sizeof *heap);
    if (!byend || !heap) {
      free(byend);
      free(heap);
      return fail(s, 32, "out of memory");
    }
    memcpy(byend, lr, (size_t)L->nr * sizeof *byend);
    qsort_r(byend, (size_t)L->nr, sizeof *byend, by_end, s->recs);
    int64_t nh = 0, ia = 0, ie = 0, active = 0, rc = 0;
    int64_t at = INT64_MIN;
    for (;;) {
      /* The next bound: the next start or the next end. */
      while (ia < L->nr && s->recs[lr[ia]].count == 0)
        ia++;
      while (ie < L->nr && s->recs[byend[ie]].count == 0)
        ie++;
      if (ia == L->nr && ie == L->nr)
        break;
      int64_t ns = ia < L->nr ? s->recs[lr[ia]].first : INT64_MAX;
      int64_t ne = ie < L->nr
                       ? s->recs[byend[ie]].first + s->recs[byend[ie]].count
                       : INT64_MAX;
      int64_t b = ns < ne ? ns : ne;
      if (active > 0 && at < b) {
        while (s->recs[heap[0]].first + s->recs[heap[0]].count <= at)
          heap_pop(s->recs, heap, &nh); /* ended: lazily dropped */
        if ((rc = add_piece(s, cap,
                            (piece){.lo = at,
                                    .hi = b,
                                    .rec = heap[0],
                                    .multi = active > 1})) != 0)
          break;
      }
      for (; ie < L->nr &&
             s->recs[byend[ie]].first + s->recs[byend[ie]].count == b;
           ie++)
        active -= s->recs[byend[ie]].count > 0;
      for (; ia < L->nr && s->recs[lr[ia]].first == b; ia++)
        if (s->recs[lr[ia]].count > 0) {
          heap_push(s->recs, heap, &nh, lr[ia]);
          active++;
        }
      at = b;
    }
    free(byend);
    free(heap);
    if (rc)
      return -1;
  }
  L->np = s->npieces - L->p0;
  return 0;
}

/* The older records covering piece p, latest first, into *out. */
static int64_t older_records(const sp_fmt_stream *s, const lane *L,
                             const piece *p, int64_t *out) {
  int64_t n = 0;
  int64_t latest = s->recs[p->rec].off;
  for (int64_t i = 0; i < L->nr; i++) {
    const crec *c = &s->recs[s->lrec[L->r0 + i]];
    if (c->first <= p->lo && c->first + c->count >= p->hi && c->off < latest)
      out[n++] = s->lrec[L->r0 + i];
  }
  /* Insertion sort by offset, descending: overlaps are few. */
  for (int64_t i = 1; i < n; i++) {
    int64_t x = out[i], j = i;
    while (j > 0 && s->recs[out[j - 1]].off < s->recs[x].off) {
      out[j] = out[j - 1];
      j--;
    }
    out[j] = x;
  }
  return n;
}

/* Reads the m pairs of indices [i, i + m) of piece p as the overwrite
 * rules resolve them, raw, into s->pairs (start, end interleaved).
 * Returns 0, or an errno. */
static int fetch(sp_fmt_stream *s, const lane *L, const piece *p, int64_t i,
                 int64_t m) {
  const crec *r = &s->recs[p->rec];
  uint64_t *v = s->pairs;
  int rc = rec_pairs(s, r, i, m, v, 0);
  if (rc)
    return rc;
  if (p->plain)
    return 0;
  int64_t *seq = s->endseq;
  int64_t zero_ends = 0;
  for (int64_t j = 0; j < m; j++) {
    seq[j] = v[2 * j + 1] ? r->off : -1;
    zero_ends += v[2 * j + 1] == 0;
  }
  if (p->multi && zero_ends) {
    /* An end of 0 never replaces a known one: the latest older record
     * with a non-zero end gives it. */
    int64_t *older = malloc((size_t)L->nr * sizeof *older);
    if (!older)
      return ENOMEM;
    int64_t no = older_records(s, L, p, older);
    for (int64_t k = 0; k < no && zero_ends; k++) {
      const crec *o = &s->recs[older[k]];
      rc = rec_pairs(s, o, i, m, s->older, 1);
      if (rc) {
        free(older);
        return rc;
      }
      for (int64_t j = 0; j < m; j++) {
        uint64_t e = s->older[2 * j + 1];
        if (seq[j] < 0 && e != 0) {
          v[2 * j + 1] = e;
          seq[j] = o->off;
          zero_ends--;
        }
      }
    }
    free(older);
  }
  /* ENDS entries later than the write that gave the end, or any when
   * there was none; of several, the latest. */
  const endent *e = s->ends + p->e0;
  int64_t lo = 0, hi = p->e1 - p->e0;
  while (lo < hi) { /* the first entry at index >= i */
    int64_t mid = lo + (hi - lo) / 2;
    if (e[mid].index < i)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (int64_t k = lo; k < p->e1 - p->e0 && e[k].index < i + m; k++) {
    int64_t j = e[k].index - i;
    if (e[k].end != 0 && e[k].seq > seq[j]) {
      v[2 * j + 1] = e[k].end;
      seq[j] = e[k].seq;
    }
  }
  return 0;
}

/* Counts a piece that is not one whole record without ENDS entries by
 * reading it: calls, zeros, open calls, first start. */
static int count_piece(sp_fmt_stream *s, const lane *L, piece *p) {
  for (int64_t i = p->lo; i < p->hi;) {
    int64_t m = p->hi - i < SP_STREAM_BATCH ? p->hi - i : SP_STREAM_BATCH;
    int rc = fetch(s, L, p, i, m);
    if (rc)
      return fail(s, s->recs[p->rec].off, "cannot read calls: %s",
                  strerror(rc));
    for (int64_t j = 0; j < m; j++) {
      uint64_t st = s->pairs[2 * j], en = s->pairs[2 * j + 1];
      if (st && !p->first_start)
        p->first_start = st;
      p->zeros += st == 0;
      p->open += st != 0 && en == 0;
    }
    i += m;
  }
  p->calls = p->hi - p->lo - p->zeros;
  return 0;
}

/* Every lane's pieces, counted; lanes' calls and first starts. */
static int make_all_pieces(sp_fmt_stream *s) {
  int64_t cap = 0;
  for (int64_t l = 0; l < s->nlanes; l++)
    if (make_pieces(s, l, &cap) != 0)
      return -1;
  for (int64_t l = 0; l < s->nlanes; l++) {
    lane *L = &s->lanes[l];
    int64_t e = L->e0, eend = L->e0 + L->ne;
    for (int64_t k = 0; k < L->np; k++) {
      piece *p = &s->pieces[L->p0 + k];
      while (e < eend && s->ends[e].index < p->lo)
        e++;
      p->e0 = e;
      while (e < eend && s->ends[e].index < p->hi)
        e++;
      p->e1 = e;
      const crec *r = &s->recs[p->rec];
      int whole =
          !p->multi && p->lo == r->first && p->hi == r->first + r->count;
      p->plain = 0; /* fetch resolves everything while counting */
      if (whole && p->e0 == p->e1) {
        p->zeros = r->zeros;
        p->open = r->open;
        p->first_start = r->first_start;
        p->calls = r->count - r->zeros;
      } else if (count_piece(s, L, p) != 0) {
        return -1;
      }
      p->plain = !p->multi && p->e0 == p->e1 && p->zeros == 0;
      p->before = L->calls;
      L->calls += p->calls;
      if (!L->first_start && p->calls)
        L->first_start = p->first_start;
      s->info.dropped += p->zeros;
      s->info.open_calls += p->open;
    }
  }
  return 0;
}

/* Stamps to CLOCK_MONOTONIC ns: as they are (clock 0), or through the
 * first and last CLOCK records as runtime/src/clock.c maps them; the
 * product is taken modulo 2^128 so hostile stamps cannot overflow. */
static inline int64_t tsc_ns(uint64_t stamp, uint64_t tsc0, uint64_t mult,
                             int64_t mono0) {
  if (stamp >= tsc0) { /* the common case: one 64x64 multiply */
    unsigned __int128 p = (unsigned __int128)(stamp - tsc0) * mult;
    if (!(p >> 127))
      return (int64_t)((uint64_t)(p >> 32) + (uint64_t)mono0);
  }
  __int128 dt = (__int128)stamp - (__int128)tsc0;
  unsigned __int128 prod = (unsigned __int128)dt * mult;
  __int128 q = (__int128)prod >> 32;
  return (int64_t)((uint64_t)q + (uint64_t)mono0);
}

static int64_t conv(const sp_fmt_stream *s, uint64_t stamp) {
  if (s->clock == SP_STREAM_CLOCK_NS)
    return (int64_t)stamp;
  return tsc_ns(stamp, s->tsc0, s->mult, s->mono0);
}

/* floor((stamp - tsc0) * mult / 2^32) + mono0 for stamp - tsc0 in
 * [0, 2^62), in 32-bit halves: (dh 2^32 + dl)(mh 2^32 + ml) / 2^32 is
 * dh mh 2^32 + dh ml + dl mh + floor(dl ml / 2^32), each a 32x32-bit
 * product, which AVX2 multiplies four at a time (the 128-bit product of
 * tsc_ns does not vectorise); modulo 2^64 the same as tsc_ns. */
static inline int64_t tsc_ns_near(uint64_t stamp, uint64_t tsc0, uint64_t mh,
                                  uint64_t ml, int64_t mono0) {
  uint64_t dt = stamp - tsc0, dh = dt >> 32, dl = (uint32_t)dt;
  uint64_t r = ((dh * mh) << 32) + dh * ml + dl * mh + ((dl * ml) >> 32);
  return (int64_t)(r + (uint64_t)mono0);
}

/* pairs_out for TSC stamps (the runtime's clock where the TSC is usable):
 * stamps within 2^62 ticks after the first CLOCK record (decades) go the
 * vectorised way, a batch with any other the exact 128-bit way. */
SP_VECTOR static void pairs_out_tsc(const sp_fmt_stream *s,
                                    const uint64_t *restrict v, int64_t m,
                                    uint64_t last, int64_t *restrict os,
                                    int64_t *restrict oe) {
  const uint64_t tsc0 = s->tsc0, mult = s->mult;
  const uint64_t mh = mult >> 32, ml = (uint32_t)mult;
  const int64_t mono0 = s->mono0;
  uint64_t far = (last - tsc0) | (last < tsc0 ? ~(uint64_t)0 : 0);
  for (int64_t j = 0; j < 2 * m; j++) {
    uint64_t x = v[j];
    far |= x ? (x - tsc0) | (x < tsc0 ? ~(uint64_t)0 : 0) : 0;
  }
  if (!(far >> 62) && mh == 0) {
    /* A counter of 1 GHz or more (every TSC): under one ns a tick, the
     * high half of the multiplier is 0 and two products are left. */
    for (int64_t j = 0; j < m; j++) {
      uint64_t e = v[2 * j + 1];
      int64_t st = tsc_ns_near(v[2 * j], tsc0, 0, ml, mono0);
      int64_t en = tsc_ns_near(e ? e : last, tsc0, 0, ml, mono0);
      os[j] = st;
      oe[j] = en < st ? st : en;
    }
    return;
  }
  if (!(far >> 62)) {
    for (int64_t j = 0; j < m; j++) {
      uint64_t e = v[2 * j + 1];
      int64_t st = tsc_ns_near(v[2 * j], tsc0, mh, ml, mono0);
      int64_t en = tsc_ns_near(e ? e : last, tsc0, mh, ml, mono0);
      os[j] = st;
      oe[j] = en < st ? st : en;
    }
    return;
  }
  for (int64_t j = 0; j < m; j++) {
    uint64_t e = v[2 * j + 1];
    int64_t st = tsc_ns(v[2 * j], tsc0, mult, mono0);
    int64_t en = tsc_ns(e ? e : last, tsc0, mult, mono0);
    os[j] = st;
    oe[j] = en < st ? st : en;
  }
}

static const char *region_name(sp_fmt_stream *s, int32_t id,
                               const region **rg) {
  int64_t k = table_find(&s->reg_ix, (uint32_t)id, -1, region_key, s);
  if (k >= 0) {
    *rg = &s->regs[k];
    return s->regs[k].name;
  }
  *rg = NULL;
  char buf[32];
  snprintf(buf, sizeof buf, "<region %d>", id);
  char *n = strdup(buf);
  char **v = realloc(s->owned, (size_t)(s->nowned + 1) * sizeof *v);
  if (!n || !v) {
    free(n);
    if (v)
      s->owned = v;
    return NULL;
  }
  s->owned = v;
  s->owned[s->nowned++] = n;
  return n;
}

static uint64_t hash_name(int32_t thread, const char *name) {
  return mix(sp__fnv1a(SP__FNV_SEED ^ (uint32_t)thread, name));
}

static int by_src_order(const void *a, const void *b) {
  const sp_fmt_source *x = a, *y = b;
  const ssrc *p = x->ctx, *q = y->ctx;
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  if (p->first_ns != q->first_ns)
    return p->first_ns < q->first_ns ? -1 : 1;
  return strcmp(x->name, y->name);
}

static int by_int32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return x < y ? -1 : (x > y);
}

static int by_lane_region(const void *a, const void *b, void *ctx) {
  const lane *lanes = ctx, *x = &lanes[*(const int64_t *)a],
             *y = &lanes[*(const int64_t *)b];
  return x->region < y->region ? -1 : (x->region > y->region);
}

static void stream_src_read(const sp_fmt_source *src, int64_t first, int64_t n,
                            int64_t *starts, int64_t *ends);

/* Sources: one per (writer thread, name) of lanes with calls; threads
 * renumbered; ordered by thread, first start, name. */
static int make_sources(sp_fmt_stream *s) {
  int64_t nl = 0;
  for (int64_t l = 0; l < s->nlanes; l++)
    nl += s->lanes[l].calls > 0;
  size_t cnt = nl ? (size_t)nl : 1;
  s->srcs = calloc(cnt, sizeof *s->srcs);
  s->ss = calloc(cnt, sizeof *s->ss);
  s->slanes = malloc(cnt * sizeof *s->slanes);
  int64_t *src_of = malloc(cnt * sizeof *src_of); /* per listed lane */
  int64_t *lanes = malloc(cnt * sizeof *lanes);
  int32_t *threads = malloc(cnt * sizeof *threads);
  sp__hash names = {0};
  int rc = -1;
  if (!s->srcs || !s->ss || !s->slanes || !src_of || !lanes || !threads)
    goto oom;
  int64_t k = 0;
  for (int64_t l = 0; l < s->nlanes; l++)
    if (s->lanes[l].calls > 0) {
      lanes[k] = l;
      threads[k++] = s->lanes[l].thread;
    }
  /* Group lanes by (thread, name). */
  for (int64_t i = 0; i < nl; i++) {
    lane *L = &s->lanes[lanes[i]];
    const region *rg;
    const char *name = region_name(s, L->region, &rg);
    if (!name)
      goto oom;
    sp__hash_it it;
    int64_t found = sp__hash_first(&names, hash_name(L->thread, name), &it);
    for (; found >= 0; found = sp__hash_next(&names, &it))
      if (s->ss[found].wthread == L->thread &&
          strcmp(s->srcs[found].name, name) == 0)
        break;
    if (found < 0) {
      if (sp__hash_add(&names, &it, s->nsrcs) != 0)
        goto oom;
      found = s->nsrcs++;
      sp_fmt_source *o = &s->srcs[found];
      o->name = name;
      o->line = -1;
      o->read = stream_src_read;
      o->ctx = &s->ss[found];
      s->ss[found] = (ssrc){.st = s, .wthread = L->thread};
    }
    /* Of its ids' REGION records, the first in stream order that has a
     * location gives it (as a .spt's first known location is kept). */
    ssrc *x = &s->ss[found];
    if (rg && (rg->file || rg->line != -1) && (!x->loc || rg < x->loc)) {
      x->loc = rg;
      s->srcs[found].file = rg->file;
      s->srcs[found].line = rg->line;
    }
    src_of[i] = found;
    s->ss[found].nl++;
    s->srcs[found].count += L->calls;
  }
  for (int64_t i = 0, at = 0; i < s->nsrcs; i++) {
    s->ss[i].l0 = at;
    at += s->ss[i].nl;
    s->ss[i].nl = 0;
  }
  for (int64_t i = 0; i < nl; i++) {
    ssrc *x = &s->ss[src_of[i]];
    s->slanes[x->l0 + x->nl++] = lanes[i];
  }
  /* Threads: the writer's numbers in ascending order, from 0. */
  qsort(threads, (size_t)nl, sizeof *threads, by_int32);
  int64_t nt = 0;
  for (int64_t i = 0; i < nl; i++)
    if (i == 0 || threads[i] != threads[i - 1])
      threads[nt++] = threads[i];
  s->info.threads = (int32_t)nt;
  s->tmap = threads;
  s->ntmap = nt;
  threads = NULL;
  for (int64_t i = 0; i < s->nsrcs; i++) {
    ssrc *x = &s->ss[i];
    qsort_r(s->slanes + x->l0, (size_t)x->nl, sizeof *s->slanes, by_lane_region,
            s->lanes);
    const int32_t *t =
        bsearch(&x->wthread, s->tmap, (size_t)nt, sizeof *s->tmap, by_int32);
    s->srcs[i].thread = (int32_t)(t - s->tmap);
    for (int64_t j = 0; j < x->nl; j++) {
      int64_t f = conv(s, s->lanes[s->slanes[x->l0 + j]].first_start);
      if (j == 0 || f < x->first_ns)
        x->first_ns = f;
    }
    s->info.calls += s->srcs[i].count;
  }
  qsort(s->srcs, (size_t)s->nsrcs, sizeof *s->srcs, by_src_order);
  for (int64_t i = 0; i < s->nsrcs; i++)
    s->srcs[i].aux = i;
  rc = 0;
  goto out;
oom:
  fail(s, 32, "out of memory");
out:
  sp__hash_free(&names);
  free(src_of);
  free(lanes);
  free(threads);
  return rc;
}

/* ---- reading calls -------------------------------------------------------
 */

/* Places c at call number `call` of lane L (call <= L->calls). */
static int seek_lane(sp_fmt_stream *s, const lane *L, cursor *c, int64_t call) {
  const piece *p = s->pieces + L->p0;
  int64_t lo = 0, hi = L->np;
  while (hi - lo > 1) { /* the last piece with before <= call */
    int64_t mid = lo + (hi - lo) / 2;
    if (p[mid].before <= call)
      lo = mid;
    else
      hi = mid;
  }
  c->call = call;
  c->piece = lo;
  if (L->np == 0)
    return 0;
  const piece *q = &p[lo];
  int64_t skip = call - q->before;
  if (skip >= q->calls) {
    c->index = q->hi;
    return 0;
  }
  if (q->plain || skip == 0) {
    c->index = q->lo + skip;
    return 0;
  }
  /* Starts of 0 in it: count calls from its start. */
  for (int64_t i = q->lo; i < q->hi;) {
    int64_t m = q->hi - i < SP_STREAM_BATCH ? q->hi - i : SP_STREAM_BATCH;
    int rc = fetch(s, L, q, i, m);
    if (rc)
      return rc;
    for (int64_t j = 0; j < m; j++) {
      if (s->pairs[2 * j] == 0)
        continue;
      if (skip-- == 0) {
        c->index = i + j;
        return 0;
      }
    }
    i += m;
  }
  return EIO; /* the file changed under us */
}

/* The next n calls of lane L from cursor c, in ns, ends closed and
 * clamped. A failure leaves the rest 0 and is returned as an errno. */
static int read_lane(sp_fmt_stream *s, const lane *L, cursor *c, int64_t n,
                     int64_t *starts, int64_t *ends) {
  int64_t got = 0;
  int rc = 0;
  const int tsc = s->clock != SP_STREAM_CLOCK_NS;
  const uint64_t last = s->last;
  while (got < n) {
    if (c->piece >= L->np) {
      rc = EIO;
      break;
    }
    const piece *p = &s->pieces[L->p0 + c->piece];
    if (c->index >= p->hi) {
      if (++c->piece < L->np)
        c->index = s->pieces[L->p0 + c->piece].lo;
      continue;
    }
    int64_t m = p->hi - c->index;
    m = m < n - got ? m : n - got;
    m = m < SP_STREAM_BATCH ? m : SP_STREAM_BATCH;
    if ((rc = fetch(s, L, p, c->index, m)) != 0)
      break;
    const uint64_t *v = s->pairs;
    int64_t *os = starts + got, *oe = ends + got;
    if (p->plain) {
      if (tsc)
        pairs_out_tsc(s, v, m, last, os, oe);
      else
        pairs_out(v, m, last, os, oe);
      got += m;
      c->call += m;
    } else {
      int64_t k = 0;
      for (int64_t j = 0; j < m; j++) {
        uint64_t st = v[2 * j], e = v[2 * j + 1];
        if (!st)
          continue;
        int64_t a = conv(s, st), b = conv(s, e ? e : last);
        os[k] = a;
        oe[k++] = b < a ? a : b;
      }
      got += k;
      c->call += k;
    }
    c->index += m;
  }
  if (got < n) {
    memset(starts + got, 0, (size_t)(n - got) * 8);
    memset(ends + got, 0, (size_t)(n - got) * 8);
  }
  return rc;
}

/* Merge order of two lanes' next calls: start asc, end desc, id asc. */
static int mless(const mlane *a, const mlane *b) {
  int64_t as = a->s[a->at], bs = b->s[b->at];
  if (as != bs)
    return as < bs;
  int64_t ae = a->e[a->at], be = b->e[b->at];
  if (ae != be)
    return ae > be;
  return a->region < b->region;
}

static void msift(ssrc *x, int64_t i) {
  int64_t *h = x->heap, n = x->nheap, v = h[i];
  for (;;) {
    int64_t c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && mless(&x->m[h[c + 1]], &x->m[h[c]]))
      c++;
    if (!mless(&x->m[h[c]], &x->m[v]))
      break;
    h[i] = h[c];
    i = c;
  }
  h[i] = v;
}

/* Refills lane j of a merge when its buffer is used up; 0 when it has no
 * calls left. */
static int mfill(sp_fmt_stream *s, ssrc *x, int64_t j, int64_t cap) {
  mlane *m = &x->m[j];
  if (m->at < m->n)
    return 1;
  const lane *L = &s->lanes[m->lane];
  int64_t k = L->calls - m->cur.call;
  if (k <= 0)
    return 0;
  k = k < cap ? k : cap;
  int rc = read_lane(s, L, &m->cur, k, m->s, m->e);
  if (rc && !s->failed)
    s->failed = rc;
  m->n = k;
  m->at = 0;
  return 1;
}

/* Restarts a merged source at its first call. */
static int mreset(sp_fmt_stream *s, ssrc *x, int64_t cap) {
  if (!x->m) {
    mlane *m = calloc((size_t)x->nl, sizeof *m);
    int64_t *heap = malloc((size_t)x->nl * sizeof *heap);
    int64_t *buf = malloc((size_t)x->nl * (size_t)cap * 16);
    if (!m || !heap || !buf) {
      free(m);
      free(heap);
      free(buf);
      return ENOMEM;
    }
    x->m = m;
    x->heap = heap;
    for (int64_t j = 0; j < x->nl; j++) {
      x->m[j].s = buf + (size_t)j * (size_t)cap * 2;
      x->m[j].e = x->m[j].s + cap;
    }
  }
  x->nheap = 0;
  x->pos = 0;
  for (int64_t j = 0; j < x->nl; j++) {
    mlane *m = &x->m[j];
    m->lane = s->slanes[x->l0 + j];
    m->region = s->lanes[m->lane].region;
    m->n = m->at = 0;
    const lane *L = &s->lanes[m->lane];
    m->cur = (cursor){0, 0, L->np ? s->pieces[L->p0].lo : 0};
    if (mfill(s, x, j, cap))
      x->heap[x->nheap++] = j;
  }
  for (int64_t i = x->nheap / 2; i-- > 0;)
    msift(x, i);
  return 0;
}

/* Per lane of a merge: buffers of 1 MiB of calls in all, at least 16
 * calls each, so many ids of one name stay bounded. */
static int64_t mcap(const ssrc *x) {
  int64_t c = 65536 / x->nl;
  return c < 16 ? 16 : c;
}

static void stream_src_read(const sp_fmt_source *src, int64_t first, int64_t n,
                            int64_t *starts, int64_t *ends) {
  ssrc *x = (ssrc *)src->ctx; /* ours: the stream owns it */
  sp_fmt_stream *s = x->st;
  int rc = 0;
  if (n <= 0)
    return;
  if (first < 0 || n > src->count - first) {
    rc = EINVAL; /* the caller's mistake: n zero calls, and it is said */
    memset(starts, 0, (size_t)n * 8);
    memset(ends, 0, (size_t)n * 8);
  } else if (x->nl == 1) {
    const lane *L = &s->lanes[s->slanes[x->l0]];
    if (x->cur.call != first || first == 0)
      rc = seek_lane(s, L, &x->cur, first);
    if (!rc) {
      rc = read_lane(s, L, &x->cur, n, starts, ends);
      if (rc) {
        x->cur.call = -1; /* seek again next time */
        if (!s->failed)
          s->failed = rc;
      }
      return;
    }
  } else {
    int64_t cap = mcap(x);
    if (!x->m || first < x->pos)
      rc = mreset(s, x, cap);
    /* Calls before first are merged and dropped: reads go forwards. */
    int64_t got = 0;
    while (!rc && x->nheap > 0 && x->pos < first + n) {
      mlane *m = &x->m[x->heap[0]];
      if (x->pos >= first) {
        starts[got] = m->s[m->at];
        ends[got++] = m->e[m->at];
      }
      x->pos++;
      m->at++;
      if (!mfill(s, x, x->heap[0], cap))
        x->heap[0] = x->heap[--x->nheap];
      if (x->nheap)
        msift(x, 0);
    }
    if (!rc && got < n)
      rc = EIO;
    if (rc) {
      memset(starts + got, 0, (size_t)(n - got) * 8);
      memset(ends + got, 0, (size_t)(n - got) * 8);
      free(x->m ? x->m[0].s : NULL);
      free(x->m);
      free(x->heap);
      x->m = NULL;
      x->heap = NULL;
    }
  }
  if (rc) {
    if (x->nl == 1 && rc != EINVAL) {
      memset(starts, 0, (size_t)n * 8);
      memset(ends, 0, (size_t)n * 8);
      x->cur.call = -1;
    }
    if (!s->failed)
      s->failed = rc;
  }
}

/* ---- the API ---------------------------------------------------------------
 */

static int header(sp_fmt_stream *s) {
  int64_t len = s->info.size;
  if (len < 8)
    return fail(s, 0,
                "truncated: expected magic \"" SP_STREAM_MAGIC
                "\" (8 bytes), %lld left",
                (long long)len);
  if (need(s, 0, len < 32 ? (size_t)len : 32) != 0)
    return -1;
  const unsigned char *h = wat(s, 0);
  if (memcmp(h, SP_STREAM_MAGIC, 8) != 0)
    return fail(s, 0, "bad magic: not a ScopeProf .spts stream");
  if (len < 32)
    return fail(s, 8, "truncated: expected stream header (24 bytes), %lld left",
                (long long)len - 8);
  uint32_t bom;
  memcpy(&bom, h + 12, 4);
  if (bom == __builtin_bswap32(SP_STREAM_BOM) && bom != SP_STREAM_BOM)
    s->swap = 1;
  else if (bom != SP_STREAM_BOM)
    return fail(s, 12, "bad byte-order mark 0x%08x", bom);
  uint32_t version = get32(s, h + 8);
  if (version != 1 && version != SP_STREAM_VERSION)
    return fail(s, 8, "unknown stream version %u (supports 1 to %d)", version,
                SP_STREAM_VERSION);
  s->rank = (int32_t)get32(s, h + 16);
  s->info.pid = (int32_t)get32(s, h + 20);
  uint32_t clock = get32(s, h + 24);
  if (clock != SP_STREAM_CLOCK_NS && clock != SP_STREAM_CLOCK_TSC)
    return fail(s, 24, "unknown clock %u (0 = ns, 1 = TSC)", clock);
  s->clock = (int)clock;
  return 0;
}

/* One clock for an MPI job: META records give this process's clock offset
 * to rank 0's, measured at MPI_Init (and at MPI_Finalize), and stamps map
 * onto rank 0's clock, linearly between the two measurements (drift), by
 * the init offset alone without the second (docs/format.md). The map is
 * folded into the CLOCK calibration points: a TSC stream's two get it; an
 * ns stream becomes one mapped through two made-up points, so the per-call
 * paths stay as they are. */
static int meta_i64(const sp_fmt_stream *s, const char *key, int64_t *v) {
  const sp_fmt_meta_item *it = sp_fmt_meta_get(&s->meta, key);
  if (!it || it->type != SP_FMT_META_INT)
    return 0;
  *v = it->i64;
  return 1;
}

typedef struct align_map {
  int64_t oi, ti; /* the init offset and the local time it was measured */
  double k;       /* the offset's change per ns (0: init offset alone) */
} align_map;

static int64_t align_ns(const align_map *a, int64_t t) {
  double d = a->k * (double)(int64_t)((uint64_t)t - (uint64_t)a->ti);
  int64_t di = d > 9e18 ? INT64_MAX : d < -9e18 ? INT64_MIN : (int64_t)d;
  return (int64_t)((uint64_t)t + (uint64_t)a->oi + (uint64_t)di);
}

static void clock_align(sp_fmt_stream *s) {
  align_map a = {0, 0, 0};
  int64_t of, tf;
  if (!meta_i64(s, "clock_offset_init_ns", &a.oi) ||
      !meta_i64(s, "clock_sync_init_ns", &a.ti))
    return;
  /* A drift of half the clock's rate or more is no clock: offsets alone. */
  if (meta_i64(s, "clock_offset_fin_ns", &of) &&
      meta_i64(s, "clock_sync_fin_ns", &tf) && tf != a.ti) {
    double k = ((double)of - (double)a.oi) / ((double)tf - (double)a.ti);
    a.k = k > -0.5 && k < 0.5 ? k : 0;
  }
  if (a.oi == 0 && a.k == 0)
    return;
  if (s->clock == SP_STREAM_CLOCK_TSC) {
    s->mono0 = align_ns(&a, s->mono0);
    s->mono1 = align_ns(&a, s->mono1);
    return;
  }
  const uint64_t span = (uint64_t)1 << 40; /* ns: enough bits of slope */
  uint64_t t0 = s->nclock ? s->tsc0 : (uint64_t)a.ti;
  s->clock = SP_STREAM_CLOCK_TSC;
  s->nclock = 2;
  s->tsc0 = t0;
  s->mono0 = align_ns(&a, (int64_t)t0);
  s->tsc1 = t0 + span;
  s->mono1 = align_ns(&a, (int64_t)(t0 + span));
}

/* TSC streams need two calibration points once there is a call to map. */
static int clock_map(sp_fmt_stream *s) {
  int64_t calls = 0;
  for (int64_t l = 0; l < s->nlanes; l++)
    calls += s->lanes[l].calls;
  if (s->clock == SP_STREAM_CLOCK_NS || calls == 0)
    return 0;
  if (s->nclock < 2 || s->tsc0 == s->tsc1)
    return fail(s, 24,
                "TSC stamps need CLOCK records of two different stamps; "
                "%s",
                s->nclock == 0   ? "the stream has none"
                : s->nclock == 1 ? "the stream has one"
                                 : "its first and last have the same stamp");
  /* As runtime/src/clock.c: a map that would run backwards stays 1:1. */
  if (s->tsc1 <= s->tsc0 || s->mono1 <= s->mono0)
    s->mult = (uint64_t)1 << 32;
  else
    s->mult =
        (uint64_t)(((unsigned __int128)((uint64_t)s->mono1 - (uint64_t)s->mono0)
                    << 32) /
                   (s->tsc1 - s->tsc0));
  return 0;
}

/* SP_FMT_STREAM_SYMBOLS: the regions ADDR records say the process left as
 * addresses, named from their objects' files (the first ADDR record of a
 * region counts). One that stays unnamed because its object's file is
 * missing or another keeps its name and gets the object's path as file. */
static int symbolize(sp_fmt_stream *s) {
  int64_t n = 0;
  sp_fmt_sym_addr *v = calloc((size_t)(s->naddrs ? s->naddrs : 1), sizeof *v);
  int64_t *reg = calloc((size_t)(s->naddrs ? s->naddrs : 1), sizeof *reg);
  sp_fmt_sym_obj *o = calloc((size_t)(s->nmaps ? s->nmaps : 1), sizeof *o);
  unsigned char *seen = calloc((size_t)(s->nregs ? s->nregs : 1), 1);
  int rc = v && reg && o && seen ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < s->naddrs; i++) {
    const sp_stream_addr *a = &s->addrs[i];
    int64_t k = table_find(&s->reg_ix, (uint32_t)a->region, -1, region_key, s);
    if (k < 0 || seen[k])
      continue;
    seen[k] = 1; /* its first ADDR record counts */
    if (!(a->flags & SP_STREAM_ADDR_UNNAMED))
      continue;
    reg[n] = k;
    v[n++] = (sp_fmt_sym_addr){a->kind, a->map, a->addr, NULL, NULL, -1};
  }
  for (int64_t m = 0; rc == 0 && m < s->nmaps; m++)
    o[m] = (sp_fmt_sym_obj){s->maps[m].path, s->maps[m].build_id,
                            s->maps[m].nbuild_id, s->maps[m].bias};
  if (rc == 0 && n > 0)
    rc = sp_fmt_symbolize(o, s->nmaps, v, n,
                          !!(s->flags & SP_FMT_STREAM_SYMBOLS_LOAD), &s->warn);
  for (int64_t i = 0; i < n; i++) {
    region *g = &s->regs[reg[i]];
    if (rc == 0 && v[i].name) {
      free(g->name);
      free(g->file);
      g->name = v[i].name;
      g->file = v[i].file;
      g->line = v[i].file ? v[i].line : -1;
      continue;
    }
    free(v[i].name);
    free(v[i].file);
    if (rc == 0 && !g->file && s->maps[v[i].obj].path &&
        !(g->file = strdup(s->maps[v[i].obj].path)))
      rc = -1;
  }
  free(v);
  free(reg);
  free(o);
  free(seen);
  return rc == 0 ? 0 : fail(s, 32, "out of memory");
}

int sp_fmt_stream_open(const char *path, int flags, sp_fmt_stream **out,
                       sp_fmt_err *err) {
  return sp_fmt_stream_open_hinted(path, flags, NULL, 0, out, err);
}

int sp_fmt_stream_open_hinted(const char *path, int flags,
                              const sp_stream_hint *hint, int64_t nhint,
                              sp_fmt_stream **out, sp_fmt_err *err) {
  *out = NULL;
  sp_fmt_stream *s = calloc(1, sizeof *s);
  if (!s || !(s->path = strdup(path))) {
    free(s);
    sp_fmt_err_set(err, "%s: out of memory", path);
    return -1;
  }
  s->err = err;
  s->flags = flags;
  if ((flags & SP_FMT_STREAM_TRUST) && hint && nhint > 0) {
    s->hint = hint;
    s->nhint = nhint;
  }
  s->info.torn_offset = -1;
  s->zc[0].off = s->zc[1].off = -1;
  s->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  int rc = -1;
  if (s->fd < 0 || fstat(s->fd, &st) != 0) {
    sp_fmt_err_set(err, "%s: %s", path, strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    sp_fmt_err_set(err, "%s: not a regular file", path);
  } else {
    s->info.size = (int64_t)st.st_size;
    s->woff = -1;
    rc = header(s);
  }
  if (rc == 0)
    rc = index_records(s);
  /* A snapshot cut short leaves the previous one; a stream without any
   * PSNAP (cut short in its first) keeps what it has. */
  if (rc == 0 && !s->psnaps && prof_commit(s))
    rc = fail(s, 32, "out of memory");
  free(s->pend);
  s->pend = NULL;
  s->npend = s->cappend = 0;
  free(s->win);
  s->win = NULL;
  s->wcap = 0; /* sp_fmt_stream_counters reads through a window again */
  s->woff = s->wlen = 0;
  s->hint = NULL; /* the caller's: only the index reads it */
  s->nhint = 0;
  if (rc == 0) {
    s->pairs = malloc((size_t)SP_STREAM_BATCH * 16);
    s->older = malloc((size_t)SP_STREAM_BATCH * 16);
    s->endseq = malloc((size_t)SP_STREAM_BATCH * 8);
    if (!s->pairs || !s->older || !s->endseq)
      rc = fail(s, 32, "out of memory");
  }
  if (rc == 0 && (flags & SP_FMT_STREAM_SYMBOLS))
    rc = symbolize(s);
  if (rc == 0)
    rc = make_lanes(s);
  if (rc == 0)
    rc = make_all_pieces(s);
  if (rc == 0) {
    clock_align(s);
    rc = clock_map(s);
  }
  if (rc == 0)
    rc = make_sources(s);
  if (rc == 0 && s->rank < 0)
    rc = fail(s, 16, "negative rank %d", s->rank);
  s->info.rank = s->rank;
  s->err = NULL;
  if (rc != 0) {
    sp_fmt_stream_close(s);
    return -1;
  }
  *out = s;
  return 0;
}

void sp_fmt_stream_get_info(const sp_fmt_stream *s, sp_fmt_stream_info *info) {
  *info = s->info;
}

const char *sp_fmt_stream_warnings(const sp_fmt_stream *s) { return s->warn; }

void sp_fmt_stream_put_warnings(const sp_fmt_stream *s, const char *prog) {
  const char *w = s->warn;
  while (w && *w) {
    const char *nl = strchr(w, '\n');
    int len = nl ? (int)(nl - w) : (int)strlen(w);
    fprintf(stderr, "%s: warning: %.*s\n", prog, len, w);
    w += len + (nl != NULL);
  }
}

const sp_fmt_meta *sp_fmt_stream_meta(const sp_fmt_stream *s) {
  return &s->meta;
}

int64_t sp_fmt_stream_nsources(const sp_fmt_stream *s) { return s->nsrcs; }

const sp_fmt_source *sp_fmt_stream_sources(const sp_fmt_stream *s) {
  return s->srcs;
}

int sp_fmt_stream_failed(const sp_fmt_stream *s) { return s->failed; }

void sp_fmt_stream_close(sp_fmt_stream *s) {
  if (!s)
    return;
  if (s->fd >= 0)
    close(s->fd);
  for (int64_t i = 0; i < s->nsrcs && s->ss; i++) {
    ssrc *x = &s->ss[i];
    free(x->m ? x->m[0].s : NULL);
    free(x->m);
    free(x->heap);
  }
  for (int64_t i = 0; i < s->nregs; i++) {
    free(s->regs[i].name);
    free(s->regs[i].file);
  }
  for (int64_t i = 0; i < s->nowned; i++)
    free(s->owned[i]);
  free(s->owned);
  for (int64_t i = 0; i < s->nmaps; i++)
    free(s->maps[i].path);
  free(s->maps);
  free(s->addrs);
  free(s->warn);
  free(s->regs);
  free(s->mpioff);
  for (int64_t i = 0; i < s->ncomms; i++)
    free(s->comms[i].members);
  free(s->comms);
  free(s->tmap);
  sp__hash_free(&s->reg_ix);
  sp__hash_free(&s->lane_ix);
  free(s->ctr_off);
  free(s->recs);
  free(s->lrec);
  free(s->lanes);
  free(s->pieces);
  free(s->ends);
  free(s->srcs);
  free(s->ss);
  free(s->slanes);
  free(s->pairs);
  free(s->older);
  free(s->zc[0].v);
  free(s->zc[1].v);
  free(s->zraw);
  free(s->endseq);
  free(s->win);
  for (int64_t i = 0; i < s->npth; i++) {
    free(s->pth[i].nodes);
    free(s->pth[i].frames);
  }
  free(s->pth);
  free(s->pend);
  sp_fmt_meta_free(&s->meta);
  free(s->path);
  free(s);
}

/* The message at slot *j of an MPI record's n (buf) into out, *j moved to
 * its last slot; a slot that begins no message (a kind out of range, an
 * ext slot missing or stray) is passed over. -1: out of memory. */
static int take_slot(sp_fmt_stream *s, sp_fmt_mpi *out,
                     const unsigned char *buf, int64_t n, int64_t *j,
                     int32_t thread) {
  const unsigned char *m = buf + *j * 32, *e = NULL;
  uint32_t kw = get32(s, m + 28);
  int32_t kind = SP_MPI_SLOT_KIND(kw);
  if (kw & SP_MPI_SLOT_EXT) {
    if (*j + 1 >= n || get32(s, m + 60) != 0)
      return 0;
    e = m + 32;
    ++*j;
  }
  if (kind < 1 || kind > SP_MPI_K_MAX)
    return 0;
  sp_fmt_mpimsg x;
  const region *rg;
  const char *nm = region_name(s, (int32_t)get32(s, m + 16), &rg);
  x.region = nm ? sp_fmt_mpi_name(out, nm) : -1;
  x.origin_region = -1;
  int32_t oreg = e ? (int32_t)get32(s, e + 16) : -1;
  if (oreg >= 0 && (nm = region_name(s, oreg, &rg)))
    x.origin_region = sp_fmt_mpi_name(out, nm);
  if (x.region < 0 || (oreg >= 0 && x.origin_region < 0))
    return -1;
  uint64_t origin = e ? get64(s, e) : 0;
  int64_t bytes = (int64_t)get64(s, m + 8),
          other = e ? (int64_t)get64(s, e + 8) : 0;
  int in = kind == SP_MPI_K_RECV || kind == SP_MPI_K_IRECV ||
           kind == SP_MPI_K_WAITRECV;
  x.start_ns = conv(s, get64(s, m));
  x.origin_ns = origin ? conv(s, origin) : -1;
  x.thread = thread;
  x.kind = kind;
  x.peer = (int32_t)get32(s, m + 20);
  x.tag = (int32_t)get32(s, m + 24);
  x.comm = e ? (int32_t)get32(s, e + 24) : SP_MPI_SLOT_COMM(kw);
  x.root = e ? (int32_t)get32(s, e + 20) : -1;
  x.sent = in ? other : bytes;
  x.recvd = in ? bytes : other;
  out->msgs[out->nmsgs++] = x;
  return 0;
}

int sp_fmt_stream_mpi(sp_fmt_stream *s, sp_fmt_mpi *out, sp_fmt_err *err) {
  memset(out, 0, sizeof *out);
  unsigned char *buf = NULL;
  int64_t total = 0;
  for (int64_t i = 0; i < s->nmpi; i++) {
    unsigned char h[16];
    if (pread_all(s->fd, h, sizeof h, s->mpioff[i]) != 0)
      goto rd;
    total += (int64_t)get64(s, h + 8);
  }
  out->msgs = malloc((size_t)total * sizeof *out->msgs + 1);
  out->comms = malloc((size_t)s->ncomms * sizeof *out->comms + 1);
  if (!out->msgs || !out->comms)
    goto oom;
  for (int64_t i = 0; i < s->ncomms; i++) {
    sp_fmt_mpicomm c = s->comms[i];
    c.members = malloc((size_t)c.size * 4 + 4);
    if (!c.members)
      goto oom;
    memcpy(c.members, s->comms[i].members, (size_t)c.size * 4);
    int64_t k = out->ncomms++;
    for (; k > 0 && out->comms[k - 1].id > c.id; k--)
      out->comms[k] = out->comms[k - 1];
    out->comms[k] = c;
  }
  for (int64_t i = 0; i < s->nmpi; i++) {
    unsigned char h[16];
    if (pread_all(s->fd, h, sizeof h, s->mpioff[i]) != 0)
      goto rd;
    int32_t wt = (int32_t)get32(s, h);
    int64_t n = (int64_t)get64(s, h + 8);
    const int32_t *t =
        bsearch(&wt, s->tmap, (size_t)s->ntmap, sizeof *s->tmap, by_int32);
    free(buf);
    if (!(buf = malloc((size_t)n * 32 + 1)))
      goto oom;
    if (pread_all(s->fd, buf, (size_t)n * 32, s->mpioff[i] + 16) != 0)
      goto rd;
    /* a thread that made MPI records but no call: not a call of any */
    for (int64_t j = 0; t && j < n; j++)
      if (take_slot(s, out, buf, n, &j, (int32_t)(t - s->tmap)) != 0)
        goto oom;
  }
  free(buf);
  return 0;
rd:
  sp_fmt_err_set(err, "%s: cannot read MPI records: %s", s->path,
                 strerror(errno));
  free(buf);
  sp_fmt_mpi_free(out);
  return -1;
oom:
  sp_fmt_err_set(err, "%s: out of memory", s->path);
  free(buf);
  sp_fmt_mpi_free(out);
  return -1;
}

int sp_fmt_stream_read(const char *path, sp_fmt_rank *out, sp_fmt_err *err) {
  memset(out, 0, sizeof *out);
  sp_fmt_stream *s;
  if (sp_fmt_stream_open(path,
                         SP_FMT_STREAM_SYMBOLS | SP_FMT_STREAM_SYMBOLS_LOAD, &s,
                         err) != 0)
    return -1;
  int64_t n = s->nsrcs;
  size_t cnt = n ? (size_t)n : 1;
  out->rank = s->rank;
  out->blocks = calloc(cnt, sizeof *out->blocks);
  out->regions = calloc(cnt, sizeof *out->regions);
  sp__hash names = {0};
  int rc = out->blocks && out->regions ? 0 : -1;
  if (rc == 0 && sp_fmt_meta_copy(&out->meta, &s->meta) != 0)
    rc = -1;
  for (int64_t i = 0; rc == 0 && i < n; i++) {
    const sp_fmt_source *src = &s->srcs[i];
    /* One region per name: sources of one name on several threads. */
    sp__hash_it it;
    int64_t reg = sp__hash_first(&names, hash_name(0, src->name), &it);
    for (; reg >= 0; reg = sp__hash_next(&names, &it))
      if (strcmp(out->regions[reg].name, src->name) == 0)
        break;
    if (reg < 0) {
      if (sp__hash_add(&names, &it, out->nregions) != 0) {
        rc = -1;
        break;
      }
      reg = out->nregions++;
      sp_fmt_region *rg = &out->regions[reg];
      rg->name = strdup(src->name);
      rg->file = src->file && src->file[0] ? strdup(src->file) : NULL;
      rg->line = src->line;
      if (!rg->name || (src->file && src->file[0] && !rg->file)) {
        rc = -1;
        break;
      }
    } else {
      sp_fmt_region *rg = &out->regions[reg];
      if (!rg->file && rg->line == -1 && src->file && src->file[0]) {
        if (!(rg->file = strdup(src->file))) {
          rc = -1;
          break;
        }
        rg->line = src->line;
      }
    }
    sp_fmt_block *b = &out->blocks[out->nblocks++];
    b->thread = src->thread;
    b->region = (int32_t)reg;
    b->count = src->count;
    b->file_offset = -1;
    b->starts = malloc((size_t)src->count * 8 + 1);
    b->ends = malloc((size_t)src->count * 8 + 1);
    if (!b->starts || !b->ends) {
      rc = -1;
      break;
    }
    src->read(src, 0, src->count, b->starts, b->ends);
  }
  sp__hash_free(&names);
  if (rc != 0)
    sp_fmt_err_set(err, "%s: out of memory", path);
  else if (sp_fmt_stream_mpi(s, &out->mpi, err) != 0)
    rc = -1;
  else if (s->failed) {
    sp_fmt_err_set(err, "%s: cannot read calls: %s", path, strerror(s->failed));
    rc = -1;
  }
  sp_fmt_stream_close(s);
  if (rc != 0) {
    sp_fmt_rank_free(out);
    memset(out, 0, sizeof *out);
  }
  return rc;
}

int sp_fmt_is_stream(const char *path) {
  return sp_fmt_starts_with(path, SP_STREAM_MAGIC);
}

void sp_fmt_stream_describe(const sp_fmt_stream_info *info, const char *path,
                            char *buf, size_t size) {
  char how[64], tail[128] = "";
  if (!info->stopped)
    snprintf(how, sizeof how, "no stop record");
  else if (info->stop_cause == 0)
    snprintf(how, sizeof how, "stopped at finalize");
  else if (info->stop_cause == SP_STREAM_STOP_MPI_ABORT)
    snprintf(how, sizeof how, "saved at MPI_Abort");
  else
    snprintf(how, sizeof how, "ended by signal %d", info->stop_cause);
  if (info->torn_offset >= 0)
    snprintf(tail, sizeof tail, "; torn tail ignored from byte %lld",
             (long long)info->torn_offset);
  snprintf(buf, size,
           "%s: rank %d recovered from a stream: %lld calls (%lld left open), "
           "%s%s",
           path, info->rank, (long long)info->calls,
           (long long)info->open_calls, how, tail);
}

/* ---- SP_MODE=profile: the stream's call paths (sp_profile.h) ---- */

static int by_pthread(const void *a, const void *b) {
  const struct pthread *x = a, *y = b;
  return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/* Open calls end at the stream's last stamp, innermost first: each real
 * call's time leaves its caller's exclusive time; a call past the path
 * bound passes its callees' time up; the others count nothing. */
static int64_t close_frames(pnode *nodes, int64_t nnodes, const pframe *fr,
                            int64_t nfr, uint64_t last) {
  /* A call is outermost when no open call below it is of its node. */
  unsigned char *seen = calloc(nnodes ? (size_t)nnodes : 1, 1);
  unsigned char *outer = calloc(nfr ? (size_t)nfr : 1, 1);
  if (!seen || !outer) {
    free(seen);
    free(outer);
    return -1;
  }
  for (int64_t i = 0; i < nfr; i++)
    if (fr[i].node > 0 && fr[i].node < nnodes && !fr[i].flags) {
      outer[i] = !seen[fr[i].node];
      seen[fr[i].node] = 1;
    }
  uint64_t carry = 0;
  int64_t closed = 0;
  for (int64_t i = nfr; i-- > 0;) {
    const pframe *f = &fr[i];
    if (f->node <= 0 || f->node >= nnodes || f->flags & ~1u ||
        f->start > last) {
      carry = 0;
      continue;
    }
    if (f->flags & 1u) {
      carry += f->child;
      continue;
    }
    pnode *n = &nodes[f->node];
    uint64_t d = last - f->start;
    unsigned __int128 q = (unsigned __int128)d * d, sq;
    sq = ((unsigned __int128)n->sq_hi << 64 | n->sq_lo) + q;
    n->sq_hi = (uint64_t)(sq >> 64);
    n->sq_lo = (uint64_t)sq;
    n->total += d;
    n->excl += d - f->child - carry;
    n->outer += outer[i] ? d : 0;
    n->min = n->calls && n->min < d ? n->min : d;
    n->max = n->calls && n->max > d ? n->max : d;
    n->first = n->calls && n->first < f->start ? n->first : f->start;
    n->last = last;
    n->calls++;
    carry = d;
    closed++;
  }
  free(seen);
  free(outer);
  return closed;
}

int sp_fmt_stream_profile(sp_fmt_stream *s, sp_fmt_profile *out) {
  memset(out, 0, sizeof *out);
  if (!s->npth)
    return 0;
  qsort(s->pth, (size_t)s->npth, sizeof *s->pth, by_pthread);
  long double r = 1;
  if (s->clock != SP_STREAM_CLOCK_NS) {
    if (!s->mult) /* no call, so no map made yet: as clock_map */
      s->mult = s->nclock >= 2 && s->tsc1 > s->tsc0 && s->mono1 > s->mono0
                    ? (uint64_t)(((unsigned __int128)((uint64_t)s->mono1 -
                                                      (uint64_t)s->mono0)
                                  << 32) /
                                 (s->tsc1 - s->tsc0))
                    : (uint64_t)1 << 32;
    r = (long double)s->mult / 4294967296.0L;
  }
  int tsc = s->clock != SP_STREAM_CLOCK_NS;
#define NS(v)                                                                  \
  (tsc ? (int64_t)(((unsigned __int128)(v)*s->mult) >> 32) : (int64_t)(v))
  int64_t total = 0;
  for (int64_t i = 0; i < s->npth; i++)
    total += s->pth[i].nnodes;
  sp__hash names = {0};
  int64_t capregs = 0;
  out->paths = malloc((size_t)(total ? total : 1) * sizeof *out->paths);
  if (!out->paths)
    return -1;
  int32_t thread = 0;
  for (int64_t i = 0; i < s->npth; i++) {
    struct pthread *t = &s->pth[i];
    if (t->nnodes < 2)
      continue;
    pnode *nodes = malloc((size_t)t->nnodes * sizeof *nodes);
    if (!nodes)
      goto oom;
    memcpy(nodes, t->nodes, (size_t)t->nnodes * sizeof *nodes);
    int64_t closed =
        close_frames(nodes, t->nnodes, t->frames, t->nframes, s->last);
    if (closed < 0) {
      free(nodes);
      goto oom;
    }
    out->open_calls += closed;
    /* A path whose record is missing (a stream cut short on a full disk)
     * is left out, and so are the paths under it. */
    int64_t *at = malloc((size_t)t->nnodes * sizeof *at);
    if (!at) {
      free(nodes);
      goto oom;
    }
    at[0] = -1;
    for (int64_t k = 1; k < t->nnodes; k++) {
      const pnode *n = &nodes[k];
      at[k] = -2;
      if (n->region < 0 || n->parent < 0 || n->parent >= k ||
          (n->parent > 0 && at[n->parent] < 0))
        continue;
      at[k] = out->npaths;
      /* The region's index among the names, added when new. */
      const region *rg;
      const char *name = region_name(s, n->region, &rg);
      if (!name)
        goto oom_t;
      sp__hash_it it;
      int64_t j =
          sp__hash_first(&names, mix(sp__fnv1a(SP__FNV_SEED, name)), &it);
      while (j >= 0 && strcmp(out->regions[j].name, name) != 0)
        j = sp__hash_next(&names, &it);
      if (j < 0) {
        if (grow((void **)&out->regions, &capregs, out->nregions,
                 sizeof *out->regions))
          goto oom_t;
        sp_fmt_region *g = &out->regions[out->nregions];
        g->name = strdup(name);
        g->file = rg && rg->file ? strdup(rg->file) : NULL;
        g->line = rg ? rg->line : -1;
        if (!g->name || (rg && rg->file && !g->file) ||
            sp__hash_add(&names, &it, out->nregions) != 0) {
          free(g->name);
          free(g->file);
          goto oom_t;
        }
        j = out->nregions++;
      }
      sp_fmt_ppath *p = &out->paths[out->npaths++];
      p->parent = n->parent > 0 ? (int32_t)at[n->parent] : -1;
      p->region = (int32_t)j;
      p->rank = s->rank;
      p->thread = thread;
      sp_fmt_psum_init(&p->s);
      if (n->calls) {
        p->s.calls = (int64_t)n->calls;
        p->s.total = NS(n->total);
        p->s.excl = tsc ? (int64_t)((long double)(int64_t)n->excl * r)
                        : (int64_t)n->excl;
        p->s.outer = NS(n->outer);
        p->s.min = NS(n->min);
        p->s.max = NS(n->max);
        p->s.first = conv(s, n->first);
        p->s.last = conv(s, n->last);
        unsigned __int128 q = (unsigned __int128)n->sq_hi << 64 | n->sq_lo;
        p->s.sq = tsc ? (unsigned __int128)((long double)q * r * r) : q;
      }
    }
    free(nodes);
    free(at);
    thread++;
    continue;
  oom_t:
    free(nodes);
    free(at);
    goto oom;
  }
#undef NS
  sp__hash_free(&names);
  s->info.open_calls = out->open_calls;
  s->info.threads = thread;
  return 1;
oom:
  sp__hash_free(&names);
  sp_fmt_profile_free(out);
  return -1;
}

/* ---- counters (SP_COUNTERS) ----------------------------------------------
 */

typedef struct ctr_ref {
  int32_t thread, region;
  int64_t at; /* the row's offset; later rows win */
} ctr_ref;

static int by_ctr_ref(const void *a, const void *b) {
  const ctr_ref *x = a, *y = b;
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  if (x->region != y->region)
    return x->region < y->region ? -1 : 1;
  return x->at < y->at ? -1 : (x->at > y->at);
}

/* The writer's thread numbers the output numbers from 0 (the sources' in
 * a trace, the profile's in profile mode), ascending; *n of them. */
static int32_t *numbered_threads(sp_fmt_stream *s, int64_t *n) {
  int64_t cap = (s->npth > s->nlanes ? s->npth : s->nlanes) + 1, k = 0;
  int32_t *t = malloc((size_t)cap * sizeof *t);
  if (!t)
    return NULL;
  if (s->npth) {
    for (int64_t i = 0; i < s->npth; i++)
      if (s->pth[i].nnodes >= 2)
        t[k++] = s->pth[i].thread;
  } else {
    for (int64_t l = 0; l < s->nlanes; l++)
      if (s->lanes[l].calls > 0)
        t[k++] = s->lanes[l].thread;
  }
  qsort(t, (size_t)k, sizeof *t, by_int32);
  int64_t m = 0;
  for (int64_t i = 0; i < k; i++)
    if (i == 0 || t[i] != t[i - 1])
      t[m++] = t[i];
  *n = m;
  return t;
}

int sp_fmt_stream_counters(sp_fmt_stream *s, sp_fmt_ctr *out) {
  memset(out, 0, sizeof *out);
  out->rank = s->info.rank;
  if (!s->nctr)
    return 0;
  uint32_t k = s->ctr_n;
  out->n = (int32_t)k;
  for (uint32_t i = 0; i < k; i++)
    memcpy(out->names[i], s->ctr_names + (size_t)i * SP_STREAM_CTR_NAME,
           SP_FMT_CTR_NAME);
  const int64_t fixed = (int64_t)sizeof(sp_stream_counters);
  const int64_t row = (int64_t)sizeof(sp_stream_ctr_row) + 16 * (int64_t)k;
  ctr_ref *refs = NULL;
  int64_t nrefs = 0, caprefs = 0, nt = 0;
  int64_t *iv = malloc(2 * k * sizeof *iv);
  int32_t *threads = numbered_threads(s, &nt);
  if (!iv || !threads)
    goto oom;
  for (int64_t r = 0; r < s->nctr; r++) {
    int64_t at = s->ctr_off[r];
    if (need(s, at, (size_t)fixed) != 0)
      goto fail;
    const unsigned char *p = wat(s, at);
    int32_t thread = (int32_t)get32(s, p);
    int64_t rows = (int64_t)get64(s, p + 8);
    at += fixed + (int64_t)k * SP_STREAM_CTR_NAME;
    for (int64_t i = 0; i < rows; i++, at += row) {
      if (need(s, at, 4) != 0)
        goto fail;
      if (grow((void **)&refs, &caprefs, nrefs, sizeof *refs))
        goto oom;
      refs[nrefs++] = (ctr_ref){thread, (int32_t)get32(s, wat(s, at)), at};
    }
  }
  qsort(refs, (size_t)nrefs, sizeof *refs, by_ctr_ref);
  for (int64_t i = 0; i < nrefs; i++) {
    if (i + 1 < nrefs && refs[i + 1].thread == refs[i].thread &&
        refs[i + 1].region == refs[i].region)
      continue; /* a later record has this row */
    if (need(s, refs[i].at, (size_t)row) != 0)
      goto fail;
    const unsigned char *p = wat(s, refs[i].at);
    int64_t calls = (int64_t)get64(s, p + 8);
    for (uint32_t j = 0; j < 2 * k; j++)
      iv[j] = (int64_t)get64(s, p + 16 + 8 * j);
    if (calls <= 0)
      continue; /* no call counted (or a count no run reaches) */
    const region *rg;
    const char *name = region_name(s, refs[i].region, &rg);
    if (!name)
      goto oom;
    /* A thread with counters but no call the output keeps goes after
     * those that have some. */
    const int32_t *t = bsearch(&refs[i].thread, threads, (size_t)nt,
                               sizeof *threads, by_int32);
    int32_t th = t ? (int32_t)(t - threads) : (int32_t)nt + refs[i].thread;
    if (sp_fmt_ctr_add(out, th, name, calls, iv, iv + k) != 0)
      goto oom;
  }
  sp_fmt_ctr_normalize(out);
  free(refs);
  free(iv);
  free(threads);
  return 0;
oom:
  fail(s, 32, "out of memory");
fail:
  free(refs);
  free(iv);
  free(threads);
  sp_fmt_ctr_free(out);
  return -1;
}
