/* pcoll.c - MPI-4's persistent collectives on 3 ranks (check_pcoll.py):
 * each MPI_Start of one is the collective, with the bytes its blocking
 * form has; making one (MPI_*_init) and freeing it move nothing. Built
 * only where mpi.h is MPI-4 (MPICH 4; not OpenMPI 4.1). */
#include <mpi.h>

#define ROUNDS 3

int main(int argc, char **argv) {
  int rank, ia[4] = {1, 2, 3, 4}, ib[4], g[6], counts[3] = {1, 2, 3},
            displs[3] = {0, 1, 3};
  double d[8] = {0};
  MPI_Request q[4];
  MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: GCC 12 warns of its size */
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Allreduce_init(ia, ib, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                     &q[0]);
  MPI_Bcast_init(d, 8, MPI_DOUBLE, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]);
  MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &q[2]);
  /* rank r sends r + 1 ints to rank 0 */
  MPI_Gatherv_init(ia, rank + 1, MPI_INT, g, counts, displs, MPI_INT, 0,
                   MPI_COMM_WORLD, MPI_INFO_NULL, &q[3]);
  for (int k = 0; k < ROUNDS; k++) {
    MPI_Start(&q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  }
  for (int k = 0; k < 2; k++) {
    MPI_Startall(2, &q[1]);
    MPI_Waitall(2, &q[1], st);
  }
  MPI_Start(&q[3]);
  MPI_Wait(&q[3], MPI_STATUS_IGNORE);
  for (int i = 0; i < 4; i++)
    MPI_Request_free(&q[i]);
  MPI_Finalize();
  return 0;
}
