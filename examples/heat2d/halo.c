/* halo.c - the halo exchange between neighbouring ranks' slabs: an
 * annotated region (route 1), named by its annotation. */
#include "heat2d.h"

static double *row(slab_t *s, double *g, int r) { return g + (long)r * s->ny; }

__attribute__((annotate("sp_region:halo_exchange"))) void
halo_exchange(slab_t *s, MPI_Comm comm) {
  /* first interior row up, last interior row down; halos come back */
  MPI_Sendrecv(row(s, s->u, 1), s->ny, MPI_DOUBLE, s->up, 0,
               row(s, s->u, s->rows + 1), s->ny, MPI_DOUBLE, s->down, 0, comm,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(row(s, s->u, s->rows), s->ny, MPI_DOUBLE, s->down, 1,
               row(s, s->u, 0), s->ny, MPI_DOUBLE, s->up, 1, comm,
               MPI_STATUS_IGNORE);
}
