/* icoll.c - the nonblocking v and w collectives, reduce-scatters and scans,
 * recorded at their start as comm.c records their blocking forms (bytes
 * per rank, its own share not counted; the root), through comm_int.h. */
#include "comm.h"
#include "comm_int.h"

/* Counts of every rank but skip, in bytes of type t. */
static int64_t others(const int counts[], MPI_Datatype t, int n, int skip) {
  int64_t total = 0;
  for (int i = 0; i < n; i++)
    total += i == skip ? 0 : counts[i];
  return total * sp_mpi__tsize(t);
}

/* The same with a type per rank. */
static int64_t others_w(const int counts[], const MPI_Datatype types[], int n,
                        int skip) {
  int64_t total = 0;
  for (int i = 0; i < n; i++)
    total += i == skip ? 0 : (int64_t)counts[i] * sp_mpi__tsize(types[i]);
  return total;
}

/* The PMPI call, then its record given root, sent and recvd (the rest),
 * expressions of the arguments, n (the communicator's size) and me (this
 * rank in it). */
#define ICOLL(call, ...)                                                       \
  int ret = call;                                                              \
  int n, me;                                                                   \
  if (ret == MPI_SUCCESS && sp_mpi__shape(comm, &n, &me) == 0)                 \
    sp_mpi__rec_coll(r, comm, __VA_ARGS__);                                    \
  return ret;

int sp_mpi__x_MPI_Igatherv(int r, const void *s, int sc, MPI_Datatype st,
                           void *d, const int rcs[], const int dis[],
                           MPI_Datatype rt, int root, MPI_Comm comm,
                           MPI_Request *q) {
  ICOLL(PMPI_Igatherv(s, sc, st, d, rcs, dis, rt, root, comm, q), root,
        me == root ? 0 : (int64_t)sc * sp_mpi__tsize(st),
        me == root ? others(rcs, rt, n, root) : 0)
}

int sp_mpi__x_MPI_Iscatterv(int r, const void *s, const int scs[],
                            const int dis[], MPI_Datatype st, void *d, int rc,
                            MPI_Datatype rt, int root, MPI_Comm comm,
                            MPI_Request *q) {
  ICOLL(PMPI_Iscatterv(s, scs, dis, st, d, rc, rt, root, comm, q), root,
        me == root ? others(scs, st, n, root) : 0,
        me == root ? 0 : (int64_t)rc * sp_mpi__tsize(rt))
}

/* MPI_IN_PLACE: this rank's share is in the receive buffer. */
int sp_mpi__x_MPI_Iallgatherv(int r, const void *s, int sc, MPI_Datatype st,
                              void *d, const int rcs[], const int dis[],
                              MPI_Datatype rt, MPI_Comm comm, MPI_Request *q) {
  ICOLL(PMPI_Iallgatherv(s, sc, st, d, rcs, dis, rt, comm, q), -1,
        (s == MPI_IN_PLACE ? (int64_t)rcs[me] * sp_mpi__tsize(rt)
                           : (int64_t)sc * sp_mpi__tsize(st)) *
            (n - 1),
        others(rcs, rt, n, me))
}

int sp_mpi__x_MPI_Ialltoallv(int r, const void *s, const int scs[],
                             const int sds[], MPI_Datatype st, void *d,
                             const int rcs[], const int rds[], MPI_Datatype rt,
                             MPI_Comm comm, MPI_Request *q) {
  ICOLL(PMPI_Ialltoallv(s, scs, sds, st, d, rcs, rds, rt, comm, q), -1,
        s == MPI_IN_PLACE ? others(rcs, rt, n, me) : others(scs, st, n, me),
        others(rcs, rt, n, me))
}

int sp_mpi__x_MPI_Ialltoallw(int r, const void *s, const int scs[],
                             const int sds[], const MPI_Datatype sts[], void *d,
                             const int rcs[], const int rds[],
                             const MPI_Datatype rts[], MPI_Comm comm,
                             MPI_Request *q) {
  ICOLL(PMPI_Ialltoallw(s, scs, sds, sts, d, rcs, rds, rts, comm, q), -1,
        s == MPI_IN_PLACE ? others_w(rcs, rts, n, me)
                          : others_w(scs, sts, n, me),
        others_w(rcs, rts, n, me))
}

int sp_mpi__x_MPI_Ireduce_scatter(int r, const void *s, void *d,
                                  const int rcs[], MPI_Datatype t, MPI_Op op,
                                  MPI_Comm comm, MPI_Request *q) {
  ICOLL(PMPI_Ireduce_scatter(s, d, rcs, t, op, comm, q), -1,
        others(rcs, t, n, me), (int64_t)rcs[me] * sp_mpi__tsize(t) * (n - 1))
}

int sp_mpi__x_MPI_Ireduce_scatter_block(int r, const void *s, void *d, int rc,
                                        MPI_Datatype t, MPI_Op op,
                                        MPI_Comm comm, MPI_Request *q) {
  ICOLL(PMPI_Ireduce_scatter_block(s, d, rc, t, op, comm, q), -1,
        (int64_t)rc * sp_mpi__tsize(t) * (n - 1),
        (int64_t)rc * sp_mpi__tsize(t) * (n - 1))
}

int sp_mpi__x_MPI_Iscan(int r, const void *s, void *d, int c, MPI_Datatype t,
                        MPI_Op op, MPI_Comm comm, MPI_Request *q) {
  ICOLL(PMPI_Iscan(s, d, c, t, op, comm, q), -1,
        (int64_t)c * sp_mpi__tsize(t) * (n - 1 - me),
        (int64_t)c * sp_mpi__tsize(t) * me)
}

int sp_mpi__x_MPI_Iexscan(int r, const void *s, void *d, int c, MPI_Datatype t,
                          MPI_Op op, MPI_Comm comm, MPI_Request *q) {
  ICOLL(PMPI_Iexscan(s, d, c, t, op, comm, q), -1,
        (int64_t)c * sp_mpi__tsize(t) * (n - 1 - me),
        (int64_t)c * sp_mpi__tsize(t) * me)
}
