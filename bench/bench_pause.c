/* bench_pause.c - ns per sp_begin/sp_end pair while recording, while
 * paused (sp_pause) and with SP_ENABLE=0, each process measured apart. */
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

/* One process: recording, then paused (with SP_ENABLE=0 both are the
 * disabled cost). */
static int child(void) {
  int id = sp_region("pair");
  pairs(id); /* warm: chunks, caches */
  double rec = pairs(id);
  sp_pause();
  double paused = pairs(id);
  sp_resume();
  printf("%.3f %.3f\n", rec, paused);
  return sp_finalize() == 0 || id < 0 ? 0 : 1;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "child"))
    return child();
  double rec[PROCS], paused[PROCS], off[PROCS];
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
      double a = 0, b = 0;
      if (!p || fscanf(p, "%lf %lf", &a, &b) != 2) {
        fprintf(stderr, "bench_pause: %s failed\n", cmd);
        return 1;
      }
      pclose(p);
      if (k == 0) {
        rec[i] = a;
        paused[i] = b;
      } else {
        off[i] = (a + b) / 2;
      }
    }
  }
  rmdir(dir);
  qsort(rec, PROCS, sizeof *rec, cmp);
  qsort(paused, PROCS, sizeof *paused, cmp);
  qsort(off, PROCS, sizeof *off, cmp);
  int m = PROCS / 2;
  printf("ns per begin/end pair, %d pairs, %d processes each: median (best)\n",
         PAIRS, PROCS);
  printf("recording   %7.2f (%7.2f)\n", rec[m], rec[0]);
  printf("paused      %7.2f (%7.2f)\n", paused[m], paused[0]);
  printf("SP_ENABLE=0 %7.2f (%7.2f)\n", off[m], off[0]);
  printf("paused / SP_ENABLE=0: %.2f (best %.2f); recording / paused: %.2f\n",
         paused[m] / off[m], paused[0] / off[0], rec[m] / paused[m]);
  return 0;
}
