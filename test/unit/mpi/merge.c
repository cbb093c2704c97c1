/* merge.c - a job for the SP_MERGE tests: each rank records nested regions
 * on two threads, a number of calls that differs by rank, and MPI
 * barriers. Arguments: CALLS (the outer loop's count, default 1000);
 * "kill R": rank R ends itself with SIGKILL before MPI_Finalize (its
 * stream stays behind, holding calls: first it records "filler" calls
 * until its writer has appended some to the stream); "early R": rank R calls
 * sp_finalize() before MPI_Finalize (it writes its own file first). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <scope_profiler.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static void work(int n) {
  double x = 1;
  for (int i = 0; i < n; i++)
    x = x * 1.000001 + 1e-9;
  sink = x;
}

static long calls = 1000;

static void *worker(void *arg) {
  int rank = *(int *)arg;
  int outer = sp_region("worker_outer"), inner = sp_region("worker_inner");
  for (long i = 0; i < calls / 2 + rank; i++) {
    sp_begin(outer);
    for (int k = 0; k < 2; k++) {
      sp_begin(inner);
      work(10);
      sp_end(inner);
    }
    sp_end(outer);
  }
  return NULL;
}

/* The size of this rank's stream (<SP_OUTPUT>_rank<R>.<pid>.spts), or -1. */
static long long stream_size(int rank) {
  char path[4096];
  const char *prefix = getenv("SP_OUTPUT");
  snprintf(path, sizeof path, "%s_rank%05d.%ld.spts",
           prefix ? prefix : "scope_profiler", rank, (long)getpid());
  struct stat st;
  return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* Records calls of "filler" until the writer thread has appended calls to
 * the stream: chunks go to the writer only when full, and it writes them
 * when it next runs, so a SIGKILL right after the barrier could find the
 * stream holding the metadata alone. A wait for a condition, not a time:
 * the test's own timeout bounds it. */
static void until_streamed(int rank) {
  int filler = sp_region("filler");
  long long at_start = stream_size(rank);
  while (stream_size(rank) <= at_start) {
    for (int i = 0; i < 4096; i++) {
      sp_begin(filler);
      sp_end(filler);
    }
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
}

int main(int argc, char **argv) {
  int rank, size, kill_rank = -1, early_rank = -1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "kill") == 0 && i + 1 < argc)
      kill_rank = atoi(argv[++i]);
    else if (strcmp(argv[i], "early") == 0 && i + 1 < argc)
      early_rank = atoi(argv[++i]);
    else
      calls = atol(argv[i]);
  }
  pthread_t th;
  if (pthread_create(&th, NULL, worker, &rank) != 0) {
    fprintf(stderr, "merge: rank %d: cannot start its thread\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int step = sp_region("step"), leaf = sp_region("leaf");
  int bar = sp_region("barrier");
  /* Every rank a different number of calls; rank 1 one region more. */
  int only = rank == 1 ? sp_region("rank1_only") : -1;
  for (long i = 0; i < calls + 7 * rank; i++) {
    sp_begin(step);
    sp_begin(leaf);
    work(20);
    sp_end(leaf);
    if (only >= 0 && i % 3 == 0) {
      sp_begin(only);
      sp_end(only);
    }
    sp_end(step);
  }
  pthread_join(th, NULL);
  sp_begin(bar);
  MPI_Barrier(MPI_COMM_WORLD);
  sp_end(bar);
  if (rank == kill_rank) {
    until_streamed(rank);
    raise(SIGKILL);
  }
  if (rank == early_rank)
    sp_finalize();
  MPI_Finalize();
  return 0;
}
