/* test_runtime_registry.c - the region registry on its own, built with a
 * limit of SP__MAX_PAGES pages (set small by the build) so the region limit
 * is reached in a moment. */
#include "internal.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

static void test_region_limit(void **state) {
  (void)state;
  char name[32];
  for (int i = 0; i < (int)SP__MAX_REGIONS; i++) {
    snprintf(name, sizeof name, "r%d", i);
    assert_int_equal(sp__register(name, NULL, -1), i);
  }
  assert_int_equal(sp__register("one_more", NULL, -1), SP_ELIMIT);
  assert_int_equal(sp__register_addr((const void *)&test_region_limit),
                   SP_ELIMIT);
  /* names registered before the limit keep their ids */
  assert_int_equal(sp__register("r5", "f.c", 3), 5);
  assert_int_equal(sp__nregions, (int32_t)SP__MAX_REGIONS);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_region_limit)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
