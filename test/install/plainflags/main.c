/* main.c - a program built with the plugin in CFLAGS only. */
#include <stdio.h>

__attribute__((noinline)) int twice(int x) { return 2 * x; }

int main(void) {
  printf("%d\n", twice(21));
  return 0;
}
