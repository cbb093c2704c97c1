/* mpi_prog.c - an MPI program using the runtime: run under mpirun -np 2.
 * With argv[1] = "hide", it removes the launcher's rank variables after
 * MPI_Init, so the runtime must ask MPI for the rank; "hide-atexit" also
 * leaves the writing to the exit handler, after MPI_Finalize. */
#include <mpi.h>
#include <scope_profiler.h>

#include <stdlib.h>
#include <string.h>

/* "crash": every rank records 1000 * (rank + 1) calls of "work", then rank 1
 * dies of a bad access while the others wait for it in a reduction (inside
 * an open "wait" region) until the launcher kills them. */
static volatile int *volatile nowhere;

static int crash(int rank, int use_abort) {
  int work = sp_region("work"), wait = sp_region("wait");
  for (int i = 0; i < 1000 * (rank + 1); i++) {
    sp_begin(work);
    sp_end(work);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1 && use_abort)
    MPI_Abort(MPI_COMM_WORLD, 3);
  if (rank == 1)
    *nowhere = 1;
  double x = 1, y;
  sp_begin(wait);
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  sp_end(wait);
  MPI_Finalize();
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "crash") == 0)
    return crash(rank, 0);
  if (argc > 1 && strcmp(argv[1], "abort") == 0)
    return crash(rank, 1);
  int at_exit = argc > 1 && strcmp(argv[1], "hide-atexit") == 0;
  if (argc > 1 && strncmp(argv[1], "hide", 4) == 0) {
    const char *vars[] = {
        "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID",
        "OMPI_COMM_WORLD_SIZE", NULL};
    for (int i = 0; vars[i]; i++)
      unsetenv(vars[i]);
  }
  int work = sp_region("work"), comm = sp_region("allreduce");
  double local = rank + 1, total = 0;
  for (int i = 0; i <= rank; i++) { /* rank r does r + 1 calls */
    sp_begin(work);
    sp_begin(comm);
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    sp_end(comm);
    sp_end(work);
  }
  /* ranks with fewer calls still take part in every reduction */
  for (int i = rank + 1; i < size; i++)
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int rc = at_exit ? 0 : sp_finalize(); /* before MPI_Finalize */
  MPI_Finalize();
  return rc == 0 ? 0 : 1;
}
