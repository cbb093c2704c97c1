/* fib.c - a recursive region for test_report_recursion: fib(12) three
 * times from main, each call of fib one region call (465 per fib(12)). */
#include <stdio.h>

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(void) {
  int s = 0;
  for (int i = 0; i < 3; i++)
    s += fib(12);
  printf("%d\n", s);
  return 0;
}
