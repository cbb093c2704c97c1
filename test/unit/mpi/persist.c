/* persist.c - known messages of persistent requests and matched receives
 * on 2 ranks, for check_persist.py: 3 rounds of rank 0's MPI_Send_init and
 * MPI_Recv_init (MPI_Startall, MPI_Waitall) against rank 1's MPI_Recv_init
 * and MPI_Ssend_init (MPI_Start, MPI_Wait), then MPI_Mprobe + MPI_Mrecv
 * and MPI_Improbe + MPI_Imrecv of two messages from rank 0. */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 3

static int check(int ok, const char *what) {
  if (!ok)
    fprintf(stderr, "persist: %s\n", what);
  return !ok;
}

int main(int argc, char **argv) {
  int me, np, bad = 0;
  int big[100], small[50], seven[7];
  double three[3];
  MPI_Request q[2];
  MPI_Status sts[2];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (np != 2)
    MPI_Abort(MPI_COMM_WORLD, 2);
  if (me == 0) {
    MPI_Send_init(big, 100, MPI_INT, 1, 10, MPI_COMM_WORLD, &q[0]);
    MPI_Recv_init(small, 50, MPI_INT, 1, 11, MPI_COMM_WORLD, &q[1]);
    for (int i = 0; i < ROUNDS; i++) {
      big[0] = i;
      MPI_Startall(2, q);
      MPI_Waitall(2, q, sts);
      bad |=
          check(small[0] == 10 + i && sts[1].MPI_SOURCE == 1, "rank 0's round");
    }
  } else {
    MPI_Recv_init(big, 100, MPI_INT, 0, 10, MPI_COMM_WORLD, &q[0]);
    MPI_Ssend_init(small, 50, MPI_INT, 0, 11, MPI_COMM_WORLD, &q[1]);
    for (int i = 0; i < ROUNDS; i++) {
      small[0] = 10 + i;
      MPI_Start(&q[0]);
      MPI_Start(&q[1]);
      MPI_Wait(&q[1], MPI_STATUS_IGNORE);
      MPI_Wait(&q[0], MPI_STATUS_IGNORE);
      bad |= check(big[0] == i, "rank 1's round");
    }
  }
  MPI_Request_free(&q[0]);
  MPI_Request_free(&q[1]);
  if (me == 0) {
    for (int i = 0; i < 7; i++)
      seven[i] = i;
    MPI_Send(seven, 7, MPI_INT, 1, 12, MPI_COMM_WORLD);
    MPI_Send(three, 3, MPI_DOUBLE, 1, 13, MPI_COMM_WORLD);
  } else {
    MPI_Message m;
    MPI_Status st;
    int n = 0, flag = 0;
    MPI_Mprobe(MPI_ANY_SOURCE, 12, MPI_COMM_WORLD, &m, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    bad |= check(n == 7 && st.MPI_SOURCE == 0, "MPI_Mprobe's status");
    MPI_Mrecv(seven, n, MPI_INT, &m, MPI_STATUS_IGNORE);
    bad |= check(seven[6] == 6, "MPI_Mrecv's data");
    while (!flag)
      MPI_Improbe(0, 13, MPI_COMM_WORLD, &flag, &m, MPI_STATUS_IGNORE);
    MPI_Imrecv(three, 3, MPI_DOUBLE, &m, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  }
  /* rank k: k + 1 integers gathered at 0; k + 1 integers to rank k from
   * each; scans and reduce-scatters of 3 and 1 integers each */
  int gs[2] = {me, me}, gv[3] = {0}, rcs[2] = {1, 2}, dis[2] = {0, 1};
  int a2[3] = {0}, r2[3], scs[2] = {1, 2}, wr[2] = {me + 1, me + 1},
      wd[2] = {0, (int)sizeof(int)};
  int sc[3] = {1, 2, 3}, sr[3], ones[2] = {1, 1}, rsin[2] = {1, 1}, rsout;
  MPI_Datatype ints[2] = {MPI_INT, MPI_INT};
  MPI_Request cq[4];
  MPI_Status cst[4];
  MPI_Igatherv(gs, me + 1, MPI_INT, gv, rcs, dis, MPI_INT, 0, MPI_COMM_WORLD,
               &cq[0]);
  MPI_Ialltoallw(a2, scs, wd, ints, r2, wr, wd, ints, MPI_COMM_WORLD, &cq[1]);
  MPI_Iscan(sc, sr, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &cq[2]);
  MPI_Ireduce_scatter(rsin, &rsout, ones, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                      &cq[3]);
  MPI_Waitall(4, cq, cst);
  bad |= check(sr[2] == 3 * (me + 1) && rsout == 2, "the collectives");
  MPI_Finalize();
  return bad;
}
