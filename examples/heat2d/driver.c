/* driver.c - heat2d's driver: a 2-D heat equation split into row slabs over
 * MPI ranks. The C API marks the phases by hand (route 3); everything else
 * is instrumented by the build (routes 1 and 2). */
#include "heat2d.h"

#include <scope_profiler.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int region_setup, region_solve, region_reduce, region_report;

static void regions(void) {
  region_setup = sp_region_at("setup", __FILE__, __LINE__);
  region_solve = sp_region_at("solve", __FILE__, __LINE__);
  region_reduce = sp_region_at("residual_allreduce", __FILE__, __LINE__);
  region_report = sp_region_at("report", __FILE__, __LINE__);
}

static void decompose(slab_t *s, int nx, int ny, MPI_Comm comm) {
  MPI_Comm_rank(comm, &s->rank);
  MPI_Comm_size(comm, &s->size);
  s->nx = nx;
  s->ny = ny;
  int base = nx / s->size, extra = nx % s->size;
  s->rows = base + (s->rank < extra);
  s->first_row = s->rank * base + (s->rank < extra ? s->rank : extra);
  s->up = s->rank > 0 ? s->rank - 1 : MPI_PROC_NULL;
  s->down = s->rank < s->size - 1 ? s->rank + 1 : MPI_PROC_NULL;
  size_t n = (size_t)(s->rows + 2) * (size_t)ny;
  s->u = calloc(n, sizeof(double));
  s->unew = calloc(n, sizeof(double));
  if (!s->u || !s->unew) {
    fprintf(stderr, "heat2d: out of memory\n");
    MPI_Abort(comm, 1);
  }
}

static double total_heat(const slab_t *s, MPI_Comm comm) {
  double local = 0, global = 0;
  for (long k = s->ny; k < (long)(s->rows + 1) * s->ny; k++)
    local += s->u[k];
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm);
  return global;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  int nx = argc > 1 ? atoi(argv[1]) : 256;
  int ny = argc > 2 ? atoi(argv[2]) : 256;
  int steps = argc > 3 ? atoi(argv[3]) : 200;
  const double alpha = 0.2;

  regions();
  slab_t s;
  sp_begin(region_setup);
  decompose(&s, nx, ny, comm);
  heat_init(s.rows, ny, s.first_row, nx, s.u);
  double heat0 = total_heat(&s, comm);
  sp_end(region_setup);

  sp_begin(region_solve);
  double residual = 0;
  for (int step = 0; step < steps; step++) {
    halo_exchange(&s, comm);
    double local = heat_step(s.rows, ny, s.u, s.unew, alpha);
    sp_begin(region_reduce);
    MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, comm);
    sp_end(region_reduce);
    double *t = s.u;
    s.u = s.unew;
    s.unew = t;
  }
  sp_end(region_solve);

  sp_begin(region_report);
  double heat1 = total_heat(&s, comm);
  if (s.rank == 0)
    printf("heat2d: %d x %d grid, %d ranks, %d steps: residual %.6g, "
           "heat %.6g -> %.6g\n",
           nx, ny, s.size, steps, residual, heat0, heat1);
  sp_end(region_report);

  free(s.u);
  free(s.unew);
  sp_finalize(); /* before MPI_Finalize: the rank can still come from MPI */
  MPI_Finalize();
  return fabs(heat1) > 0 ? 0 : 1;
}
