/* test_claims.c - sp_fmt_claims_drop_empty, the rule both tools apply to
 * the ranks their inputs claim: an input with no call of a rank another
 * input holds is left out with one warning line; the rest stay, in order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sp_inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A tool's own claim type: the rule sees it through view(). */
typedef struct claim {
  int32_t rank;
  int64_t input;
  int64_t calls;
  int32_t tag; /* carried along unread */
} claim;

static void view(const void *c, sp_fmt_claim_view *v) {
  const claim *x = c;
  *v = (sp_fmt_claim_view){x->rank, x->input, x->calls == 0};
}

/* Runs the rule over v[0..n) with stderr into a file; the warnings read
 * back into out. */
static int64_t drop(claim *v, int64_t n, char *out, size_t size) {
  static char *paths[] = {"a.spt", "b.spts", "c_rank2.h5", "d.spt"};
  sp_fmt_input in_v[4];
  for (int i = 0; i < 4; i++)
    in_v[i] = (sp_fmt_input){paths[i], SP_FMT_INPUT_SPT, 0, (uint64_t)i};
  sp_fmt_inputs in = {in_v, 4, 4};
  char name[] = SP_TEST_BINARY_DIR "/test_claims_XXXXXX";
  int fd = mkstemp(name);
  assert_true(fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  int64_t kept = sp_fmt_claims_drop_empty(v, n, sizeof *v, view, &in, "tool");
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  ssize_t len = pread(fd, out, size - 1, 0);
  out[len > 0 ? len : 0] = '\0';
  close(fd);
  unlink(name);
  return kept;
}

static void empty_beside_full(void **state) {
  (void)state;
  /* rank 0: a (empty), b (calls); rank 1: c alone, empty; rank 2: a and
   * d both with calls (a clash, the caller's to report). */
  claim v[] = {{0, 0, 0, 10},
               {0, 1, 5, 11},
               {1, 2, 0, 12},
               {2, 0, 3, 13},
               {2, 3, 4, 14}};
  char err[1024];
  assert_int_equal(drop(v, 5, err, sizeof err), 4);
  assert_int_equal(v[0].tag, 11);
  assert_int_equal(v[1].tag, 12);
  assert_int_equal(v[2].tag, 13);
  assert_int_equal(v[3].tag, 14);
  assert_string_equal(err, "tool: warning: a.spt: rank 0 recorded no calls; "
                           "left out (rank 0 is in b.spts)\n");
}

static void all_empty_keeps_first(void **state) {
  (void)state;
  /* rank 3 claimed by three inputs with no call: the first stays, the
   * warnings name it. */
  claim v[] = {{3, 0, 0, 1}, {3, 2, 0, 2}, {3, 3, 0, 3}, {4, 1, 9, 4}};
  char err[1024];
  assert_int_equal(drop(v, 4, err, sizeof err), 2);
  assert_int_equal(v[0].tag, 1);
  assert_int_equal(v[1].tag, 4);
  assert_string_equal(
      err, "tool: warning: c_rank2.h5: rank 3 recorded no calls; left out "
           "(rank 3 is in a.spt)\n"
           "tool: warning: d.spt: rank 3 recorded no calls; left out (rank 3 "
           "is in a.spt)\n");
}

static void nothing_to_drop(void **state) {
  (void)state;
  claim v[] = {{0, 0, 0, 1}, {1, 1, 2, 2}};
  char err[64];
  assert_int_equal(drop(v, 2, err, sizeof err), 2);
  assert_int_equal(v[0].tag, 1);
  assert_int_equal(v[1].tag, 2);
  assert_string_equal(err, "");
  assert_int_equal(drop(v, 0, err, sizeof err), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(empty_beside_full),
      cmocka_unit_test(all_empty_keeps_first),
      cmocka_unit_test(nothing_to_drop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
