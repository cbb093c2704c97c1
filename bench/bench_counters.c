/* bench_counters.c - ns per sp_begin/sp_end pair with SP_COUNTERS off and
 * on (software counters in one group, in two groups; hardware counters
 * where a PMU exists; the rdpmc path on fake pages in a test build), in
 * trace and profile mode, each process measured apart; then one read of a
 * counter per source (read(), rdpmc, the rdpmc loop on a page in memory),
 * and what keeping each call's counts with its events would cost. */
#include "rdpmc.h"
#include "scope_profiler.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* The rdpmc loop's own cost, a page in memory and a counter that is a
 * load: what a read costs but for the rdpmc instruction itself. */
static uint64_t fake_raw;
static uint64_t fake_pmc(const volatile struct perf_event_mmap_page *pg,
                         uint32_t idx) {
  (void)pg;
  (void)idx;
  return *(volatile uint64_t *)&fake_raw;
}

static struct perf_event_mmap_page fake_page(uint32_t index) {
  struct perf_event_mmap_page pg;
  memset(&pg, 0, sizeof pg);
  pg.index = index;
  pg.cap_user_rdpmc = 1;
  pg.pmc_width = 48;
  pg.offset = -5;
  return pg;
}

static double loop_cost(void) {
  struct perf_event_mmap_page pg = fake_page(1);
  uint64_t sum = 0, v;
  int n = 20000000;
  double t0 = now_ns();
  for (int i = 0; i < n; i++) {
    fake_raw = (uint64_t)i;
    if (sp__pmc_read(&pg, fake_pmc, &v) == 0)
      sum += v;
  }
  double ns = (now_ns() - t0) / n;
  return sum ? ns : -1;
}

/* Each call's counts with its events, as a trace would keep them: k
 * counters read at a begin and an end through the rdpmc loop (fake
 * pages), and per call nothing kept (store 0), k 8-byte deltas (1), or k
 * LEB128 deltas (2) appended to a buffer; deltas as the counters of a
 * small region give (instructions ~ 300 + i % 5000, faults 0 or 1).
 * ns per call; *bytes per call. */
static double keep_cost(int k, int store, double *bytes) {
  enum { N = 4000000 };
  static unsigned char buf[N * 8 * 4 + 64];
  struct perf_event_mmap_page pg[4];
  for (int j = 0; j < 4; j++)
    pg[j] = fake_page((uint32_t)j + 1);
  static int touched;
  if (!touched++)
    memset(buf, 1, sizeof buf); /* its pages made before, not timed */
  size_t at = 0;
  uint64_t a[4], b[4], count = 0;
  double t0 = now_ns();
  for (int i = 0; i < N; i++) {
    fake_raw = count;
    for (int j = 0; j < k; j++)
      sp__pmc_read(&pg[j], fake_pmc, &a[j]);
    count += 300 + (uint64_t)(i % 5000);
    fake_raw = count;
    for (int j = 0; j < k; j++)
      sp__pmc_read(&pg[j], fake_pmc, &b[j]);
    for (int j = 0; j < k && store; j++) {
      uint64_t d = j % 2 ? (uint64_t)(i % 3 == 0) : b[j] - a[j];
      if (store == 1) {
        memcpy(buf + at, &d, 8);
        at += 8;
      } else {
        do {
          buf[at++] = (unsigned char)((d & 127) | (d > 127 ? 128 : 0));
          d >>= 7;
        } while (d);
      }
    }
  }
  double ns = (now_ns() - t0) / N;
  *bytes = (double)at / N;
  return buf[at / 2] == 255 && at == 1 ? -1 : ns;
}

/* ns per rdpmc read of the hardware counter instructions, this thread's
 * own, where a PMU and the kernel allow it; -1 and why otherwise. */
static double rdpmc_cost(const char **why) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_HARDWARE;
  a.config = PERF_COUNT_HW_INSTRUCTIONS;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
  if (fd < 0) {
    *why = "no hardware counter here";
    return -1;
  }
  size_t psz = (size_t)sysconf(_SC_PAGESIZE);
  void *m = mmap(NULL, psz, PROT_READ, MAP_SHARED, fd, 0);
  const volatile struct perf_event_mmap_page *pg = m == MAP_FAILED ? NULL : m;
  double ns = -1;
  *why = !pg                   ? "the event's page cannot be mapped"
         : !SP__HAVE_RDPMC     ? "not on this CPU"
         : !pg->cap_user_rdpmc ? "the kernel does not allow it "
                                 "(/sys/bus/event_source/devices/cpu/rdpmc)"
                               : NULL;
  if (!*why) {
    uint64_t v;
    int n = 2000000, ok = 0;
    double t0 = now_ns();
    for (int i = 0; i < n; i++)
      ok += sp__pmc_read(pg, sp__rdpmc_insn, &v) == 0;
    ns = (now_ns() - t0) / n;
    if (ok < n)
      *why = "index 0 at times: read() then";
  }
  if (pg)
    munmap(m, psz);
  close(fd);
  return ns;
}

static int child(int n) {
  int id = sp_region("pair");
  pairs(id, n / 10); /* warm: chunks, caches, the thread's counters */
  printf("%.3f\n", pairs(id, n));
  fflush(stdout); /* before finalize's line on stderr */
  return sp_finalize() == 0 || id < 0 ? 0 : 1;
}

static int open_ev(uint32_t type, uint64_t config, int group) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = type;
  a.exclude_kernel = type == PERF_TYPE_HARDWARE;
  a.config = config;
  a.read_format = PERF_FORMAT_GROUP;
  a.exclude_hv = 1;
  return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, 0);
}

/* ns per read() of a group of k software (hw 0) or hardware counters, in
 * this process; -1: not here. */
static double read_cost(int hw, int k) {
  static const uint64_t sw[] = {PERF_COUNT_SW_PAGE_FAULTS,
                                PERF_COUNT_SW_CONTEXT_SWITCHES,
                                PERF_COUNT_SW_PAGE_FAULTS_MIN};
  static const uint64_t hc[] = {PERF_COUNT_HW_INSTRUCTIONS,
                                PERF_COUNT_HW_CPU_CYCLES,
                                PERF_COUNT_HW_BRANCH_INSTRUCTIONS};
  uint32_t type = hw ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
  int lead = open_ev(type, (hw ? hc : sw)[0], -1);
  int fds[3] = {lead, -1, -1};
  for (int i = 1; i < k && lead >= 0; i++)
    fds[i] = open_ev(type, (hw ? hc : sw)[i], lead);
  if (lead < 0)
    return -1;
  uint64_t buf[8];
  int n = 200000;
  double t0 = now_ns(), ns = -1;
  int i = 0;
  while (i < n && read(lead, buf, sizeof buf) > 0)
    i++;
  if (i == n)
    ns = (now_ns() - t0) / n;
  for (int j = 0; j < 3; j++)
    if (fds[j] >= 0)
      close(fds[j]);
  return ns;
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
  /* rdpmc: the runtime's rdpmc path on pages in memory (SP_TEST_RDPMC,
   * a test build only): all but the instruction itself */
  static const char fake[] = "SP_TEST_RDPMC=1";
  static const struct {
    const char *what, *mode, *counters, *env;
    int pairs, hw;
  } cfg[] = {
      {"trace, counters off", "trace", "", "", 2000000, 0},
      {"trace, page-faults", "trace", "page-faults", "", 200000, 0},
      {"trace, 3 software counters, 1 group", "trace",
       "page-faults,context-switches,minor-faults", "", 200000, 0},
      {"trace, page-faults + task-clock, 2 groups", "trace",
       "page-faults,task-clock", "", 200000, 0},
      {"trace, instructions", "trace", "instructions", "", 200000, 1},
      {"trace, cycles + instructions", "trace", "cycles,instructions", "",
       200000, 1},
      {"trace, 1 counter, rdpmc path, fake page", "trace", "page-faults", fake,
       2000000, 0},
      {"trace, 3 counters, rdpmc path, fake pages", "trace",
       "page-faults,context-switches,minor-faults", fake, 2000000, 0},
      {"profile, counters off", "profile", "", "", 2000000, 0},
      {"profile, page-faults", "profile", "page-faults", "", 200000, 0},
      {"profile, 1 counter, rdpmc path, fake page", "profile", "page-faults",
       fake, 2000000, 0},
  };
  enum { NCFG = sizeof cfg / sizeof cfg[0] };
  char dir[] = "/tmp/bench_counters_XXXXXX";
  if (!mkdtemp(dir))
    return 1;
  int hw = have_hw();
  printf("ns per begin/end pair, %d processes each: median (best) [how the "
         "counters were read]\n",
         PROCS);
  for (int c = 0; c < NCFG; c++) {
    if (cfg[c].hw && !hw) {
      printf("  %-44s not measured: no hardware counter here\n", cfg[c].what);
      continue;
    }
    double v[PROCS];
    char how[512] = "";
    for (int i = 0; i < PROCS; i++) {
      char cmd[4096];
      /* the sources line, a test build's, comes after the figure */
      snprintf(cmd, sizeof cmd,
               "SP_OUTPUT=%s/b SP_FORMAT=h5 SP_MODE=%s SP_COUNTERS=%s %s "
               "SP_TEST_COUNTER_SOURCES=1 %s child %d 2>&1 && rm -f %s/b*",
               dir, cfg[c].mode, cfg[c].counters, cfg[c].env, argv[0],
               cfg[c].pairs, dir);
      FILE *p = popen(cmd, "r");
      if (!p || fscanf(p, "%lf", &v[i]) != 1) {
        fprintf(stderr, "bench_counters: %s failed\n", cmd);
        return 1;
      }
      char line[512];
      while (fgets(line, sizeof line, p))
        if (strstr(line, "counter sources:"))
          snprintf(how, sizeof how, "%s",
                   strstr(line, "sources:") + strlen("sources: "));
      pclose(p);
    }
    how[strcspn(how, "\n")] = 0;
    qsort(v, PROCS, sizeof *v, cmp);
    printf("  %-44s %8.1f (%8.1f) [%s]\n", cfg[c].what, v[PROCS / 2], v[0],
           how[0]               ? how
           : cfg[c].counters[0] ? "?"
                                : "-");
  }
  rmdir(dir);
  printf("one read of counters by source, in this process (ns):\n");
  printf("  read() of a software group: 1 counter %.1f, 3 counters %.1f\n",
         read_cost(0, 1), read_cost(0, 3));
  if (hw)
    printf("  read() of a hardware group: 1 counter %.1f, 3 counters %.1f\n",
           read_cost(1, 1), read_cost(1, 3));
  else
    printf("  read() of a hardware group: not measured, no hardware counter "
           "here\n");
  const char *why = NULL;
  double r = rdpmc_cost(&why);
  if (r >= 0 && !why)
    printf("  rdpmc of a hardware counter (loop included): %.1f\n", r);
  else
    printf("  rdpmc of a hardware counter: not measured, %s\n", why);
  printf("  the rdpmc loop on a page in memory, a load for rdpmc: %.2f\n",
         loop_cost());
  printf("each call's counts kept with its events (rdpmc loop on pages in "
         "memory), ns per call (bytes per call):\n");
  for (int k = 1; k <= 4; k *= 2) {
    double b0, b1, b2;
    double n0 = keep_cost(k, 0, &b0), n1 = keep_cost(k, 1, &b1),
           n2 = keep_cost(k, 2, &b2);
    printf("  %d counter%s: reads only %.2f, + 8-byte deltas %.2f (%.1f), + "
           "LEB128 deltas %.2f (%.2f)\n",
           k, k > 1 ? "s" : "", n0, n1, b1, n2, b2);
  }
  return 0;
}
