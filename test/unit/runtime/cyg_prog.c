/* cyg_prog.c - a plain -finstrument-functions program (no plugin): the
 * runtime's __cyg_profile hooks must name static and global functions. */
#include <stdio.h>

static int __attribute__((noinline)) helper(int x) { return x * 2; }

int __attribute__((noinline)) work(int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += helper(i);
  return s;
}

int main(void) {
  printf("%d\n", work(5) + work(3));
  return 0;
}
