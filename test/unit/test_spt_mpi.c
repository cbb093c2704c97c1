/* test_spt_mpi.c - the messages beside a .spt (<name>.spt.mpi): written and
 * read back field by field; cut at every length (one error naming the
 * offset where it ends), every byte changed (never read as good), another
 * rank's or another .spt's, bytes after the end, none at all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sp_format.h"
#include "test_dir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int32_t world[4] = {0, 1, 2, 3}, half[2] = {1, 3};

static sp_fmt_mpi sample(void) {
  static char n0[] = "MPI_Send", n1[] = "MPI_Wait \xc3\xa9";
  static char *names[] = {n0, n1};
  static sp_fmt_mpicomm comms[] = {{0, 4, world}, {3, 2, half}};
  static sp_fmt_mpimsg msgs[] = {
      {1000, -1, 0, 0, -1, 1, 2, 7, 0, -1, 64, 0},
      {2000, 1500, 1, 1, 0, 5, 3, 8, 3, -1, 0, 128},
      {-5, -1, 2, -1, -1, 6, -1, -1, 0, 1, 1 << 20, 1 << 21},
  };
  sp_fmt_mpi m = {3, msgs, 2, comms, 2, names};
  return m;
}

static long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void put_file(const char *path, const unsigned char *b, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(b, 1, n, f), n);
  assert_int_equal(fclose(f), 0);
}

/* x.spt (any bytes: only its size counts) and its sidecar's bytes. */
static unsigned char *written(size_t *n) {
  const char *spt = at("x.spt"), *side = at("x.spt.mpi");
  put_file(spt, (const unsigned char *)"0123456789", 10);
  sp_fmt_mpi m = sample();
  sp_fmt_err err = {{0}};
  assert_int_equal(sp_fmt_spt_mpi_write(side, 5, 10, &m, 17, &err), 0);
  long len = file_size(side);
  assert_true(len > 64);
  unsigned char *b = malloc((size_t)len);
  FILE *f = fopen(side, "rb");
  assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  *n = (size_t)len;
  return b;
}

static void round_trip(void **state) {
  (void)state;
  size_t n;
  free(written(&n));
  sp_fmt_mpi m, want = sample();
  int64_t lost;
  sp_fmt_err err = {{0}};
  assert_int_equal(sp_fmt_spt_mpi_read(at("x.spt"), 5, &m, &lost, &err), 1);
  assert_int_equal(lost, 17);
  assert_int_equal(m.nnames, 2);
  assert_string_equal(m.names[0], "MPI_Send");
  assert_string_equal(m.names[1], "MPI_Wait \xc3\xa9");
  assert_int_equal(m.ncomms, 2);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(m.comms[i].id, want.comms[i].id);
    assert_int_equal(m.comms[i].size, want.comms[i].size);
    assert_memory_equal(m.comms[i].members, want.comms[i].members,
                        (size_t)want.comms[i].size * 4);
  }
  assert_int_equal(m.nmsgs, 3);
  assert_memory_equal(m.msgs, want.msgs, 3 * sizeof *m.msgs);
  sp_fmt_mpi_free(&m);
  assert_int_equal(sp_fmt_spt_mpi_exists(at("x.spt")), 1);
  /* none: 0, nothing said */
  assert_int_equal(sp_fmt_spt_mpi_exists(at("none.spt")), 0);
  assert_int_equal(sp_fmt_spt_mpi_read(at("x.spt"), 5, &m, &lost, &err), 1);
  sp_fmt_mpi_free(&m);
  put_file(at("none.spt"), (const unsigned char *)"x", 1);
  assert_int_equal(sp_fmt_spt_mpi_read(at("none.spt"), 0, &m, &lost, &err), 0);
  assert_int_equal(m.nmsgs, 0);
}

static void another(void **state) {
  (void)state;
  size_t n;
  unsigned char *b = written(&n);
  sp_fmt_mpi m;
  int64_t lost;
  sp_fmt_err err = {{0}};
  assert_int_equal(sp_fmt_spt_mpi_read(at("x.spt"), 4, &m, &lost, &err), -1);
  assert_non_null(strstr(err.msg, "x.spt.mpi: offset 12: the rank"));
  put_file(at("x.spt"), (const unsigned char *)"01234567890", 11);
  assert_int_equal(sp_fmt_spt_mpi_read(at("x.spt"), 5, &m, &lost, &err), -1);
  assert_non_null(strstr(err.msg, "x.spt.mpi: offset 16: written beside"));
  put_file(at("x.spt"), (const unsigned char *)"0123456789", 10);
  unsigned char *more = malloc(n + 1);
  memcpy(more, b, n);
  more[n] = 0;
  put_file(at("x.spt.mpi"), more, n + 1);
  assert_int_equal(sp_fmt_spt_mpi_read(at("x.spt"), 5, &m, &lost, &err), -1);
  char want[64];
  snprintf(want, sizeof want, "offset %zu: bytes after the checksum", n);
  assert_non_null(strstr(err.msg, want));
  assert_int_equal(m.nmsgs, 0);
  free(more);
  free(b);
}

static void cut_everywhere(void **state) {
  (void)state;
  size_t n;
  unsigned char *b = written(&n);
  for (size_t k = 0; k < n; k++) {
    put_file(at("x.spt.mpi"), b, k);
    sp_fmt_mpi m;
    int64_t lost;
    sp_fmt_err err = {{0}};
    assert_int_equal(sp_fmt_spt_mpi_read(at("x.spt"), 5, &m, &lost, &err), -1);
    char want[64];
    snprintf(want, sizeof want, "x.spt.mpi: offset %zu: truncated", k);
    if (!strstr(err.msg, want))
      fail_msg("cut at %zu: %s", k, err.msg);
    assert_int_equal(m.nmsgs + m.nnames + m.ncomms, 0);
  }
  free(b);
}

static void change_everywhere(void **state) {
  (void)state;
  size_t n;
  unsigned char *b = written(&n);
  for (size_t k = 0; k < n; k++) {
    b[k] ^= 0x10;
    put_file(at("x.spt.mpi"), b, n);
    b[k] ^= 0x10;
    sp_fmt_mpi m;
    int64_t lost;
    sp_fmt_err err = {{0}};
    if (sp_fmt_spt_mpi_read(at("x.spt"), 5, &m, &lost, &err) != -1)
      fail_msg("byte %zu changed, read as good", k);
    if (!strstr(err.msg, "x.spt.mpi: offset "))
      fail_msg("byte %zu: %s", k, err.msg);
  }
  free(b);
}

int main(void) {
  snprintf(dir, sizeof dir, "%s/test_spt_mpi_work.%ld", SP_TEST_BINARY_DIR,
           (long)getpid());
  mkdir(dir, 0777);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(round_trip),
      cmocka_unit_test(another),
      cmocka_unit_test(cut_everywhere),
      cmocka_unit_test(change_everywhere),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (rc == 0 && system(cmd) != 0)
    rc = 1;
  return rc;
}
