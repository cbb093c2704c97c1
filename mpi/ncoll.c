/* ncoll.c - the neighbourhood collectives (MPI_Neighbor_*, MPI_Ineighbor_*,
 * MPI-4's MPI_Neighbor_*_init) recorded as collectives on their
 * communicator: what left this rank for its out-neighbours and arrived from its
 * in-neighbours, from the communicator's topology (Cartesian, graph,
 * distributed graph). */
#include "comm.h"
#include "comm_int.h"

#include <stdlib.h>

/* A rank's neighbours in the order MPI's neighbourhood collectives use
 * (MPI_PROC_NULL ones included: they occupy a block and move nothing). */
typedef struct nbrs {
  int nin, nout;
  int *in, *out;
  int own[64]; /* in and out, when they fit */
} nbrs;

static void nbrs_free(nbrs *nb) {
  if (nb->in != nb->own)
    free(nb->in);
}

/* Room for nin + nout ranks; -1 when out of memory. */
static int room(nbrs *nb, int nin, int nout) {
  nb->nin = nin, nb->nout = nout;
  nb->in =
      nin + nout <= 64 ? nb->own : malloc((size_t)(nin + nout) * sizeof(int));
  nb->out = nb->in ? nb->in + nin : NULL;
  return nb->in ? 0 : -1;
}

/* c's neighbours of this rank; -1 when c has no topology or MPI fails. */
static int neighbours(MPI_Comm c, nbrs *nb) {
  int kind = MPI_UNDEFINED;
  if (PMPI_Topo_test(c, &kind) != MPI_SUCCESS)
    return -1;
  if (kind == MPI_CART) {
    int nd = 0;
    if (PMPI_Cartdim_get(c, &nd) != MPI_SUCCESS || nd < 0 ||
        room(nb, 2 * nd, 2 * nd))
      return -1;
    for (int d = 0; d < nd; d++) { /* per dimension: -1 then +1 */
      if (PMPI_Cart_shift(c, d, 1, &nb->in[2 * d], &nb->in[2 * d + 1]) !=
          MPI_SUCCESS) {
        nbrs_free(nb);
        return -1;
      }
      nb->out[2 * d] = nb->in[2 * d], nb->out[2 * d + 1] = nb->in[2 * d + 1];
    }
    return 0;
  }
  if (kind == MPI_GRAPH) {
    int me = 0, n = 0;
    if (PMPI_Comm_rank(c, &me) != MPI_SUCCESS ||
        PMPI_Graph_neighbors_count(c, me, &n) != MPI_SUCCESS || n < 0 ||
        room(nb, n, n))
      return -1;
    if (PMPI_Graph_neighbors(c, me, n, nb->in) != MPI_SUCCESS) {
      nbrs_free(nb);
      return -1;
    }
    for (int i = 0; i < n; i++)
      nb->out[i] = nb->in[i];
    return 0;
  }
  if (kind == MPI_DIST_GRAPH) {
    int nin = 0, nout = 0, weighted = 0;
    if (PMPI_Dist_graph_neighbors_count(c, &nin, &nout, &weighted) !=
            MPI_SUCCESS ||
        nin < 0 || nout < 0 || room(nb, nin, nout))
      return -1;
    /* weights asked for as the graph was made: MPI_UNWEIGHTED is only
     * allowed for an unweighted graph */
    int *w = weighted ? malloc((size_t)(nin + nout + 1) * sizeof(int)) : NULL;
    int ok = (!weighted || w) &&
             PMPI_Dist_graph_neighbors(
                 c, nin, nb->in, weighted ? w : MPI_UNWEIGHTED, nout, nb->out,
                 weighted ? w + nin : MPI_UNWEIGHTED) == MPI_SUCCESS;
    free(w);
    if (!ok) {
      nbrs_free(nb);
      return -1;
    }
    return 0;
  }
  return -1;
}

/* Bytes over the ranks of side (n of them; MPI_PROC_NULL moves nothing):
 * block i counts counts[i] (count when counts is NULL) elements of
 * types[i], or of Fortran handle ftypes[i], or of type when both are
 * NULL. */
static int64_t side_bytes(const int *rank, int n, const int *counts, int count,
                          const MPI_Datatype *types, const MPI_Fint *ftypes,
                          MPI_Datatype type) {
  int64_t total = 0, one = types || ftypes ? 0 : sp_mpi__tsize(type);
  for (int i = 0; i < n; i++)
    if (rank[i] != MPI_PROC_NULL)
      total += (int64_t)(counts ? counts[i] : count) *
               (types    ? sp_mpi__tsize(types[i])
                : ftypes ? sp_mpi__tsize(PMPI_Type_f2c(ftypes[i]))
                         : one);
  return total;
}

/* The record of call r, or with pq (MPI-4's persistent forms) the bytes
 * kept with request *pq for each MPI_Start (persist.c). */
static void rec(int r, MPI_Request *pq, MPI_Comm c, const int *scs, int sc,
                const MPI_Datatype *sts, const MPI_Fint *fsts, MPI_Datatype st,
                const int *rcs, int rc, const MPI_Datatype *rts,
                const MPI_Fint *frts, MPI_Datatype rt) {
  nbrs nb;
  if (neighbours(c, &nb) != 0)
    return;
  int64_t sent = side_bytes(nb.out, nb.nout, scs, sc, sts, fsts, st),
          recvd = side_bytes(nb.in, nb.nin, rcs, rc, rts, frts, rt);
  if (pq)
    sp_mpi__persist_add_coll(c, *pq, -1, sent, recvd);
  else
    sp_mpi__rec_coll(r, c, -1, sent, recvd);
  nbrs_free(&nb);
}

void sp_mpi__rec_ncoll(int r, MPI_Comm c, const int *scs, int sc,
                       const MPI_Datatype *sts, MPI_Datatype st, const int *rcs,
                       int rc, const MPI_Datatype *rts, MPI_Datatype rt) {
  rec(r, NULL, c, scs, sc, sts, NULL, st, rcs, rc, rts, NULL, rt);
}

void sp_mpi__rec_ncoll_fw(int r, MPI_Comm c, const int *scs,
                          const MPI_Fint *fsts, const int *rcs,
                          const MPI_Fint *frts) {
  rec(r, NULL, c, scs, 0, NULL, fsts, MPI_DATATYPE_NULL, rcs, 0, NULL, frts,
      MPI_DATATYPE_NULL);
}

/* The PMPI call, then its record given the send and receive sides. */
#define NCOLL(call, ...)                                                       \
  int ret = call;                                                              \
  if (ret == MPI_SUCCESS)                                                      \
    sp_mpi__rec_ncoll(r, comm, __VA_ARGS__);                                   \
  return ret;

int sp_mpi__x_MPI_Neighbor_allgather(int r, const void *s, int sc,
                                     MPI_Datatype st, void *d, int rc,
                                     MPI_Datatype rt, MPI_Comm comm) {
  NCOLL(PMPI_Neighbor_allgather(s, sc, st, d, rc, rt, comm), NULL, sc, NULL, st,
        NULL, rc, NULL, rt)
}

int sp_mpi__x_MPI_Ineighbor_allgather(int r, const void *s, int sc,
                                      MPI_Datatype st, void *d, int rc,
                                      MPI_Datatype rt, MPI_Comm comm,
                                      MPI_Request *q) {
  NCOLL(PMPI_Ineighbor_allgather(s, sc, st, d, rc, rt, comm, q), NULL, sc, NULL,
        st, NULL, rc, NULL, rt)
}

int sp_mpi__x_MPI_Neighbor_allgatherv(int r, const void *s, int sc,
                                      MPI_Datatype st, void *d, const int rcs[],
                                      const int dis[], MPI_Datatype rt,
                                      MPI_Comm comm) {
  NCOLL(PMPI_Neighbor_allgatherv(s, sc, st, d, rcs, dis, rt, comm), NULL, sc,
        NULL, st, rcs, 0, NULL, rt)
}

int sp_mpi__x_MPI_Ineighbor_allgatherv(int r, const void *s, int sc,
                                       MPI_Datatype st, void *d,
                                       const int rcs[], const int dis[],
                                       MPI_Datatype rt, MPI_Comm comm,
                                       MPI_Request *q) {
  NCOLL(PMPI_Ineighbor_allgatherv(s, sc, st, d, rcs, dis, rt, comm, q), NULL,
        sc, NULL, st, rcs, 0, NULL, rt)
}

int sp_mpi__x_MPI_Neighbor_alltoall(int r, const void *s, int sc,
                                    MPI_Datatype st, void *d, int rc,
                                    MPI_Datatype rt, MPI_Comm comm) {
  NCOLL(PMPI_Neighbor_alltoall(s, sc, st, d, rc, rt, comm), NULL, sc, NULL, st,
        NULL, rc, NULL, rt)
}

int sp_mpi__x_MPI_Ineighbor_alltoall(int r, const void *s, int sc,
                                     MPI_Datatype st, void *d, int rc,
                                     MPI_Datatype rt, MPI_Comm comm,
                                     MPI_Request *q) {
  NCOLL(PMPI_Ineighbor_alltoall(s, sc, st, d, rc, rt, comm, q), NULL, sc, NULL,
        st, NULL, rc, NULL, rt)
}

int sp_mpi__x_MPI_Neighbor_alltoallv(int r, const void *s, const int scs[],
                                     const int sds[], MPI_Datatype st, void *d,
                                     const int rcs[], const int rds[],
                                     MPI_Datatype rt, MPI_Comm comm) {
  NCOLL(PMPI_Neighbor_alltoallv(s, scs, sds, st, d, rcs, rds, rt, comm), scs, 0,
        NULL, st, rcs, 0, NULL, rt)
}

int sp_mpi__x_MPI_Ineighbor_alltoallv(int r, const void *s, const int scs[],
                                      const int sds[], MPI_Datatype st, void *d,
                                      const int rcs[], const int rds[],
                                      MPI_Datatype rt, MPI_Comm comm,
                                      MPI_Request *q) {
  NCOLL(PMPI_Ineighbor_alltoallv(s, scs, sds, st, d, rcs, rds, rt, comm, q),
        scs, 0, NULL, st, rcs, 0, NULL, rt)
}

int sp_mpi__x_MPI_Neighbor_alltoallw(int r, const void *s, const int scs[],
                                     const MPI_Aint sds[],
                                     const MPI_Datatype sts[], void *d,
                                     const int rcs[], const MPI_Aint rds[],
                                     const MPI_Datatype rts[], MPI_Comm comm) {
  NCOLL(PMPI_Neighbor_alltoallw(s, scs, sds, sts, d, rcs, rds, rts, comm), scs,
        0, sts, MPI_DATATYPE_NULL, rcs, 0, rts, MPI_DATATYPE_NULL)
}

int sp_mpi__x_MPI_Ineighbor_alltoallw(int r, const void *s, const int scs[],
                                      const MPI_Aint sds[],
                                      const MPI_Datatype sts[], void *d,
                                      const int rcs[], const MPI_Aint rds[],
                                      const MPI_Datatype rts[], MPI_Comm comm,
                                      MPI_Request *q) {
  NCOLL(PMPI_Ineighbor_alltoallw(s, scs, sds, sts, d, rcs, rds, rts, comm, q),
        scs, 0, sts, MPI_DATATYPE_NULL, rcs, 0, rts, MPI_DATATYPE_NULL)
}

#if MPI_VERSION >= 4
static void pinit(MPI_Request *q, MPI_Comm c, const int *scs, int sc,
                  const MPI_Datatype *sts, MPI_Datatype st, const int *rcs,
                  int rc, const MPI_Datatype *rts, MPI_Datatype rt) {
  rec(-1, q, c, scs, sc, sts, NULL, st, rcs, rc, rts, NULL, rt);
}

/* The persistent forms: nothing moves until each MPI_Start. */
#define PNCOLL(call, ...)                                                      \
  (void)r;                                                                     \
  int ret = call;                                                              \
  if (ret == MPI_SUCCESS)                                                      \
    pinit(q, comm, __VA_ARGS__);                                               \
  return ret;

int sp_mpi__x_MPI_Neighbor_allgather_init(int r, const void *s, int sc,
                                          MPI_Datatype st, void *d, int rc,
                                          MPI_Datatype rt, MPI_Comm comm,
                                          MPI_Info info, MPI_Request *q) {
  PNCOLL(PMPI_Neighbor_allgather_init(s, sc, st, d, rc, rt, comm, info, q),
         NULL, sc, NULL, st, NULL, rc, NULL, rt)
}

int sp_mpi__x_MPI_Neighbor_allgatherv_init(int r, const void *s, int sc,
                                           MPI_Datatype st, void *d,
                                           const int rcs[], const int dis[],
                                           MPI_Datatype rt, MPI_Comm comm,
                                           MPI_Info info, MPI_Request *q) {
  PNCOLL(
      PMPI_Neighbor_allgatherv_init(s, sc, st, d, rcs, dis, rt, comm, info, q),
      NULL, sc, NULL, st, rcs, 0, NULL, rt)
}

int sp_mpi__x_MPI_Neighbor_alltoall_init(int r, const void *s, int sc,
                                         MPI_Datatype st, void *d, int rc,
                                         MPI_Datatype rt, MPI_Comm comm,
                                         MPI_Info info, MPI_Request *q) {
  PNCOLL(PMPI_Neighbor_alltoall_init(s, sc, st, d, rc, rt, comm, info, q), NULL,
         sc, NULL, st, NULL, rc, NULL, rt)
}

int sp_mpi__x_MPI_Neighbor_alltoallv_init(int r, const void *s, const int scs[],
                                          const int sds[], MPI_Datatype st,
                                          void *d, const int rcs[],
                                          const int rds[], MPI_Datatype rt,
                                          MPI_Comm comm, MPI_Info info,
                                          MPI_Request *q) {
  PNCOLL(PMPI_Neighbor_alltoallv_init(s, scs, sds, st, d, rcs, rds, rt, comm,
                                      info, q),
         scs, 0, NULL, st, rcs, 0, NULL, rt)
}

int sp_mpi__x_MPI_Neighbor_alltoallw_init(
    int r, const void *s, const int scs[], const MPI_Aint sds[],
    const MPI_Datatype sts[], void *d, const int rcs[], const MPI_Aint rds[],
    const MPI_Datatype rts[], MPI_Comm comm, MPI_Info info, MPI_Request *q) {
  PNCOLL(PMPI_Neighbor_alltoallw_init(s, scs, sds, sts, d, rcs, rds, rts, comm,
                                      info, q),
         scs, 0, sts, MPI_DATATYPE_NULL, rcs, 0, rts, MPI_DATATYPE_NULL)
}
#endif
