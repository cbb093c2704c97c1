/* mpi4.c - known messages of MPI-4's persistent collectives and
 * large-count (_c) calls on 4 ranks, for check_mpi4.py; built only where
 * the MPI has them (MPICH 4). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#define NP 4
#define ROUNDS 3

static int check(int ok, const char *what) {
  if (!ok)
    fprintf(stderr, "mpi4: %s\n", what);
  return !ok;
}

int main(int argc, char **argv) {
  int me, np, bad = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (np != NP)
    MPI_Abort(MPI_COMM_WORLD, 2);
  /* persistent collectives: an allreduce of 10 ints started ROUNDS times,
   * a broadcast of 5 doubles from rank 2 twice, a barrier once */
  int right = (me + 1) % NP, left = (me + NP - 1) % NP;
  int in[10], sum[10];
  double five[5] = {0};
  MPI_Request q[3];
  MPI_Status sts[2];
  MPI_Allreduce_init(in, sum, 10, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                     MPI_INFO_NULL, &q[0]);
  MPI_Bcast_init(five, 5, MPI_DOUBLE, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]);
  MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &q[2]);
  for (int i = 0; i < ROUNDS; i++) {
    for (int j = 0; j < 10; j++)
      in[j] = me + i;
    MPI_Start(&q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    bad |= check(sum[9] == 6 + NP * i, "the persistent allreduce's sum");
  }
  for (int i = 0; i < 2; i++) {
    five[4] = me == 2 ? 7.0 + i : 0.0;
    MPI_Start(&q[1]);
    MPI_Wait(&q[1], MPI_STATUS_IGNORE);
    bad |= check(five[4] == 7.0 + i, "the persistent broadcast's data");
  }
  MPI_Startall(1, &q[2]);
  MPI_Waitall(1, &q[2], sts);
  for (int i = 0; i < 3; i++)
    MPI_Request_free(&q[i]);
  /* a persistent gatherv at rank 0: rank k's k + 1 ints */
  int mine[NP] = {me, me, me, me}, all[10], gcs[NP] = {1, 2, 3, 4},
      gds[NP] = {0, 1, 3, 6};
  MPI_Request gq;
  MPI_Gatherv_init(mine, me + 1, MPI_INT, all, gcs, gds, MPI_INT, 0,
                   MPI_COMM_WORLD, MPI_INFO_NULL, &gq);
  MPI_Start(&gq);
  MPI_Wait(&gq, MPI_STATUS_IGNORE);
  bad |= check(me != 0 || all[9] == 3, "the persistent gatherv's data");
  MPI_Request_free(&gq);
  /* a persistent neighbourhood alltoall on a periodic ring: 2 ints to
   * each of the 2 neighbours, started twice */
  MPI_Comm ring;
  int dims[1] = {NP}, periods[1] = {1}, nto[4] = {me, me, me, me}, nfrom[4];
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  MPI_Neighbor_alltoall_init(nto, 2, MPI_INT, nfrom, 2, MPI_INT, ring,
                             MPI_INFO_NULL, &gq);
  for (int i = 0; i < 2; i++) {
    MPI_Start(&gq);
    MPI_Wait(&gq, MPI_STATUS_IGNORE);
  }
  bad |= check(nfrom[0] == left && nfrom[3] == right,
               "the persistent neighbourhood alltoall's data");
  MPI_Request_free(&gq);
  MPI_Comm_free(&ring);

  /* large counts: 6 ints to the right (MPI_Send_c, MPI_Recv_c), 3
   * doubles to the left (MPI_Isend_c, MPI_Irecv_c, MPI_Waitall) */
  int six[6] = {me, me, me, me, me, me}, got6[6];
  MPI_Status st;
  MPI_Count n = 0;
  if (me % 2 == 0) {
    MPI_Send_c(six, 6, MPI_INT, right, 20, MPI_COMM_WORLD);
    MPI_Recv_c(got6, 6, MPI_INT, left, 20, MPI_COMM_WORLD, &st);
  } else {
    MPI_Recv_c(got6, 6, MPI_INT, left, 20, MPI_COMM_WORLD, &st);
    MPI_Send_c(six, 6, MPI_INT, right, 20, MPI_COMM_WORLD);
  }
  MPI_Get_count_c(&st, MPI_INT, &n);
  bad |= check(n == 6 && got6[5] == left, "MPI_Recv_c's data");
  double three[3] = {me, me, me}, got3[3];
  MPI_Request rq[2];
  MPI_Irecv_c(got3, 3, MPI_DOUBLE, right, 21, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend_c(three, 3, MPI_DOUBLE, left, 21, MPI_COMM_WORLD, &rq[1]);
  MPI_Waitall(2, rq, sts);
  bad |= check(got3[2] == right, "MPI_Irecv_c's data");

  /* MPI_Allreduce_c of 4 int64s; MPI_Alltoallv_c: j + 1 ints to rank j */
  int64_t v4[4] = {me, me, me, me}, s4[4];
  MPI_Allreduce_c(v4, s4, 4, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  bad |= check(s4[3] == 6, "MPI_Allreduce_c's sum");
  int sbuf[10], rbuf[NP * NP];
  MPI_Count scs[NP], rcs[NP];
  MPI_Aint sds[NP], rds[NP];
  for (int j = 0, o = 0; j < NP; j++) {
    scs[j] = j + 1;
    sds[j] = o;
    o += j + 1;
    rcs[j] = me + 1;
    rds[j] = j * (me + 1);
  }
  for (int j = 0; j < 10; j++)
    sbuf[j] = me;
  MPI_Alltoallv_c(sbuf, scs, sds, MPI_INT, rbuf, rcs, rds, MPI_INT,
                  MPI_COMM_WORLD);
  bad |= check(rbuf[NP * (me + 1) - 1] == NP - 1, "MPI_Alltoallv_c's data");
  MPI_Finalize();
  return bad;
}
