/* seed_prog.c - a small solver whose region names are the ones the Python
 * reading examples filter on (solver.*, rhs.*, io.*, solve, exchange), for
 * test_seed_examples.py; SP_RANK picks the rank, which runs 3 + rank steps. */
#include <stdlib.h>

#include "scope_profiler.h"

static volatile double sink;

static void spin(int n) {
  double x = 0;
  for (int i = 0; i < n; i++)
    x += i * 0.5;
  sink = x;
}

int main(void) {
  const char *r = getenv("SP_RANK");
  int rank = r ? atoi(r) : 0;
  int ts = sp_region_at("timestep", "seed_prog.c", 10);
  int rhs = sp_region_at("rhs.assemble", "seed_prog.c", 20);
  int solve = sp_region_at("solve", "seed_prog.c", 30);
  int it = sp_region_at("solver.iterate", "seed_prog.c", 40);
  int ex = sp_region("exchange"); /* no location */
  int io = sp_region("io.write");
  for (int step = 0; step < 3 + rank; step++) {
    sp_begin(ts);
    sp_begin(rhs);
    spin(20000);
    sp_end(rhs);
    sp_begin(solve);
    for (int k = 0; k < 4; k++) {
      sp_begin(it);
      spin(10000 + 1000 * k);
      sp_end(it);
    }
    sp_end(solve);
    sp_begin(ex);
    spin(5000);
    sp_end(ex);
    sp_end(ts);
    sp_begin(io);
    spin(3000);
    sp_end(io);
  }
  return sp_finalize() == 0 ? 0 : 1;
}
