/* bench_compact.c - bytes per call and time per call of trace mode with the
 * stream's compact calls (ZCALLS) and with 16-byte pairs, against naive
 * recorders (two rdtsc per call into fresh memory; and the same writing its
 * pairs to a file), each measurement a process of its own, on any core and
 * on one core (the writer thread then shares it). See docs/performance.md. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "scope_profiler.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static __attribute__((noinline)) void empty(void) { __asm__ volatile(""); }

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline uint64_t stamp(void) {
#if defined(__x86_64__)
  return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
  uint64_t v;
  __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
  return v;
#else
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

enum { NAIVE, NAIVE_FILE, SP_COMPACT, SP_PAIRS, SP_H5, NMODES };
static const char *const names[NMODES] = {
    "naive: 2 stamps a call, fresh memory",
    "naive + its pairs written to a file",
    "trace mode, compact stream (default)",
    "trace mode, SP_STREAM_COMPACT=0",
    "trace mode, compact stream, SP_FORMAT=h5",
};

/* One measurement in this process: prints "<ns per call> <bytes>": the
 * loop and everything it takes to have the calls on disk (finalize, or
 * the naive writer's write), and the bytes of the file left. With
 * kill: the SP modes end by SIGTERM after the loop instead (the handler
 * appends every call to the stream), to measure the stream's bytes. */
static int child(int mode, long n, const char *dir, int kill) {
  char path[512];
  double t0 = 0, t1 = 0;
  if (mode == NAIVE || mode == NAIVE_FILE) {
    uint64_t *buf = malloc((size_t)n * 16);
    if (!buf)
      return 1;
    t0 = now_s();
    for (long i = 0; i < n; i++) {
      buf[2 * i] = stamp();
      empty();
      buf[2 * i + 1] = stamp();
    }
    long bytes = 0;
    if (mode == NAIVE_FILE) {
      snprintf(path, sizeof path, "%s/naive.bin", dir);
      int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      size_t left = (size_t)n * 16;
      const char *p = (const char *)buf;
      while (fd >= 0 && left > 0) {
        ssize_t w = write(fd, p, left > (1 << 24) ? (1 << 24) : left);
        if (w <= 0)
          return 1;
        p += w;
        left -= (size_t)w;
      }
      if (fd < 0 || close(fd) != 0)
        return 1;
      bytes = n * 16;
    }
    t1 = now_s();
    volatile uint64_t sink = buf[2 * n - 1];
    (void)sink;
    free(buf);
    printf("%.4f %ld\n", (t1 - t0) * 1e9 / (double)n, bytes);
    return 0;
  }
  sp_init(NULL); /* SP_OUTPUT: the stream's name too */
  int r = sp_region("bench");
  t0 = now_s();
  for (long i = 0; i < n; i++) {
    sp_begin(r);
    empty();
    sp_end(r);
  }
  if (kill) {
    fflush(stdout);
    raise(SIGTERM);
    return 1;
  }
  int rc = sp_finalize();
  t1 = now_s();
  struct stat st;
  snprintf(path, sizeof path, "%s/b_rank00000.%s", dir,
           mode == SP_H5 ? "h5" : "spt");
  long bytes = stat(path, &st) == 0 ? (long)st.st_size : -1;
  printf("%.4f %ld\n", (t1 - t0) * 1e9 / (double)n, bytes);
  return rc != 0;
}

/* Runs one child (cpu >= 0: pinned to it); its two figures. */
static int run(const char *self, int mode, long n, int cpu, int kill,
               double *ns, long *bytes) {
  char dir[] = "/tmp/sp_bench_compact_XXXXXX";
  if (!mkdtemp(dir))
    return -1;
  int fds[2];
  if (pipe(fds) != 0)
    return -1;
  pid_t pid = fork();
  if (pid == 0) {
    if (cpu >= 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpu, &set);
      sched_setaffinity(0, sizeof set, &set);
    }
    dup2(fds[1], 1);
    close(fds[0]);
    setenv("SP_STREAM_COMPACT", mode == SP_PAIRS ? "0" : "1", 1);
    setenv("SP_FORMAT", mode == SP_H5 ? "h5" : "spt", 1);
    setenv("SP_ENABLE", "1", 1);
    char out[512];
    snprintf(out, sizeof out, "%s/b", dir);
    setenv("SP_OUTPUT", out, 1);
    char m[16], c[32], k[4];
    snprintf(m, sizeof m, "%d", mode);
    snprintf(c, sizeof c, "%ld", n);
    snprintf(k, sizeof k, "%d", kill);
    execl(self, self, "--child", m, c, dir, k, (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  char out[128] = {0};
  ssize_t got = read(fds[0], out, sizeof out - 1);
  close(fds[0]);
  int status;
  waitpid(pid, &status, 0);
  int ok = got > 0 && sscanf(out, "%lf %ld", ns, bytes) == 2;
  if (kill) { /* the stream's bytes */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "stat -c %%s %s/*.spts 2>/dev/null", dir);
    FILE *p = popen(cmd, "r");
    *bytes = -1;
    if (p) {
      if (fscanf(p, "%ld", bytes) != 1)
        *bytes = -1;
      pclose(p);
    }
    ok = *bytes > 0;
  }
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    ok = 0;
  return ok ? 0 : -1;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc == 6 && strcmp(argv[1], "--child") == 0)
    return child(atoi(argv[2]), atol(argv[3]), argv[4], atoi(argv[5]));
  const char *en = getenv("SP_ENABLE");
  if (!en || strcmp(en, "0") != 0) { /* read at load: this one records not */
    setenv("SP_ENABLE", "0", 1);
    execv("/proc/self/exe", argv);
    return 1;
  }
  long n = argc > 1 ? atol(argv[1]) : 10000000;
  int procs = argc > 2 ? atoi(argv[2]) : 5;
  if (n < 1000 || procs < 1 || procs > 64) {
    fprintf(stderr, "usage: bench_compact [CALLS [PROCESSES]]\n");
    return 2;
  }
  printf("%ld calls of one region in a tight loop; %d processes per mode, "
         "interleaved; ns per call including getting the calls to disk\n"
         "(finalize, or the naive writer's write); the machine is shared: "
         "ratios in one run hold better than absolute figures\n\n",
         n, procs);
  for (int pin = 0; pin < 2; pin++) {
    int cpu = pin ? 1 : -1;
    double t[NMODES][64];
    long bytes[NMODES] = {0};
    for (int p = 0; p < procs; p++)
      for (int m = 0; m < NMODES; m++)
        if (run(argv[0], m, n, cpu, 0, &t[m][p], &bytes[m]) != 0) {
          fprintf(stderr, "bench_compact: mode %d failed\n", m);
          return 1;
        }
    double med[NMODES], best[NMODES];
    for (int m = 0; m < NMODES; m++) {
      qsort(t[m], (size_t)procs, sizeof t[m][0], cmp);
      med[m] = t[m][procs / 2];
      best[m] = t[m][0];
    }
    printf("%s\n", pin ? "one core (pinned to cpu 1: the writer thread "
                         "shares it)"
                       : "any core");
    printf("%-40s %10s %10s %12s %12s %12s\n", "mode", "median ns", "best ns",
           "/naive med", "/naive+file", "file B/call");
    for (int m = 0; m < NMODES; m++)
      printf("%-40s %10.2f %10.2f %12.3f %12.3f %12.2f\n", names[m], med[m],
             best[m], med[m] / med[NAIVE], med[m] / med[NAIVE_FILE],
             (double)bytes[m] / (double)n);
    printf("\n");
  }
  /* The stream's own bytes: every call flushed to it by SIGTERM. */
  for (int m = SP_COMPACT; m <= SP_PAIRS; m++) {
    double ns;
    long b;
    if (run(argv[0], m, n, -1, 1, &ns, &b) != 0) {
      fprintf(stderr, "bench_compact: stream of mode %d failed\n", m);
      return 1;
    }
    printf("stream bytes per call, %s: %.2f (%ld bytes)\n", names[m],
           (double)b / (double)n, b);
  }
  return 0;
}
