/* hot_tiny.c - for test_report_suggest_filter: a tiny function called
 * 200000 times (far cheaper than recording it) and a big one called 3
 * times (millions of loop steps), each call one region. */
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) static long tiny(long x) { return x * 3 + 1; }

__attribute__((noinline)) static void big(int n) {
  for (long i = 0; i < 2000000; i++)
    sink += i ^ n;
}

int main(void) {
  long s = 0;
  for (long i = 0; i < 200000; i++)
    s += tiny(i);
  for (int k = 0; k < 3; k++)
    big(k);
  printf("%ld\n", s);
  return 0;
}
