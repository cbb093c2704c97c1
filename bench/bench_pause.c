/* bench_pause.c - ns per sp_begin/sp_end pair while recording, while
 * paused (sp_pause) and with SP_ENABLE=0, each process measured apart;
 * through the header's inline check and through plain calls (the route of
 * Fortran, ctypes and function pointers). */
#include "scope_profiler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PAIRS 2000000
#define PROCS 7

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double pairs(int id) {
  double t0 = now_ns();
  for (int i = 0; i < PAIRS; i++) {
    sp_begin(id);
    sp_end(id);
  }
  return (now_ns() - t0) / PAIRS;
}

/* The functions themselves: (sp_begin) is not the header's macro. */
static double calls(int id) {
  void (*volatile b)(int) = (sp_begin), (*volatile e)(int) = (sp_end);
  void (*begin)(int) = b, (*end)(int) = e;
  double t0 = now_ns();
  for (int i = 0; i < PAIRS; i++) {
    begin(id);
    end(id);
  }
  return (now_ns() - t0) / PAIRS;
}

/* One process: recording, then paused (with SP_ENABLE=0 both are the
 * disabled cost). */
static int child(void) {
  int id = sp_region("pair");
  pairs(id); /* warm: chunks, caches */
  calls(id);
  double rec = pairs(id), rec_c = calls(id);
  sp_pause();
  double paused = pairs(id), paused_c = calls(id);
  sp_resume();
  printf("%.3f %.3f %.3f %.3f\n", rec, paused, rec_c, paused_c);
  return sp_finalize() == 0 || id < 0 ? 0 : 1;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median and best of a row of PROCS figures (sorted in place). */
static void row(const char *what, double *v) {
  qsort(v, PROCS, sizeof *v, cmp);
  printf("  %-12s %7.2f (%7.2f)\n", what, v[PROCS / 2], v[0]);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "child"))
    return child();
  /* [route][0 recording, 1 paused, 2 SP_ENABLE=0][process] */
  double v[2][3][PROCS];
  char dir[] =
      "/tmp/bench_pause_XXXXXX"; /* a real file: /dev/null records nothing */
  if (!mkdtemp(dir))
    return 1;
  for (int i = 0; i < PROCS; i++) {
    for (int k = 0; k < 2; k++) {
      char cmd[4096];
      snprintf(
          cmd, sizeof cmd,
          "SP_OUTPUT=%s/b SP_FORMAT=spt SP_ENABLE=%d %s child && rm -f %s/b*",
          dir, !k, argv[0], dir);
      FILE *p = popen(cmd, "r");
      double x[4] = {0};
      if (!p || fscanf(p, "%lf %lf %lf %lf", &x[0], &x[1], &x[2], &x[3]) != 4) {
        fprintf(stderr, "bench_pause: %s failed\n", cmd);
        return 1;
      }
      pclose(p);
      for (int r = 0; r < 2; r++) {
        if (k == 0) {
          v[r][0][i] = x[2 * r];
          v[r][1][i] = x[2 * r + 1];
        } else {
          v[r][2][i] = (x[2 * r] + x[2 * r + 1]) / 2;
        }
      }
    }
  }
  rmdir(dir);
  printf("ns per begin/end pair, %d pairs, %d processes each: median (best)\n",
         PAIRS, PROCS);
  static const char *route[] = {"through the header's inline check",
                                "through calls (Fortran, ctypes, pointers)"};
  for (int r = 0; r < 2; r++) {
    printf("%s\n", route[r]);
    row("recording", v[r][0]);
    row("paused", v[r][1]);
    row("SP_ENABLE=0", v[r][2]);
    printf("  paused - SP_ENABLE=0: %.2f ns (medians)\n",
           v[r][1][PROCS / 2] - v[r][2][PROCS / 2]);
  }
  return 0;
}
