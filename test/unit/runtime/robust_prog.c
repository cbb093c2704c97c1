/* robust_prog.c - programs that once crashed, hung or misreported in the
 * runtime: many threads over a tight budget, names longer than a record
 * buffer, calls lost to a stream that cannot be made. test_robust runs
 * them and checks what they wrote. */
#include "scope_profiler.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nregions;
static long rounds;
static int *ids;

/* Each thread calls every region in turn, rounds times. */
static void *caller(void *arg) {
  (void)arg;
  for (long r = 0; r < rounds; r++)
    for (int i = 0; i < nregions; i++) {
      sp_begin(ids[i]);
      sp_end(ids[i]);
    }
  return NULL;
}

/* threads:T:R:N - T threads, each calling R distinct regions N times. */
static int threads(const char *arg) {
  int nthreads;
  if (sscanf(arg, "%d:%d:%ld", &nthreads, &nregions, &rounds) != 3 ||
      nthreads < 1 || nthreads > 1024 || nregions < 1)
    return 1;
  ids = calloc((size_t)nregions, sizeof *ids);
  for (int i = 0; i < nregions; i++) {
    char name[32];
    snprintf(name, sizeof name, "r%03d", i);
    ids[i] = sp_region(name);
  }
  pthread_t *t = calloc((size_t)nthreads, sizeof *t);
  for (int i = 0; i < nthreads; i++)
    if (pthread_create(&t[i], NULL, caller, NULL) != 0)
      return 2;
  for (int i = 0; i < nthreads; i++)
    pthread_join(t[i], NULL);
  free(t);
  free(ids);
  return sp_finalize() == SP_OK ? 0 : 3;
}

/* longname:N - two regions whose names are N bytes long and differ only in
 * their last byte: 1000 calls of the first, 500 of the second. Prints the
 * two ids. */
static int longname(long n) {
  char *a = malloc((size_t)n + 1), *b = malloc((size_t)n + 1);
  if (!a || !b || n < 2)
    return 1;
  for (long i = 0; i < n; i++)
    a[i] = b[i] = (char)('a' + i % 26);
  a[n - 1] = 'A';
  b[n - 1] = 'B';
  a[n] = b[n] = 0;
  int ia = sp_region_at(a, "long.c", 7), ib = sp_region(b);
  printf("%d %d\n", ia, ib);
  for (int i = 0; i < 1000; i++) {
    sp_begin(ia);
    sp_end(ia);
  }
  for (int i = 0; i < 500; i++) {
    sp_begin(ib);
    sp_end(ib);
  }
  free(a);
  free(b);
  return 0;
}

/* calls:N - N calls of one region, without sp_finalize (the exit writes). */
static int calls(long n) {
  int id = sp_region("c");
  for (long i = 0; i < n; i++) {
    sp_begin(id);
    sp_end(id);
  }
  return 0;
}

/* init:PREFIX - sp_init(PREFIX) after the runtime started, then 10 calls. */
static int init_then_call(const char *prefix) {
  printf("%s\n", sp_err_name(sp_init(prefix)));
  return calls(10);
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 1;
  const char *s = argv[1];
  if (!strncmp(s, "threads:", 8))
    return threads(s + 8);
  if (!strncmp(s, "longname:", 9))
    return longname(atol(s + 9));
  if (!strncmp(s, "calls:", 6))
    return calls(atol(s + 6));
  if (!strncmp(s, "init:", 5))
    return init_then_call(s + 5);
  return 1;
}
