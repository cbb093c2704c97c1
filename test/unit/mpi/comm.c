/* comm.c - known messages between 4 ranks for the MPI layer's bytes and
 * partners (check_comm.py holds the same numbers): a ring, a 2x2 halo
 * exchange (MPI_Isend/MPI_Irecv, MPI_Waitall), every pair through an
 * MPI_Testany loop, MPI_ANY_SOURCE receives, a sub-communicator
 * (MPI_Comm_split, ranks reversed) and collectives. With the arguments
 * "abort DIR" the job ends in rank 0's MPI_Abort (3) instead, the other ranks
 * waiting in an MPI_Recv that never completes: the messages must come
 * from the streams the ranks save then. */
#define _POSIX_C_SOURCE 200809L /* nanosleep, access */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* MPICH defines MPI_STATUSES_IGNORE as (MPI_Status *)1, which GCC 12
 * reads as an array of size 0 for MPI_Waitall's parameter: a false
 * positive, and the layer must see MPI_STATUSES_IGNORE itself. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define NP 4

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != NP) {
    fprintf(stderr, "comm: needs %d ranks\n", NP);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  static double big[1000], in[1000];
  memset(big, 0, sizeof big);
  /* ring: 125 doubles (1000 bytes) to rank + 1, tag 1 */
  int next = (rank + 1) % NP, prev = (rank + NP - 1) % NP;
  if (rank % 2 == 0) {
    MPI_Send(big, 125, MPI_DOUBLE, next, 1, MPI_COMM_WORLD);
    MPI_Recv(in, 125, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(in, 125, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(big, 125, MPI_DOUBLE, next, 1, MPI_COMM_WORLD);
  }
  /* halo on a 2x2 grid (rank = 2y + x): 100 doubles to the x neighbour
   * (rank ^ 1, tag 2), 200 to the y neighbour (rank ^ 2, tag 3) */
  MPI_Request q[4];
  MPI_Irecv(in, 100, MPI_DOUBLE, rank ^ 1, 2, MPI_COMM_WORLD, &q[0]);
  MPI_Irecv(in + 100, 200, MPI_DOUBLE, rank ^ 2, 3, MPI_COMM_WORLD, &q[1]);
  MPI_Isend(big, 100, MPI_DOUBLE, rank ^ 1, 2, MPI_COMM_WORLD, &q[2]);
  MPI_Isend(big + 100, 200, MPI_DOUBLE, rank ^ 2, 3, MPI_COMM_WORLD, &q[3]);
  MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
  /* every pair: 4 ints (16 bytes), tag 4, received through MPI_Testany */
  MPI_Request rq[NP - 1], sq[NP - 1];
  int got[NP][4], mine[4] = {rank, rank, rank, rank};
  for (int k = 1, i = 0; k < NP; k++, i++) {
    int peer = (rank + k) % NP;
    MPI_Irecv(got[peer], 4, MPI_INT, peer, 4, MPI_COMM_WORLD, &rq[i]);
    MPI_Isend(mine, 4, MPI_INT, peer, 4, MPI_COMM_WORLD, &sq[i]);
  }
  for (int done = 0; done < NP - 1;) {
    int idx, flag;
    MPI_Testany(NP - 1, rq, &idx, &flag, MPI_STATUS_IGNORE);
    if (flag && idx != MPI_UNDEFINED)
      done++;
  }
  MPI_Waitall(NP - 1, sq, MPI_STATUSES_IGNORE);
  /* MPI_ANY_SOURCE: rank k > 0 sends 10 k bytes to rank 0, tag 5 */
  char bytes[64] = {0};
  if (rank == 0) {
    for (int i = 1; i < NP; i++) {
      MPI_Status st;
      MPI_Recv(bytes, 64, MPI_CHAR, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
    }
  } else {
    MPI_Send(bytes, 10 * rank, MPI_CHAR, 0, 5, MPI_COMM_WORLD);
  }
  /* a sub-communicator: colour rank % 2, ranks reversed ({2, 0}, {3, 1});
   * its rank 0 (world 2, 3) sends 3 doubles (24 bytes) to its rank 1
   * (world 0, 1), tag 6 */
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &sub);
  int srank;
  MPI_Comm_rank(sub, &srank);
  if (srank == 0)
    MPI_Send(big, 3, MPI_DOUBLE, 1, 6, sub);
  else
    MPI_Recv(in, 3, MPI_DOUBLE, 0, 6, sub, MPI_STATUS_IGNORE);
  /* collectives: MPI_Bcast of 80 bytes from rank 1; MPI_Allreduce of 4
   * doubles; MPI_Gather of one int to rank 0; MPI_Alltoall of 2 ints to
   * each; MPI_Barrier; MPI_Bcast of 8 bytes from the sub-communicator's
   * rank 0 */
  MPI_Bcast(bytes, 80, MPI_BYTE, 1, MPI_COMM_WORLD);
  double v[4] = {1, 2, 3, 4}, w[4];
  MPI_Allreduce(v, w, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int one = rank, all[NP];
  MPI_Gather(&one, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int a2a[2 * NP], b2b[2 * NP];
  memset(a2a, 0, sizeof a2a);
  MPI_Alltoall(a2a, 2, MPI_INT, b2b, 2, MPI_INT, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Bcast(bytes, 8, MPI_BYTE, 0, sub);
  MPI_Comm_free(&sub);
  if (argc > 2 && strcmp(argv[1], "abort") == 0) {
    /* Every rank must have left the barrier before rank 0 aborts, or its
     * barrier is a call still open (MPICH's barrier lets rank 0 leave
     * first): each other rank says so with a file in argv[2], outside
     * MPI, which cannot tell without a call that would itself be open. */
    MPI_Barrier(MPI_COMM_WORLD);
    char path[4096];
    if (rank == 0) {
      for (int k = 1; k < NP; k++) {
        snprintf(path, sizeof path, "%s/left.%d", argv[2], k);
        for (int ms = 0; access(path, F_OK) != 0 && ms < 60000; ms++)
          nanosleep(&(struct timespec){0, 1000000}, NULL);
      }
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    snprintf(path, sizeof path, "%s/left.%d", argv[2], rank);
    FILE *f = fopen(path, "w");
    if (f)
      fclose(f);
    MPI_Recv(bytes, 1, MPI_CHAR, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
