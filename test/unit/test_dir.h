/* test_dir.h - a unit test's scratch directory (dir, which the test sets
 * and creates) and the paths of files in it. */
#ifndef SP_TEST_DIR_H
#define SP_TEST_DIR_H

#include <stdio.h>

static char dir[512];

/* dir/name, in one of four buffers used in turn: four paths at once. */
static const char *at(const char *name) {
  static char buf[4][1024];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
  return buf[k];
}

#endif /* SP_TEST_DIR_H */
