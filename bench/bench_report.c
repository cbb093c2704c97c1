/* bench_report.c - sp-report's table of a large merged profile from the
 * summary records against reading every call (--events), in one run; the
 * call stacks of an OpenMP profile with and without its teams joined.
 * usage: bench_report SP_REPORT DIR [RANKS] [CALLS] (CALLS over all ranks) */
#include "sp_format.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Per rank: one main holding `steps` steps, each holding one kernel. */
static void gen_read(const sp_fmt_source *src, int64_t first, int64_t n,
                     int64_t *starts, int64_t *ends) {
  int64_t base = src->aux, steps = *(const int64_t *)src->ctx;
  for (int64_t i = 0; i < n; i++) {
    int64_t k = first + i, s, d;
    if (src->name[0] == 'm') {
      s = 0;
      d = 1000 * steps + 20;
    } else if (src->name[0] == 's') {
      s = 10 + 1000 * k;
      d = 900 + k % 7;
    } else {
      s = 10 + 1000 * k + 100;
      d = 500 + k % 11;
    }
    starts[i] = base + s;
    ends[i] = base + s + d;
  }
}

/* OpenMP: rank 0, thread 0's main holds `teams` parallel calls; each team
 * is thread 0's and three workers' implicit tasks, each holding one work
 * call (ctx: the number of teams; aux: what the source is). */
static void omp_read(const sp_fmt_source *src, int64_t first, int64_t n,
                     int64_t *starts, int64_t *ends) {
  int64_t teams = *(const int64_t *)src->ctx;
  for (int64_t i = 0; i < n; i++) {
    int64_t b = 1000 * (first + i), w = src->thread;
    int64_t s[] = {0, b + 10, b + (w ? 25 : 20), b + 30};
    int64_t e[] = {1000 * teams + 10, b + 910, b + (w ? 890 : 880),
                   b + 130 + 100 * w};
    starts[i] = s[src->aux];
    ends[i] = e[src->aux];
  }
}

/* Writes the OpenMP profile; prefix "omp" names the regions as the
 * runtime's OpenMP support does, anything else leaves no team to join. */
static int omp_profile(const char *path, const char *prefix, int64_t *teams,
                       sp_fmt_err *err) {
  char par[64], task[64];
  snprintf(par, sizeof par, "%s parallel @ bench.c:10", prefix);
  snprintf(task, sizeof task, "%s implicit task @ bench.c:10", prefix);
  const char *names[] = {"main", par, task, "work"};
  sp_fmt_source s[10];
  int n = 0;
  for (int32_t t = 0; t < 4; t++)
    for (int k = t ? 2 : 0; k < 4; k++) {
      sp_fmt_source x = {.thread = t,
                         .name = names[k],
                         .file = "bench.c",
                         .line = 10,
                         .count = k ? *teams : 1,
                         .read = omp_read,
                         .ctx = teams,
                         .aux = k};
      s[n++] = x;
    }
  return sp_fmt_spt_write(path, 0, 3, s, n, 0, err);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs argv with stdout to out; returns wall seconds. */
static double run(char *const *argv, const char *out) {
  double t0 = now();
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, 1) < 0)
      _exit(126);
    execv(argv[0], argv);
    _exit(127);
  }
  int status;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    fprintf(stderr, "bench_report: %s failed\n", argv[0]);
    exit(1);
  }
  return now() - t0;
}

/* a and b run in turn three times (the machine is shared): the best time
 * of each, their outputs left in ta and tb. */
static void best_of_3(char *const *a, const char *ta, char *const *b,
                      const char *tb, double *best_a, double *best_b) {
  *best_a = *best_b = 1e30;
  for (int k = 0; k < 3; k++) {
    double x = run(a, ta), y = run(b, tb);
    *best_a = x < *best_a ? x : *best_a;
    *best_b = y < *best_b ? y : *best_b;
  }
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  static char none[] = "";
  if (!f)
    return none;
  char *buf = calloc(1 << 20, 1);
  size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
  (void)n;
  fclose(f);
  return buf ? buf : none;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: bench_report SP_REPORT DIR [RANKS] [CALLS]\n");
    return 2;
  }
  int32_t ranks = argc > 3 ? atoi(argv[3]) : 4;
  int64_t calls = argc > 4 ? atoll(argv[4]) : 10000000;
  int64_t steps = calls / ranks / 2;
  char path[4096], t1[4200], t2[4200];
  snprintf(path, sizeof path, "%s/profile.h5", argv[2]);
  snprintf(t1, sizeof t1, "%s/summary.txt", argv[2]);
  snprintf(t2, sizeof t2, "%s/events.txt", argv[2]);
  mkdir(argv[2], 0755);

  double g0 = now();
  sp_fmt_err err;
  sp_fmt_h5w *w = sp_fmt_h5w_open(path, &err);
  if (!w)
    goto fail;
  for (int32_t r = 0; r < ranks; r++) {
    sp_fmt_source src[3] = {{.name = "main", .line = 1, .count = 1},
                            {.name = "step", .line = 2, .count = steps},
                            {.name = "kernel", .line = 3, .count = steps}};
    for (int i = 0; i < 3; i++) {
      src[i].file = "bench.c";
      src[i].read = gen_read;
      src[i].ctx = &steps;
      src[i].aux = (int64_t)r * 1000000000000LL;
    }
    sp_fmt_stats st[3];
    if (sp_fmt_stats_thread(src, 3, st, NULL) != 0)
      return 1;
    for (int i = 0; i < 3; i++)
      if (sp_fmt_h5w_row(w, r, &src[i], &st[i], &err) != 0)
        goto fail;
  }
  if (sp_fmt_h5w_close(w, &err) != 0)
    goto fail;
  printf("profile: %d ranks, %lld calls, written in %.1f s\n", ranks,
         (long long)(2 * steps * ranks + ranks), now() - g0);

  fflush(stdout);
  char *sum[] = {argv[1], path, NULL};
  char *ev[] = {argv[1], "--events", path, NULL};
  double bs, be;
  best_of_3(sum, t1, ev, t2, &bs, &be);
  char *x = slurp(t1), *y = slurp(t2);
  int same = strcmp(x, y) == 0 && x[0];
  printf("sp-report summary-only (summary_statistics): %.3f s\n", bs);
  printf("sp-report --events (every call read):        %.3f s\n", be);
  printf("speed-up of the summary-only read: %.1fx; tables %s\n", be / bs,
         same ? "identical" : "DIFFER");

  /* The timeline of every call stays a file a browser opens. */
  char svg[4200];
  snprintf(svg, sizeof svg, "%s/timeline.svg", argv[2]);
  char *tl[] = {argv[1], "--svg", "timeline", "-o", svg, path, NULL};
  double tt = run(tl, t1);
  FILE *f = fopen(svg, "r");
  long rects = 0, bytes = 0;
  int c, prev[5] = {0};
  while (f && (c = fgetc(f)) != EOF) {
    bytes++;
    memmove(prev, prev + 1, 4 * sizeof *prev);
    prev[4] = c;
    rects += prev[0] == '<' && prev[1] == 'r' && prev[2] == 'e' &&
             prev[3] == 'c' && prev[4] == 't';
  }
  if (f)
    fclose(f);
  printf("sp-report --svg timeline of every call: %.3f s, %ld bytes, %ld "
         "rectangles\n",
         tt, bytes, rects);
  unlink(svg);

  /* Call stacks of every call: the folded export. */
  char *fo[] = {argv[1], "--export", "folded", path, NULL};
  double tf = run(fo, t1);
  printf("sp-report --export folded (call stacks of every call): %.3f s, "
         "%.1f M calls/s\n",
         tf, (double)(2 * steps * ranks + ranks) / tf / 1e6);

  /* The call stacks of an OpenMP profile with as many calls, its teams
   * joined (the rank's threads walked together), against the same calls
   * under names that are no OpenMP region. */
  int64_t teams = (2 * steps * ranks + ranks) / 9;
  char op[4200], xp[4200];
  snprintf(op, sizeof op, "%s/omp.spt", argv[2]);
  snprintf(xp, sizeof xp, "%s/xmp.spt", argv[2]);
  if (omp_profile(op, "omp", &teams, &err) != 0 ||
      omp_profile(xp, "xmp", &teams, &err) != 0)
    goto fail;
  char *oa[] = {argv[1], "--export", "folded", op, NULL};
  char *xa[] = {argv[1], "--export", "folded", xp, NULL};
  double bo, bx;
  best_of_3(xa, t1, oa, t2, &bx, &bo);
  printf("sp-report --export folded, OpenMP profile (%lld calls, 4 threads): "
         "%.3f s teams joined, %.3f s not (%.2fx)\n",
         (long long)(9 * teams + 1), bo, bx, bo / bx);
  unlink(op);
  unlink(xp);
  unlink(path);
  unlink(t1);
  unlink(t2);
  return same ? 0 : 1;
fail:
  fprintf(stderr, "bench_report: %s\n", err.msg);
  return 1;
}
