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

/* The field's hottest point over all ranks (heat_max is Fortran). */
static double max_temperature(const slab_t *s, MPI_Comm comm) {
  double local = heat_max(s->rows, s->ny, s->u), global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, comm);
  return global;
}

/* Gathers the interior rows on rank 0 and writes them as a PGM picture,
 * scaled so that `hottest` is white. */
static int write_pgm(const slab_t *s, const char *path, double hottest,
                     MPI_Comm comm) {
  int *counts = NULL, *displs = NULL;
  double *all = NULL;
  int n = s->rows * s->ny, rc = 0;
  if (s->rank == 0) {
    counts = malloc((size_t)s->size * sizeof *counts);
    displs = malloc((size_t)s->size * sizeof *displs);
    all = malloc((size_t)s->nx * (size_t)s->ny * sizeof *all);
    if (!counts || !displs || !all)
      MPI_Abort(comm, 1);
  }
  MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
  if (s->rank == 0)
    for (int r = 0, off = 0; r < s->size; off += counts[r], r++)
      displs[r] = off;
  MPI_Gatherv(s->u + s->ny, n, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0,
              comm);
  if (s->rank == 0) {
    FILE *f = fopen(path, "wb");
    if (!f) {
      perror(path);
      rc = 1;
    } else {
      fprintf(f, "P5\n%d %d\n255\n", s->ny, s->nx);
      for (long k = 0; k < (long)s->nx * s->ny; k++) {
        double v = hottest > 0 ? all[k] / hottest : 0;
        fputc((int)(255.0 * (v < 0 ? 0 : v > 1 ? 1 : sqrt(v))), f);
      }
      rc = fclose(f) != 0;
    }
  }
  free(counts);
  free(displs);
  free(all);
  MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
  return rc;
}

/* usage: heat2d [NX [NY [STEPS [TOLERANCE [OUT.pgm]]]]] */
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  int nx = argc > 1 ? atoi(argv[1]) : 256;
  int ny = argc > 2 ? atoi(argv[2]) : 256;
  int steps = argc > 3 ? atoi(argv[3]) : 200;
  double tolerance = argc > 4 ? atof(argv[4]) : 0.0; /* 0: run every step */
  const char *picture = argc > 5 ? argv[5] : NULL;
  const double alpha = 0.2;
  if (nx < 2 || ny < 3 || steps < 0) {
    fprintf(stderr, "usage: heat2d [NX>=2 [NY>=3 [STEPS [TOL [OUT.pgm]]]]]\n");
    MPI_Finalize();
    return 2;
  }

  regions();
  slab_t s;
  sp_begin(region_setup);
  decompose(&s, nx, ny, comm);
  heat_init(s.rows, ny, s.first_row, nx, s.u);
  double heat0 = total_heat(&s, comm);
  sp_end(region_setup);

  sp_begin(region_solve);
  double residual = 0;
  int step = 0;
  for (; step < steps; step++) {
    halo_exchange(&s, comm);
    double local = heat_step(s.rows, ny, s.u, s.unew, alpha);
    sp_begin(region_reduce);
    MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, comm);
    sp_end(region_reduce);
    double *t = s.u;
    s.u = s.unew;
    s.unew = t;
    if (residual < tolerance) { /* converged */
      step++;
      break;
    }
  }
  sp_end(region_solve);

  sp_begin(region_report);
  double heat1 = total_heat(&s, comm), hottest = max_temperature(&s, comm);
  if (s.rank == 0)
    printf("heat2d: %d x %d grid, %d ranks, %d steps: residual %.6g, "
           "heat %.6g -> %.6g, hottest %.4g\n",
           nx, ny, s.size, step, residual, heat0, heat1, hottest);
  int bad_picture = picture ? write_pgm(&s, picture, hottest, comm) : 0;
  sp_end(region_report);

  free(s.u);
  free(s.unew);
  sp_finalize(); /* before MPI_Finalize: the rank can still come from MPI */
  MPI_Finalize();
  return fabs(heat1) > 0 && !bad_picture ? 0 : 1;
}
