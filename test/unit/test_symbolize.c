/* test_symbolize.c - regions a stream left as code addresses named from the
 * binary (this test's own): MAP and ADDR records built here, a function
 * and an OpenMP construct named, a MAP of another build-id (one warning,
 * addresses kept, the binary as their file), and bad MAP and ADDR records
 * with their exact one-line errors and offsets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sp_format.h"
#include "sp_sym.h"
#include "stream_writer.h"
#include "test_dir.h"

#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The function the stream's first region is. */
__attribute__((noinline, used)) void sym_test_target(volatile int *p) {
  *p += 1;
}

static char self[4096];
static unsigned char bid[64];
static size_t nbid;
static uint64_t bias;

static int first_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size, (void)data;
  bias = info->dlpi_addr; /* the program comes first */
  return 1;
}

static void learn_self(void) {
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  assert_true(n > 0);
  self[n] = 0;
  sp_fmt_elf *e = sp_fmt_elf_open(self);
  assert_non_null(e);
  nbid = sp_fmt_elf_build_id(e, bid, sizeof bid);
  sp_fmt_elf_close(e);
  dl_iterate_phdr(first_object, NULL);
}

static void put_map(sw *w, int32_t id, const unsigned char *b, uint32_t nb,
                    const char *path) {
  sw_begin(w, SP_STREAM_MAP);
  sw_u32(w, (uint32_t)id);
  sw_u32(w, nb);
  sw_u32(w, (uint32_t)strlen(path));
  sw_u32(w, 0);
  sw_u64(w, bias);
  sw_u64(w, 0);
  sw_u64(w, 0);
  sw_put(w, b, nb);
  sw_put(w, path, strlen(path));
  sw_end(w);
}

static void put_addr(sw *w, int32_t region, int32_t map, int32_t kind,
                     uint32_t flags, uint64_t addr) {
  sw_begin(w, SP_STREAM_ADDR);
  sw_u32(w, (uint32_t)region);
  sw_u32(w, (uint32_t)map);
  sw_u32(w, (uint32_t)kind);
  sw_u32(w, flags);
  sw_u64(w, addr);
  sw_end(w);
}

static const char *hexname(uint64_t a) {
  static char buf[4][32];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "0x%llx", (unsigned long long)a);
  return buf[k];
}

/* A stream of three address regions (function, parallel region, one the
 * process named), one call each, its MAP record of build-id b. */
static void image(sw *w, const unsigned char *b, uint32_t nb) {
  uint64_t fn = (uint64_t)(uintptr_t)sym_test_target;
  sw_header(w, 0, 1, SP_STREAM_CLOCK_NS);
  put_map(w, 0, b, nb, self);
  sw_region(w, 0, -1, hexname(fn), NULL, fn);
  put_addr(w, 0, 0, 0, SP_STREAM_ADDR_UNNAMED, fn);
  /* a construct's code pointer: the return address of a call, here one
   * byte into the function (no ident_t: its row's file, no line) */
  sw_region(w, 1, -1, hexname(fn + 1), NULL, fn + 1);
  put_addr(w, 1, 0, SP_FMT_OMP_PARALLEL, SP_STREAM_ADDR_UNNAMED, fn + 1);
  sw_region(w, 2, -1, "named_by_process", NULL, fn);
  put_addr(w, 2, 0, 0, 0, fn);
  for (int32_t r = 0; r < 3; r++) {
    uint64_t pair[2] = {100 + (uint64_t)r, 200};
    sw_calls(w, 0, r, 0, 1, pair);
  }
}

/* The source of region name, or fails. */
static const sp_fmt_source *source(sp_fmt_stream *s, const char *name) {
  const sp_fmt_source *v = sp_fmt_stream_sources(s);
  for (int64_t i = 0; i < sp_fmt_stream_nsources(s); i++)
    if (strcmp(v[i].name, name) == 0)
      return &v[i];
  fail_msg("no source %s", name);
  return NULL;
}

static sp_fmt_stream *open_as(const sw *w, const char *name, int flags) {
  assert_int_equal(sw_save(w, at(name), w->n), 0);
  sp_fmt_stream *s = NULL;
  sp_fmt_err err = {""};
  if (sp_fmt_stream_open(at(name), flags, &s, &err) != 0)
    fail_msg("%s", err.msg);
  return s;
}

static void named_from_binary(void **state) {
  (void)state;
  volatile int x = 0;
  sym_test_target(&x);
  assert_true(nbid > 0);
  sw w = {0};
  image(&w, bid, (uint32_t)nbid);
  uint64_t fn = (uint64_t)(uintptr_t)sym_test_target;
  /* without SP_FMT_STREAM_SYMBOLS: as the process wrote them */
  sp_fmt_stream *s = open_as(&w, "plain.spts", 0);
  assert_int_equal(sp_fmt_stream_nsources(s), 3);
  assert_null(source(s, hexname(fn))->file);
  assert_null(sp_fmt_stream_warnings(s));
  sp_fmt_stream_close(s);
  s = open_as(&w, "named.spts", SP_FMT_STREAM_SYMBOLS);
  assert_null(sp_fmt_stream_warnings(s));
  assert_int_equal(sp_fmt_stream_nsources(s), 3);
  const sp_fmt_source *f = source(s, "sym_test_target");
  assert_null(f->file);
  assert_int_equal(f->line, -1);
  const sp_fmt_source *p = source(s, "omp parallel @ test_symbolize.c");
  assert_non_null(p->file);
  assert_string_equal(strrchr(p->file, '/'), "/test_symbolize.c");
  assert_int_equal(p->line, -1);
  assert_null(source(s, "named_by_process")->file);
  sp_fmt_stream_close(s);
  free(w.b);
}

static void other_build_id(void **state) {
  (void)state;
  static const unsigned char other[4] = {1, 2, 3, 0xfe};
  sw w = {0};
  image(&w, other, 4);
  sp_fmt_stream *s = open_as(&w, "rebuilt.spts", SP_FMT_STREAM_SYMBOLS);
  char want[8192], hex[160] = "";
  for (size_t i = 0; i < nbid; i++)
    snprintf(hex + 2 * i, 3, "%02x", bid[i]);
  snprintf(want, sizeof want,
           "%s: build-id %s, the run's was 010203fe (rebuilt?); 2 regions "
           "keep their addresses",
           self, hex);
  assert_string_equal(sp_fmt_stream_warnings(s), want);
  uint64_t fn = (uint64_t)(uintptr_t)sym_test_target;
  assert_string_equal(source(s, hexname(fn))->file, self);
  assert_string_equal(source(s, hexname(fn + 1))->file, self);
  assert_int_equal(source(s, hexname(fn + 1))->line, -1);
  assert_null(source(s, "named_by_process")->file);
  sp_fmt_stream_close(s);
  free(w.b);
  /* a binary that is gone */
  sw g = {0};
  sw_header(&g, 0, 1, SP_STREAM_CLOCK_NS);
  sw_begin(&g, SP_STREAM_MAP);
  sw_u32(&g, 0);
  sw_u32(&g, 0);
  sw_u32(&g, (uint32_t)strlen(at("gone")));
  sw_u32(&g, 0);
  sw_u64(&g, 0);
  sw_u64(&g, 0);
  sw_u64(&g, 0);
  sw_put(&g, at("gone"), strlen(at("gone")));
  sw_end(&g);
  sw_region(&g, 0, -1, "0x1234", NULL, 0x1234);
  put_addr(&g, 0, 0, 0, SP_STREAM_ADDR_UNNAMED, 0x1234);
  uint64_t pair[2] = {100, 200};
  sw_calls(&g, 0, 0, 0, 1, pair);
  s = open_as(&g, "gone.spts", SP_FMT_STREAM_SYMBOLS);
  snprintf(want, sizeof want,
           "%s: No such file or directory; 1 region keeps its address",
           at("gone"));
  assert_string_equal(sp_fmt_stream_warnings(s), want);
  assert_string_equal(source(s, "0x1234")->file, at("gone"));
  sp_fmt_stream_close(s);
  free(g.b);
}

/* The error opening w, without "<dir>/<name>: ". */
static const char *open_error(const sw *w, const char *name) {
  static sp_fmt_err err;
  assert_int_equal(sw_save(w, at(name), w->n), 0);
  sp_fmt_stream *s = (sp_fmt_stream *)1;
  assert_int_equal(
      sp_fmt_stream_open(at(name), SP_FMT_STREAM_SYMBOLS, &s, &err), -1);
  assert_null(s);
  const char *path = at(name);
  assert_int_equal(strncmp(err.msg, path, strlen(path)), 0);
  return err.msg + strlen(path) + 2;
}

static void bad_records(void **state) {
  (void)state;
  static const unsigned char long_id[65] = {1};
  sw w = {0};
  sw_header(&w, 0, 1, SP_STREAM_CLOCK_NS);
  put_map(&w, 1, bid, (uint32_t)nbid, self);
  assert_string_equal(open_error(&w, "order.spts"),
                      "offset 32: MAP record: object 1 where object 0 is due");
  free(w.b);
  w = (sw){0};
  sw_header(&w, 0, 1, SP_STREAM_CLOCK_NS);
  put_map(&w, 0, long_id, 65, self);
  assert_string_equal(open_error(&w, "long.spts"),
                      "offset 32: MAP record: a build-id of 65 bytes (at most "
                      "64)");
  free(w.b);
  w = (sw){0};
  sw_header(&w, 0, 1, SP_STREAM_CLOCK_NS);
  sw_region(&w, 0, -1, "0x10", NULL, 0x10);
  size_t off = w.n;
  put_addr(&w, 0, 0, 0, SP_STREAM_ADDR_UNNAMED, 0x10);
  char want[160];
  snprintf(want, sizeof want,
           "offset %zu: ADDR record: region 0 in object 0, which no MAP "
           "record before it gives",
           off);
  assert_string_equal(open_error(&w, "nomap.spts"), want);
  free(w.b);
  w = (sw){0};
  sw_header(&w, 0, 1, SP_STREAM_CLOCK_NS);
  put_map(&w, 0, bid, (uint32_t)nbid, self);
  off = w.n;
  put_addr(&w, 0, 0, 0, 2, 0x10);
  snprintf(want, sizeof want,
           "offset %zu: ADDR record: region 0, kind 0, flags 2", off);
  assert_string_equal(open_error(&w, "flags.spts"), want);
  free(w.b);
}

/* Names with less known: no file, no address. */
static void omp_names(void **state) {
  (void)state;
  char *name, *file;
  int line;
  assert_int_equal(sp_fmt_sym_omp(NULL, 0, 0x1234, SP_FMT_OMP_BARRIER_PAR, 0,
                                  &name, &file, &line),
                   0);
  assert_string_equal(name, "omp barrier (implicit) @ 0x1234");
  assert_null(file);
  assert_int_equal(line, -1);
  free(name);
  assert_int_equal(sp_fmt_sym_omp(NULL, 0, 0, 30, 0, &name, &file, &line), 0);
  assert_string_equal(name, "omp ? @ ?");
  free(name);
  assert_string_equal(sp_fmt_omp_construct(3 | SP_FMT_OMP_IN), "omp for");
}

int main(void) {
  snprintf(dir, sizeof dir, "%s/test_symbolize_work.%ld", SP_TEST_BINARY_DIR,
           (long)getpid());
  mkdir(dir, 0777);
  learn_self();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(named_from_binary),
      cmocka_unit_test(other_build_id),
      cmocka_unit_test(bad_records),
      cmocka_unit_test(omp_names),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    return 1;
  return rc;
}
