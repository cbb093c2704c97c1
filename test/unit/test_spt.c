/* test_spt.c - the .spt reader and writer against hand-built byte buffers:
 * every version and byte order, round trips, and every validation rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sp_format.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- building .spt images by hand --------------------------------------- */

typedef struct {
  unsigned char b[1 << 16];
  size_t n;
  int be;
} img;

static void put(img *m, const void *p, size_t n) {
  assert_true(m->n + n <= sizeof m->b);
  memcpy(m->b + m->n, p, n);
  m->n += n;
}

static void p32(img *m, int32_t v) {
  uint32_t u = (uint32_t)v;
  unsigned char x[4];
  for (int i = 0; i < 4; i++)
    x[m->be ? 3 - i : i] = (unsigned char)(u >> (8 * i));
  put(m, x, 4);
}

static void p64(img *m, int64_t v) {
  uint64_t u = (uint64_t)v;
  unsigned char x[8];
  for (int i = 0; i < 8; i++)
    x[m->be ? 7 - i : i] = (unsigned char)(u >> (8 * i));
  put(m, x, 8);
}

static void pstr(img *m, const char *s) {
  p32(m, (int32_t)strlen(s));
  put(m, s, strlen(s));
}

static void header(img *m, int32_t version, int32_t rank, int64_t n) {
  put(m, "SCOPEPRF", 8);
  p32(m, version);
  p32(m, rank);
  p64(m, n);
}

typedef struct {
  int32_t thread;
  const char *name, *file; /* "" = unknown */
  int32_t line;
  int64_t n;
  int64_t s[4], e[4];
} blk;

static void block(img *m, int version, const blk *k) {
  if (version >= 3)
    p32(m, k->thread);
  pstr(m, k->name);
  if (version >= 2) {
    pstr(m, k->file);
    p32(m, k->line);
  }
  p64(m, k->n);
  if (version >= 4) {
    /* The varints, encoded here independently of the writer: start minus
     * the previous start (from 0), end minus start, 7 bits a byte. */
    unsigned char z[4 * 20];
    size_t len = 0;
    uint64_t prev = 0;
    for (int64_t i = 0; i < k->n; i++) {
      uint64_t d[2] = {(uint64_t)k->s[i] - prev,
                       (uint64_t)k->e[i] - (uint64_t)k->s[i]};
      prev = (uint64_t)k->s[i];
      for (int j = 0; j < 2; j++) {
        do {
          z[len++] = (unsigned char)((d[j] & 0x7f) | (d[j] > 0x7f ? 0x80 : 0));
          d[j] >>= 7;
        } while (d[j]);
      }
    }
    p64(m, (int64_t)len);
    put(m, z, len);
    return;
  }
  for (int64_t i = 0; i < k->n; i++)
    p64(m, k->s[i]);
  for (int64_t i = 0; i < k->n; i++)
    p64(m, k->e[i]);
}

/* The reference profile: three nested regions on thread 0; version 3 adds
 * thread 1, where "solve" appears again (one region entry for both) and
 * "main" claims another location (the first is kept). */
static const blk T0[] = {
    {0, "main", "main.c", 10, 1, {100}, {900}},
    {0, "solve", "solve.c", 42, 2, {200, 500}, {400, 800}},
    {0, "kernel", "", -1, 3, {250, 300, 600}, {300, 300, 700}},
};
static const blk T1[] = {
    {1, "solve", "solve.c", 42, 1, {150}, {450}},
    {1, "worker", "w.c", 7, 2, {160, 165}, {170, 180}},
    {1, "main", "other.c", 99, 1, {120}, {130}},
};

static int nblocks_of(int version) { return version >= 3 ? 6 : 3; }

static const blk *block_of(int i) { return i < 3 ? &T0[i] : &T1[i - 3]; }

static void reference(img *m, int version, int be) {
  m->n = 0;
  m->be = be;
  header(m, version, 7, nblocks_of(version));
  for (int i = 0; i < nblocks_of(version); i++)
    block(m, version, block_of(i));
}

static void check_reference(const sp_fmt_rank *r, int version) {
  assert_int_equal(r->rank, 7);
  assert_int_equal(r->version, version);
  assert_int_equal(r->nblocks, nblocks_of(version));
  assert_int_equal(r->nregions, version >= 3 ? 4 : 3);
  static const char *names[] = {"main", "solve", "kernel", "worker"};
  static const char *files[] = {"main.c", "solve.c", NULL, "w.c"};
  static const int lines[] = {10, 42, -1, 7};
  for (int i = 0; i < r->nregions; i++) {
    assert_string_equal(r->regions[i].name, names[i]);
    if (version == 1 || !files[i]) {
      assert_null(r->regions[i].file);
      assert_int_equal(r->regions[i].line, -1);
    } else {
      assert_string_equal(r->regions[i].file, files[i]);
      assert_int_equal(r->regions[i].line, lines[i]);
    }
  }
  static const int region_of[] = {0, 1, 2, 1, 3, 0};
  for (int i = 0; i < r->nblocks; i++) {
    const blk *k = block_of(i);
    const sp_fmt_block *b = &r->blocks[i];
    assert_int_equal(b->thread, k->thread);
    assert_int_equal(b->region, region_of[i]);
    assert_int_equal(b->count, k->n);
    for (int64_t j = 0; j < k->n; j++) {
      assert_int_equal(b->starts[j], k->s[j]);
      assert_int_equal(b->ends[j], k->e[j]);
    }
  }
}

static img M; /* too big for the stack of every test */

static void valid_all_versions_and_orders(void **state) {
  (void)state;
  for (int v = 1; v <= 4; v++)
    for (int be = 0; be <= 1; be++) {
      reference(&M, v, be);
      sp_fmt_rank r;
      sp_fmt_err err = {""};
      assert_int_equal(sp_fmt_spt_parse(M.b, M.n, "t.spt", &r, &err), 0);
      check_reference(&r, v);
      sp_fmt_rank_free(&r);
    }
}

static void empty_profile(void **state) {
  (void)state;
  for (int be = 0; be <= 1; be++) {
    img *m = &M;
    m->n = 0;
    m->be = be;
    header(m, 2, 0, 0);
    sp_fmt_rank r;
    sp_fmt_err err = {""};
    assert_int_equal(sp_fmt_spt_parse(m->b, m->n, "t", &r, &err), 0);
    assert_int_equal(r.nregions, 0);
    assert_int_equal(r.nblocks, 0);
    sp_fmt_rank_free(&r);
  }
}

/* Fails to parse with exactly this message. */
static void expect_error(const img *m, const char *msg) {
  sp_fmt_rank r;
  sp_fmt_err err = {""};
  memset(&r, 0x5a, sizeof r);
  assert_int_equal(sp_fmt_spt_parse(m->b, m->n, "t.spt", &r, &err), -1);
  assert_string_equal(err.msg, msg);
  assert_int_equal(r.nregions, 0);
  assert_int_equal(r.nblocks, 0);
  assert_null(r.regions);
  assert_null(r.blocks);
}

static void header_errors(void **state) {
  (void)state;
  for (int be = 0; be <= 1; be++) {
    img *m = &M;
    reference(m, 2, be);
    m->b[7] = 'X';
    expect_error(m, "t.spt: offset 0: bad magic: not a ScopeProf .spt trace");

    m->n = 0;
    header(m, 5, 0, 0);
    expect_error(m, "t.spt: offset 8: version 5 is newer than this reader "
                    "(supports 1-4)");
    m->n = 0;
    header(m, 300, 0, 0);
    expect_error(m, "t.spt: offset 8: version 300 is newer than this reader "
                    "(supports 1-4)");
    m->n = 0;
    header(m, 0, 0, 0);
    expect_error(m, "t.spt: offset 8: unknown version 0 (supports 1-4)");
    m->n = 0;
    header(m, -1, 0, 0);
    expect_error(m, "t.spt: offset 8: unknown version -1 (supports 1-4)");

    m->n = 0;
    header(m, 2, -3, 0);
    expect_error(m, "t.spt: offset 12: negative rank -3");
    m->n = 0;
    header(m, 2, 0, -1);
    expect_error(m, "t.spt: offset 16: negative number of regions -1");
    m->n = 0;
    header(m, 2, 0, (int64_t)1 << 60);
    expect_error(m, "t.spt: offset 16: number of regions 1152921504606846976 "
                    "does not fit in the 0 bytes left (at least 21 each)");
  }
  /* Garbage in the version field reads as neither order. */
  img *m = &M;
  m->n = 0;
  m->be = 0;
  header(m, 0x01020304, 0, 0);
  expect_error(m, "t.spt: offset 8: unknown version 16909060 (supports 1-4)");
}

static void truncated_header_fields(void **state) {
  (void)state;
  reference(&M, 2, 0);
  M.n = 4;
  expect_error(&M, "t.spt: offset 0: truncated: expected magic \"SCOPEPRF\" "
                   "(8 bytes), 4 left");
  M.n = 0;
  expect_error(&M, "t.spt: offset 0: truncated: expected magic \"SCOPEPRF\" "
                   "(8 bytes), 0 left");
  M.n = 10;
  expect_error(&M, "t.spt: offset 8: truncated: expected int32 version "
                   "(4 bytes), 2 left");
  M.n = 15;
  expect_error(&M, "t.spt: offset 12: truncated: expected int32 rank "
                   "(4 bytes), 3 left");
  M.n = 20;
  expect_error(&M, "t.spt: offset 16: truncated: expected int64 number of "
                   "regions (8 bytes), 4 left");
  M.n = 30;
  expect_error(&M, "t.spt: offset 16: number of regions 3 does not fit in the "
                   "6 bytes left (at least 21 each)");
}

/* A v3 file whose second block is cut at each of its fields: the first
 * block's timestamps keep the up-front region-count check satisfied. */
static void truncated_block_fields(void **state) {
  (void)state;
  for (int be = 0; be <= 1; be++) {
    img *m = &M;
    m->n = 0;
    m->be = be;
    header(m, 3, 0, 2);
    blk big = {0, "a", "", -1, 4, {1, 2, 3, 4}, {5, 6, 7, 8}};
    block(m, 3, &big); /* 24 .. 24+4+5+4+4+8+64 = 113 */
    size_t b2 = m->n;
    blk two = {2, "name", "f.c", 3, 2, {1, 2}, {3, 4}};
    block(m, 3, &two);
    size_t full = m->n;
    struct {
      size_t cut;
      const char *msg;
    } cases[] = {
        {b2 + 2, "offset 113: truncated: expected int32 thread (4 bytes), "
                 "2 left"},
        {b2 + 4, "offset 117: truncated: expected int32 name length "
                 "(4 bytes), 0 left"},
        {b2 + 10, "offset 121: truncated: expected region name (4 bytes), "
                  "2 left"},
        {b2 + 13, "offset 125: truncated: expected int32 file length "
                  "(4 bytes), 1 left"},
        {b2 + 18, "offset 129: truncated: expected source file path "
                  "(3 bytes), 2 left"},
        {b2 + 21, "offset 132: truncated: expected int32 source line "
                  "(4 bytes), 2 left"},
        {b2 + 30, "offset 136: truncated: expected int64 number of calls "
                  "(8 bytes), 7 left"},
        {full - 1, "offset 136: number of calls 2 does not fit in the 31 "
                   "bytes left (16 each)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      m->n = cases[i].cut;
      char want[256];
      snprintf(want, sizeof want, "t.spt: %s", cases[i].msg);
      expect_error(m, want);
    }
    m->n = full;
    sp_fmt_rank r;
    sp_fmt_err err;
    assert_int_equal(sp_fmt_spt_parse(m->b, m->n, "t.spt", &r, &err), 0);
    assert_int_equal(r.blocks[1].thread, 2);
    sp_fmt_rank_free(&r);
  }
}

/* Cutting a valid file at every length fails with a located message. */
static void truncated_at_every_length(void **state) {
  (void)state;
  for (int v = 1; v <= 4; v++)
    for (int be = 0; be <= 1; be++) {
      reference(&M, v, be);
      for (size_t len = 0; len < M.n; len++) {
        sp_fmt_rank r;
        sp_fmt_err err = {""};
        assert_int_equal(sp_fmt_spt_parse(M.b, len, "cut", &r, &err), -1);
        unsigned long long off;
        int used = 0;
        assert_int_equal(sscanf(err.msg, "cut: offset %llu: %n", &off, &used),
                         1);
        assert_true(used > 0);
        assert_true(off <= len);
        assert_null(r.blocks);
        assert_null(r.regions);
      }
    }
}

static void block_errors(void **state) {
  (void)state;
  for (int be = 0; be <= 1; be++) {
    img *m = &M;
    /* Negative name length, at the block's first field. */
    m->n = 0;
    m->be = be;
    header(m, 2, 0, 1);
    p32(m, -4);
    put(m, "abcdefghijklmnopqrstuvwxyz", 26);
    expect_error(m, "t.spt: offset 24: negative name length -4");

    m->n = 0;
    header(m, 2, 0, 1);
    pstr(m, "r");
    p32(m, -1);
    put(m, "abcdefghijklmnopqrstuvwxyz", 26);
    expect_error(m, "t.spt: offset 29: negative file length -1");

    m->n = 0;
    header(m, 1, 0, 1);
    pstr(m, "");
    put(m, "abcdefghijklmnopqrstuvwxyz", 26);
    expect_error(m, "t.spt: offset 24: empty region name");

    m->n = 0;
    header(m, 1, 0, 1);
    p32(m, 3);
    put(m, "a\0b", 3);
    put(m, "abcdefghijklmnopqrstuvwxyz", 26);
    expect_error(m, "t.spt: offset 28: region name contains a NUL byte");

    m->n = 0;
    header(m, 1, 0, 1);
    pstr(m, "r");
    p64(m, -1);
    expect_error(m, "t.spt: offset 29: negative number of calls -1");

    /* 37 bytes claiming 2^60 calls: rejected before any allocation. */
    m->n = 0;
    header(m, 1, 0, 1);
    pstr(m, "x");
    p64(m, (int64_t)1 << 60);
    assert_int_equal(m->n, 37);
    expect_error(m, "t.spt: offset 29: number of calls 1152921504606846976 "
                    "does not fit in the 0 bytes left (16 each)");

    m->n = 0;
    header(m, 3, 0, 1);
    p32(m, -2);
    pstr(m, "r");
    pstr(m, "");
    p32(m, -1);
    p64(m, 0);
    expect_error(m, "t.spt: offset 24: negative thread -2");

    m->n = 0;
    header(m, 2, 0, 1);
    pstr(m, "r");
    pstr(m, "");
    p32(m, -7);
    p64(m, 0);
    expect_error(m, "t.spt: offset 33: invalid source line -7");

    reference(m, 2, be);
    size_t full = m->n;
    put(m, "\0\0\0", 3);
    char want[128];
    snprintf(want, sizeof want,
             "t.spt: offset %zu: 3 trailing byte(s) after the last region "
             "block",
             full);
    expect_error(m, want);

    /* Duplicate (thread, name): same thread in v3, and in v2 (thread 0). */
    m->n = 0;
    header(m, 3, 0, 3);
    block(m, 3, &T0[0]);
    block(m, 3, &T1[0]);
    size_t dup = m->n;
    block(m, 3, &T1[0]);
    snprintf(want, sizeof want,
             "t.spt: offset %zu: duplicate block for region \"solve\" on "
             "thread 1",
             dup);
    expect_error(m, want);
    m->n = 0;
    header(m, 2, 0, 2);
    block(m, 2, &T0[0]);
    dup = m->n;
    block(m, 2, &T0[0]);
    snprintf(want, sizeof want,
             "t.spt: offset %zu: duplicate block for region \"main\" on "
             "thread 0",
             dup);
    expect_error(m, want);

    /* A name quoted in a message keeps it on one line. */
    blk odd = {0, "a\nb", "", -1, 0, {0}, {0}};
    m->n = 0;
    header(m, 2, 0, 2);
    block(m, 2, &odd);
    dup = m->n;
    block(m, 2, &odd);
    snprintf(want, sizeof want,
             "t.spt: offset %zu: duplicate block for region \"a?b\" on "
             "thread 0",
             dup);
    expect_error(m, want);
  }
}

/* A location seen after an unknown one fills it in; a known one stays. */
static void location_rules(void **state) {
  (void)state;
  img *m = &M;
  m->n = 0;
  m->be = 0;
  header(m, 3, 0, 4);
  blk a = {0, "r", "", -1, 0, {0}, {0}};
  blk b = {1, "r", "x.c", 5, 0, {0}, {0}};
  blk c = {2, "r", "y.c", 6, 0, {0}, {0}};
  blk d = {3, "r", "", -1, 0, {0}, {0}};
  block(m, 3, &a);
  block(m, 3, &b);
  block(m, 3, &c);
  block(m, 3, &d);
  sp_fmt_rank r;
  sp_fmt_err err;
  assert_int_equal(sp_fmt_spt_parse(m->b, m->n, "t", &r, &err), 0);
  assert_int_equal(r.nregions, 1);
  assert_int_equal(r.nblocks, 4);
  assert_string_equal(r.regions[0].file, "x.c");
  assert_int_equal(r.regions[0].line, 5);
  for (int i = 0; i < 4; i++) {
    assert_int_equal(r.blocks[i].thread, i);
    assert_int_equal(r.blocks[i].region, 0);
    assert_null(r.blocks[i].starts);
  }
  sp_fmt_rank_free(&r);
}

/* ---- writing ---------------------------------------------------------- */

static char dir[256];

static void make_dir(void) {
  snprintf(dir, sizeof dir, "%s/test_spt.%ld", SP_TEST_BINARY_DIR,
           (long)getpid());
  mkdir(dir, 0777);
}

/* Names in dir other than . and .. */
static int dir_entries(const char *d) {
  DIR *h = opendir(d);
  assert_non_null(h);
  int n = 0;
  for (struct dirent *e; (e = readdir(h));)
    n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(h);
  return n;
}

static void remove_dir(const char *d) {
  DIR *h = opendir(d);
  if (!h)
    return;
  for (struct dirent *e; (e = readdir(h));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      char p[512];
      snprintf(p, sizeof p, "%s/%s", d, e->d_name);
      unlink(p);
    }
  closedir(h);
  rmdir(d);
}

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc((size_t)n + 1);
  assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return b;
}

static void read_blk(const sp_fmt_source *s, int64_t first, int64_t n,
                     int64_t *st, int64_t *en) {
  const blk *k = s->ctx;
  assert_true(first >= 0 && n >= 0 && first + n <= k->n);
  memcpy(st, k->s + first, (size_t)n * 8);
  memcpy(en, k->e + first, (size_t)n * 8);
}

/* n bytes of b as the file at path. */
static void put_file(const char *path, const void *b, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(b, 1, n, f), n);
  fclose(f);
}

/* The reference file of every version and byte order, written out and read
 * three ways: whole; as an index (counts and file offsets, no timestamps);
 * and each block's calls through sp_fmt_spt_calls_read from the open file,
 * in two batches. All agree. A file cut short afterwards reads as a
 * failure, not as garbage. */
static void index_and_file_calls(void **state) {
  (void)state;
  make_dir();
  char path[512];
  snprintf(path, sizeof path, "%s/ref.spt", dir);
  for (int v = 1; v <= 4; v++)
    for (int be = 0; be <= 1; be++) {
      reference(&M, v, be);
      put_file(path, M.b, M.n);
      sp_fmt_rank r, x;
      sp_fmt_err err = {""};
      assert_int_equal(sp_fmt_spt_read(path, &r, &err), 0);
      assert_int_equal(r.foreign_order, be);
      assert_int_equal(sp_fmt_spt_index(path, &x, &err), 0);
      assert_int_equal(x.rank, 7);
      assert_int_equal(x.foreign_order, be);
      assert_int_equal(x.nblocks, r.nblocks);
      int fd = open(path, O_RDONLY);
      assert_true(fd >= 0);
      for (int64_t i = 0; i < x.nblocks; i++) {
        const sp_fmt_block *b = &x.blocks[i];
        assert_null(b->starts);
        assert_int_equal(b->count, r.blocks[i].count);
        assert_int_equal(b->file_offset, r.blocks[i].file_offset);
        /* The count field is the 8 bytes before the arrays (before the
         * byte count of the varints in version 4). */
        int64_t cnt;
        memcpy(&cnt, M.b + b->file_offset - (v == 4 ? 16 : 8), 8);
        if (be)
          cnt = (int64_t)__builtin_bswap64((uint64_t)cnt);
        assert_int_equal(cnt, b->count);
        int failed = 0;
        sp_fmt_spt_calls c;
        sp_fmt_spt_calls_init(&c, fd, &x, b, &failed);
        sp_fmt_source s = {0,  "x", NULL, -1, b->count, sp_fmt_spt_calls_read,
                           &c, 0};
        int64_t st[8], en[8], h = b->count / 2;
        assert_true(b->count <= 8);
        if (h > 0)
          s.read(&s, 0, h, st, en);
        if (b->count > h)
          s.read(&s, h, b->count - h, st + h, en + h);
        assert_int_equal(failed, 0);
        for (int64_t j = 0; j < b->count; j++) {
          assert_int_equal(st[j], r.blocks[i].starts[j]);
          assert_int_equal(en[j], r.blocks[i].ends[j]);
        }
      }
      /* Cut inside the last block's ends: its read fails. */
      const sp_fmt_block *lb = &x.blocks[x.nblocks - 1];
      if (lb->count > 0) {
        assert_int_equal(truncate(path, (off_t)(M.n - 4)), 0);
        int failed = 0;
        sp_fmt_spt_calls c;
        sp_fmt_spt_calls_init(&c, fd, &x, lb, &failed);
        sp_fmt_source s = {0,  "x", NULL, -1, lb->count, sp_fmt_spt_calls_read,
                           &c, 0};
        int64_t st[8], en[8];
        s.read(&s, 0, lb->count, st, en);
        assert_int_not_equal(failed, 0);
      }
      close(fd);
      sp_fmt_rank_free(&x);
      sp_fmt_rank_free(&r);
    }
  /* A bad file: the one-line error with its offset. */
  reference(&M, 2, 0);
  put_file(path, M.b, M.n - 3);
  sp_fmt_rank r;
  sp_fmt_err err = {""};
  char want[600];
  snprintf(want, sizeof want, "%s: offset ", path);
  assert_int_not_equal(sp_fmt_spt_index(path, &r, &err), 0);
  assert_non_null(strstr(err.msg, "does not fit"));
  assert_memory_equal(err.msg, want, strlen(want));
  assert_int_equal(r.nblocks, 0);
  remove_dir(dir);
}

static void write_matches_hand_built_bytes(void **state) {
  (void)state;
  make_dir();
  for (int v = 1; v <= 4; v++)
    for (int be = 0; be <= 1; be++) {
      sp_fmt_source srcs[6];
      int n = nblocks_of(v);
      for (int i = 0; i < n; i++) {
        const blk *k = block_of(i);
        sp_fmt_source s = {k->thread, k->name,  k->file, k->line,
                           k->n,      read_blk, k,       0};
        srcs[i] = s;
      }
      char path[1024];
      snprintf(path, sizeof path, "%s/w%d%d.spt", dir, v, be);
      sp_fmt_err err = {""};
      assert_int_equal(sp_fmt_spt_write(path, 7, v, srcs, n, be, &err), 0);
      reference(&M, v, be);
      size_t len;
      unsigned char *got = slurp(path, &len);
      assert_int_equal(len, M.n);
      assert_memory_equal(got, M.b, M.n);
      free(got);

      /* Read back, and write again from the parsed rank: same bytes. */
      sp_fmt_rank r;
      assert_int_equal(sp_fmt_spt_read(path, &r, &err), 0);
      check_reference(&r, v);
      sp_fmt_source back[6];
      sp_fmt_rank_sources(&r, back);
      char path2[1100];
      snprintf(path2, sizeof path2, "%s.again", path);
      assert_int_equal(sp_fmt_spt_write(path2, 7, v, back, n, be, &err), 0);
      sp_fmt_rank_free(&r);
      unsigned char *again = slurp(path2, &len);
      if (v >= 3) {
        /* "main" on thread 1 comes back with the region's first location. */
        M.n = 0;
        header(&M, v, 7, 6);
        for (int i = 0; i < 5; i++)
          block(&M, v, block_of(i));
        blk main1 = T1[2];
        main1.file = "main.c";
        main1.line = 10;
        block(&M, v, &main1);
      }
      assert_int_equal(len, M.n);
      assert_memory_equal(again, M.b, M.n);
      free(again);
      assert_true(sp_fmt_is_spt(path));
      assert_false(sp_fmt_is_h5(path));
    }
  assert_int_equal(dir_entries(dir), 16);
  remove_dir(dir);
}

/* A computed source of many calls: read() is asked for batches. */
typedef struct {
  int64_t calls, reads, max_batch;
} big_ctx;

static void read_big(const sp_fmt_source *s, int64_t first, int64_t n,
                     int64_t *st, int64_t *en) {
  big_ctx *c = (big_ctx *)(uintptr_t)s->ctx;
  assert_true(first >= 0 && n > 0 && first + n <= s->count);
  c->reads++;
  if (n > c->max_batch)
    c->max_batch = n;
  for (int64_t i = 0; i < n; i++) {
    st[i] = (first + i) * 10 + s->aux;
    en[i] = (first + i) * 10 + 5 + s->aux;
  }
}

static void big_round_trip(void **state) {
  (void)state;
  make_dir();
  for (int be = 0; be <= 1; be++) {
    big_ctx c0 = {0, 0, 0}, c1 = {0, 0, 0};
    sp_fmt_source srcs[2] = {
        {0, "many", "m.c", 1, 200000, read_big, &c0, 3},
        {1, "few", NULL, -1, 3, read_big, &c1, 1000},
    };
    char path[1024];
    snprintf(path, sizeof path, "%s/big%d.spt", dir, be);
    sp_fmt_err err = {""};
    assert_int_equal(sp_fmt_spt_write(path, 2, 3, srcs, 2, be, &err), 0);
    assert_true(c0.reads >= 4); /* several batches, twice */
    assert_true(c0.max_batch <= 65536);
    sp_fmt_rank r;
    assert_int_equal(sp_fmt_spt_read(path, &r, &err), 0);
    assert_int_equal(r.version, 3);
    assert_int_equal(r.rank, 2);
    assert_int_equal(r.nblocks, 2);
    assert_int_equal(r.blocks[0].count, 200000);
    for (int64_t i = 0; i < 200000; i++) {
      if (r.blocks[0].starts[i] != i * 10 + 3 ||
          r.blocks[0].ends[i] != i * 10 + 8)
        fail_msg("call %lld: %lld %lld", (long long)i,
                 (long long)r.blocks[0].starts[i],
                 (long long)r.blocks[0].ends[i]);
    }
    assert_int_equal(r.blocks[1].thread, 1);
    assert_int_equal(r.blocks[1].count, 3);
    assert_int_equal(r.blocks[1].starts[2], 1020);
    assert_int_equal(r.blocks[1].ends[2], 1025);
    assert_string_equal(r.regions[0].file, "m.c");
    assert_null(r.regions[1].file);
    sp_fmt_rank_free(&r);
  }
  remove_dir(dir);
}

/* Files are parsed through a window of their headers, images in memory
 * whole: both must say the same of the same bytes, whether good or cut at
 * any length (message and offset included), and a header many windows long
 * (thousands of regions, one name of 40 KB) reads as it was written. */
static void compare_ranks(const sp_fmt_rank *a, const sp_fmt_rank *b) {
  assert_int_equal(a->rank, b->rank);
  assert_int_equal(a->version, b->version);
  assert_int_equal(a->nregions, b->nregions);
  for (int64_t i = 0; i < a->nregions; i++) {
    assert_string_equal(a->regions[i].name, b->regions[i].name);
    assert_int_equal(a->regions[i].line, b->regions[i].line);
  }
  assert_int_equal(a->nblocks, b->nblocks);
  for (int64_t i = 0; i < a->nblocks; i++) {
    const sp_fmt_block *x = &a->blocks[i], *y = &b->blocks[i];
    assert_int_equal(x->thread, y->thread);
    assert_int_equal(x->region, y->region);
    assert_int_equal(x->count, y->count);
    assert_int_equal(x->file_offset, y->file_offset);
    if (x->count) {
      assert_memory_equal(x->starts, y->starts, (size_t)x->count * 8);
      assert_memory_equal(x->ends, y->ends, (size_t)x->count * 8);
    }
  }
}

static void file_matches_memory(const char *path, const unsigned char *b,
                                size_t n) {
  put_file(path, b, n);
  sp_fmt_rank m, r, x;
  sp_fmt_err em = {""}, er = {""}, ex = {""};
  int rc = sp_fmt_spt_parse(b, n, path, &m, &em);
  assert_int_equal(sp_fmt_spt_read(path, &r, &er), rc);
  assert_int_equal(sp_fmt_spt_index(path, &x, &ex), rc);
  if (rc != 0) {
    assert_string_equal(er.msg, em.msg);
    assert_string_equal(ex.msg, em.msg);
    assert_int_equal(r.nblocks, 0);
    assert_int_equal(x.nblocks, 0);
    return;
  }
  compare_ranks(&r, &m);
  assert_int_equal(x.nblocks, m.nblocks);
  for (int64_t i = 0; i < x.nblocks; i++)
    assert_int_equal(x.blocks[i].file_offset, m.blocks[i].file_offset);
  sp_fmt_rank_free(&m);
  sp_fmt_rank_free(&r);
  sp_fmt_rank_free(&x);
}

static void name_read(const sp_fmt_source *s, int64_t first, int64_t n,
                      int64_t *st, int64_t *en) {
  for (int64_t i = 0; i < n; i++) {
    st[i] = s->aux + 100 * (first + i);
    en[i] = st[i] + 7;
  }
}

static void file_window(void **state) {
  (void)state;
  make_dir();
  char path[512];
  snprintf(path, sizeof path, "%s/cut.spt", dir);
  for (int v = 1; v <= 4; v++)
    for (int be = 0; be <= 1; be++) {
      reference(&M, v, be);
      for (size_t len = 0; len <= M.n; len++)
        file_matches_memory(path, M.b, len);
    }
  /* 3000 regions, the last with a 40,000-byte name, a few calls each. */
  enum { N = 3000, LONG = 40000 };
  sp_fmt_source *srcs = calloc(N, sizeof *srcs);
  char(*names)[32] = calloc(N, 32);
  char *longname = malloc(LONG + 1);
  assert_non_null(srcs);
  assert_non_null(names);
  assert_non_null(longname);
  memset(longname, 'x', LONG);
  longname[LONG] = 0;
  for (int i = 0; i < N; i++) {
    snprintf(names[i], 32, "region_%05d", i);
    srcs[i] = (sp_fmt_source){i % 3,     i == N - 1 ? longname : names[i],
                              "w.c",     i,
                              1 + i % 3, name_read,
                              NULL,      i};
  }
  for (int be = 0; be <= 1; be++) {
    sp_fmt_err err = {""};
    assert_int_equal(sp_fmt_spt_write(path, 3, 3, srcs, N, be, &err), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    unsigned char *b = malloc((size_t)st.st_size);
    assert_non_null(b);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(b, 1, (size_t)st.st_size, f), (size_t)st.st_size);
    fclose(f);
    sp_fmt_rank r;
    assert_int_equal(sp_fmt_spt_read(path, &r, &err), 0);
    assert_int_equal(r.nregions, N);
    assert_string_equal(r.regions[N - 1].name, longname);
    assert_int_equal(r.blocks[N - 1].count, 1 + (N - 1) % 3);
    assert_int_equal(r.blocks[N - 1].starts[1], N - 1 + 100);
    sp_fmt_rank_free(&r);
    file_matches_memory(path, b, (size_t)st.st_size);
    /* Cut inside the long name and inside the last block's calls. */
    file_matches_memory(path, b, (size_t)st.st_size - 20);
    file_matches_memory(path, b, (size_t)st.st_size - LONG);
    free(b);
  }
  free(srcs);
  free(names);
  free(longname);
  remove_dir(dir);
}

/* A file of 72 MB (4.5 M calls, one block) reads back intact. */
static void large_file(void **state) {
  (void)state;
  make_dir();
  big_ctx c = {0, 0, 0};
  sp_fmt_source s = {0, "huge", NULL, -1, 4500000, read_big, &c, 7};
  char path[1024];
  snprintf(path, sizeof path, "%s/huge.spt", dir);
  sp_fmt_err err = {""};
  assert_int_equal(sp_fmt_spt_write(path, 0, 2, &s, 1, 0, &err), 0);
  sp_fmt_rank r;
  assert_int_equal(sp_fmt_spt_read(path, &r, &err), 0);
  assert_int_equal(r.blocks[0].count, 4500000);
  int64_t bad = -1;
  for (int64_t i = 0; i < 4500000 && bad < 0; i++)
    if (r.blocks[0].starts[i] != i * 10 + 7 ||
        r.blocks[0].ends[i] != i * 10 + 12)
      bad = i;
  assert_int_equal(bad, -1);
  sp_fmt_rank_free(&r);
  remove_dir(dir);
}

/* A version-4 block of one call, name "r", no location, whose calls field
 * is the given bytes (their count zb). */
static void v4_block(img *m, int64_t calls, int64_t zb, const void *z,
                     size_t zlen) {
  m->n = 0;
  header(m, 4, 0, 1);
  p32(m, 0);
  pstr(m, "r");
  pstr(m, "");
  p32(m, -1);
  p64(m, calls);
  p64(m, zb);
  put(m, z, zlen);
}

/* Version 4's own rules: the byte count of the calls fits, holds the calls
 * exactly, and every varint is whole and at most 10 bytes. Offsets: the
 * block starts at 24; its count at 41, the byte count at 49, the varints
 * at 57. */
static void v4_block_errors(void **state) {
  (void)state;
  for (int be = 0; be <= 1; be++) {
    img *m = &M;
    m->be = be;
    v4_block(m, 1, 2, "\x05\x03", 2);
    sp_fmt_rank r;
    sp_fmt_err err = {""};
    assert_int_equal(sp_fmt_spt_parse(m->b, m->n, "t.spt", &r, &err), 0);
    assert_int_equal(r.blocks[0].starts[0], 5);
    assert_int_equal(r.blocks[0].ends[0], 8);
    assert_int_equal(r.blocks[0].zbytes, 2);
    assert_int_equal(r.blocks[0].file_offset, 57);
    sp_fmt_rank_free(&r);

    v4_block(m, 1, -2, "\x05\x03", 2);
    expect_error(m, "t.spt: offset 49: bytes of calls -2: 2 left");
    v4_block(m, 1, 3, "\x05\x03", 2);
    expect_error(m, "t.spt: offset 49: bytes of calls 3: 2 left");
    v4_block(m, 2, 3, "\x05\x03\x01", 3);
    expect_error(m, "t.spt: offset 41: number of calls 2 does not fit in its "
                    "3 bytes (at least 2 each)");
    v4_block(m, 1, 3, "\x05\x83\x01", 2); /* the last byte left out */
    expect_error(m, "t.spt: offset 49: bytes of calls 3: 2 left");
    v4_block(m, 1, 2, "\x85\x83", 2);
    expect_error(m, "t.spt: offset 57: calls: the block's bytes end inside "
                    "a call");
    v4_block(m, 1, 4, "\x05\x03\x00\x00", 4);
    expect_error(m, "t.spt: offset 59: 2 byte(s) after the block's 1 calls");
    /* 11 bytes of varint; a 10th byte above 1 overflows 64 bits too. */
    v4_block(m, 1, 12, "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01\x00", 12);
    expect_error(m, "t.spt: offset 57: calls: a varint longer than 10 bytes");
    v4_block(m, 1, 11, "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x02\x00", 11);
    expect_error(m, "t.spt: offset 57: calls: a varint longer than 10 bytes");
    /* The largest 10-byte varint is 2^64 - 1: an end one before its start. */
    v4_block(m, 1, 11, "\x07\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
    assert_int_equal(sp_fmt_spt_parse(m->b, m->n, "t.spt", &r, &err), 0);
    assert_int_equal(r.blocks[0].starts[0], 7);
    assert_int_equal(r.blocks[0].ends[0], 6);
    sp_fmt_rank_free(&r);
  }
}

/* Stamps whose differences take every varint length, back and forth
 * (an open call's end of 0, an end before its start, INT64_MIN and MAX):
 * version 4 keeps every bit, whole and through sp_fmt_spt_calls_read in
 * uneven batches, sequential and going back. */
static void hostile_stamps(const sp_fmt_source *s, int64_t first, int64_t n,
                           int64_t *st, int64_t *en) {
  (void)s;
  for (int64_t i = 0; i < n; i++) {
    uint64_t k = (uint64_t)(first + i);
    uint64_t h = k * 0x9e3779b97f4a7c15ull;
    int64_t base = (int64_t)(k * 1000);
    switch (k % 7) {
    case 0:
      st[i] = base, en[i] = base + 5;
      break;
    case 1:
      st[i] = base, en[i] = 0;
      break;
    case 2:
      st[i] = INT64_MIN, en[i] = INT64_MAX;
      break;
    case 3:
      st[i] = (int64_t)h, en[i] = (int64_t)(h >> (k % 64));
      break;
    case 4:
      st[i] = base + 100, en[i] = base + 99;
      break;
    default:
      st[i] = base, en[i] = base + (int64_t)(h >> 20);
    }
  }
}

static void v4_round_trip(void **state) {
  (void)state;
  make_dir();
  enum { N = 150001 }; /* three batches of the writer, the last short */
  for (int be = 0; be <= 1; be++) {
    sp_fmt_source srcs[2] = {
        {0, "hostile", "h.c", 3, N, hostile_stamps, NULL, 0},
        {2, "none", NULL, -1, 0, NULL, NULL, 0}};
    char path[1024];
    snprintf(path, sizeof path, "%s/v4_%d.spt", dir, be);
    sp_fmt_err err = {""};
    assert_int_equal(sp_fmt_spt_write(path, 5, 4, srcs, 2, be, &err), 0);
    int64_t *st = malloc(N * 8), *en = malloc(N * 8);
    assert_non_null(st);
    assert_non_null(en);
    hostile_stamps(NULL, 0, N, st, en);
    sp_fmt_rank r, x;
    assert_int_equal(sp_fmt_spt_read(path, &r, &err), 0);
    assert_int_equal(r.version, 4);
    assert_int_equal(r.rank, 5);
    assert_int_equal(r.nblocks, 2);
    assert_int_equal(r.blocks[0].count, N);
    assert_int_equal(r.blocks[1].thread, 2);
    assert_int_equal(r.blocks[1].count, 0);
    assert_memory_equal(r.blocks[0].starts, st, N * 8);
    assert_memory_equal(r.blocks[0].ends, en, N * 8);
    assert_int_equal(sp_fmt_spt_index(path, &x, &err), 0);
    assert_int_equal(x.blocks[0].zbytes, r.blocks[0].zbytes);
    assert_null(x.blocks[0].starts);
    int fd = open(path, O_RDONLY), failed = 0;
    assert_true(fd >= 0);
    sp_fmt_spt_calls c;
    sp_fmt_spt_calls_init(&c, fd, &x, &x.blocks[0], &failed);
    sp_fmt_source src = {.count = N, .read = sp_fmt_spt_calls_read, .ctx = &c};
    int64_t *a = malloc(N * 8), *b = malloc(N * 8);
    assert_non_null(a);
    assert_non_null(b);
    static const int64_t at[][2] = {{0, 1},     {1, 70000},     {70001, 3},
                                    {5, 10},    {70004, 79997}, {149990, 11},
                                    {0, 150001}};
    for (unsigned i = 0; i < sizeof at / sizeof at[0]; i++) {
      src.read(&src, at[i][0], at[i][1], a, b);
      assert_int_equal(failed, 0);
      assert_memory_equal(a, st + at[i][0], (size_t)at[i][1] * 8);
      assert_memory_equal(b, en + at[i][0], (size_t)at[i][1] * 8);
    }
    close(fd);
    /* Smaller than the fixed-size layout even for these stamps. */
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_true(sb.st_size < 16 * (int64_t)N);
    free(a);
    free(b);
    free(st);
    free(en);
    sp_fmt_rank_free(&r);
    sp_fmt_rank_free(&x);
  }
  remove_dir(dir);
}

static void write_rejects_bad_sources(void **state) {
  (void)state;
  make_dir();
  char path[1024];
  snprintf(path, sizeof path, "%s/bad.spt", dir);
  sp_fmt_err err = {""};
  sp_fmt_source two[2] = {{0, "a", NULL, -1, 0, NULL, NULL, 0},
                          {1, "b", NULL, -1, 0, NULL, NULL, 0}};
  assert_int_equal(sp_fmt_spt_write(path, 0, 2, two, 2, 0, &err), -1);
  assert_non_null(strstr(err.msg, "bad.spt: source 1 is on another thread"));
  assert_int_equal(sp_fmt_spt_write(path, 0, 5, two, 2, 0, &err), -1);
  assert_non_null(strstr(err.msg, "cannot write .spt version 5 (writes 1-4)"));
  two[1].thread = 0;
  two[1].name = "a";
  assert_int_equal(sp_fmt_spt_write(path, 0, 2, two, 2, 0, &err), -1);
  assert_non_null(
      strstr(err.msg, "bad.spt: two sources for region \"a\" on thread 0"));
  two[1].name = "";
  assert_int_equal(sp_fmt_spt_write(path, 0, 2, two, 2, 0, &err), -1);
  assert_non_null(strstr(err.msg, "source 1 has an empty region name"));
  assert_int_equal(dir_entries(dir), 0);
  remove_dir(dir);
}

static void expect_write_fails(const char *path, const char *reason) {
  sp_fmt_source s = {0, "a", NULL, -1, 1, read_blk, &T0[0], 0};
  sp_fmt_err err = {""};
  assert_int_equal(sp_fmt_spt_write(path, 0, 2, &s, 1, 0, &err), -1);
  char want[1200];
  snprintf(want, sizeof want, "%s: %s", path, reason);
  assert_string_equal(err.msg, want);
}

static void write_failures_leave_nothing(void **state) {
  (void)state;
  make_dir();
  char path[1024];
  snprintf(path, sizeof path, "%s/missing/x.spt", dir);
  expect_write_fails(path, strerror(ENOENT));

  /* A regular file where a directory should be. */
  char file[512];
  snprintf(file, sizeof file, "%s/plain", dir);
  FILE *f = fopen(file, "w");
  fclose(f);
  snprintf(path, sizeof path, "%s/plain/x.spt", dir);
  expect_write_fails(path, strerror(ENOTDIR));

  /* A directory without write permission (root ignores the bits). */
  char ro[512];
  snprintf(ro, sizeof ro, "%s/ro", dir);
  mkdir(ro, 0555);
  if (geteuid() != 0) {
    snprintf(path, sizeof path, "%s/x.spt", ro);
    expect_write_fails(path, strerror(EACCES));
  }
  assert_int_equal(dir_entries(ro), 0);
  rmdir(ro);

  /* Failure in mid-write (the file size limit stands in for a full disk):
   * the existing file keeps its bytes, and no temporary is left. */
  snprintf(path, sizeof path, "%s/keep.spt", dir);
  f = fopen(path, "w");
  fputs("old", f);
  fclose(f);
  struct rlimit old, small;
  getrlimit(RLIMIT_FSIZE, &old);
  small = old;
  small.rlim_cur = 4096;
  signal(SIGXFSZ, SIG_IGN);
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
  big_ctx c = {0, 0, 0};
  sp_fmt_source s = {0, "many", "m.c", 1, 100000, read_big, &c, 0};
  sp_fmt_err err = {""};
  int rc = sp_fmt_spt_write(path, 0, 2, &s, 1, 0, &err);
  setrlimit(RLIMIT_FSIZE, &old);
  assert_int_equal(rc, -1);
  char want[1200];
  snprintf(want, sizeof want, "%s: %s", path, strerror(EFBIG));
  assert_string_equal(err.msg, want);
  size_t len;
  unsigned char *b = slurp(path, &len);
  assert_int_equal(len, 3);
  assert_memory_equal(b, "old", 3);
  free(b);
  assert_int_equal(dir_entries(dir), 2); /* plain, keep.spt */

  /* And a success replaces it. */
  assert_int_equal(sp_fmt_spt_write(path, 0, 2, &s, 1, 0, &err), 0);
  sp_fmt_rank r;
  assert_int_equal(sp_fmt_spt_read(path, &r, &err), 0);
  assert_int_equal(r.blocks[0].count, 100000);
  sp_fmt_rank_free(&r);
  assert_int_equal(dir_entries(dir), 2);
  remove_dir(dir);
}

static void read_file_errors(void **state) {
  (void)state;
  make_dir();
  char path[1024];
  sp_fmt_rank r;
  sp_fmt_err err;
  snprintf(path, sizeof path, "%s/none.spt", dir);
  assert_int_equal(sp_fmt_spt_read(path, &r, &err), -1);
  char want[1200];
  snprintf(want, sizeof want, "%s: %s", path, strerror(ENOENT));
  assert_string_equal(err.msg, want);
  assert_false(sp_fmt_is_spt(path));
  assert_false(sp_fmt_is_h5(path));

  FILE *f = fopen(path, "w");
  fclose(f);
  assert_int_equal(sp_fmt_spt_read(path, &r, &err), -1);
  snprintf(want, sizeof want,
           "%s: offset 0: truncated: expected magic \"SCOPEPRF\" (8 bytes), "
           "0 left",
           path);
  assert_string_equal(err.msg, want);

  assert_int_equal(sp_fmt_spt_read(dir, &r, &err), -1);
  snprintf(want, sizeof want, "%s: not a regular file", dir);
  assert_string_equal(err.msg, want);

  /* HDF5 signature at 0, and after a 512-byte user block. */
  static const unsigned char sig[8] = {0x89, 'H',  'D',  'F',
                                       '\r', '\n', 0x1a, '\n'};
  snprintf(path, sizeof path, "%s/a.h5", dir);
  f = fopen(path, "wb");
  fwrite(sig, 1, 8, f);
  fclose(f);
  assert_true(sp_fmt_is_h5(path));
  assert_false(sp_fmt_is_spt(path));
  f = fopen(path, "wb");
  static unsigned char ub[520];
  memcpy(ub + 512, sig, 8);
  fwrite(ub, 1, sizeof ub, f);
  fclose(f);
  assert_true(sp_fmt_is_h5(path));
  f = fopen(path, "wb");
  fwrite(ub, 1, 300, f);
  fclose(f);
  assert_false(sp_fmt_is_h5(path));
  remove_dir(dir);
}

static void tmp_names_differ(void **state) {
  (void)state;
  char a[64], b[64], tiny[8];
  assert_int_equal(sp_fmt_tmp_name("/x/y.spt", a, sizeof a), 0);
  assert_int_equal(sp_fmt_tmp_name("/x/y.spt", b, sizeof b), 0);
  assert_string_not_equal(a, b);
  char want[64];
  snprintf(want, sizeof want, "/x/y.spt.tmp.%ld.", (long)getpid());
  assert_memory_equal(a, want, strlen(want));
  assert_int_equal(sp_fmt_tmp_name("/x/y.spt", tiny, sizeof tiny), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(valid_all_versions_and_orders),
      cmocka_unit_test(empty_profile),
      cmocka_unit_test(header_errors),
      cmocka_unit_test(truncated_header_fields),
      cmocka_unit_test(truncated_block_fields),
      cmocka_unit_test(truncated_at_every_length),
      cmocka_unit_test(block_errors),
      cmocka_unit_test(location_rules),
      cmocka_unit_test(index_and_file_calls),
      cmocka_unit_test(file_window),
      cmocka_unit_test(write_matches_hand_built_bytes),
      cmocka_unit_test(big_round_trip),
      cmocka_unit_test(v4_block_errors),
      cmocka_unit_test(v4_round_trip),
      cmocka_unit_test(large_file),
      cmocka_unit_test(write_rejects_bad_sources),
      cmocka_unit_test(write_failures_leave_nothing),
      cmocka_unit_test(read_file_errors),
      cmocka_unit_test(tmp_names_differ),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
