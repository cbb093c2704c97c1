/* e2e_import_prog.c - a small program profiled through the public API,
 * run as several ranks by test_e2e_import.py: nested regions with source
 * lines, and a second thread, with call counts that depend on the rank;
 * with E2E_FORK, a forked child too. */
#include "scope_profiler.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile double sink;

static void spin(int n) {
  for (int i = 0; i < n; i++)
    sink += i * 0.5;
}

static void *worker(void *arg) {
  int id = sp_region_at("worker", "e2e.c", 30);
  int inner = sp_region_at("solve", "e2e.c", 20);
  int n = *(int *)arg;
  for (int i = 0; i < n; i++) {
    sp_begin(id);
    sp_begin(inner);
    spin(100);
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
  int outer = sp_region_at("outer", "e2e.c", 10);
  int solve = sp_region_at("solve", "e2e.c", 20);
  int io = sp_region("io"); /* no location */
  /* rank R: 2 + R outer calls, each with 3 solves and one io. */
  for (int i = 0; i < 2 + rank; i++) {
    sp_begin(outer);
    for (int j = 0; j < 3; j++) {
      sp_begin(solve);
      spin(200);
      sp_end(solve);
    }
    sp_begin(io);
    spin(50);
    sp_end(io);
    sp_end(outer);
  }
  /* One worker thread on rank 1 only: 4 calls of worker > solve. */
  if (rank == 1) {
    pthread_t t;
    int n = 4;
    pthread_create(&t, NULL, worker, &n);
    pthread_join(t, NULL);
  }
  /* E2E_FORK: a forked child records 5 io calls of its own and exits. */
  if (getenv("E2E_FORK")) {
    pid_t pid = fork();
    if (pid == 0) {
      for (int i = 0; i < 5; i++) {
        sp_begin(io);
        spin(50);
        sp_end(io);
      }
      exit(0);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
        WEXITSTATUS(st) != 0)
      return 1;
  }
  return sp_finalize() == 0 ? 0 : 1;
}
