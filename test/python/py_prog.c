/* py_prog.c - a program profiled through the runtime for test_scopeprof.py:
 * nested regions, a recursive region, and on odd ranks a second thread. */
#include "scope_profiler.h"

#include <pthread.h>
#include <stdlib.h>

static volatile double sink;

static void spin(int n) {
  for (int i = 0; i < n; i++)
    sink += i * 0.5;
}

static int fib_id;

/* fib(n) opens one region call per invocation: recursion nests the region
 * inside itself. */
static int fib(int n) {
  sp_begin(fib_id);
  spin(20);
  int r = n < 2 ? n : fib(n - 1) + fib(n - 2);
  sp_end(fib_id);
  return r;
}

static void *worker(void *arg) {
  int id = sp_region_at("worker", "py_prog.c", 30);
  int inner = sp_region_at("solve", "py_prog.c", 40);
  for (int i = 0; i < *(int *)arg; i++) {
    sp_begin(id);
    sp_begin(inner);
    spin(300);
    sp_end(inner);
    sp_end(id);
  }
  return NULL;
}

int main(void) {
  const char *r = getenv("SP_RANK");
  int rank = r ? atoi(r) : 0;
  if (sp_init(NULL) != 0)
    return 1;
  int outer = sp_region_at("timestep", "py_prog.c", 50);
  int solve = sp_region_at("solve", "py_prog.c", 40);
  int io = sp_region("io"); /* no location */
  fib_id = sp_region_at("fib", "py_prog.c", 20);
  pthread_t t;
  int n = 3 + rank;
  if (rank % 2)
    pthread_create(&t, NULL, worker, &n);
  for (int i = 0; i < 2 + rank; i++) {
    sp_begin(outer);
    for (int j = 0; j < 3; j++) {
      sp_begin(solve);
      spin(400);
      sp_end(solve);
    }
    fib(4 + i % 2);
    sp_begin(io);
    spin(100);
    sp_end(io);
    sp_end(outer);
  }
  if (rank % 2)
    pthread_join(t, NULL);
  return sp_finalize() == 0 ? 0 : 1;
}
