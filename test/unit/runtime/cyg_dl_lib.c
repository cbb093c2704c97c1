/* cyg_dl_lib.c - one library, built twice (LIB=alpha, LIB=gamma): the same
 * code under names of the same length, so the two copies have the same
 * size and the second is loaded where the first was. */
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

static int __attribute__((noinline)) CAT(LIB, _helper)(int x) {
  return x * 2 + 1;
}

int CAT(LIB, _work)(int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += CAT(LIB, _helper)(i);
  return s;
}
