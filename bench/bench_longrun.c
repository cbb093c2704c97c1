/* bench_longrun.c - the long-run figures: per-call cost with the trace
 * streamed to disk over hundreds of millions of calls, per window, against
 * a naive 2x rdtsc recorder into warm memory measured in the same process;
 * resident memory; time spent waiting for the writer; finalize against a
 * plain copy. Each figure from several separate processes (median, best). */
#define SP_NO_INLINE_CHECK
#include "scope_profiler.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The runtime's own counter (linked statically, so reachable). */
extern _Atomic uint64_t sp__wait_ns;

static __attribute__((noinline)) void empty(void) { __asm__ volatile(""); }

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long status_kib(const char *key) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long v = -1;
  size_t n = strlen(key);
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, key, n)) {
      v = strtol(line + n + 1, NULL, 10);
      break;
    }
  if (f)
    fclose(f);
  return v;
}

static double copy_file(const char *from, const char *to) {
  static char buf[1 << 20];
  double t0 = now_s();
  int in = open(from, O_RDONLY),
      out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ssize_t n;
  while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)n) != n)
      break;
  close(in);
  close(out);
  return now_s() - t0;
}

/* One process: prints "W <window> <sp ns/pair> <naive ns/pair>" lines, then
 * "R <peak KiB> <wait ns> <finalize s> <copy s> <bytes> <calls/s>". */
static int child(long calls, long window, const char *dir) {
  int region = sp_region("bench");
  uint64_t *naive = malloc((size_t)window * 2 * sizeof *naive);
  if (!naive)
    return 1;
  memset(naive, 1, (size_t)window * 2 * sizeof *naive); /* warm */
  double rec_s = 0;
  for (long w = 0; w * window < calls; w++) {
    double t0 = now_s();
    for (long i = 0; i < window; i++) {
      sp_begin(region);
      empty();
      sp_end(region);
    }
    double t1 = now_s();
    for (long i = 0; i < window; i++) {
      naive[2 * i] = __builtin_ia32_rdtsc();
      empty();
      naive[2 * i + 1] = __builtin_ia32_rdtsc();
    }
    double t2 = now_s();
    rec_s += t1 - t0;
    printf("W %ld %.3f %.3f\n", w, (t1 - t0) * 1e9 / (double)window,
           (t2 - t1) * 1e9 / (double)window);
    fflush(stdout);
  }
  volatile uint64_t sink = naive[window - 1];
  (void)sink;
  free(naive);
  long peak = status_kib("VmHWM:");
  uint64_t wait = atomic_load(&sp__wait_ns);
  sync(); /* both start with nothing dirty to write back */
  double f0 = now_s();
  int rc = sp_finalize();
  double f1 = now_s();
  char path[600], copy[600];
  snprintf(path, sizeof path, "%s/b_rank00000.spt", dir);
  snprintf(copy, sizeof copy, "%s/copy.bin", dir);
  struct stat st;
  long bytes = stat(path, &st) == 0 ? (long)st.st_size : -1;
  sync();
  double c = copy_file(path, copy);
  printf("R %ld %llu %.3f %.3f %ld %.0f %d\n", peak, (unsigned long long)wait,
         f1 - f0, c, bytes, (double)calls / rec_s, rc);
  return 0;
}

/* Resident memory alone: the calls, no comparator holding memory. */
static int child_rss(long calls) {
  int region = sp_region("bench");
  for (long i = 0; i < calls; i++) {
    sp_begin(region);
    empty();
    sp_end(region);
  }
  printf("M %ld\n", status_kib("VmHWM:"));
  return sp_finalize() == 0 ? 0 : 1;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  long calls = 200000000, window = 10000000;
  int procs = 5;
  const char *memory = "64M";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--calls"))
      calls = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--window"))
      window = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--procs"))
      procs = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--memory"))
      memory = argv[i + 1];
    else if (!strcmp(argv[i], "--child"))
      return child(calls, window, argv[i + 1]);
    else if (!strcmp(argv[i], "--rss-child"))
      return child_rss(calls);
  }
  printf("ScopeProf streaming: %ld calls per process in windows of %ld, "
         "SP_MEMORY=%s, %d processes\n",
         calls, window, memory, procs);
  printf("ratio = ns per pair with ScopeProf / ns per pair of a naive "
         "2x rdtsc recorder into warm memory, same window\n\n");
  double *proc_median = calloc((size_t)procs, sizeof(double));
  double *proc_max = calloc((size_t)procs, sizeof(double));
  double fin_ratio[64];
  for (int p = 0; p < procs && p < 64; p++) {
    char dir[] = "/tmp/sp_bench_stream_XXXXXX";
    if (!mkdtemp(dir))
      return 1;
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "SP_MEMORY=%s SP_OUTPUT=%s/b SP_FORMAT=spt '%s' --calls %ld "
             "--window %ld --child %s",
             memory, dir, argv[0], calls, window, dir);
    FILE *f = popen(cmd, "r");
    char line[256];
    double ratios[4096];
    int nw = 0;
    printf("process %d: ratio per window:", p + 1);
    while (f && fgets(line, sizeof line, f)) {
      long w, peak, bytes;
      double a, b, fs, cs, rate;
      unsigned long long wait;
      int rc;
      if (sscanf(line, "W %ld %lf %lf", &w, &a, &b) == 3 && nw < 4096) {
        ratios[nw++] = a / b;
        printf(" %.2f", a / b);
        fflush(stdout);
      } else if (sscanf(line, "R %ld %llu %lf %lf %ld %lf %d", &peak, &wait,
                        &fs, &cs, &bytes, &rate, &rc) == 7) {
        qsort(ratios, (size_t)nw, sizeof *ratios, cmp_d);
        proc_median[p] = ratios[nw / 2];
        proc_max[p] = ratios[nw - 1];
        fin_ratio[p] = cs / fs;
        printf("\n  median %.2f, worst window %.2f; peak resident %.1f MiB "
               "(with the comparator's warm buffer); "
               "waited for the writer %.3f s; recorded %.1f M calls/s\n"
               "  finalize %.2f s for %.0f MB, copy of it %.2f s: finalize "
               "at %.2f of the copy's speed (rc %d)\n",
               proc_median[p], proc_max[p], peak / 1024.0, wait * 1e-9,
               rate * 1e-6, fs, bytes / 1e6, cs, cs / fs, rc);
      }
    }
    if (f)
      pclose(f);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
      return 1;
  }
  {
    char dir[] = "/tmp/sp_bench_stream_XXXXXX", cmd[1024], line[128];
    long kib = -1;
    if (!mkdtemp(dir))
      return 1;
    snprintf(cmd, sizeof cmd,
             "SP_MEMORY=%s SP_OUTPUT=%s/b SP_FORMAT=spt '%s' --calls %ld "
             "--rss-child x",
             memory, dir, argv[0], calls);
    FILE *f = popen(cmd, "r");
    while (f && fgets(line, sizeof line, f))
      sscanf(line, "M %ld", &kib);
    if (f)
      pclose(f);
    printf("\npeak resident memory of a process recording %ld calls (no "
           "comparator): %.1f MiB\n",
           calls, kib / 1024.0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
      return 1;
  }
  qsort(proc_median, (size_t)procs, sizeof(double), cmp_d);
  qsort(proc_max, (size_t)procs, sizeof(double), cmp_d);
  qsort(fin_ratio, (size_t)procs, sizeof(double), cmp_d);
  printf("\nover %d processes: per-process median ratio: median %.2f, best "
         "%.2f, worst %.2f; worst window of any process %.2f\n",
         procs, proc_median[procs / 2], proc_median[0], proc_median[procs - 1],
         proc_max[procs - 1]);
  printf("finalize speed / copy speed: median %.2f, best %.2f, worst %.2f\n",
         fin_ratio[procs / 2], fin_ratio[procs - 1], fin_ratio[0]);
  return 0;
}
