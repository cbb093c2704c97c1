/* calls.c - known numbers of MPI calls per rank inside a region "exchange",
 * for the MPI layer's tests (recorded counts and nesting are checked).
 * -DSP_PLAIN builds it without ScopeProf (for LD_PRELOAD). */
#include <mpi.h>
#ifdef SP_PLAIN
#define sp_region(name) 0
#define sp_begin(r) (void)(r)
#define sp_end(r) (void)(r)
#else
#include <scope_profiler.h>
#endif

#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int r = sp_region("exchange");
  sp_begin(r);
  /* 4 MPI_Allreduce, 2 MPI_Barrier on every rank; rank k sends k + 1
   * messages to rank k + 1 and receives from rank k - 1 (ring). */
  long sum = 0;
  for (int i = 0; i < 4; i++) {
    long v = rank + i, s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    sum += s;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int to = (rank + 1) % size, from = (rank + size - 1) % size;
  for (int i = 0; i <= rank; i++)
    MPI_Send(&i, 1, MPI_INT, to, 0, MPI_COMM_WORLD);
  for (int i = 0; i <= from; i++) {
    int x;
    MPI_Recv(&x, 1, MPI_INT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  sp_end(r);
  if (rank == 0)
    printf("sum %ld\n", sum);
  MPI_Finalize();
  return 0;
}
