/* heat2d.h - what the C driver, the halo exchange and the Fortran kernel
 * share: the local slab of the grid and the kernel's C interface. */
#ifndef HEAT2D_H
#define HEAT2D_H

#include <mpi.h>

/* One rank's rows of the global nx x ny grid, with one halo row above and
 * one below: (rows + 2) x ny doubles, row-major. */
typedef struct slab {
  int nx, ny;    /* global size */
  int rows;      /* interior rows owned by this rank */
  int first_row; /* global index of the first interior row */
  int rank, size;
  int up, down; /* neighbour ranks, MPI_PROC_NULL at the edges */
  double *u, *unew;
} slab_t;

void halo_exchange(slab_t *s, MPI_Comm comm);

/* heat_kernel.f90, bind(C): one explicit Euler step on the interior rows,
 * returning the sum of |unew - u|. */
double heat_step(int rows, int ny, const double *u, double *unew, double alpha);
void heat_init(int rows, int ny, int first_row, int nx, double *u);
/* heat_kernel.f90, bind(C): the largest value of the interior rows. */
double heat_max(int rows, int ny, const double *u);

#endif
