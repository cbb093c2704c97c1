/* omp_prog.c - OpenMP constructs for test_omp: on 4 threads, a parallel
 * for, a reduction, an explicit barrier, a critical section, tasks in a
 * taskwait and a taskgroup, sections, masked, a lock, a nest lock taken
 * twice, an ordered loop, and a loop where thread i does (i+1) units of
 * work (three times; a unit is 40 ms asleep). Each thread
 * also records "omp_thread_<n>" once, so the checker knows which output
 * thread is which OpenMP thread. Exits 1 if a result is wrong. */
#define _POSIX_C_SOURCE 200809L
#include "scope_profiler.h"

#include <omp.h>
#include <stdio.h>
#include <time.h>

/* A unit of the unbalanced loop's work is 40 ms off the CPU: the threads
 * then reach the loop's barrier in the order of their work whatever else
 * runs on the machine. CPU-bound work was not: 4 threads on 2 shared cores
 * (and ctest -j2) let a thread with less work start late and arrive later
 * than one with more. */
static void work(int units) {
  struct timespec ts = {0, units * 40000000L};
  while (nanosleep(&ts, &ts) != 0)
    ;
}

int main(void) {
  long sum = 0, crit = 0, tasks = 0;
  int a[1000];
  /* locked and nested: one counter per lock, each only under its lock (one
   * counter under both was a race: 7 of 8 seen in CI) */
  int nthreads = 0, sect = 0, masked = 0, ord = 0, locked = 0, nested = 0;
  omp_lock_t lock;
  omp_nest_lock_t nest;
  omp_init_lock(&lock);
  omp_init_nest_lock(&nest);
#pragma omp parallel
  {
    char name[32];
    snprintf(name, sizeof name, "omp_thread_%d", omp_get_thread_num());
    int id = sp_region(name);
    sp_begin(id);
    sp_end(id);
#pragma omp single
    nthreads = omp_get_num_threads();
#pragma omp for /* LOOP */
    for (int i = 0; i < 1000; i++)
      a[i] = i;
#pragma omp for reduction(+ : sum) /* REDUCTION */
    for (int i = 0; i < 1000; i++)
      sum += a[i];
#pragma omp barrier  /* BARRIER */
#pragma omp critical /* CRITICAL */
    crit++;
#pragma omp single /* SINGLE */
    {
      for (int t = 0; t < 8; t++) {
#pragma omp task /* TASK */
        {
#pragma omp atomic
          tasks++;
        }
      }
#pragma omp taskwait  /* TASKWAIT */
#pragma omp taskgroup /* TASKGROUP */
      {
#pragma omp task /* GROUPTASK */
        {
#pragma omp atomic
          tasks++;
        }
      }
    }
#pragma omp sections /* SECTIONS */
    {
#pragma omp section
      {
#pragma omp atomic
        sect++;
      }
#pragma omp section
      {
#pragma omp atomic
        sect++;
      }
    }
#pragma omp masked /* MASKED */
    masked++;
    omp_set_lock(&lock); /* LOCK */
    locked++;
    omp_unset_lock(&lock);
    omp_set_nest_lock(&nest); /* NEST1 */
    omp_set_nest_lock(&nest); /* NEST2 */
    nested++;
    omp_unset_nest_lock(&nest);
    omp_unset_nest_lock(&nest);
#pragma omp for ordered schedule(static, 1)
    for (int i = 0; i < omp_get_num_threads(); i++) {
#pragma omp ordered /* ORDERED */
      ord += i;
    }
    for (int rep = 0; rep < 3; rep++) {
#pragma omp for schedule(static, 1) /* UNBALANCED */
      for (int i = 0; i < omp_get_num_threads(); i++)
        work(i + 1);
    }
  }
  omp_destroy_lock(&lock);
  omp_destroy_nest_lock(&nest);
  if (sum != 499500 || crit != nthreads || tasks != 9 || sect != 2 ||
      masked != 1 || locked != nthreads || nested != nthreads ||
      ord != nthreads * (nthreads - 1) / 2) {
    printf("wrong: sum %ld critical %ld tasks %ld sections %d masked %d "
           "locked %d nested %d ordered %d threads %d\n",
           sum, crit, tasks, sect, masked, locked, nested, ord, nthreads);
    return 1;
  }
  return 0;
}
