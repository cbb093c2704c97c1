/* bench_filter.c - per-call cost of a region excluded by the run-time
 * filter (SP_FILTER) and of a paused call (sp_pause) against SP_ENABLE=0
 * and a recorded region, on every route: each figure
 * from processes of its own (the variables are read at start-up), all in
 * one run; median and best over the processes. See docs/performance.md. */
#define SP_NO_INLINE_CHECK /* the API kinds below spell out their checks */
#include "scope_profiler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#undef SP_NO_INLINE_CHECK

void sp_bench_cyg_target(void);
#ifdef SP_BENCH_PLUGIN
void sp_bench_k_ann(volatile int *p); /* annotate("sp_region"), plugin-built */
#endif

static __attribute__((noinline)) void empty(void) { __asm__ volatile(""); }
#ifdef SP_BENCH_PLUGIN
static volatile int sink;
#endif

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

#ifdef SP_BENCH_PLUGIN
enum { INLINE, CALLS, CYG, PLUGIN, NKINDS };
#else
enum { INLINE, CALLS, CYG, NKINDS };
#endif
static const char *kind_name[] = {
    "API, inline check (header macros)", "API, sp_begin/sp_end calls",
    "-finstrument-functions hooks", "plugin (annotate, clang)"};
enum { DISABLED, EXCLUDED, PAUSED, RECORDED, NCONF };
static const char *conf_name[NCONF] = {"SP_ENABLE=0", "SP_FILTER-excluded",
                                       "paused (sp_pause)", "recorded"};

/* ns per call pair, best of reps loops of n. */
static double measure(int kind, int region, long n, int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = now_ns();
    switch (kind) {
    case INLINE:
      for (long i = 0; i < n; i++) {
        sp_begin_checked_(region); /* what the header's sp_begin does */
        empty();
        sp_end_checked_(region);
      }
      break;
    case CALLS:
      for (long i = 0; i < n; i++) {
        sp_begin(region);
        empty();
        sp_end(region);
      }
      break;
    case CYG:
      for (long i = 0; i < n; i++)
        sp_bench_cyg_target();
      break;
    default:
#ifdef SP_BENCH_PLUGIN
      for (long i = 0; i < n; i++)
        sp_bench_k_ann(&sink);
#endif
      break;
    }
    double dt = (now_ns() - t0) / (double)n;
    best = dt < best ? dt : best;
  }
  return best;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  long n = 1000000;
  int procs = 5, reps = 5;
  if (argc >= 3 && strcmp(argv[1], "--child") == 0) {
    int kind = atoi(argv[2]);
    int region = sp_region("bench_region");
    measure(kind, region, n / 10, 1); /* warm: chunks, cyg cache, filter */
    if (argc == 4) /* paused after the warm-up: its region is known */
      sp_pause();
    printf("%.4f\n", measure(kind, region, n, reps));
    return 0;
  }
  sp_init("/dev/null"); /* the driver itself records and writes nothing */
  if (argc > 1)
    procs = atoi(argv[1]);
  char dir[] = "/tmp/sp_bench_filter_XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  char filter[sizeof dir + 16], out[sizeof dir + 16], cmd[4096];
  snprintf(filter, sizeof filter, "%s/filter", dir);
  snprintf(out, sizeof out, "%s/out", dir);
  FILE *f = fopen(filter, "w");
  if (!f)
    return 1;
  fputs("# what the run-time filter skips\nexclude function bench_region\n"
        "exclude function sp_bench_cyg_target\n"
        "exclude function sp_bench_k_ann\n",
        f);
  fclose(f);
  static double fig[NKINDS][NCONF][64];
  if (procs < 1 || procs > 64)
    procs = 5;
  /* Interleaved: a burst of load from the others on the machine falls on
   * every configuration alike. */
  for (int p = 0; p < procs; p++)
    for (int k = 0; k < NKINDS; k++)
      for (int c = 0; c < NCONF; c++) {
        snprintf(cmd, sizeof cmd,
                 "env -u SP_FILTER -u SP_MODE SP_FORMAT=spt SP_OUTPUT='%s' "
                 "%s %s '/proc/%d/exe' --child %d%s",
                 out, c == DISABLED ? "SP_ENABLE=0" : "SP_ENABLE=1",
                 c == EXCLUDED ? "SP_FILTER=" : "", (int)getpid(), k,
                 c == PAUSED ? " paused" : "");
        if (c == EXCLUDED) { /* SP_FILTER=<file> */
          char *e = strstr(cmd, "SP_FILTER=");
          char rest[4096];
          snprintf(rest, sizeof rest, "%s", e + 10);
          snprintf(e, sizeof cmd - (size_t)(e - cmd), "SP_FILTER='%s' %s",
                   filter, rest);
        }
        FILE *pp = popen(cmd, "r");
        if (!pp || fscanf(pp, "%lf", &fig[k][c][p]) != 1) {
          fprintf(stderr, "bench_filter: child failed: %s\n", cmd);
          return 1;
        }
        pclose(pp);
      }
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "bench_filter: cannot remove %s\n", dir);
  printf("ns per call pair (of an empty noinline function), %d processes "
         "each, best of %d loops of %ld pairs per process\n",
         procs, reps, n);
  printf("%-36s %-20s %8s %8s\n", "kind", "configuration", "median", "best");
  for (int k = 0; k < NKINDS; k++) {
    double med[NCONF];
    for (int c = 0; c < NCONF; c++) {
      qsort(fig[k][c], (size_t)procs, sizeof(double), cmp);
      med[c] = fig[k][c][procs / 2];
      printf("%-36s %-20s %8.2f %8.2f\n", kind_name[k], conf_name[c], med[c],
             fig[k][c][0]);
    }
    printf("%-36s %-20s %8.2f ns (excluded - SP_ENABLE=0, medians)\n",
           kind_name[k], "  extra", med[EXCLUDED] - med[DISABLED]);
    printf("%-36s %-20s %8.2f ns (paused - SP_ENABLE=0, medians)\n",
           kind_name[k], "  extra", med[PAUSED] - med[DISABLED]);
  }
  return 0;
}
