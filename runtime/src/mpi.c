/* mpi.c - the rank and size from MPI itself, for launchers that export none
 * of the usual variables, and the rank finalize settles on. MPI is found
 * with dlsym: the runtime never links it. */
#include "internal.h"

#include <dlfcn.h>
#include <stdint.h>

typedef int (*flag_fn)(int *);
typedef int (*comm_fn)(void *, int *);

/* MPI_COMM_WORLD: OpenMPI's is the address of a global; the MPICH ABI
 * (MPICH, Intel MPI, MVAPICH, Cray MPICH) uses the integer 0x44000000. */
static void *comm_world(void) {
  void *ompi = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world");
  return ompi ? ompi : (void *)(uintptr_t)0x44000000;
}

/* The PMPI names: the runtime's own questions are not the program's MPI
 * calls, and an MPI call recorder (libscopeprof_mpi.so) must not see them. */
int sp__mpi_query(int *rank, int *size) {
  flag_fn initialized =
      (flag_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "PMPI_Initialized");
  flag_fn finalized = (flag_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "PMPI_Finalized");
  comm_fn comm_rank = (comm_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "PMPI_Comm_rank");
  comm_fn comm_size = (comm_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "PMPI_Comm_size");
  int ini = 0, fin = 1;
  if (!initialized || !finalized || !comm_rank || !comm_size)
    return -1;
  if (initialized(&ini) != 0 || !ini || finalized(&fin) != 0 || fin)
    return -1;
  void *world = comm_world();
  if (comm_rank(world, rank) != 0 || comm_size(world, size) != 0)
    return -1;
  return 0;
}

/* Rank and size seen while MPI was alive, for a finalize that runs after
 * MPI_Finalize (at exit): captured by the MPI_Finalize below. */
static int captured = 0, captured_rank = -1, captured_size = -1;

int sp__mpi_rank(int *rank, int *size) {
  if (sp__mpi_query(rank, size) == 0)
    return 0;
  if (!captured)
    return -1;
  *rank = captured_rank;
  *size = captured_size;
  return 0;
}

/* The rank this process reports, decided at finalize: the environment's,
 * else MPI's (which also gives the job's size), else 0. */
int sp__final_rank(void) {
  int rank = sp__rank_from_env(), mrank = -1, msize = -1;
  if (rank < 0 && sp__mpi_rank(&mrank, &msize) == 0) {
    rank = mrank;
    sp__mpi_size = msize;
  }
  return rank < 0 ? 0 : rank;
}

/* The MPI profiling interface: a program linked with -lscopeprof before its
 * MPI library calls this MPI_Finalize, which notes the rank, then finalizes
 * through PMPI_Finalize as every PMPI tool does. */
SP_API int MPI_Finalize(void) {
  int r, s;
  if (!captured && sp__mpi_query(&r, &s) == 0) {
    captured_rank = r;
    captured_size = s;
    captured = 1;
  }
  int (*pmpi)(void) =
      (int (*)(void))(uintptr_t)dlsym(RTLD_DEFAULT, "PMPI_Finalize");
  return pmpi ? pmpi() : 16; /* MPI_ERR_OTHER in the MPICH and OpenMPI ABIs */
}

/* MPI_Abort ends this process without exit handlers and the launcher kills
 * the others: what this rank recorded goes to its stream first (as before
 * an exec). MPI_Comm is a pointer (OpenMPI) or an int (MPICH ABI); either
 * passes through unchanged in the first argument register. */
SP_API int MPI_Abort(void *comm, int code) {
  sp__flush_to_stream(0);
  int (*pmpi)(void *, int) =
      (int (*)(void *, int))(uintptr_t)dlsym(RTLD_DEFAULT, "PMPI_Abort");
  return pmpi ? pmpi(comm, code) : 16;
}
