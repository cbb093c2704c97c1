/* bench_counters.c - ns per sp_begin/sp_end pair with SP_COUNTERS off and
 * on (software counters in one group, in two groups; hardware counters
 * where a PMU exists), in trace and profile mode, each process measured
 * apart; and the cost of one read() of a counter group by itself. */
#include "scope_profiler.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PROCS 7

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double pairs(int id, int n) {
  double t0 = now_ns();
  for (int i = 0; i < n; i++) {
    sp_begin(id);
    sp_end(id);
  }
  return (now_ns() - t0) / n;
}

static int child(int n) {
  int id = sp_region("pair");
  pairs(id, n / 10); /* warm: chunks, caches, the thread's counters */
  printf("%.3f\n", pairs(id, n));
  return sp_finalize() == 0 || id < 0 ? 0 : 1;
}

static int open_sw(uint64_t config, int group) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = config;
  a.read_format = PERF_FORMAT_GROUP;
  a.exclude_hv = 1;
  return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, 0);
}

/* ns per read() of a group of k software counters, in this process. */
static double read_cost(int k) {
  int lead = open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1);
  static const uint64_t more[] = {PERF_COUNT_SW_CONTEXT_SWITCHES,
                                  PERF_COUNT_SW_PAGE_FAULTS_MIN};
  for (int i = 1; i < k && lead >= 0; i++)
    open_sw(more[i - 1], lead);
  if (lead < 0)
    return -1;
  uint64_t buf[8];
  int n = 200000;
  double t0 = now_ns();
  for (int i = 0; i < n; i++)
    if (read(lead, buf, sizeof buf) < 0)
      return -1;
  return (now_ns() - t0) / n;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int have_hw(void) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_HARDWARE;
  a.config = PERF_COUNT_HW_INSTRUCTIONS;
  a.exclude_kernel = 1;
  int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
  if (fd < 0)
    return 0;
  close(fd);
  return 1;
}

int main(int argc, char **argv) {
  if (argc > 2 && !strcmp(argv[1], "child"))
    return child(atoi(argv[2]));
  static const struct {
    const char *what, *mode, *counters;
    int pairs, hw;
  } cfg[] = {
      {"trace, counters off", "trace", "", 2000000, 0},
      {"trace, page-faults", "trace", "page-faults", 200000, 0},
      {"trace, 3 software counters, 1 group", "trace",
       "page-faults,context-switches,minor-faults", 200000, 0},
      {"trace, page-faults + task-clock, 2 groups", "trace",
       "page-faults,task-clock", 200000, 0},
      {"trace, cycles + instructions", "trace", "cycles,instructions", 200000,
       1},
      {"profile, counters off", "profile", "", 2000000, 0},
      {"profile, page-faults", "profile", "page-faults", 200000, 0},
  };
  enum { NCFG = sizeof cfg / sizeof cfg[0] };
  char dir[] = "/tmp/bench_counters_XXXXXX";
  if (!mkdtemp(dir))
    return 1;
  int hw = have_hw();
  printf("ns per begin/end pair, %d processes each: median (best)\n", PROCS);
  for (int c = 0; c < NCFG; c++) {
    if (cfg[c].hw && !hw) {
      printf("  %-44s not measured: no hardware counter here\n", cfg[c].what);
      continue;
    }
    double v[PROCS];
    for (int i = 0; i < PROCS; i++) {
      char cmd[4096];
      snprintf(cmd, sizeof cmd,
               "SP_OUTPUT=%s/b SP_FORMAT=h5 SP_MODE=%s SP_COUNTERS=%s %s child "
               "%d && rm -f %s/b*",
               dir, cfg[c].mode, cfg[c].counters, argv[0], cfg[c].pairs, dir);
      FILE *p = popen(cmd, "r");
      if (!p || fscanf(p, "%lf", &v[i]) != 1) {
        fprintf(stderr, "bench_counters: %s failed\n", cmd);
        return 1;
      }
      pclose(p);
    }
    qsort(v, PROCS, sizeof *v, cmp);
    printf("  %-44s %8.1f (%8.1f)\n", cfg[c].what, v[PROCS / 2], v[0]);
  }
  rmdir(dir);
  printf("one read() of a software group, in this process: 1 counter %.1f "
         "ns, 3 counters %.1f ns\n",
         read_cost(1), read_cost(3));
  printf("rdpmc: %s\n",
         hw ? "not used by the runtime (reads go through read())"
            : "no hardware counter here: nothing to read with it");
  return 0;
}
