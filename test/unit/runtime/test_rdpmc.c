/* test_rdpmc.c - rdpmc.h's seqlock loop on pages made in memory with a
 * scripted counter: offset plus the raw value sign-extended from
 * pmc_width, index 0 and no cap_user_rdpmc for read(), a page changed by
 * the kernel during a read read again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
/* cmocka.h needs the three above first */
#include <cmocka.h>

#include "rdpmc.h"

#include <string.h>

static struct perf_event_mmap_page page;
/* what the fake counter gives: raw[call], and how many calls */
static uint64_t raw[4];
static uint32_t idx_seen;
static int calls;
/* >= 0: the call at which the "kernel" moves the page on (lock + 2,
 * new offset) */
static int change_at;
static int64_t new_offset;
static uint32_t new_index;

static uint64_t fake(const volatile struct perf_event_mmap_page *pg,
                     uint32_t idx) {
  (void)pg;
  idx_seen = idx;
  int n = calls++;
  if (n == change_at) {
    page.lock += 2;
    page.offset = new_offset;
    page.index = new_index;
  }
  return raw[n < 4 ? n : 3];
}

static void reset(uint32_t index, int64_t offset, uint16_t width) {
  memset(&page, 0, sizeof page);
  page.lock = 6;
  page.index = index;
  page.offset = offset;
  page.pmc_width = width;
  page.cap_user_rdpmc = 1;
  calls = 0;
  idx_seen = 99;
  change_at = -1;
  new_index = index;
  memset(raw, 0, sizeof raw);
}

static void test_offset_plus_counter(void **state) {
  (void)state;
  reset(3, 1000, 48);
  raw[0] = 234;
  uint64_t v = 0;
  assert_int_equal(sp__pmc_read(&page, fake, &v), 0);
  assert_int_equal(v, 1234);
  assert_int_equal(calls, 1);
  assert_int_equal(idx_seen, 2); /* rdpmc's counter is index - 1 */
}

/* The raw value's bit width-1 is its sign: 2^48 - 5 in 48 bits is -5. */
static void test_sign_extension(void **state) {
  (void)state;
  reset(1, (int64_t)1 << 46, 48);
  raw[0] = ((uint64_t)1 << 48) - 5;
  uint64_t v = 0;
  assert_int_equal(sp__pmc_read(&page, fake, &v), 0);
  assert_int_equal(v, ((uint64_t)1 << 46) - 5);
  /* bits above the width are not the counter's: ignored */
  reset(1, 100, 40);
  raw[0] = 0xffff000000000007ull;
  assert_int_equal(sp__pmc_read(&page, fake, &v), 0);
  assert_int_equal(v, 107);
  /* a negative offset with a positive counter (the kernel's usual) */
  reset(1, -4000, 48);
  raw[0] = 5000;
  assert_int_equal(sp__pmc_read(&page, fake, &v), 0);
  assert_int_equal(v, 1000);
  /* the full 64 bits */
  reset(1, 1, 64);
  raw[0] = 0xfffffffffffffffeull;
  assert_int_equal(sp__pmc_read(&page, fake, &v), 0);
  assert_int_equal(v, 0xffffffffffffffffull);
}

/* Index 0 (not on a counter now), no cap_user_rdpmc, or no width: -1,
 * nothing read, *out untouched. */
static void test_fallback(void **state) {
  (void)state;
  uint64_t v = 77;
  reset(0, 1000, 48);
  assert_int_equal(sp__pmc_read(&page, fake, &v), -1);
  reset(2, 1000, 48);
  page.cap_user_rdpmc = 0;
  assert_int_equal(sp__pmc_read(&page, fake, &v), -1);
  reset(2, 1000, 0);
  assert_int_equal(sp__pmc_read(&page, fake, &v), -1);
  assert_int_equal(calls, 0);
  assert_int_equal(v, 77);
}

/* The page changed between the two reads of lock: read again, the value
 * from the new page and the new counter. */
static void test_retry(void **state) {
  (void)state;
  reset(1, 1000, 48);
  raw[0] = 1;
  raw[1] = 50;
  change_at = 0;
  new_offset = 5000;
  uint64_t v = 0;
  assert_int_equal(sp__pmc_read(&page, fake, &v), 0);
  assert_int_equal(calls, 2);
  assert_int_equal(v, 5050);
  /* moved off its counter during the read (index 0): read() instead */
  reset(1, 1000, 48);
  raw[0] = 1;
  change_at = 0;
  new_offset = 5000;
  new_index = 0;
  v = 77;
  assert_int_equal(sp__pmc_read(&page, fake, &v), -1);
  assert_int_equal(calls, 1);
  assert_int_equal(v, 77);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_offset_plus_counter),
      cmocka_unit_test(test_sign_extension),
      cmocka_unit_test(test_fallback),
      cmocka_unit_test(test_retry),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
