/* bench_plugin.c - per-call cost of plugin-inserted regions (annotate and
 * -finstrument-functions) next to a manual sp_begin/sp_end pair, as ratios
 * measured in one run (the machine is noisy). */
#include "scope_profiler.h"

#include <stdio.h>
#include <time.h>

void sp_bench_k_ann(volatile int *p);
void sp_bench_k_cyg(volatile int *p);

__attribute__((noinline)) static void k_plain(volatile int *p) { *p += 1; }

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

enum { N = 2000000, REPS = 7 };
static volatile int counter;
static int manual_id;

static void run_plain(void) {
  for (int i = 0; i < N; ++i)
    k_plain(&counter);
}
static void run_manual(void) {
  for (int i = 0; i < N; ++i) {
    sp_begin(manual_id);
    k_plain(&counter);
    sp_end(manual_id);
  }
}
static void run_ann(void) {
  for (int i = 0; i < N; ++i)
    sp_bench_k_ann(&counter);
}
static void run_cyg(void) {
  for (int i = 0; i < N; ++i)
    sp_bench_k_cyg(&counter);
}

/* Best of REPS, interleaved so drift hits every variant alike. The runtime
 * keeps every call, so each variant records REPS * N calls. */
int main(void) {
  void (*fn[4])(void) = {run_plain, run_manual, run_ann, run_cyg};
  const char *name[4] = {"plain call", "manual sp_begin/sp_end",
                         "annotate (plugin)",
                         "-finstrument-functions (plugin)"};
  double best[4] = {1e300, 1e300, 1e300, 1e300};
  sp_init(NULL);
  manual_id = sp_region("manual");
  for (int r = 0; r < REPS; ++r)
    for (int v = 0; v < 4; ++v) {
      double t0 = now_ns();
      fn[v]();
      double t = (now_ns() - t0) / N;
      if (t < best[v])
        best[v] = t;
    }
  double manual = best[1] - best[0];
  printf("%-34s %10s %12s %10s\n", "variant", "ns/call", "overhead ns",
         "vs manual");
  for (int v = 0; v < 4; ++v) {
    double over = best[v] - best[0];
    printf("%-34s %10.2f %12.2f", name[v], best[v], over);
    /* With SP_ENABLE=0 the manual pair is an inline flag test, ~0 ns:
     * a ratio to it means nothing, the ns column says it. */
    if (v > 0 && manual >= 0.5)
      printf(" %10.2f", over / manual);
    else if (v > 0)
      printf(" %10s", "n/a");
    printf("\n");
  }
  sp_finalize();
  return 0;
}
