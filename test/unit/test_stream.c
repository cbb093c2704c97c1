/* test_stream.c - the .spts stream reader against streams built here
 * (stream_writer.h): every record kind in both byte orders, cut at every
 * byte, corrupted at every byte, the overwrite and naming rules, the TSC
 * map, and crafted bad input with its exact message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sp_format.h"
#include "sp_profile.h"
#include "stream_writer.h"
#include "test_dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers --------------------------------------------------------------
 */

static sp_fmt_stream *open_image(const sw *w, size_t len, int flags,
                                 const char *name) {
  assert_int_equal(sw_save(w, at(name), len), 0);
  sp_fmt_stream *s = NULL;
  sp_fmt_err err = {""};
  if (sp_fmt_stream_open(at(name), flags, &s, &err) != 0)
    fail_msg("%s", err.msg);
  return s;
}

/* The error opening the first len bytes of w, without "<dir>/<name>: ". */
static const char *open_error(const sw *w, size_t len, const char *name) {
  static sp_fmt_err err;
  assert_int_equal(sw_save(w, at(name), len), 0);
  sp_fmt_stream *s = (sp_fmt_stream *)1;
  assert_int_equal(sp_fmt_stream_open(at(name), 0, &s, &err), -1);
  assert_null(s);
  const char *path = at(name);
  assert_int_equal(strncmp(err.msg, path, strlen(path)), 0);
  return err.msg + strlen(path) + 2;
}

/* A source's calls, read in one go. */
typedef struct calls {
  int64_t n, s[64], e[64];
} calls;

static void read_all(const sp_fmt_source *src, calls *c) {
  assert_true(src->count <= 64);
  c->n = src->count;
  src->read(src, 0, src->count, c->s, c->e);
}

/* Expected source: thread, name, file, line, calls as (start, end). */
typedef struct want {
  int32_t thread;
  const char *name, *file;
  int32_t line;
  int64_t n, v[16];
} want;

static void check_sources(const sp_fmt_stream *s, const want *w, int64_t n) {
  assert_int_equal(sp_fmt_stream_nsources(s), n);
  const sp_fmt_source *src = sp_fmt_stream_sources(s);
  for (int64_t i = 0; i < n; i++) {
    assert_int_equal(src[i].thread, w[i].thread);
    assert_string_equal(src[i].name, w[i].name);
    if (w[i].file)
      assert_string_equal(src[i].file, w[i].file);
    else
      assert_null(src[i].file);
    assert_int_equal(src[i].line, w[i].line);
    assert_int_equal(src[i].count, w[i].n);
    calls c;
    read_all(&src[i], &c);
    for (int64_t k = 0; k < w[i].n; k++) {
      assert_int_equal(c.s[k], w[i].v[2 * k]);
      assert_int_equal(c.e[k], w[i].v[2 * k + 1]);
    }
  }
  assert_int_equal(sp_fmt_stream_failed(s), 0);
}

/* Two opened streams hold the same: info (but size and tail), metadata,
 * sources and every call. */
static void check_same(const sp_fmt_stream *a, const sp_fmt_stream *b) {
  sp_fmt_stream_info x, y;
  sp_fmt_stream_get_info(a, &x);
  sp_fmt_stream_get_info(b, &y);
  assert_int_equal(x.rank, y.rank);
  assert_int_equal(x.pid, y.pid);
  assert_int_equal(x.stopped, y.stopped);
  assert_int_equal(x.stop_cause, y.stop_cause);
  assert_int_equal(x.calls, y.calls);
  assert_int_equal(x.open_calls, y.open_calls);
  assert_int_equal(x.dropped, y.dropped);
  assert_int_equal(x.threads, y.threads);
  const sp_fmt_meta *ma = sp_fmt_stream_meta(a), *mb = sp_fmt_stream_meta(b);
  assert_int_equal(ma->n, mb->n);
  for (int64_t i = 0; i < ma->n; i++) {
    assert_string_equal(ma->items[i].key, mb->items[i].key);
    assert_int_equal(ma->items[i].type, mb->items[i].type);
    if (ma->items[i].type == SP_FMT_META_STR)
      assert_string_equal(ma->items[i].str, mb->items[i].str);
    else
      assert_int_equal(ma->items[i].i64, mb->items[i].i64);
  }
  int64_t n = sp_fmt_stream_nsources(a);
  assert_int_equal(n, sp_fmt_stream_nsources(b));
  const sp_fmt_source *sa = sp_fmt_stream_sources(a),
                      *sb = sp_fmt_stream_sources(b);
  for (int64_t i = 0; i < n; i++) {
    assert_int_equal(sa[i].thread, sb[i].thread);
    assert_string_equal(sa[i].name, sb[i].name);
    assert_int_equal(sa[i].line, sb[i].line);
    assert_int_equal(sa[i].count, sb[i].count);
    calls ca, cb;
    read_all(&sa[i], &ca);
    read_all(&sb[i], &cb);
    assert_memory_equal(ca.s, cb.s, (size_t)ca.n * 8);
    assert_memory_equal(ca.e, cb.e, (size_t)ca.n * 8);
  }
}

/* ---- the reference stream -------------------------------------------------
 */

#define REF_RECORDS 19

/* The first k records of the reference stream: every record kind, two
 * ids of one name, an id without REGION, overwritten and dropped calls,
 * ENDS, open calls, a thread with dropped calls only, rank and metadata
 * set and replaced, a stop by signal 11. Writer threads 7 and 2 become 1
 * and 0. */
static void ref(sw *w, int be, int k) {
  w->be = be;
  sw_header(w, 3, 4242, SP_STREAM_CLOCK_NS);
  static const uint64_t main0[] = {100, 0}, solve0[] = {200, 400, 500, 0},
                        kern2[] = {250, 300, 600, 700}, kern3[] = {300, 300},
                        solve_t2[] = {150, 450, 0, 0}, r9[] = {160, 170},
                        t4[] = {0, 0}, solve2[] = {850, 0};
  const sp_stream_end e1[] = {{7, 1, 1, 800}};
  for (int i = 0; i < k; i++) {
    switch (i) {
    case 0:
      sw_region(w, 0, 10, "main", "main.c", 0);
      break;
    case 1:
      sw_region(w, 1, 42, "solve", "solve.c", 0);
      break;
    case 2:
      sw_region(w, 2, -1, "kernel", NULL, 0x401000);
      break;
    case 3:
      sw_region(w, 3, 7, "kernel", "k2.c", 0);
      break;
    case 4:
      sw_meta(w, "hostname", "node-7", 0);
      break;
    case 5:
      sw_clock(w, 50, 50);
      break;
    case 6:
      sw_calls(w, 7, 0, 0, 1, main0);
      break;
    case 7:
      sw_calls(w, 7, 1, 0, 2, solve0);
      break;
    case 8:
      sw_calls(w, 7, 2, 0, 2, kern2);
      break;
    case 9:
      sw_calls(w, 7, 3, 0, 1, kern3);
      break;
    case 10:
      sw_ends(w, 1, e1);
      break;
    case 11:
      sw_calls(w, 2, 1, 0, 2, solve_t2);
      break;
    case 12:
      sw_calls(w, 2, 9, 0, 1, r9);
      break;
    case 13:
      sw_calls(w, 4, 0, 0, 1, t4);
      break;
    case 14:
      sw_meta(w, "rank", NULL, 5);
      break;
    case 15:
      sw_meta(w, "hostname", "node-8", 0);
      break;
    case 16:
      sw_meta(w, "omp_num_threads", NULL, 2);
      break;
    case 17:
      sw_calls(w, 7, 1, 2, 1, solve2);
      break;
    case 18:
      sw_stop(w, 990, 11);
      break;
    }
  }
}

static void check_ref(const sp_fmt_stream *s) {
  sp_fmt_stream_info in;
  sp_fmt_stream_get_info(s, &in);
  assert_int_equal(in.rank, 5);
  assert_int_equal(in.pid, 4242);
  assert_int_equal(in.torn_offset, -1);
  assert_int_equal(in.stopped, 1);
  assert_int_equal(in.stop_cause, 11);
  assert_int_equal(in.calls, 9);
  assert_int_equal(in.open_calls, 2);
  assert_int_equal(in.dropped, 2);
  assert_int_equal(in.threads, 2);
  const sp_fmt_meta *m = sp_fmt_stream_meta(s);
  assert_int_equal(m->n, 2);
  assert_string_equal(m->items[0].key, "hostname");
  assert_string_equal(m->items[0].str, "node-8");
  assert_string_equal(m->items[1].key, "omp_num_threads");
  assert_int_equal(m->items[1].i64, 2);
  static const want w[] = {
      {0, "solve", "solve.c", 42, 1, {150, 450}},
      {0, "<region 9>", NULL, -1, 1, {160, 170}},
      {1, "main", "main.c", 10, 1, {100, 990}},
      {1, "solve", "solve.c", 42, 3, {200, 400, 500, 800, 850, 990}},
      {1, "kernel", "k2.c", 7, 3, {250, 300, 300, 300, 600, 700}},
  };
  check_sources(s, w, 5);
}

static void round_trip(void **state) {
  (void)state;
  for (int mode = 0; mode < 4; mode++) {
    int be = mode & 1;
    sw w = {0};
    w.z = mode >> 1; /* calls as ZCALLS, version 2; else version 1 */
    ref(&w, be, REF_RECORDS);
    sp_fmt_stream *s = open_image(&w, w.n, 0, "ref.spts");
    check_ref(s);
    sp_fmt_stream_info in;
    sp_fmt_stream_get_info(s, &in);
    assert_int_equal(in.size, (int64_t)w.n);
    sp_fmt_stream_close(s);
    s = open_image(&w, w.n, SP_FMT_STREAM_TRUST, "ref.spts");
    check_ref(s);
    sp_fmt_stream_close(s);
    assert_true(sp_fmt_is_stream(at("ref.spts")));

    /* The whole rank in memory, the same. */
    sp_fmt_rank r;
    sp_fmt_err err;
    assert_int_equal(sp_fmt_stream_read(at("ref.spts"), &r, &err), 0);
    assert_int_equal(r.rank, 5);
    assert_int_equal(r.nblocks, 5);
    assert_int_equal(r.nregions, 4); /* solve on both threads: one */
    assert_string_equal(r.regions[r.blocks[3].region].name, "solve");
    assert_int_equal(r.blocks[3].region, r.blocks[0].region);
    assert_int_equal(r.blocks[3].ends[1], 800);
    assert_int_equal(r.meta.n, 2);
    sp_fmt_rank_free(&r);

    /* Written as the runtime will: a .spt version 3 of it reads back
     * equal. */
    s = open_image(&w, w.n, SP_FMT_STREAM_TRUST, "ref.spts");
    assert_int_equal(sp_fmt_spt_write(at("ref.spt"), 5, 3,
                                      sp_fmt_stream_sources(s),
                                      sp_fmt_stream_nsources(s), be, &err),
                     0);
    assert_int_equal(sp_fmt_stream_failed(s), 0);
    sp_fmt_stream_close(s);
    assert_int_equal(sp_fmt_spt_read(at("ref.spt"), &r, &err), 0);
    assert_int_equal(r.nblocks, 5);
    assert_int_equal(r.blocks[4].count, 3);
    assert_int_equal(r.blocks[4].starts[1], 300);
    assert_int_equal(r.blocks[2].ends[0], 990);
    sp_fmt_rank_free(&r);
    free(w.b);
  }
}

/* Cut after every byte: the records wholly before the cut are read, as
 * if the stream held only them; the next one starts the torn tail. */
static void cut_at_every_byte(void **state) {
  (void)state;
  for (int mode = 0; mode < 4; mode++) {
    int be = mode & 1;
    sw w = {0}, part = {0};
    w.z = part.z = mode >> 1;
    ref(&w, be, REF_RECORDS);
    assert_int_equal(w.nrec, REF_RECORDS);
    for (size_t len = 0; len <= w.n; len++) {
      if (len < 8) {
        char msg[128];
        snprintf(msg, sizeof msg,
                 "offset 0: truncated: expected magic \"SPSTREAM\" (8 "
                 "bytes), %zu left",
                 len);
        assert_string_equal(open_error(&w, len, "cut.spts"), msg);
        continue;
      }
      if (len < 32) {
        char msg[128];
        snprintf(msg, sizeof msg,
                 "offset 8: truncated: expected stream header (24 bytes), "
                 "%zu left",
                 len - 8);
        assert_string_equal(open_error(&w, len, "cut.spts"), msg);
        continue;
      }
      int k = 0;
      while (k < w.nrec && w.ends[k] <= len)
        k++;
      size_t whole = k ? w.ends[k - 1] : 32;
      sp_fmt_stream *s = open_image(&w, len, 0, "cut.spts");
      ref(&part, be, k);
      assert_int_equal(part.n, whole);
      sp_fmt_stream *p = open_image(&part, part.n, 0, "part.spts");
      sp_fmt_stream_info in;
      sp_fmt_stream_get_info(s, &in);
      assert_int_equal(in.torn_offset, len == whole ? -1 : (int64_t)whole);
      if (len > whole && len - whole < 16) {
        char msg[64];
        snprintf(msg, sizeof msg, "record head cut short (%zu of 16 bytes)",
                 len - whole);
        assert_string_equal(in.torn_what, msg);
      }
      check_same(s, p);
      sp_fmt_stream_close(s);
      sp_fmt_stream_close(p);
    }
    free(w.b);
    free(part.b);
  }
}

/* A changed byte anywhere in a record makes that record the torn tail. */
static void corrupt_every_byte(void **state) {
  (void)state;
  for (int mode = 0; mode < 4; mode++) {
    int be = mode & 1;
    sw w = {0}, part = {0};
    w.z = part.z = mode >> 1;
    ref(&w, be, REF_RECORDS);
    for (size_t b = 32; b < w.n; b++) {
      int k = 0;
      while (w.ends[k] <= b)
        k++;
      size_t rec = k ? w.ends[k - 1] : 32;
      w.b[b] ^= 0x5a;
      sp_fmt_stream *s = open_image(&w, w.n, 0, "bad.spts");
      w.b[b] ^= 0x5a;
      sp_fmt_stream_info in;
      sp_fmt_stream_get_info(s, &in);
      if (in.torn_offset != (int64_t)rec)
        fail_msg("byte %zu (be %d): torn at %lld, not %zu", b, be,
                 (long long)in.torn_offset, rec);
      ref(&part, be, k);
      sp_fmt_stream *p = open_image(&part, part.n, 0, "part.spts");
      check_same(s, p);
      sp_fmt_stream_close(s);
      sp_fmt_stream_close(p);
    }
    free(w.b);
    free(part.b);
  }
}

/* The top byte of a word in every lane (a multiply carries changes only
 * upward; the check's rotations must bring them back down): a META
 * integer's top byte, payload word 2, changed, is seen. */
static void check_top_bits(void **state) {
  (void)state;
  for (int be = 0; be < 2; be++) {
    sw w = {0};
    w.be = be;
    sw_header(&w, 0, 1, 0);
    sw_meta(&w, "n", NULL, 5);
    w.b[32 + 16 + 16 + (be ? 0 : 7)] ^= 0x5a;
    sp_fmt_stream *s = open_image(&w, w.n, 0, "top.spts");
    sp_fmt_stream_info in;
    sp_fmt_stream_get_info(s, &in);
    assert_int_equal(in.torn_offset, 32);
    assert_int_equal(sp_fmt_stream_meta(s)->n, 0);
    sp_fmt_stream_close(s);
    free(w.b);
  }
}

/* Later writes of an index win, but an end of 0 never replaces a known
 * one; ENDS set ends; start 0 is no call; unwritten indices are absent. */
/* z: calls as 0 CALLS records, 1 ZCALLS records, 2 both in turn. */
static void overwrite_rules_z(int z) {
  sw w = {0};
  w.z = z != 0;
  sw_header(&w, 0, 1, SP_STREAM_CLOCK_NS);
  sw_region(&w, 0, -1, "f", NULL, 0);
  static const uint64_t a[] = {10, 20, 30, 0, 50, 60, 70, 0};
  static const uint64_t b[] = {31, 0, 51, 0, 71, 75};
  static const uint64_t c[] = {90, 95, 0, 0};
  static const uint64_t d[] = {52, 53};
  static const uint64_t late[] = {200, 150};
  const sp_stream_end e1[] = {{0, 0, 1, 35}}, e2[] = {{0, 0, 2, 58}};
  const sp_stream_end e3[] = {{0, 0, 9, 100}, {0, 0, 3, 0}, {3, 3, 0, 1}};
  int alt = z == 2;
  sw_calls(&w, 0, 0, 0, 4, a);
  sw_ends(&w, 1, e1);
  w.z ^= alt;
  sw_calls(&w, 0, 0, 1, 3, b);
  sw_ends(&w, 1, e2);
  w.z ^= alt;
  sw_calls(&w, 0, 0, 5, 2, c);
  sw_ends(&w, 3, e3);
  w.z ^= alt;
  sw_calls(&w, 0, 0, 2, 1, d);
  w.z ^= alt;
  sw_calls(&w, 0, 0, 7, 1, late); /* ends before it starts: clamped */
  for (int flags = 0; flags < 2; flags++) {
    sp_fmt_stream *s = open_image(&w, w.n, flags, "ow.spts");
    sp_fmt_stream_info in;
    sp_fmt_stream_get_info(s, &in);
    assert_int_equal(in.calls, 6);
    assert_int_equal(in.dropped, 1);
    assert_int_equal(in.open_calls, 0);
    assert_int_equal(in.threads, 1);
    assert_int_equal(in.stopped, 0);
    static const want x[] = {
        {0,
         "f",
         NULL,
         -1,
         6,
         {10, 20, 31, 35, 52, 53, 71, 75, 90, 95, 200, 200}}};
    check_sources(s, x, 1);
    /* Any call on its own, in any order. */
    const sp_fmt_source *src = sp_fmt_stream_sources(s);
    for (int64_t i = 5; i >= 0; i--) {
      int64_t st, en;
      src->read(src, i, 1, &st, &en);
      assert_int_equal(st, x[0].v[2 * i]);
      assert_int_equal(en, x[0].v[2 * i + 1]);
    }
    int64_t st[2], en[2];
    src->read(src, 3, 2, st, en);
    assert_int_equal(st[0], 71);
    assert_int_equal(st[1], 90);
    sp_fmt_stream_close(s);
  }
  free(w.b);
}

static void overwrite_rules(void **state) {
  (void)state;
  for (int z = 0; z < 3; z++)
    overwrite_rules_z(z);
}

/* Ids of one name on one thread are one source, merged by start, end
 * descending, then id; reads go anywhere. */
static void same_name_merge(void **state) {
  (void)state;
  sw w = {0};
  sw_header(&w, 0, 1, SP_STREAM_CLOCK_NS);
  sw_region(&w, 2, 5, "k", "b.c", 0x1000);
  sw_region(&w, 1, 3, "k", "a.c", 0x2000);
  sw_region(&w, 1, 4, "other", "x.c", 0); /* the first of id 1 wins */
  static const uint64_t i1[] = {10, 50, 60, 70, 80, 90};
  static const uint64_t i2[] = {10, 60, 60, 70, 85, 86};
  static const uint64_t i3[] = {5, 100};
  sw_calls(&w, 0, 1, 0, 3, i1);
  sw_calls(&w, 0, 2, 0, 3, i2);
  sw_calls(&w, 0, 3, 0, 1, i3);
  sp_fmt_stream *s = open_image(&w, w.n, 0, "merge.spts");
  static const want x[] = {
      {0, "<region 3>", NULL, -1, 1, {5, 100}},
      /* The location of the first REGION record in stream order. */
      {0, "k", "b.c", 5, 6, {10, 60, 10, 50, 60, 70, 60, 70, 80, 90, 85, 86}},
  };
  check_sources(s, x, 2);
  const sp_fmt_source *src = &sp_fmt_stream_sources(s)[1];
  int64_t st[2], en[2];
  src->read(src, 3, 2, st, en);
  assert_int_equal(st[0], 60);
  assert_int_equal(st[1], 80);
  src->read(src, 0, 1, st, en);
  assert_int_equal(en[0], 60);
  src->read(src, 5, 1, st, en);
  assert_int_equal(st[0], 85);
  /* Statistics through the sources: k's calls nest in region 3's. */
  sp_fmt_stats out[2];
  assert_int_equal(sp_fmt_stats_thread(sp_fmt_stream_sources(s), 2, out, NULL),
                   0);
  assert_int_equal(out[0].exclusive_ns, 95 - (50 + 10 + 10));
  assert_int_equal(out[1].calls, 6);
  assert_int_equal(out[1].total_ns, 50 + 40 + 10 + 10 + 10 + 1);
  sp_fmt_stream_close(s);
  free(w.b);
}

/* Clock 1: stamps map through the first and the last CLOCK record. */
static void tsc_map(void **state) {
  (void)state;
  for (int be = 0; be < 2; be++) {
    sw w = {0};
    w.be = be;
    sw_header(&w, 1, 1, SP_STREAM_CLOCK_TSC);
    sw_clock(&w, 1000, 1000000);
    sw_region(&w, 0, -1, "f", NULL, 0);
    static const uint64_t c[] = {500, 600, 1000, 1200, 2001, 0};
    sw_calls(&w, 0, 0, 0, 3, c);
    size_t one = w.n;
    sw_clock(&w, 2000, 999); /* neither first nor last: not used */
    sw_clock(&w, 3000, 1001000);
    sp_fmt_stream *s = open_image(&w, w.n, 0, "tsc.spts");
    /* 0.5 ns per tick; the open call ends at the last stamp, 3000. */
    static const want x[] = {
        {0,
         "f",
         NULL,
         -1,
         3,
         {999750, 999800, 1000000, 1000100, 1000500, 1001000}}};
    check_sources(s, x, 1);
    sp_fmt_stream_close(s);
    char msg[160];
    snprintf(msg, sizeof msg,
             "offset 24: TSC stamps need CLOCK records of two different "
             "stamps; the stream has one");
    assert_string_equal(open_error(&w, one, "tsc1.spts"), msg);
    free(w.b);
  }
  /* No calls: nothing to map, no error. */
  sw w = {0};
  sw_header(&w, 1, 1, SP_STREAM_CLOCK_TSC);
  sw_stop(&w, 5, 9);
  sp_fmt_stream *s = open_image(&w, w.n, 0, "tsc0.spts");
  assert_int_equal(sp_fmt_stream_nsources(s), 0);
  sp_fmt_stream_close(s);
  /* Two records of one stamp. */
  sw_clock(&w, 7, 1);
  sw_clock(&w, 7, 2);
  static const uint64_t c[] = {7, 8};
  sw_calls(&w, 0, 0, 0, 1, c);
  assert_string_equal(open_error(&w, w.n, "tsc2.spts"),
                      "offset 24: TSC stamps need CLOCK records of two "
                      "different stamps; its first and last have the same "
                      "stamp");
  free(w.b);
}

/* Header faults are errors, with the offset of the field. */
static void header_errors(void **state) {
  (void)state;
  sw w = {0};
  sw_header(&w, 0, 1, SP_STREAM_CLOCK_NS);
  memcpy(w.b, "SPSTREAX", 8);
  assert_string_equal(open_error(&w, w.n, "h.spts"),
                      "offset 0: bad magic: not a ScopeProf .spts stream");
  sw_header_as(&w, 3, SP_STREAM_BOM, 0, 1, 0);
  assert_string_equal(open_error(&w, w.n, "h.spts"),
                      "offset 8: unknown stream version 3 (supports 1 to 2)");
  w.be = 1; /* a big-endian writer's version 3 reads as 3 here too */
  sw_header_as(&w, 3, SP_STREAM_BOM, 0, 1, 0);
  assert_string_equal(open_error(&w, w.n, "h.spts"),
                      "offset 8: unknown stream version 3 (supports 1 to 2)");
  sw_header_as(&w, 0, SP_STREAM_BOM, 0, 1, 0);
  assert_string_equal(open_error(&w, w.n, "h.spts"),
                      "offset 8: unknown stream version 0 (supports 1 to 2)");
  w.be = 0;
  sw_header_as(&w, 1, 0x01020305, 0, 1, 0);
  assert_string_equal(open_error(&w, w.n, "h.spts"),
                      "offset 12: bad byte-order mark 0x01020305");
  sw_header_as(&w, 1, SP_STREAM_BOM, 0, 1, 7);
  assert_string_equal(open_error(&w, w.n, "h.spts"),
                      "offset 24: unknown clock 7 (0 = ns, 1 = TSC)");
  sw_header(&w, -1, 1, 0);
  assert_string_equal(open_error(&w, w.n, "h.spts"),
                      "offset 16: negative rank -1");
  /* ... unless a rank record says it. */
  sw_meta(&w, "rank", NULL, 4);
  sp_fmt_stream *s = open_image(&w, w.n, 0, "h.spts");
  sp_fmt_stream_info in;
  sp_fmt_stream_get_info(s, &in);
  assert_int_equal(in.rank, 4);
  sp_fmt_stream_close(s);
  assert_int_equal(mkdir(at("adir"), 0777) == 0 || errno == EEXIST, 1);
  sp_fmt_err err;
  assert_int_equal(sp_fmt_stream_open(at("adir"), 0, &s, &err), -1);
  char msg[1100];
  snprintf(msg, sizeof msg, "%s: not a regular file", at("adir"));
  assert_string_equal(err.msg, msg);
  assert_int_equal(sp_fmt_stream_open(at("none"), 0, &s, &err), -1);
  snprintf(msg, sizeof msg, "%s: No such file or directory", at("none"));
  assert_string_equal(err.msg, msg);
  assert_false(sp_fmt_is_stream(at("none")));
  free(w.b);
}

/* Records that are not complete start the torn tail: the first failed
 * rule is said, the records before are kept. */
static void torn_records(void **state) {
  (void)state;
  struct {
    const char *what;
    int kind;
  } cases[] = {
      {"CALLS record: 1099511627776 calls do not fit in 80 bytes", 0},
      {"record size 20 is not a multiple of 8 from 16 on", 1},
      {"record size 8 is not a multiple of 8 from 16 on", 2},
      {"REGION record: its fields take 56 bytes, its size says 48", 3},
      {"unknown record type 0x5350000e", 4},
      {"unknown record type 0x00000000", 5},
      {"record of 64 bytes cut short (56 left)", 6},
      {"CALLS record fails its check", 7},
      {"META record: rank is not an integer 0..2147483647", 8},
      {"CALLS record: negative thread or region id", 9},
      {"ENDS record: 3 entries do not fit in 72 bytes", 10},
      {"META record: integer with a 2-byte value", 11},
      {"REGION record: a string holds a NUL byte", 12},
      {"CALLS record: its fields take 80 bytes, its size says 96", 13},
      {"STOP record of 24 bytes is shorter than 32", 14},
      {"PATHS record: items 1 + 1 of 0 out of range", 15},
      {"COUNTERS record: 0 counters, 1 rows in 64 bytes", 16},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    sw w = {0};
    sw_header(&w, 0, 1, 0);
    sw_region(&w, 0, -1, "f", NULL, 0);
    static const uint64_t c[] = {1, 2, 3, 4};
    sw_calls(&w, 0, 0, 0, 1, c);
    size_t at0 = w.n;
    switch (cases[i].kind) {
    case 0:
      sw_calls(&w, 0, 0, 1, 2, c);
      sw_set64(&w, at0 + 16 + 16, (uint64_t)1 << 40);
      break;
    case 1:
    case 2:
      sw_calls(&w, 0, 0, 1, 1, c);
      sw_set32(&w, at0 + 4, cases[i].kind == 1 ? 20 : 8);
      break;
    case 3:
      sw_region(&w, 1, -1, "abcdef", NULL, 0);
      sw_set32(&w, at0 + 16 + 8, 9);
      break;
    case 4:
      sw_calls(&w, 0, 0, 1, 1, c);
      sw_set32(&w, at0, SP_STREAM_COUNTERS + 1);
      break;
    case 5: {
      unsigned char z[64] = {0};
      sw_put(&w, z, sizeof z);
      break;
    }
    case 6:
      sw_calls(&w, 0, 0, 1, 1, c);
      w.n -= 8;
      break;
    case 7:
      sw_calls(&w, 0, 0, 1, 1, c);
      w.b[w.n - 1] ^= 1;
      break;
    case 8:
      sw_meta(&w, "rank", "7", 0);
      break;
    case 9:
      sw_calls(&w, -2, 0, 1, 1, c);
      break;
    case 10: {
      const sp_stream_end e[] = {{0, 0, 0, 9}, {0, 0, 0, 9}};
      sw_ends(&w, 2, e);
      sw_set64(&w, at0 + 16, 3);
      break;
    }
    case 11:
      sw_meta(&w, "x", "ab", 0);
      sw_set32(&w, at0 + 16, 'i');
      break;
    case 12:
      sw_region(&w, 1, -1, "a\0b", NULL, 0);
      sw_set32(&w, at0 + 16 + 8, 3);
      break;
    case 13: {
      static const uint64_t c3[] = {1, 2, 3, 4, 5, 6};
      sw_calls(&w, 0, 0, 1, 3, c3);
      sw_set64(&w, at0 + 16 + 16, 2);
      break;
    }
    case 14:
      sw_begin(&w, SP_STREAM_STOP);
      sw_u64(&w, 5);
      sw_end(&w);
      break;
    case 15: /* a CALLS record's fields read as a PATHS record's */
      sw_calls(&w, 0, 0, 1, 1, c);
      sw_set32(&w, at0, SP_STREAM_PATHS);
      break;
    case 16: /* a CALLS record's fields read as a COUNTERS record's */
      sw_calls(&w, 0, 0, 1, 1, c);
      sw_set32(&w, at0, SP_STREAM_COUNTERS);
      break;
    }
    /* Each rule is checked before the check is computed: the rule at
     * fault is the one said, with or without TRUST. */
    for (int flags = 0; flags < 2; flags++) {
      if (flags && cases[i].kind == 7)
        continue;
      sp_fmt_stream *s = open_image(&w, w.n, flags, "torn.spts");
      sp_fmt_stream_info in;
      sp_fmt_stream_get_info(s, &in);
      assert_int_equal(in.torn_offset, (int64_t)at0);
      assert_string_equal(in.torn_what, cases[i].what);
      assert_int_equal(in.calls, 1);
      sp_fmt_stream_close(s);
    }
    free(w.b);
  }
}

/* COUNTERS records: a later row replaces an earlier one of its (thread,
 * region), two ids of one name add up, threads are numbered as the
 * sources are (a thread with no call after them), in both byte orders
 * and with or without TRUST; a record naming other counters is torn. */
static void counters_records(void **state) {
  (void)state;
  static const char *const names[] = {"page-faults", "task-clock"};
  for (int be = 0; be < 2; be++)
    for (int flags = 0; flags < 2; flags++) {
      sw w = {0};
      w.be = be;
      sw_header(&w, 0, 1, SP_STREAM_CLOCK_NS);
      sw_region(&w, 0, -1, "main", NULL, 0);
      sw_region(&w, 1, -1, "kernel", NULL, 0);
      sw_region(&w, 2, -1, "kernel", NULL, 0);
      static const uint64_t c[] = {100, 200};
      sw_calls(&w, 5, 0, 0, 1, c);
      sw_calls(&w, 2, 1, 0, 1, c);
      sw_clock(&w, 100, 100);
      sw_clock(&w, 300, 300);
      sw_stop(&w, 300, 0);
      static const uint64_t t5[] = {0, 1, 9, 9, 9, 9},
                            t2[] = {1, 2, 10, 100, 4, 40, 2, 1, 5, 50, 5, 50},
                            t7[] = {0, 3, 1, 2, 3, 4},
                            t5b[] = {0, 2, 20, 200, 7, 70};
      sw_counters(&w, 5, 2, names, 1, t5);
      sw_counters(&w, 2, 2, names, 2, t2);
      sw_counters(&w, 7, 2, names, 1, t7);
      sw_counters(&w, 5, 2, names, 1, t5b);
      size_t whole = w.n;
      static const char *const other[] = {"page-faults", "cycles"};
      sw_counters(&w, 5, 2, other, 1, t5);
      sp_fmt_stream *s = open_image(&w, w.n, flags, "ctr.spts");
      sp_fmt_stream_info in;
      sp_fmt_stream_get_info(s, &in);
      assert_int_equal(in.torn_offset, (int64_t)whole);
      assert_string_equal(in.torn_what,
                          "COUNTERS record: counters differ from the first's");
      sp_fmt_ctr t;
      assert_int_equal(sp_fmt_stream_counters(s, &t), 0);
      assert_int_equal(t.n, 2);
      assert_string_equal(t.names[0], "page-faults");
      assert_string_equal(t.names[1], "task-clock");
      assert_int_equal(t.nrows, 3);
      /* writer thread 2 is thread 0, 5 is 1, 7 (no call) 2 + 7 */
      assert_int_equal(t.thread[0], 0);
      assert_string_equal(t.region[0], "kernel");
      assert_int_equal(t.calls[0], 3);
      assert_int_equal(t.incl[0], 15);
      assert_int_equal(t.incl[1], 150);
      assert_int_equal(t.excl[0], 9);
      assert_int_equal(t.excl[1], 90);
      assert_int_equal(t.thread[1], 1);
      assert_string_equal(t.region[1], "main");
      assert_int_equal(t.calls[1], 2);
      assert_int_equal(t.incl[2], 20);
      assert_int_equal(t.excl[3], 70);
      assert_int_equal(t.thread[2], 9);
      assert_int_equal(t.calls[2], 3);
      sp_fmt_ctr_free(&t);
      sp_fmt_stream_close(s);
      free(w.b);
    }
}

/* MPI records' 32-byte slots: a send in one, a completed receive and a
 * collective with an ext slot each, a communicator only an ext names, a
 * slot whose ext is missing passed over, in both byte orders. */
static void mpi_slots(void **state) {
  (void)state;
#define W(lo, hi) ((uint64_t)(uint32_t)(lo) | (uint64_t)(uint32_t)(hi) << 32)
  static const uint64_t m[] = {120, 64, W(1, 3),   W(7, 1 | 2 << 8),
                               130, 40, W(1, 2),   W(9, 5 | 0x80),
                               120, 0,  W(1, -1),  0,
                               140, 8,  W(0, -1),  W(-1, 6 | 0x80),
                               0,   24, W(-1, 1),  0,
                               150, 4,  W(1, 0),   W(3, 1 | 0x80),
                               0,   0,  W(-1, -1), 1 << 24,
                               160, 4,  W(1, 0),   W(3, 1 | 0x80)};
#undef W
  for (int be = 0; be < 2; be++) {
    sw w = {0};
    w.be = be;
    sw_header(&w, 0, 1, SP_STREAM_CLOCK_NS);
    sw_region(&w, 0, -1, "MPI_Bcast", NULL, 0);
    sw_region(&w, 1, -1, "MPI_Send", NULL, 0);
    static const uint64_t c[] = {100, 200};
    sw_calls(&w, 5, 0, 0, 1, c);
    sw_mpi(&w, 5, 8, m);
    sp_fmt_stream *s = open_image(&w, w.n, 0, "mpi.spts");
    sp_fmt_mpi x;
    sp_fmt_err err = {0};
    assert_int_equal(sp_fmt_stream_mpi(s, &x, &err), 0);
    assert_int_equal(x.nmsgs, 4);
    const sp_fmt_mpimsg *g = x.msgs;
    assert_string_equal(x.names[g[0].region], "MPI_Send");
    assert_int_equal(g[0].start_ns, 120);
    assert_int_equal(g[0].origin_ns, -1);
    assert_int_equal(g[0].origin_region, -1);
    assert_int_equal(g[0].kind, 1);
    assert_int_equal(g[0].peer, 3);
    assert_int_equal(g[0].tag, 7);
    assert_int_equal(g[0].comm, 2);
    assert_int_equal(g[0].root, -1);
    assert_int_equal(g[0].sent, 64);
    assert_int_equal(g[0].recvd, 0);
    assert_int_equal(g[1].kind, 5);
    assert_int_equal(g[1].peer, 2);
    assert_int_equal(g[1].tag, 9);
    assert_int_equal(g[1].origin_ns, 120);
    assert_string_equal(x.names[g[1].origin_region], "MPI_Send");
    assert_int_equal(g[1].sent, 0);
    assert_int_equal(g[1].recvd, 40);
    assert_int_equal(g[1].comm, 0);
    assert_string_equal(x.names[g[2].region], "MPI_Bcast");
    assert_int_equal(g[2].kind, 6);
    assert_int_equal(g[2].root, 1);
    assert_int_equal(g[2].sent, 8);
    assert_int_equal(g[2].recvd, 24);
    assert_int_equal(g[2].origin_region, -1);
    assert_int_equal(g[3].start_ns, 150);
    assert_int_equal(g[3].comm, 1 << 24);
    assert_int_equal(g[3].sent, 4);
    sp_fmt_mpi_free(&x);
    sp_fmt_stream_close(s);
    free(w.b);
  }
}

/* With TRUST the checks are not computed: a wrong one is accepted. */
static void trust_skips_checks(void **state) {
  (void)state;
  sw w = {0};
  sw_header(&w, 0, 1, 0);
  static const uint64_t c[] = {1, 2};
  sw_calls(&w, 0, 0, 0, 1, c);
  w.b[32 + 8] ^= 1;
  sp_fmt_stream *s = open_image(&w, w.n, SP_FMT_STREAM_TRUST, "t.spts");
  sp_fmt_stream_info in;
  sp_fmt_stream_get_info(s, &in);
  assert_int_equal(in.torn_offset, -1);
  assert_int_equal(in.calls, 1);
  sp_fmt_stream_close(s);
  s = open_image(&w, w.n, 0, "t.spts");
  sp_fmt_stream_get_info(s, &in);
  assert_int_equal(in.torn_offset, 32);
  assert_int_equal(in.calls, 0);
  sp_fmt_stream_close(s);
  free(w.b);
}

/* The heads a writer kept of w's first n records, as the runtime's. */
static sp_stream_hint *hints_of(const sw *w, int n) {
  sp_stream_hint *h = calloc((size_t)n + 1, sizeof *h);
  assert_non_null(h);
  for (int k = 0; k < n; k++) {
    size_t off = k ? w->ends[k - 1] : 32, len = w->ends[k] - off;
    h[k].off = (int64_t)off;
    memcpy(h[k].head, w->b + off,
           len < SP_STREAM_HINT_HEAD ? len : SP_STREAM_HINT_HEAD);
  }
  return h;
}

static sp_fmt_stream *open_hinted(const sw *w, size_t len,
                                  const sp_stream_hint *h, int n) {
  assert_int_equal(sw_save(w, at("h.spts"), len), 0);
  sp_fmt_stream *s = NULL;
  sp_fmt_err err = {""};
  if (sp_fmt_stream_open_hinted(at("h.spts"), SP_FMT_STREAM_TRUST, h, n, &s,
                                &err) != 0)
    fail_msg("%s", err.msg);
  return s;
}

/* The writer's heads stand for the file's: any number of them (the rest
 * read from the file) gives the same sources; heads past the end of a
 * file cut short are not used; and they are what the index reads. */
static void hints_as_file(void **state) {
  (void)state;
  sw w = {0};
  for (int z = 1; z >= 0; z--) { /* ZCALLS records, then CALLS */
    w.z = z;
    ref(&w, 0, REF_RECORDS);
    sp_stream_hint *hz = hints_of(&w, w.nrec);
    for (int n = 0; n <= w.nrec; n++) {
      sp_fmt_stream *s = open_hinted(&w, w.n, hz, n);
      check_ref(s);
      sp_fmt_stream_close(s);
    }
    free(hz);
  }
  sp_stream_hint *h = hints_of(&w, w.nrec);
  /* Cut inside the last record: its head (in memory) is not taken. */
  sp_fmt_stream *s = open_hinted(&w, w.n - 8, h, w.nrec);
  sp_fmt_stream_info in;
  sp_fmt_stream_get_info(s, &in);
  assert_int_equal(in.torn_offset, (int64_t)w.ends[w.nrec - 2]);
  sp_fmt_stream_close(s);
  free(h);
  free(w.b);

  /* A head that says another thread than the file: the index took it
   * (past the first 512 bytes, which the header's read brings in). */
  sw v = {0};
  sw_header(&v, 0, 1, 0);
  uint64_t c[80];
  for (int i = 0; i < 80; i++)
    c[i] = (uint64_t)i + 1;
  sw_calls(&v, 0, 0, 0, 40, c);
  sw_calls(&v, 0, 1, 0, 1, c);
  h = hints_of(&v, v.nrec);
  assert_true(h[1].off > 512);
  h[1].head[16] = 7; /* sp_stream_calls.thread */
  s = open_hinted(&v, v.n, h, v.nrec);
  assert_int_equal(sp_fmt_stream_nsources(s), 2);
  assert_int_equal(sp_fmt_stream_sources(s)[0].thread, 0);
  assert_int_equal(sp_fmt_stream_sources(s)[0].count, 40);
  sp_fmt_stream_get_info(s, &in);
  assert_int_equal(in.threads, 2); /* numbered 0 and 1 in the sources */
  assert_int_equal(sp_fmt_stream_sources(s)[1].thread, 1);
  sp_fmt_stream_close(s);
  free(h);
  free(v.b);
}

/* Many calls in many records, read in odd batches, and the warning. */
static void big_and_describe(void **state) {
  (void)state;
  sw w = {0};
  sw_header(&w, 2, 9, 0);
  sw_region(&w, 0, 1, "a", "a.c", 0);
  enum { PER = 1000, RECS = 50 };
  uint64_t *p = malloc(PER * 16);
  for (int r = 0; r < RECS; r++) {
    for (int i = 0; i < PER; i++) {
      uint64_t k = (uint64_t)(r * PER + i);
      p[2 * i] = 10 * k + 1;
      p[2 * i + 1] = (r == 7 && i == 3) ? 0 : 10 * k + 5;
    }
    sw_calls(&w, 0, 0, (int64_t)r * PER, PER, p);
  }
  sw_stop(&w, 10 * PER * RECS, 0);
  size_t whole = w.n;
  sw_calls(&w, 0, 0, 0, 1, p);
  sp_fmt_stream *s = open_image(&w, w.n - 3, 0, "big.spts");
  const sp_fmt_source *src = sp_fmt_stream_sources(s);
  assert_int_equal(src->count, PER * RECS);
  int64_t *st = malloc(PER * RECS * 8), *en = malloc(PER * RECS * 8);
  for (int64_t at = 0, n = 1; at < src->count; at += n, n = n * 3 % 2048 + 1) {
    n = n < src->count - at ? n : src->count - at;
    src->read(src, at, n, st + at, en + at);
  }
  for (int64_t k = 0; k < PER * RECS; k++) {
    assert_int_equal(st[k], 10 * k + 1);
    assert_int_equal(en[k], k == 7 * PER + 3 ? 10 * PER * RECS : 10 * k + 5);
  }
  sp_fmt_stream_info in;
  sp_fmt_stream_get_info(s, &in);
  char buf[512], msg[512];
  sp_fmt_stream_describe(&in, "x.spts", buf, sizeof buf);
  snprintf(msg, sizeof msg,
           "x.spts: rank 2 recovered from a stream: 50000 calls (1 left "
           "open), stopped at finalize; torn tail ignored from byte %zu",
           whole);
  assert_string_equal(buf, msg);
  in.stopped = 1;
  in.stop_cause = 15;
  in.torn_offset = -1;
  sp_fmt_stream_describe(&in, "x.spts", buf, sizeof buf);
  assert_string_equal(buf, "x.spts: rank 2 recovered from a stream: 50000 "
                           "calls (1 left open), ended by signal 15");
  in.stopped = 0;
  sp_fmt_stream_describe(&in, "x.spts", buf, sizeof buf);
  assert_string_equal(buf, "x.spts: rank 2 recovered from a stream: 50000 "
                           "calls (1 left open), no stop record");
  sp_fmt_stream_close(s);
  free(st);
  free(en);
  free(p);
  free(w.b);
}

/* ---- ZCALLS: the compact calls record -------------------------------------
 */

/* Calls n pseudo-random pairs from seed x: small steps mostly, and every
 * kind of stamp the encoding must keep: equal stamps, gaps of up to 2^63,
 * ends before starts, starts and ends of 0, the largest stamp. */
static uint64_t rnd(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

static void make_pairs(uint64_t *v, size_t n, uint64_t seed) {
  uint64_t x = seed | 1, t = 1000;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = rnd(&x);
    switch (r % 16) {
    case 0:
      t += rnd(&x) >> 1; /* a huge gap */
      break;
    case 1:
      break; /* the same start again */
    case 2:
      t -= r % 5000; /* goes back */
      break;
    default:
      t += r % 300;
    }
    uint64_t kind = (r >> 8) % 16;
    v[2 * i] = kind == 0 ? 0 : kind == 1 ? UINT64_MAX : t;
    v[2 * i + 1] = kind == 2   ? 0
                   : kind == 3 ? v[2 * i]
                   : kind == 4 ? v[2 * i] - 7
                   : kind == 5 ? UINT64_MAX
                               : v[2 * i] + (rnd(&x) >> (r % 64));
  }
}

/* The varints, byte by byte, and back: random and adversarial stamps. */
static void zcalls_codec(void **state) {
  (void)state;
  /* Start 1000 (the base), 1200, 1300; durations 10, 0, and an end of 0
   * (open: -1300 modulo 2^64, ten bytes). */
  const uint64_t p[] = {1000, 1010, 1200, 1200, 1300, 0};
  unsigned char out[3 * SP_STREAM_ZMAX];
  const unsigned char want[] = {0x00, 0x0a, 0xc8, 0x01, 0x00, 0x64, 0xec, 0xf5,
                                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  assert_int_equal(sp_stream_zencode(p, 3, 1000, out, sizeof out), sizeof want);
  assert_memory_equal(out, want, sizeof want);
  /* Fits exactly, or not at all: 0 when one byte short. */
  assert_int_equal(sp_stream_zencode(p, 3, 1000, out, sizeof want),
                   sizeof want);
  assert_int_equal(sp_stream_zencode(p, 3, 1000, out, sizeof want - 1), 0);
  uint64_t back[6];
  assert_int_equal(sp_stream_zdecode(out, sizeof want, 3, 1000, back),
                   (int64_t)sizeof want);
  assert_memory_equal(back, p, sizeof p);
  /* Cut inside any varint: not 3 calls. */
  for (size_t len = 0; len < sizeof want; len++)
    assert_int_equal(sp_stream_zdecode(out, len, 3, 1000, back), -1);
  /* More than 64 bits: an 11th byte, or a 10th above 1. */
  unsigned char big[11];
  memset(big, 0xff, sizeof big);
  big[10] = 0;
  assert_int_equal(sp_stream_zdecode(big, 11, 1, 0, back), -1);
  big[9] = 0x02;
  assert_int_equal(sp_stream_zdecode(big, 11, 1, 0, back), -1);
  big[9] = 0x01;
  big[10] = 0x00; /* 2^64 - 1, then a duration of 0 */
  assert_int_equal(sp_stream_zdecode(big, 11, 1, 1, back), 11);
  assert_true(back[0] == 0 && back[1] == 0); /* 1 + (2^64 - 1) */

  enum { N = 5000 };
  uint64_t *v = malloc(N * 16), *w = malloc(N * 16);
  unsigned char *b = malloc(N * SP_STREAM_ZMAX);
  assert_true(v && w && b);
  for (uint64_t seed = 1; seed <= 20; seed++) {
    size_t n = (size_t)(seed * 977 % N) + 1;
    make_pairs(v, n, seed);
    size_t len = sp_stream_zencode(v, n, v[0], b, (size_t)N * SP_STREAM_ZMAX);
    assert_true(len >= 2 * n && len <= SP_STREAM_ZMAX * n);
    assert_int_equal(sp_stream_zdecode(b, len, (int64_t)n, v[0], w),
                     (int64_t)len);
    assert_memory_equal(v, w, n * 16);
    assert_int_equal(sp_stream_zencode(v, n, v[0], b, len - 1), 0);
  }
  /* Steps under 128 ticks: two bytes a call. */
  for (size_t i = 0; i < N; i++) {
    v[2 * i] = 5000 + 100 * i;
    v[2 * i + 1] = v[2 * i] + i % 128;
  }
  assert_int_equal(sp_stream_zencode(v, N, 5000, b, (size_t)N * 20), 2 * N);
  free(v);
  free(w);
  free(b);
}

/* A stream of ZCALLS records of many calls each (and a CALLS record of
 * the same lane among them), cut at every byte: exactly the calls of the
 * records wholly before the cut are read, with their stamps. */
static void zcalls_cut_counts(void **state) {
  (void)state;
  enum { PER = 40, RECS = 5 };
  uint64_t *p = malloc(PER * RECS * 16);
  assert_non_null(p);
  uint64_t t = 1000;
  for (int i = 0; i < PER * RECS; i++) {
    t += i % 17 == 3 ? (uint64_t)1 << 40 : (uint64_t)(i * 37 % 500);
    p[2 * i] = t;
    p[2 * i + 1] = i % 9 == 4 ? 0 : t + (uint64_t)(i * 11 % 1000);
  }
  for (int be = 0; be < 2; be++) {
    sw w = {0};
    w.be = be;
    w.z = 1;
    sw_header(&w, 0, 1, SP_STREAM_CLOCK_NS);
    sw_region(&w, 0, 3, "r", "r.c", 0);
    for (int r = 0; r < RECS; r++) {
      w.z = r != 2;
      sw_calls(&w, 0, 0, (int64_t)r * PER, PER, p + 2 * r * PER);
    }
    assert_int_equal(w.nrec, RECS + 1);
    for (int flags = 0; flags < 2; flags++)
      for (size_t len = 32; len <= w.n; len++) {
        int k = 0;
        while (k < w.nrec && w.ends[k] <= len)
          k++;
        int64_t want = k > 1 ? (int64_t)(k - 1) * PER : 0;
        sp_fmt_stream *s = open_image(&w, len, flags, "zcut.spts");
        sp_fmt_stream_info in;
        sp_fmt_stream_get_info(s, &in);
        assert_int_equal(in.calls, want);
        assert_int_equal(in.torn_offset,
                         len == (k ? w.ends[k - 1] : 32)
                             ? -1
                             : (int64_t)(k ? w.ends[k - 1] : 32));
        if (want) {
          const sp_fmt_source *src = sp_fmt_stream_sources(s);
          int64_t st[PER * RECS], en[PER * RECS];
          src->read(src, 0, want, st, en);
          /* Ends of 0 are closed at the latest stamp read. */
          uint64_t last = 0;
          for (int64_t i = 0; i < 2 * want; i++)
            last = p[i] > last ? p[i] : last;
          for (int64_t i = 0; i < want; i++) {
            assert_int_equal(st[i], (int64_t)p[2 * i]);
            uint64_t e = p[2 * i + 1] ? p[2 * i + 1] : last;
            assert_int_equal(en[i], (int64_t)e);
          }
        }
        sp_fmt_stream_close(s);
      }
    free(w.b);
  }
  free(p);
}

/* ZCALLS records whose bytes break a rule start the torn tail, with or
 * without TRUST (partial: a trusting reader decodes those). */
static void zcalls_torn(void **state) {
  (void)state;
  static const struct {
    const char *what;
    int kind;
  } cases[] = {
      {"ZCALLS record: 9 calls in 64 bytes", 0},
      {"ZCALLS record: its bytes are not 2 calls", 1},
      {"ZCALLS record: its bytes are not 1 calls", 2},
      {"ZCALLS record fails its check", 3},
      {"ZCALLS record: 1 calls in 1048584 bytes", 4},
  };
  static const uint64_t c[] = {10, 25, 30, 0};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    sw w = {0};
    w.z = 1;
    sw_header(&w, 0, 1, SP_STREAM_CLOCK_NS);
    sw_region(&w, 0, -1, "f", NULL, 0);
    sw_calls(&w, 0, 0, 0, 1, c);
    size_t at0 = w.n;
    /* At at0 + 56 the varints: (0, 15) two bytes, then padding. */
    sw_calls(&w, 0, 0, 1, 1, c);
    assert_int_equal(w.n - at0, 64);
    switch (cases[i].kind) {
    case 0: /* more calls than two bytes each */
      sw_set64(&w, at0 + 16 + 16, 9);
      break;
    case 1: /* the second call's varint runs off the end */
      sw_set64(&w, at0 + 16 + 16, 2);
      memset(w.b + at0 + 58, 0x80, 6);
      break;
    case 2: /* a byte after the calls is not padding */
      w.b[w.n - 1] = 1;
      break;
    case 3:
      w.b[at0 + 57] ^= 0x40;
      break;
    case 4: {
      sw_set32(&w, at0 + 4, SP_STREAM_ZCALLS_MAX + 8);
      static const unsigned char zero[1 << 12];
      for (int k = 0; k < 256; k++)
        sw_put(&w, zero, sizeof zero);
      break;
    }
    }
    /* Partial, so that a trusting reader decodes it; checks right where
     * the case is not about them. */
    sw_set64(&w, at0 + 16 + 24, SP_STREAM_CALLS_PARTIAL);
    if (cases[i].kind != 3)
      sw_reseal(&w, at0);
    for (int flags = 0; flags < 2; flags++) {
      if (flags && cases[i].kind == 3)
        continue;
      sp_fmt_stream *s = open_image(&w, w.n, flags, "zt.spts");
      sp_fmt_stream_info in;
      sp_fmt_stream_get_info(s, &in);
      assert_int_equal(in.torn_offset, (int64_t)at0);
      assert_string_equal(in.torn_what, cases[i].what);
      assert_int_equal(in.calls, 1);
      sp_fmt_stream_close(s);
    }
    free(w.b);
  }
}

/* ---- profile snapshots: PATHS/FRAMES taken in at their PSNAP ---- */

/* A PATHS record of thread 0: nodes [first, first + k) of total, each
 * (parent, region, calls), durations 10 a call, first start 100. */
static void sw_paths(sw *w, int64_t first, int64_t k, int64_t total,
                     const int32_t (*nodes)[3]) {
  sw_begin(w, SP_STREAM_PATHS);
  sw_u32(w, 0), sw_u32(w, 0);
  sw_u64(w, (uint64_t)first), sw_u64(w, (uint64_t)k),
      sw_u64(w, (uint64_t)total);
  for (int64_t i = 0; i < k; i++) {
    uint64_t c = (uint64_t)nodes[i][2];
    sw_u32(w, (uint32_t)nodes[i][0]), sw_u32(w, (uint32_t)nodes[i][1]);
    /* calls total excl min max sq_lo sq_hi first last */
    const uint64_t v[9] = {c, 10 * c, 10 * c, 10, 10, 100 * c, 0, 100, 200};
    for (int j = 0; j < 9; j++)
      sw_u64(w, c ? v[j] : (j == 3 || j == 7 ? UINT64_MAX : 0));
    sw_u32(w, 0), sw_u32(w, 0); /* cache */
    sw_u64(w, 10 * c);          /* outer */
    sw_u32(w, 0), sw_u32(w, 0); /* open, seq */
  }
  sw_end(w);
}

static void sw_frames0(sw *w) { /* no call open */
  sw_begin(w, SP_STREAM_FRAMES);
  sw_u32(w, 0), sw_u32(w, 0);
  sw_u64(w, 0), sw_u64(w, 0), sw_u64(w, 0);
  sw_end(w);
}

static void sw_psnap(sw *w, uint64_t stamp, uint64_t seq) {
  sw_begin(w, SP_STREAM_PSNAP);
  sw_u64(w, stamp), sw_u64(w, seq);
  sw_end(w);
}

/* calls of region name in thread 0's profile of the stream w, -1 if none */
static int64_t prof_calls(const sw *w, const char *name) {
  sp_fmt_stream *s = open_image(w, w->n, 0, "snap.spts");
  sp_fmt_profile p;
  assert_int_equal(sp_fmt_stream_profile(s, &p), 1);
  int64_t calls = -1;
  for (int64_t i = 0; i < p.npaths; i++)
    if (!strcmp(p.regions[p.paths[i].region].name, name))
      calls = p.paths[i].s.calls;
  sp_fmt_profile_free(&p);
  sp_fmt_stream_close(s);
  return calls;
}

/* A later snapshot may write only the paths that changed; one cut short
 * (no PSNAP after it) leaves the one before whole; a stream with no PSNAP
 * at all (from before them) takes every record. */
static void profile_snapshots(void **state) {
  (void)state;
  for (int be = 0; be < 2; be++) {
    sw w = {0};
    w.be = be;
    sw_header(&w, 0, 1, SP_STREAM_CLOCK_NS);
    sw_region(&w, 0, -1, "f", NULL, 0);
    sw_region(&w, 1, -1, "g", NULL, 0);
    const int32_t snap1[3][3] = {{-1, -1, 0}, {0, 0, 2}, {1, 1, 4}};
    sw_paths(&w, 0, 3, 3, snap1);
    sw_frames0(&w);
    sw_psnap(&w, 1000, 0);
    const int32_t snap2[1][3] = {{0, 0, 5}}; /* f changed, g did not */
    sw_paths(&w, 1, 1, 3, snap2);
    sw_frames0(&w);
    sw_psnap(&w, 2000, 1);
    size_t whole = w.n;
    assert_int_equal(prof_calls(&w, "f"), 5);
    assert_int_equal(prof_calls(&w, "g"), 4);
    /* a third, cut short after its paths: f 9, a new path h */
    sw_region(&w, 2, -1, "h", NULL, 0);
    const int32_t snap3[3][3] = {{0, 0, 9}, {1, 1, 4}, {0, 2, 1}};
    sw_paths(&w, 1, 3, 4, snap3);
    assert_int_equal(prof_calls(&w, "f"), 5);
    assert_int_equal(prof_calls(&w, "h"), -1);
    sw_frames0(&w);
    assert_int_equal(prof_calls(&w, "f"), 5);
    sw_psnap(&w, 3000, 2);
    assert_int_equal(prof_calls(&w, "f"), 9);
    assert_int_equal(prof_calls(&w, "h"), 1);
    assert_int_equal(prof_calls(&w, "g"), 4);
    /* the PSNAP torn: the second snapshot stands */
    assert_true(w.n - whole > 8);
    sw cut = w;
    cut.n -= 8;
    assert_int_equal(prof_calls(&cut, "f"), 5);
    free(w.b);

    /* no PSNAP anywhere: every record counts, the last of a path wins */
    sw o = {0};
    o.be = be;
    sw_header(&o, 0, 1, SP_STREAM_CLOCK_NS);
    sw_region(&o, 0, -1, "f", NULL, 0);
    const int32_t a[2][3] = {{-1, -1, 0}, {0, 0, 2}};
    sw_paths(&o, 0, 2, 2, a);
    const int32_t b[1][3] = {{0, 0, 7}};
    sw_paths(&o, 1, 1, 2, b);
    assert_int_equal(prof_calls(&o, "f"), 7);
    free(o.b);
  }
}

int main(void) {
  snprintf(dir, sizeof dir, "%s/test_stream_work.%ld", SP_TEST_BINARY_DIR,
           (long)getpid());
  mkdir(dir, 0777);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(round_trip),
      cmocka_unit_test(cut_at_every_byte),
      cmocka_unit_test(corrupt_every_byte),
      cmocka_unit_test(check_top_bits),
      cmocka_unit_test(overwrite_rules),
      cmocka_unit_test(same_name_merge),
      cmocka_unit_test(tsc_map),
      cmocka_unit_test(header_errors),
      cmocka_unit_test(torn_records),
      cmocka_unit_test(counters_records),
      cmocka_unit_test(mpi_slots),
      cmocka_unit_test(trust_skips_checks),
      cmocka_unit_test(hints_as_file),
      cmocka_unit_test(big_and_describe),
      cmocka_unit_test(zcalls_codec),
      cmocka_unit_test(zcalls_cut_counts),
      cmocka_unit_test(zcalls_torn),
      cmocka_unit_test(profile_snapshots),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (rc == 0 && system(cmd) != 0)
    rc = 1;
  return rc;
}
