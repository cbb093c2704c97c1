/* env_table.c - prints runtime/src/env.def as "name<TAB>default" lines, for
 * the test that checks docs/runtime.md's table of variables against it. */
#include <stdio.h>

int main(void) {
#define SP_ENV(name, kind, dflt, field, lo, hi, accepts, help)                 \
  printf("%s\t%s\n", #name, dflt);
#define SP_ENV_ELSEWHERE(name, dflt, accepts, help)                            \
  printf("%s\t%s\n", #name, dflt);
#include "env.def"
  return 0;
}
