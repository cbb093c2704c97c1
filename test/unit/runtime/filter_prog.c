/* filter_prog.c - a deterministic program for the run-time filter: main
 * calls a 3 times, each a calls b twice, each b calls c once. Built three
 * ways: FILTER_API (sp_region/sp_begin), FILTER_CYG (gcc
 * -finstrument-functions) and FILTER_PLUGIN (annotate, clang + plugin). */
#include "scope_profiler.h"

#include <stdio.h>

static volatile int sink;

#if defined(FILTER_API)
static int ra, rb, rc;
#define ENTER(r) sp_begin(r)
#define LEAVE(r) sp_end(r)
#define FN __attribute__((noinline))
#elif defined(FILTER_PLUGIN)
#define ENTER(r)
#define LEAVE(r)
#define FN __attribute__((noinline, annotate("sp_region")))
#else
#define ENTER(r)
#define LEAVE(r)
#define FN __attribute__((noinline))
#endif

FN void c(void) {
  ENTER(rc);
  sink++;
  LEAVE(rc);
}

FN void b(void) {
  ENTER(rb);
  c();
  LEAVE(rb);
}

FN void a(void) {
  ENTER(ra);
  b();
  b();
  LEAVE(ra);
}

__attribute__((no_instrument_function)) int main(void) {
#if defined(FILTER_API)
  ra = sp_region("a");
  rb = sp_region("b");
  rc = sp_region("c");
#endif
  for (int i = 0; i < 3; i++)
    a();
  printf("%d\n", sink);
#if defined(FILTER_API)
  /* What sp_region gave the excluded names: the id the header's inline
   * check skips without a call. */
  printf("excluded:%s%s%s\n", ra == SP_REGION_EXCLUDED ? " a" : "",
         rb == SP_REGION_EXCLUDED ? " b" : "",
         rc == SP_REGION_EXCLUDED ? " c" : "");
#endif
  return 0;
}
