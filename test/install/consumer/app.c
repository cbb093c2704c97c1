/* app.c - functions for scopeprof_instrument(): one annotated, two plain. */
#include <stdio.h>

static int __attribute__((noinline)) helper(int x) { return x + 1; }

__attribute__((annotate("sp_region"))) __attribute__((noinline)) int
kernel(int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += helper(i);
  return s;
}

int main(void) {
  int s = 0;
  for (int i = 0; i < 3; i++)
    s += kernel(4);
  printf("%d\n", s);
  return 0;
}
