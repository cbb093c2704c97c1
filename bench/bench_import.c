/* bench_import.c - sp-import on many large ranks: throughput as a ratio
 * to `cp` of the same bytes in the same run, and peak RSS against the
 * largest input. usage: bench_import SP_IMPORT DIR [RANKS] [CALLS] */
#include "sp_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Per rank: steps, each holding two kernels and one io call, so the
 * merge reconstructs nesting over three regions; calls / 4 steps. */
static void gen_read(const sp_fmt_source *src, int64_t first, int64_t n,
                     int64_t *starts, int64_t *ends) {
  int64_t base = src->aux; /* rank offset */
  for (int64_t i = 0; i < n; i++) {
    int64_t k = first + i, s, d;
    if (src->name[0] == 's') { /* step */
      s = 1000 * k;
      d = 900 + k % 7;
    } else if (src->name[0] == 'k') { /* kernel, two per step */
      s = 1000 * (k / 2) + 10 + 400 * (k % 2);
      d = 300 + k % 5;
    } else { /* io */
      s = 1000 * k + 850;
      d = 40;
    }
    starts[i] = base + s;
    ends[i] = base + s + d;
  }
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs argv (with SP_IMPORT_THREAD=thread), returns wall seconds;
 * *rss_kb = the child's peak RSS. */
static double run(char *const *argv, const char *thread, long *rss_kb) {
  /* Each run starts with nothing dirty: otherwise the kernel's writeback of
   * the previous run's gigabyte competes for the two cores with this one
   * (cp, single-threaded, leaves it a core; sp-import does not). */
  sync();
  double t0 = now();
  pid_t pid = fork();
  if (pid == 0) {
    setenv("SP_IMPORT_THREAD", thread, 1);
    execv(argv[0], argv);
    _exit(127);
  }
  int status;
  struct rusage ru;
  if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    fprintf(stderr, "bench_import: %s failed\n", argv[0]);
    exit(1);
  }
  if (rss_kb)
    *rss_kb = ru.ru_maxrss;
  return now() - t0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: bench_import SP_IMPORT DIR [RANKS] [CALLS]\n");
    return 2;
  }
  const char *imp = argv[1], *dir = argv[2];
  int ranks = argc > 3 ? atoi(argv[3]) : 64;
  int64_t calls = argc > 4 ? atoll(argv[4]) : 1000000;
  char in[2048], cpdir[2048], out[2048], path[8192];
  snprintf(in, sizeof in, "%s/in", dir);
  snprintf(cpdir, sizeof cpdir, "%s/copy", dir);
  snprintf(out, sizeof out, "%s/merged.h5", dir);
  mkdir(dir, 0777);
  mkdir(in, 0777);
  mkdir(cpdir, 0777);

  int64_t steps = calls / 4, total = 0, largest = 0;
  for (int r = 0; r < ranks; r++) {
    sp_fmt_source src[3] = {
        {0, "step", "bench.c", 10, steps, gen_read, NULL, 0},
        {0, "kernel", "bench.c", 20, 2 * steps, gen_read, NULL, 0},
        {0, "io", "bench.c", 30, steps, gen_read, NULL, 0},
    };
    for (int i = 0; i < 3; i++)
      src[i].aux = (int64_t)r * 1000000;
    snprintf(path, sizeof path, "%s/bench_rank%05d.spt", in, r);
    sp_fmt_err err;
    if (sp_fmt_spt_write(path, r, 2, src, 3, 0, &err) != 0) {
      fprintf(stderr, "bench_import: %s\n", err.msg);
      return 1;
    }
    struct stat st;
    stat(path, &st);
    total += st.st_size;
    largest = st.st_size > largest ? st.st_size : largest;
  }
  printf("inputs: %d ranks x %lld calls, %.1f MiB total, largest %.1f MiB\n",
         ranks, (long long)(4 * steps), (double)total / 1048576.0,
         (double)largest / 1048576.0);

  /* Alternate the three, best of five each: the machine is shared. */
  double best_cp = 1e30, best[2] = {1e30, 1e30};
  long rss[2] = {0, 0};
  for (int round = 0; round < 5; round++) {
    /* Each side first deletes its previous output, so both write into
     * memory the kernel has just freed rather than one of them
     * overwriting (truncating) and the other allocating afresh. */
    for (int r = 0; r < ranks; r++) {
      snprintf(path, sizeof path, "%s/bench_rank%05d.spt", cpdir, r);
      unlink(path);
    }
    snprintf(path, sizeof path, "cp %s/*.spt %s/", in, cpdir);
    char *cp[] = {"/bin/sh", "-c", path, NULL};
    double t = run(cp, "0", NULL);
    best_cp = t < best_cp ? t : best_cp;
    printf("round %d: cp %.3f s", round, t);
    for (int thr = 0; thr < 2; thr++) {
      unlink(out);
      char *im[] = {(char *)imp, "-o", out, in, NULL};
      long r;
      double u = run(im, thr ? "1" : "0", &r);
      best[thr] = u < best[thr] ? u : best[thr];
      rss[thr] = r > rss[thr] ? r : rss[thr];
      printf(", sp-import%s %.3f s", thr ? " (thread, default)" : " THREAD=0",
             u);
    }
    printf("\n");
  }
  struct stat st;
  stat(out, &st);
  double mb = (double)total / 1048576.0;
  printf("%-28s: %.3f s (%.0f MiB/s)\n", "cp", best_cp, mb / best_cp);
  for (int thr = 0; thr < 2; thr++) {
    printf("%-28s: %.3f s (%.0f MiB/s), ratio to cp %.2f (target >= "
           "0.5), peak RSS %.1f MiB = %.2f x largest input\n",
           thr ? "sp-import (thread, default)" : "sp-import SP_IMPORT_THREAD=0",
           best[thr], mb / best[thr], best_cp / best[thr],
           (double)rss[thr] / 1024.0,
           (double)rss[thr] * 1024.0 / (double)largest);
  }
  printf("output %.1f MiB\n", (double)st.st_size / 1048576.0);
  return 0;
}
