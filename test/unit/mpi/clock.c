/* clock.c - barriers for the clock alignment tests: each rank's clock is
 * skewed through SP_TEST_CLOCK_OFFSET_NS / SP_TEST_CLOCK_DRIFT_PPM by the
 * test script, and each barrier is bracketed by reads of the true
 * CLOCK_MONOTONIC (which the runtime's test skew does not touch), written
 * to DIR/raw<rank>.txt: rank 0's clock is the true one, so the merged
 * timeline must put every rank's barrier between its two reads.
 * Arguments: DIR; "thread" starts MPI with MPI_Init_thread instead of
 * MPI_Init; "crash" ends every rank by SIGABRT instead of MPI_Finalize;
 * "ends" runs ENDS barriers, half the work between them: many barriers
 * over a run of seconds (for a drift to show in the barriers' ends).
 * -DSP_PLAIN builds it without ScopeProf (for LD_PRELOAD of the layer). */
#include <mpi.h>
#ifdef SP_PLAIN
#define sp_region(name) 0
#define sp_begin(r) (void)(r)
#define sp_end(r) (void)(r)
#else
#include <scope_profiler.h>
#endif

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int64_t raw_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int has(int argc, char **argv, const char *word) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], word) == 0)
      return 1;
  return 0;
}

#define BARRIERS 64
#define ENDS 800

/* Work between barriers, so the run lasts long enough for a drift to
 * matter; the same on every rank. */
static volatile double sink;
static void work(int n) {
  double x = 1;
  for (int i = 0; i < n; i++)
    x = x * 1.0000001 + 1e-9;
  sink = x;
}

int main(int argc, char **argv) {
  int rank, provided;
  if (has(argc, argv, "thread"))
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  else
    MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int r = sp_region("sync_barrier");
  int ends = has(argc, argv, "ends"), n = ends ? ENDS : BARRIERS;
  static int64_t before[ENDS], after[ENDS];
  for (int i = 0; i < n; i++) {
    work(ends ? 1000000 : 2000000);
    before[i] = raw_ns();
    sp_begin(r);
    MPI_Barrier(MPI_COMM_WORLD);
    sp_end(r);
    after[i] = raw_ns();
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/raw%d.txt", argc > 1 ? argv[1] : ".", rank);
  FILE *f = fopen(path, "w");
  for (int i = 0; f && i < n; i++)
    fprintf(f, "%lld %lld\n", (long long)before[i], (long long)after[i]);
  if (f)
    fclose(f);
  if (has(argc, argv, "crash")) {
    MPI_Barrier(MPI_COMM_WORLD);
    raise(SIGABRT);
  }
  MPI_Finalize();
  return 0;
}
