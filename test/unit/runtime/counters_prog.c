/* counters_prog.c - the program test_counters runs under SP_COUNTERS:
 * regions whose counters are known in advance (fresh pages touched,
 * blocking sleeps, nesting, a loop, a second thread). */
#define _GNU_SOURCE
#include "scope_profiler.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static long page;

/* n pages mapped before the region and touched once each inside it. */
static void touch(int region, int n) {
  char *m = mmap(NULL, (size_t)n * (size_t)page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    exit(3);
  sp_begin(region);
  for (int i = 0; i < n; i++)
    ((volatile char *)m)[(size_t)i * (size_t)page] = 1;
  sp_end(region);
  munmap(m, (size_t)n * (size_t)page);
}

static void *worker(void *arg) {
  int r = sp_region("worker_touch");
  sp_begin(sp_region("warm"));
  sp_end(sp_region("warm"));
  touch(r, *(int *)arg);
  return NULL;
}

/* "odd": an end that closes a call above it (mm_b inside mm_a, ended by
 * mm_a's end), and a thread holding a call open (held, n pages touched
 * in it) while main finalizes. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int stage;

static void *holder(void *arg) {
  int n = *(int *)arg;
  char *m = mmap(NULL, (size_t)n * (size_t)page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    exit(3);
  sp_begin(sp_region("warm"));
  sp_end(sp_region("warm"));
  sp_begin(sp_region("held"));
  for (int i = 0; i < n; i++)
    ((volatile char *)m)[(size_t)i * (size_t)page] = 1;
  pthread_mutex_lock(&mu);
  stage = 1;
  pthread_cond_broadcast(&cv);
  while (stage != 2)
    pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  sp_end(sp_region("held")); /* after finalize: not recorded */
  return NULL;
}

static int odd(int pages) {
  int a = sp_region("mm_a"), b = sp_region("mm_b");
  sp_begin(sp_region("warm"));
  sp_end(sp_region("warm"));
  sp_begin(a);
  sp_begin(b);
  touch(sp_region("mm_leaf"), pages);
  sp_end(a); /* closes mm_b too */
  pthread_t th;
  if (pthread_create(&th, NULL, holder, &pages) != 0)
    return 4;
  pthread_mutex_lock(&mu);
  while (stage != 1)
    pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  int rc = sp_finalize();
  pthread_mutex_lock(&mu);
  stage = 2;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  pthread_join(th, NULL);
  return rc == 0 ? 0 : 5;
}

/* "paths": regions at one call path and at several, on two threads, for
 * sp-report --tree --counters. once: under pa only (2 pages on thread 1);
 * leaf: under pa and pb; mixed: a root on both threads, also under pb on
 * thread 1; rec: inside itself (thread 0). */
static void *paths_thread(void *arg) {
  int pages = *(int *)arg & 0xffff, tid = *(int *)arg >> 16;
  int a = sp_region("pa"), b = sp_region("pb"), leaf = sp_region("leaf");
  int mixed = sp_region("mixed"), rec = sp_region("rec");
  sp_begin(sp_region("warm"));
  sp_end(sp_region("warm"));
  sp_begin(a);
  touch(sp_region("once"), pages + 2 * tid);
  touch(leaf, pages);
  sp_end(a);
  sp_begin(b);
  touch(leaf, 2 * pages);
  if (tid)
    touch(mixed, pages);
  sp_end(b);
  touch(mixed, pages);
  if (!tid) {
    sp_begin(rec);
    touch(rec, pages);
    sp_end(rec);
  }
  return NULL;
}

static int paths(int pages) {
  int arg0 = pages, arg1 = pages | 1 << 16;
  paths_thread(&arg0);
  pthread_t th;
  if (pthread_create(&th, NULL, paths_thread, &arg1) != 0 ||
      pthread_join(th, NULL) != 0)
    return 4;
  return sp_finalize() == 0 ? 0 : 5;
}

/* "fresh": the first call of the process and of a second thread touch n
 * pages each, nothing recorded before them. */
static void *fresh_worker(void *arg) {
  touch(sp_region("fresh_worker"), *(int *)arg);
  return NULL;
}

static int fresh(int pages) {
  touch(sp_region("fresh_main"), pages);
  pthread_t th;
  if (pthread_create(&th, NULL, fresh_worker, &pages) != 0 ||
      pthread_join(th, NULL) != 0)
    return 4;
  return sp_finalize() == 0 ? 0 : 5;
}

/* argv: pages naps worker_pages [term: ends by SIGTERM, a region open]
 *       or odd pages, or paths pages, or fresh pages */
int main(int argc, char **argv) {
  page = sysconf(_SC_PAGESIZE);
  if (argc == 3 && !strcmp(argv[1], "odd"))
    return odd(atoi(argv[2]));
  if (argc == 3 && !strcmp(argv[1], "paths"))
    return paths(atoi(argv[2]));
  if (argc == 3 && !strcmp(argv[1], "fresh"))
    return fresh(atoi(argv[2]));
  if (argc < 4)
    return 2;
  int pages = atoi(argv[1]), naps = atoi(argv[2]), wpages = atoi(argv[3]);
  int warm = sp_region("warm"), outer = sp_region("outer");
  int t = sp_region("touch"), nap = sp_region("nap"), spin = sp_region("spin");
  /* The first call makes the thread's state, whose pages count there. */
  sp_begin(warm);
  sp_end(warm);
  sp_begin(outer);
  touch(t, pages);
  for (int i = 0; i < naps; i++) {
    sp_begin(nap);
    struct timespec ts = {0, 1000000}; /* always blocks: a context switch */
    nanosleep(&ts, NULL);
    sp_end(nap);
  }
  sp_begin(spin);
  volatile unsigned long x = 0;
  for (unsigned long i = 0; i < 1000000; i++)
    x += i;
  sp_end(spin);
  sp_end(outer);
  if (wpages > 0) {
    pthread_t th;
    if (pthread_create(&th, NULL, worker, &wpages) != 0 ||
        pthread_join(th, NULL) != 0)
      return 4;
  }
  if (argc > 4 && !strcmp(argv[4], "term")) {
    sp_begin(sp_region("open_at_term"));
    raise(SIGTERM);
  }
  return sp_finalize() == 0 ? 0 : 5;
}
