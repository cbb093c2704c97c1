/* abort.c - rank 1 of the job calls MPI_Abort while the other ranks wait
 * for it in a reduction: every rank's calls up to the abort must survive.
 * Rank r records 1000 * (r + 1) + 7 calls of "work" and, after a barrier
 * that every rank passed, one call of "abort" (rank 1, open as it aborts)
 * or of "wait" (the others, open as the launcher ends them, unless the end
 * comes while they are still in the barrier). */
#include <mpi.h>
#include <scope_profiler.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, work = sp_region("work"), wait = sp_region("wait"),
            aborting = sp_region("abort");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < 1000 * (rank + 1) + 7; i++) {
    sp_begin(work);
    sp_end(work);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    sp_begin(aborting);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  double x = 1, y;
  sp_begin(wait);
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  sp_end(wait);
  MPI_Finalize();
  return 0;
}
