/* comm.h - the calls whose bytes and partners the layer records (comm.c,
 * persist.c; Fortran: fcomm.c, fpersist.c): the generated wrappers hand each
 * to sp_mpi__x_<name> or sp_mpi__fx_<name> while its region is open
 * (comm_decl.h, generated from mpi.h, declares them). */
#ifndef SP_MPI_COMM_H
#define SP_MPI_COMM_H

#include "layer.h"

/* sp__mpi_msg kinds and partners: the values of sp_stream.h's SP_MPI_K_*,
 * SP_MPI_NONE and SP_MPI_ANY (the stream's layout, which the layer does
 * not include). */
enum {
  SP_MPI_K_SEND = 1,
  SP_MPI_K_ISEND = 2,
  SP_MPI_K_RECV = 3,
  SP_MPI_K_IRECV = 4,
  SP_MPI_K_WAITRECV = 5,
  SP_MPI_K_COLL = 6,
  SP_MPI_K_WAITSEND = 7,
};
#define SP_MPI_NONE (-1)
#define SP_MPI_ANY (-2)

#include "comm_decl.h"

#endif
