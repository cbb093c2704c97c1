/* abort_shim.c - MPI_Abort for abort_peer.c, a pretended MPI job without
 * MPI: what the MPI layer's MPI_Abort does (mpi/runtime.c), the runtime's
 * hook, then, with no PMPI_Abort to call, MPI_ERR_OTHER (16). */
#include <sp_mpi_hooks.h>

int MPI_Abort(void *comm, int code);

int MPI_Abort(void *comm, int code) {
  (void)comm, (void)code;
  sp__mpi_aborting();
  return 16;
}
