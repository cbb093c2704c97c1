/* ncoll.c - the neighbourhood collectives on 4 ranks, each with bytes per
 * neighbour check_ncoll.py knows: a periodic 2x2 Cartesian grid (four
 * neighbours, two of them the same rank), a non-periodic line of 4 (the
 * ends' MPI_PROC_NULL neighbours move nothing), a directed ring and a
 * weighted distributed graph of two out- and two in-neighbours. */
#include <mpi.h>
#include <string.h>

/* GCC 12 reads MPI_UNWEIGHTED (a sentinel address) as an array of size 0
 * for MPI_Dist_graph_create_adjacent's weights: a false positive, and the
 * unweighted graph is what the test needs. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (np != 4)
    MPI_Abort(MPI_COMM_WORLD, 2);
  int ibuf[64], obuf[64], cnt[4], dis[4];
  double dbuf[64], dout[64];
  memset(ibuf, 0, sizeof ibuf);
  memset(dbuf, 0, sizeof dbuf);
  MPI_Request q;

  /* 2x2 periodic: 4 blocks each way */
  MPI_Comm grid, line, ring, graph;
  int dims[2] = {2, 2}, per[2] = {1, 1};
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &grid);
  MPI_Neighbor_allgather(ibuf, 3, MPI_INT, obuf, 3, MPI_INT, grid); /* 48/48 */
  for (int i = 0; i < 4; i++)
    cnt[i] = 1, dis[i] = i;
  MPI_Ineighbor_allgatherv(ibuf, 1, MPI_INT, obuf, cnt, dis, MPI_INT, grid,
                           &q); /* 16/16 */
  MPI_Wait(&q, MPI_STATUS_IGNORE);

  /* a line of 4, not periodic: 2 blocks, the ends' one to MPI_PROC_NULL */
  int d1 = 4, p1 = 0;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &d1, &p1, 0, &line);
  MPI_Neighbor_alltoall(dbuf, 2, MPI_DOUBLE, dout, 2, MPI_DOUBLE,
                        line); /* 16 or 32 each way */
  MPI_Ineighbor_alltoall(dbuf, 1, MPI_DOUBLE, dout, 1, MPI_DOUBLE, line, &q);
  MPI_Wait(&q, MPI_STATUS_IGNORE); /* 8 or 16 */

  /* a directed ring: out to me+1, in from me-1 */
  int src = (me + 3) % 4, dst = (me + 1) % 4;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED, 1,
                                 &dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &ring);
  int five = 5, zero = 0;
  MPI_Neighbor_alltoallv(ibuf, &five, &zero, MPI_INT, obuf, &five, &zero,
                         MPI_INT, ring); /* 20/20 */

  /* weighted: out to me+1 and me+2, in from me-1 and me-2 */
  int srcs[2] = {(me + 3) % 4, (me + 2) % 4};
  int dsts[2] = {(me + 1) % 4, (me + 2) % 4}, w[2] = {1, 2};
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, w, 2, dsts, w,
                                 MPI_INFO_NULL, 0, &graph);
  int c2[2] = {1, 2};
  MPI_Aint ad[2] = {0, 16};
  MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Neighbor_alltoallw(dbuf, c2, ad, ty, dout, c2, ad, ty,
                         graph); /* 4 + 16 = 20 each way */
  MPI_Ineighbor_alltoallv(ibuf, c2, dis, MPI_INT, obuf, c2, dis, MPI_INT, graph,
                          &q); /* 12/12 */
  MPI_Wait(&q, MPI_STATUS_IGNORE);

  MPI_Comm_free(&graph);
  MPI_Comm_free(&ring);
  MPI_Comm_free(&line);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return 0;
}
