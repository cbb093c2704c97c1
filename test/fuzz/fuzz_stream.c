/* fuzz_stream.c - libFuzzer target for the .spts stream reader: any input
 * must open or fail with a one-line message, never crash or allocate more
 * than its size warrants; what opens must read back consistently (every
 * source whole, in odd batches and backwards, and through
 * sp_fmt_stream_read), and the same bytes with every check made right
 * (and every CALLS and ZCALLS record marked partial) must read exactly as with
 * SP_FMT_STREAM_TRUST; the raw bytes read trusting must not crash. */
#include "sp_format.h"
#include "sp_profile.h"
#include "sp_stream.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fd = -1;
static char path[64];

static void put(const uint8_t *data, size_t size) {
  if (fd < 0) {
    fd = memfd_create("fuzz_stream", 0);
    if (fd < 0)
      abort();
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  }
  if (ftruncate(fd, 0) != 0 ||
      (size && pwrite(fd, data, size, 0) != (ssize_t)size))
    abort();
}

/* Every failure is "<path>: offset N: ..." on one line. */
static void check_error(const sp_fmt_err *err) {
  size_t n = strlen(path);
  if (strncmp(err->msg, path, n) != 0 ||
      strncmp(err->msg + n, ": offset ", 9) != 0 || strchr(err->msg, '\n'))
    abort();
}

#define SP_FUZZ_FAIL(strict)                                                   \
  do {                                                                         \
    if (strict)                                                                \
      abort();                                                                 \
  } while (0)

/* All of a stream's calls, read whole per source, into one array; the
 * invariants of sources checked on the way (strict), or only read (a
 * trusting reader on bytes that break the writer's promise: it must not
 * crash, but what it reads is not defined). NULL when too big to hold. */
static int64_t *read_all(const sp_fmt_stream *s, int64_t *total, int strict) {
  sp_fmt_stream_info in;
  sp_fmt_stream_get_info(s, &in);
  int64_t n = sp_fmt_stream_nsources(s), sum = 0;
  const sp_fmt_source *src = sp_fmt_stream_sources(s);
  for (int64_t i = 0; i < n; i++) {
    sum += src[i].count;
    if (src[i].count <= 0 || src[i].thread < 0 || src[i].thread >= in.threads ||
        !src[i].name[0])
      SP_FUZZ_FAIL(strict);
    if (i > 0 && src[i].thread < src[i - 1].thread)
      SP_FUZZ_FAIL(strict);
  }
  if (sum != in.calls)
    SP_FUZZ_FAIL(strict);
  *total = sum;
  int64_t *v = malloc((size_t)sum * 16 + 16);
  if (!v)
    return NULL;
  int64_t at = 0, prev_first = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t c = src[i].count, *st = v + 2 * at, *en = st + c;
    src[i].read(&src[i], 0, c, st, en);
    for (int64_t k = 0; k < c; k++)
      if (en[k] < st[k])
        SP_FUZZ_FAIL(strict); /* ends are clamped to their starts */
    /* Sources of a thread go by the start of their first call. */
    int64_t first = st[0];
    if (i > 0 && src[i].thread == src[i - 1].thread && first < prev_first)
      SP_FUZZ_FAIL(strict);
    prev_first = first;
    /* The same calls in odd batches, and one at a time backwards. */
    int64_t *a = malloc((size_t)c * 16), *b = a ? a + c : NULL;
    if (a) {
      for (int64_t k = 0, m = 1; k < c; k += m, m = m * 2 % 7 + 1) {
        m = m < c - k ? m : c - k;
        src[i].read(&src[i], k, m, a + k, b + k);
      }
      if (memcmp(a, st, (size_t)c * 8) || memcmp(b, en, (size_t)c * 8))
        SP_FUZZ_FAIL(strict);
      for (int64_t k = c; k-- > 0 && k + 40 > c;) {
        int64_t x, y;
        src[i].read(&src[i], k, 1, &x, &y);
        if (x != st[k] || y != en[k])
          SP_FUZZ_FAIL(strict);
      }
      free(a);
    }
    at += c;
  }
  if (sp_fmt_stream_failed(s))
    SP_FUZZ_FAIL(strict);
  return v;
}

/* The input with every record's check made right and every CALLS and
 * ZCALLS record marked partial (so a trusting reader counts its pairs too, as
 * the checking one does), walking records as the reader frames them; 0 when the
 * header is not a stream's. */
static int fix_checks(uint8_t *d, size_t size) {
  if (size < 32 || memcmp(d, SP_STREAM_MAGIC, 8) != 0)
    return 0;
  uint32_t bom;
  memcpy(&bom, d + 12, 4);
  int swap = bom != SP_STREAM_BOM;
  if (swap && bom != __builtin_bswap32(SP_STREAM_BOM))
    return 0;
  for (size_t off = 32; size - off >= 16;) {
    uint32_t type, rsize;
    memcpy(&type, d + off, 4);
    memcpy(&rsize, d + off + 4, 4);
    if (swap)
      type = __builtin_bswap32(type), rsize = __builtin_bswap32(rsize);
    int known = (type >= SP_STREAM_REGION && type <= SP_STREAM_COUNTERS) ||
                type == SP_STREAM_MAP || type == SP_STREAM_ADDR;
    if (!known || rsize < 16 || rsize % 8 || rsize > size - off)
      break;
    if ((type == SP_STREAM_CALLS || type == SP_STREAM_ZCALLS) &&
        rsize >= 16 + sizeof(sp_stream_calls)) {
      uint64_t f;
      memcpy(&f, d + off + 16 + 24, 8);
      f |= swap ? __builtin_bswap64(SP_STREAM_CALLS_PARTIAL)
                : SP_STREAM_CALLS_PARTIAL;
      memcpy(d + off + 16 + 24, &f, 8);
    }
    uint64_t *w = malloc(rsize);
    if (!w)
      abort();
    memcpy(w, d + off + 16, rsize - 16);
    uint64_t c = sp_stream_check_words(type, rsize, w, (rsize - 16) / 8, swap);
    free(w);
    if (swap)
      c = __builtin_bswap64(c);
    memcpy(d + off + 8, &c, 8);
    off += rsize;
  }
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  put(data, size);
  sp_fmt_stream *s = NULL, *t = NULL;
  sp_fmt_err err, terr;
  int rc = sp_fmt_stream_open(path, 0, &s, &err);
  int trc = sp_fmt_stream_open(path, SP_FMT_STREAM_TRUST, &t, &terr);
  if (rc != 0)
    check_error(&err);
  if (trc != 0)
    check_error(&terr);
  int64_t n = 0, tn = 0;
  int64_t *v = rc == 0 ? read_all(s, &n, 1) : NULL;
  int64_t *tv = trc == 0 ? read_all(t, &tn, 0) : NULL;
  if (rc == 0) {
    /* The whole rank in memory holds the same calls. */
    sp_fmt_rank r;
    sp_fmt_err rerr;
    if (sp_fmt_stream_read(path, &r, &rerr) != 0)
      abort();
    int64_t at = 0;
    for (int64_t b = 0; v && b < r.nblocks; b++) {
      int64_t c = r.blocks[b].count;
      if (memcmp(r.blocks[b].starts, v + 2 * at, (size_t)c * 8) ||
          memcmp(r.blocks[b].ends, v + 2 * at + c, (size_t)c * 8))
        abort();
      at += c;
    }
    sp_fmt_rank_free(&r);
    /* Statistics over each thread's sources, as sp-import takes them. */
    int64_t ns = sp_fmt_stream_nsources(s);
    sp_fmt_stats *st = malloc((size_t)ns * sizeof *st + 1);
    if (st && sp_fmt_stats_rank(sp_fmt_stream_sources(s), ns, st, NULL) < 0)
      abort();
    free(st);
    /* A profile's paths (PATHS and FRAMES records): parents before their
     * children, regions among the names. */
    sp_fmt_profile p;
    int pr = sp_fmt_stream_profile(s, &p);
    for (int64_t i = 0; pr == 1 && i < p.npaths; i++)
      if (p.paths[i].parent >= i || p.paths[i].region < 0 ||
          p.paths[i].region >= p.nregions)
        abort();
    if (pr == 1)
      sp_fmt_profile_free(&p);
    /* Counters (COUNTERS records): every row's numbers within its table. */
    sp_fmt_ctr c;
    if (sp_fmt_stream_counters(s, &c) == 0) {
      if (c.n < 0 || c.n > SP_FMT_CTR_MAX || (c.nrows && !c.n))
        abort();
      for (int64_t i = 0; i < c.nrows; i++)
        if (!c.region[i] || c.calls[i] <= 0)
          abort();
      sp_fmt_ctr_free(&c);
    }
  }
  /* Right checks: exactly what TRUST reads of the raw bytes. */
  uint8_t *fixed = malloc(size + 1);
  if (fixed && size)
    memcpy(fixed, data, size);
  if (fixed && fix_checks(fixed, size)) {
    put(fixed, size);
    sp_fmt_stream *f = NULL;
    sp_fmt_err ferr;
    int frc = sp_fmt_stream_open(path, 0, &f, &ferr);
    /* The raw bytes opened trusting were read for safety only: the
     * trusting reader's promise (no start of 0 outside partial records)
     * may not hold there. */
    sp_fmt_stream_close(t);
    free(tv);
    tv = NULL;
    t = NULL;
    trc = sp_fmt_stream_open(path, SP_FMT_STREAM_TRUST, &t, &terr);
    tv = trc == 0 ? read_all(t, &tn, 1) : NULL;
    if (frc != trc)
      abort();
    if (frc == 0) {
      sp_fmt_stream_info a, b;
      sp_fmt_stream_get_info(f, &a);
      sp_fmt_stream_get_info(t, &b);
      if (a.torn_offset != b.torn_offset || a.calls != b.calls ||
          a.open_calls != b.open_calls || a.dropped != b.dropped ||
          a.threads != b.threads || a.rank != b.rank ||
          strcmp(a.torn_what, b.torn_what) != 0)
        abort();
      int64_t fn = 0;
      int64_t *fv = read_all(f, &fn, 1);
      if (fv && tv && memcmp(fv, tv, (size_t)fn * 16) != 0)
        abort();
      free(fv);
      sp_fmt_stream_close(f);
    } else if (strcmp(ferr.msg, terr.msg) != 0) {
      abort();
    }
  }
  free(fixed);
  free(v);
  free(tv);
  sp_fmt_stream_close(s);
  sp_fmt_stream_close(t);
  return 0;
}
