/* hpcc_mpi3.h - forced ahead of HPCC's sources: the two MPI-1 calls it
 * makes, removed in MPI-3 (OpenMPI 4's mpi.h refuses them), mapped to
 * their MPI-2 names, as Debian's own HPCC patch does. */
#include <mpi.h>
#undef MPI_Address
#undef MPI_Type_struct
#define MPI_Address MPI_Get_address
#define MPI_Type_struct MPI_Type_create_struct
