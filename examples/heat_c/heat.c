/* heat.c - a small 2-D heat-equation solver instrumented by hand with the
 * ScopeProf C API: the main job's example (run it as several ranks with
 * SP_RANK, merge with sp-import, read with sp-report). */
#include <scope_profiler.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 256
#define NY 256

static double grid[2][NX][NY];

static void init(void) {
  static int region = -1;
  if (region < 0)
    region = sp_region_at("init", __FILE__, __LINE__);
  sp_begin(region);
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++)
      grid[0][i][j] = (i == NX / 2 && j == NY / 2) ? 1000.0 : 0.0;
  sp_end(region);
}

static void boundary(int cur) {
  static int region = -1;
  if (region < 0)
    region = sp_region_at("boundary", __FILE__, __LINE__);
  sp_begin(region);
  for (int i = 0; i < NX; i++)
    grid[cur][i][0] = grid[cur][i][NY - 1] = 0.0;
  for (int j = 0; j < NY; j++)
    grid[cur][0][j] = grid[cur][NX - 1][j] = 0.0;
  sp_end(region);
}

static double step(int cur) {
  static int region = -1;
  if (region < 0)
    region = sp_region_at("step", __FILE__, __LINE__);
  sp_begin(region);
  double change = 0.0;
  for (int i = 1; i < NX - 1; i++)
    for (int j = 1; j < NY - 1; j++) {
      double v = grid[cur][i][j] +
                 0.2 * (grid[cur][i - 1][j] + grid[cur][i + 1][j] +
                        grid[cur][i][j - 1] + grid[cur][i][j + 1] -
                        4.0 * grid[cur][i][j]);
      change += fabs(v - grid[cur][i][j]);
      grid[1 - cur][i][j] = v;
    }
  boundary(1 - cur);
  sp_end(region);
  return change;
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 200;
  int solve = sp_region_at("solve", __FILE__, __LINE__);
  init();
  sp_begin(solve);
  int cur = 0;
  double change = 0.0;
  for (int s = 0; s < steps; s++) {
    change = step(cur);
    cur = 1 - cur;
  }
  sp_end(solve);
  printf("heat: %d steps, last change %.6f\n", steps, change);
  return sp_finalize() == 0 ? 0 : 1;
}
