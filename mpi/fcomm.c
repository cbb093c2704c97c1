/* fcomm.c - the bytes and partners of the Fortran bindings' point-to-point
 * and collective calls (mpif.h, use mpi, use mpi_f08): after MPI's own
 * binding returned, their Fortran handles and statuses turned into C ones
 * and recorded as comm.c records the C calls (comm_int.h). */
#include "fcomm.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "comm_int.h"

/* ---- the Fortran sentinels: addresses of MPI's Fortran library's common
 * blocks, which mpif.h, use mpi and use mpi_f08 name alike (OpenMPI), of
 * the objects of MPICH's use mpi_f08, or within MPICH's mpif.h common
 * blocks (COMMON /MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE and
 * /MPIPRIV2/ MPI_STATUSES_IGNORE, default INTEGERs) ---- */
enum { S_IN_PLACE, S_STATUS, S_STATUSES, S_N, S_VARIANTS = 6 };
static const void *sentinel[S_N][S_VARIANTS];
static int sentinels_state; /* 0 not looked up, 2 done */

static void sentinels(void) {
  static const char *const base[S_N] = {"mpi_fortran_in_place",
                                        "mpi_fortran_status_ignore",
                                        "mpi_fortran_statuses_ignore"};
  static const char *const mpich08[S_N] = {"MPIR_F08_MPI_IN_PLACE",
                                           "MPIR_F08_MPI_STATUS_IGNORE_OBJ",
                                           "MPIR_F08_MPI_STATUSES_IGNORE_OBJ"};
  static const char *const suffix[4] = {"", "_", "__", "upper"};
  for (int s = 0; s < S_N; s++) {
    for (int v = 0; v < 4; v++) {
      char name[64];
      size_t k = strlen(base[s]);
      memcpy(name, base[s], k + 1);
      if (v == 3)
        for (size_t i = 0; i < k; i++)
          name[i] =
              (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
      else
        strcat(name, suffix[v]);
      sentinel[s][v] = dlsym(RTLD_DEFAULT, name);
    }
    sentinel[s][S_VARIANTS - 2] = dlsym(RTLD_DEFAULT, mpich08[s]);
    const char *blk =
        dlsym(RTLD_DEFAULT, s == S_STATUSES ? "mpipriv2_" : "mpipriv1_");
    if (blk)
      sentinel[s][S_VARIANTS - 1] = blk + (s == S_IN_PLACE ? 1
                                           : s == S_STATUS ? 2
                                                           : 0) *
                                              sizeof(int);
  }
  /* two threads may both look up: they store the same addresses */
  __atomic_store_n(&sentinels_state, 2, __ATOMIC_RELEASE);
}

static int is_sentinel(int s, const void *p) {
  if (__atomic_load_n(&sentinels_state, __ATOMIC_ACQUIRE) != 2)
    sentinels();
  for (int v = 0; v < S_VARIANTS; v++)
    if (sentinel[s][v] && sentinel[s][v] == p)
      return 1;
  return 0;
}

int sp_mpi__f_in_place(const void *p) { return is_sentinel(S_IN_PLACE, p); }
/* mpi_f08's optional status argument, when absent, is a null address. */
int sp_mpi__f_status_ignore(const void *p) {
  return !p || is_sentinel(S_STATUS, p);
}
int sp_mpi__f_statuses_ignore(const void *p) {
  return !p || is_sentinel(S_STATUSES, p);
}

/* MPI's binding f called: 1 if it succeeded and the call is left to record
 * here, 0 if it failed (ierror, at argument ierr, absent in mpi_f08 when
 * null, not MPI_SUCCESS) or a recorded C function it called recorded it;
 * ierr -1: not looked at. */
int sp_mpi__fcall(int r, sp_mpi__ffn f, void *const *b, int ierr) {
  int region = sp_mpi__f_region, claimed = sp_mpi__f_claimed;
  sp_mpi__f_region = r;
  sp_mpi__f_claimed = 0;
  SP_MPI_FCALL(f, b);
  int done = sp_mpi__f_claimed;
  sp_mpi__f_region = region;
  sp_mpi__f_claimed = claimed;
  return !done &&
         (ierr < 0 || !b[ierr] || *(const MPI_Fint *)b[ierr] == MPI_SUCCESS);
}

void sp_mpi__fstatus_c(const void *fst, int i, MPI_Status *st) {
  PMPI_Status_f2c((const MPI_Fint *)fst + (size_t)i * SP_MPI_FSTATUS, st);
}

/* Entry points recorded by the C function MPI's binding calls, if any. */
void sp_mpi__fx_plain(int r, sp_mpi__ffn f, void *const *a) {
  ARGS;
  (void)sp_mpi__fcall(r, f, b, -1);
}

/* This thread's scratch: C requests (their values before the call) and
 * Fortran statuses for a caller that ignores them. */
static __thread __attribute__((tls_model("initial-exec"))) struct {
  MPI_Request *q;
  MPI_Fint *st;
  int cap;
} fs;

static int scratch(int n) {
  if (n <= fs.cap)
    return 0;
  int cap = n < 64 ? 64 : n;
  MPI_Request *q = malloc((size_t)cap * sizeof *q);
  MPI_Fint *st = malloc((size_t)cap * SP_MPI_FSTATUS * sizeof *st);
  if (!q || !st) {
    free(q);
    free(st);
    return -1;
  }
  free(fs.q);
  free(fs.st);
  fs.q = q, fs.st = st, fs.cap = cap;
  return 0;
}

/* ---- point-to-point ---- */

#define FX_SEND(name)                                                          \
  void sp_mpi__fx_##name(int r, sp_mpi__ffn f, void *const *a) {               \
    ARGS;                                                                      \
    if (sp_mpi__fcall(r, f, b, 6))                                             \
      sp_mpi__rec_send(r, SP_MPI_K_SEND, I(1), TYPE(2), I(3), I(4), COMM(5));  \
  }
FX_SEND(mpi_send)
FX_SEND(mpi_ssend)
FX_SEND(mpi_bsend)
FX_SEND(mpi_rsend)

#define FX_ISEND(name)                                                         \
  void sp_mpi__fx_##name(int r, sp_mpi__ffn f, void *const *a) {               \
    ARGS;                                                                      \
    if (sp_mpi__fcall(r, f, b, 7)) {                                           \
      MPI_Request q = PMPI_Request_f2c(I(6));                                  \
      sp_mpi__rec_isend(r, I(1), TYPE(2), I(3), I(4), COMM(5), &q);            \
    }                                                                          \
  }
FX_ISEND(mpi_isend)
FX_ISEND(mpi_issend)
FX_ISEND(mpi_ibsend)
FX_ISEND(mpi_irsend)

void sp_mpi__fx_mpi_irecv(int r, sp_mpi__ffn f, void *const *a) {
  ARGS;
  if (sp_mpi__fcall(r, f, b, 7)) {
    MPI_Request q = PMPI_Request_f2c(I(6));
    sp_mpi__rec_irecv(r, I(3), I(4), COMM(5), &q);
  }
}

void sp_mpi__fx_mpi_recv(int r, sp_mpi__ffn f, void *const *a) {
  ARGS;
  OWN_STATUS(6);
  if (sp_mpi__fcall(r, f, b, 7)) {
    MPI_Status st;
    sp_mpi__fstatus_c(b[6], 0, &st);
    sp_mpi__rec_recv(r, COMM(5), &st);
  }
}

void sp_mpi__fx_mpi_sendrecv(int r, sp_mpi__ffn f, void *const *a) {
  ARGS;
  OWN_STATUS(11);
  if (sp_mpi__fcall(r, f, b, 12)) {
    MPI_Status st;
    sp_mpi__fstatus_c(b[11], 0, &st);
    sp_mpi__rec_send(r, SP_MPI_K_SEND, I(1), TYPE(2), I(3), I(4), COMM(10));
    sp_mpi__rec_recv(r, COMM(10), &st);
  }
}

void sp_mpi__fx_mpi_sendrecv_replace(int r, sp_mpi__ffn f, void *const *a) {
  ARGS;
  OWN_STATUS(8);
  if (sp_mpi__fcall(r, f, b, 9)) {
    MPI_Status st;
    sp_mpi__fstatus_c(b[8], 0, &st);
    sp_mpi__rec_send(r, SP_MPI_K_SEND, I(1), TYPE(2), I(3), I(4), COMM(7));
    sp_mpi__rec_recv(r, COMM(7), &st);
  }
}

/* ---- completions: the requests' C values taken before the call ---- */

void sp_mpi__fx_mpi_wait(int r, sp_mpi__ffn f, void *const *a) {
  ARGS;
  if (!sp_mpi__reqs_any()) {
    SP_MPI_FCALL(f, b);
    return;
  }
  OWN_STATUS(1);
  MPI_Request q = PMPI_Request_f2c(I(0));
  if (sp_mpi__fcall(r, f, b, 2)) {
    MPI_Status st;
    sp_mpi__fstatus_c(b[1], 0, &st);
    sp_mpi__req_done(r, q, &st);
  }
}

void sp_mpi__fx_mpi_test(int r, sp_mpi__ffn f, void *const *a) {
  ARGS;
  if (!sp_mpi__reqs_any()) {
    SP_MPI_FCALL(f, b);
    return;
  }
  OWN_STATUS(2);
  MPI_Request q = PMPI_Request_f2c(I(0));
  if (sp_mpi__fcall(r, f, b, 3) && I(1)) {
    MPI_Status st;
    sp_mpi__fstatus_c(b[2], 0, &st);
    sp_mpi__req_done(r, q, &st);
  }
}

void sp_mpi__fx_mpi_request_free(int r, sp_mpi__ffn f, void *const *a) {
  ARGS;
  MPI_Request q = PMPI_Request_f2c(I(0));
  if (sp_mpi__fcall(r, f, b, 1)) {
    sp_mpi__req_forget(q);
    sp_mpi__persist_forget(q);
  }
}

/* The n requests at b[k] as C requests, into this thread's scratch; -1
 * when nothing is kept (nothing to complete) or no memory. */
static int requests(void *const *b, int n, int k) {
  if (!sp_mpi__reqs_any() || n <= 0 || scratch(n) != 0)
    return -1;
  const MPI_Fint *fq = b[k];
  for (int i = 0; i < n; i++)
    fs.q[i] = PMPI_Request_f2c(fq[i]);
  return 0;
}

/* Fortran index (from 1) idx of n completed with the status at fst. */
static void done_at(int r, int n, int idx, const void *fst, int i) {
  if (idx == MPI_UNDEFINED || idx < 1 || idx > n)
    return;
  MPI_Status st;
  sp_mpi__fstatus_c(fst, i, &st);
  sp_mpi__req_done(r, fs.q[idx - 1], &st);
}

/* waitany(count, requests, index, status, ierror) and testany(count,
 * requests, index, flag, status, ierror). */
static void any(int r, sp_mpi__ffn f, void *const *a, int flag) {
  ARGS;
  int n = I(0);
  if (requests(b, n, 1) != 0) {
    SP_MPI_FCALL(f, b);
    return;
  }
  int sk = flag ? 4 : 3;
  OWN_STATUS(sk);
  if (sp_mpi__fcall(r, f, b, sk + 1) && (!flag || I(3)))
    done_at(r, n, I(2), b[sk], 0);
}
void sp_mpi__fx_mpi_waitany(int r, sp_mpi__ffn f, void *const *a) {
  any(r, f, a, 0);
}
void sp_mpi__fx_mpi_testany(int r, sp_mpi__ffn f, void *const *a) {
  any(r, f, a, 1);
}

/* The statuses argument k of n requests: this thread's scratch when the
 * caller ignores them. */
static void own_statuses(void **b, int k) {
  if (sp_mpi__f_statuses_ignore(b[k]))
    b[k] = fs.st;
}

/* waitall(count, requests, statuses, ierror) and testall(count, requests,
 * flag, statuses, ierror). */
static void all(int r, sp_mpi__ffn f, void *const *a, int flag) {
  ARGS;
  int n = I(0);
  if (requests(b, n, 1) != 0) {
    SP_MPI_FCALL(f, b);
    return;
  }
  int sk = flag ? 3 : 2;
  own_statuses(b, sk);
  if (sp_mpi__fcall(r, f, b, sk + 1) && (!flag || I(2)))
    for (int i = 0; i < n; i++)
      done_at(r, n, i + 1, b[sk], i);
}
void sp_mpi__fx_mpi_waitall(int r, sp_mpi__ffn f, void *const *a) {
  all(r, f, a, 0);
}
void sp_mpi__fx_mpi_testall(int r, sp_mpi__ffn f, void *const *a) {
  all(r, f, a, 1);
}

/* waitsome and testsome(incount, requests, outcount, indices, statuses,
 * ierror). */
static void some(int r, sp_mpi__ffn f, void *const *a) {
  ARGS;
  int n = I(0);
  if (requests(b, n, 1) != 0) {
    SP_MPI_FCALL(f, b);
    return;
  }
  own_statuses(b, 4);
  if (!sp_mpi__fcall(r, f, b, 5) || I(2) == MPI_UNDEFINED)
    return;
  const MPI_Fint *idx = b[3];
  for (int i = 0; i < I(2); i++)
    done_at(r, n, idx[i], b[4], i);
}
void sp_mpi__fx_mpi_waitsome(int r, sp_mpi__ffn f, void *const *a) {
  some(r, f, a);
}
void sp_mpi__fx_mpi_testsome(int r, sp_mpi__ffn f, void *const *a) {
  some(r, f, a);
}

/* ---- handles freed where comm.c does not see them ---- */

#define FX_FREE(name)                                                          \
  void sp_mpi__fx_##name(int r, sp_mpi__ffn f, void *const *a) {               \
    ARGS;                                                                      \
    (void)sp_mpi__fcall(r, f, b, 1);                                           \
    sp_mpi__handles_freed();                                                   \
  }
FX_FREE(mpi_comm_free)
FX_FREE(mpi_comm_disconnect)
FX_FREE(mpi_type_free)

/* ---- collectives: comm.c's bytes per rank, from the Fortran counts ---- */

static int64_t sum_but(const void *counts, int n, int skip) {
  const MPI_Fint *c = counts;
  int64_t s = 0;
  for (int i = 0; i < n; i++)
    if (i != skip)
      s += c[i];
  return s;
}

static int64_t sum_w(const void *counts, const void *types, int n, int skip) {
  const MPI_Fint *c = counts, *t = types;
  int64_t s = 0;
  for (int i = 0; i < n; i++)
    if (i != skip)
      s += (int64_t)c[i] * sp_mpi__tsize(PMPI_Type_f2c(t[i]));
  return s;
}

/* Binding name with its communicator at argument ck and ierror at ek:
 * records root, sent and recvd (the rest), expressions of b, n (the
 * communicator's size) and me (this rank in it). */
#define FX_COLL(name, ck, ek, ...)                                             \
  void sp_mpi__fx_##name(int r, sp_mpi__ffn f, void *const *a) {               \
    ARGS;                                                                      \
    int n, me;                                                                 \
    if (!sp_mpi__fcall(r, f, b, ek) || sp_mpi__shape(COMM(ck), &n, &me) != 0)  \
      return;                                                                  \
    sp_mpi__rec_coll(r, COMM(ck), __VA_ARGS__);                                \
  }

FX_COLL(mpi_barrier, 0, 1, -1, 0, 0)
FX_COLL(mpi_ibarrier, 0, 2, -1, 0, 0)

/* bcast(buffer, count, datatype, root, comm) */
#define BCAST_F                                                                \
  I(3), me == I(3) ? I(1) * TSIZE(2) * (n - 1) : 0,                            \
      me == I(3) ? 0 : I(1) * TSIZE(2)
FX_COLL(mpi_bcast, 4, 5, BCAST_F)
FX_COLL(mpi_ibcast, 4, 6, BCAST_F)

/* reduce(sendbuf, recvbuf, count, datatype, op, root, comm) */
#define REDUCE_F                                                               \
  I(5), me == I(5) ? 0 : I(2) * TSIZE(3),                                      \
      me == I(5) ? I(2) * TSIZE(3) * (n - 1) : 0
FX_COLL(mpi_reduce, 6, 7, REDUCE_F)
FX_COLL(mpi_ireduce, 6, 8, REDUCE_F)

/* allreduce(sendbuf, recvbuf, count, datatype, op, comm), and
 * reduce_scatter_block, scan, exscan alike */
#define ALL_F -1, I(2) * TSIZE(3) * (n - 1), I(2) * TSIZE(3) * (n - 1)
FX_COLL(mpi_allreduce, 5, 6, ALL_F)
FX_COLL(mpi_iallreduce, 5, 7, ALL_F)
FX_COLL(mpi_reduce_scatter_block, 5, 6, ALL_F)
/* reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm) */
#define RS_F                                                                   \
  -1, sum_but(b[2], n, me) * TSIZE(3),                                         \
      (int64_t)((const MPI_Fint *)b[2])[me] * TSIZE(3) * (n - 1)
FX_COLL(mpi_reduce_scatter, 5, 6, RS_F)
FX_COLL(mpi_ireduce_scatter, 5, 7, RS_F)
FX_COLL(mpi_ireduce_scatter_block, 5, 7, ALL_F)
#define SCAN_F -1, I(2) * TSIZE(3) * (n - 1 - me), I(2) * TSIZE(3) * me
FX_COLL(mpi_scan, 5, 6, SCAN_F)
FX_COLL(mpi_exscan, 5, 6, SCAN_F)
FX_COLL(mpi_iscan, 5, 7, SCAN_F)
FX_COLL(mpi_iexscan, 5, 7, SCAN_F)

/* gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
 * comm) */
#define GATHER_F                                                               \
  I(6), me == I(6) ? 0 : I(1) * TSIZE(2),                                      \
      me == I(6) ? I(4) * TSIZE(5) * (n - 1) : 0
FX_COLL(mpi_gather, 7, 8, GATHER_F)
FX_COLL(mpi_igather, 7, 9, GATHER_F)
/* gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
 * recvtype, root, comm) */
#define GATHERV_F                                                              \
  I(7), me == I(7) ? 0 : I(1) * TSIZE(2),                                      \
      me == I(7) ? sum_but(b[4], n, I(7)) * TSIZE(6) : 0
FX_COLL(mpi_gatherv, 8, 9, GATHERV_F)
FX_COLL(mpi_igatherv, 8, 10, GATHERV_F)

/* scatter: gather's arguments */
#define SCATTER_F                                                              \
  I(6), me == I(6) ? I(1) * TSIZE(2) * (n - 1) : 0,                            \
      me == I(6) ? 0 : I(4) * TSIZE(5)
FX_COLL(mpi_scatter, 7, 8, SCATTER_F)
FX_COLL(mpi_iscatter, 7, 9, SCATTER_F)
/* scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
 * recvtype, root, comm) */
#define SCATTERV_F                                                             \
  I(7), me == I(7) ? sum_but(b[1], n, I(7)) * TSIZE(3) : 0,                    \
      me == I(7) ? 0 : I(5) * TSIZE(6)
FX_COLL(mpi_scatterv, 8, 9, SCATTERV_F)
FX_COLL(mpi_iscatterv, 8, 10, SCATTERV_F)

/* allgather and alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
 * recvtype, comm); MPI_IN_PLACE: this rank's share is in the receive
 * buffer, described by the receive count and type. */
#define AG_F                                                                   \
  -1,                                                                          \
      (sp_mpi__f_in_place(b[0]) ? I(4) * TSIZE(5) : I(1) * TSIZE(2)) *         \
          (n - 1),                                                             \
      I(4) * TSIZE(5) * (n - 1)
FX_COLL(mpi_allgather, 6, 7, AG_F)
FX_COLL(mpi_iallgather, 6, 8, AG_F)
FX_COLL(mpi_alltoall, 6, 7, AG_F)
FX_COLL(mpi_ialltoall, 6, 8, AG_F)
/* allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
 * recvtype, comm) */
#define AGV_F                                                                  \
  -1,                                                                          \
      (sp_mpi__f_in_place(b[0]) ? ((const MPI_Fint *)b[4])[me] * TSIZE(6)      \
                                : I(1) * TSIZE(2)) *                           \
          (n - 1),                                                             \
      sum_but(b[4], n, me) * TSIZE(6)
FX_COLL(mpi_allgatherv, 7, 8, AGV_F)
FX_COLL(mpi_iallgatherv, 7, 9, AGV_F)
/* alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
 * rdispls, recvtype, comm) */
#define A2AV_F                                                                 \
  -1,                                                                          \
      sp_mpi__f_in_place(b[0]) ? sum_but(b[5], n, me) * TSIZE(7)               \
                               : sum_but(b[1], n, me) * TSIZE(3),              \
      sum_but(b[5], n, me) * TSIZE(7)
FX_COLL(mpi_alltoallv, 8, 9, A2AV_F)
FX_COLL(mpi_ialltoallv, 8, 10, A2AV_F)
/* alltoallw: alltoallv's, with a type per rank */
#define A2AW_F                                                                 \
  -1,                                                                          \
      sp_mpi__f_in_place(b[0]) ? sum_w(b[5], b[7], n, me)                      \
                               : sum_w(b[1], b[3], n, me),                     \
      sum_w(b[5], b[7], n, me)
FX_COLL(mpi_alltoallw, 8, 9, A2AW_F)
FX_COLL(mpi_ialltoallw, 8, 10, A2AW_F)

/* ---- neighbourhood collectives: the bytes per neighbour (ncoll.c) ---- */

_Static_assert(sizeof(MPI_Fint) == sizeof(int),
               "Fortran counts are read as C int arrays");

/* Binding name with its communicator at argument ck and ierror at ek:
 * records the send and receive sides (sp_mpi__rec_ncoll's arguments after
 * the communicator), expressions of b. */
#define FX_NCOLL(name, ck, ek, ...)                                            \
  void sp_mpi__fx_##name(int r, sp_mpi__ffn f, void *const *a) {               \
    ARGS;                                                                      \
    if (sp_mpi__fcall(r, f, b, ek))                                            \
      __VA_ARGS__;                                                             \
  }
#define CNT(k) ((const int *)b[k])

/* neighbor_allgather and neighbor_alltoall(sendbuf, sendcount, sendtype,
 * recvbuf, recvcount, recvtype, comm) */
#define NAG_F                                                                  \
  sp_mpi__rec_ncoll(r, COMM(6), NULL, I(1), NULL, TYPE(2), NULL, I(4), NULL,   \
                    TYPE(5))
FX_NCOLL(mpi_neighbor_allgather, 6, 7, NAG_F)
FX_NCOLL(mpi_ineighbor_allgather, 6, 8, NAG_F)
FX_NCOLL(mpi_neighbor_alltoall, 6, 7, NAG_F)
FX_NCOLL(mpi_ineighbor_alltoall, 6, 8, NAG_F)
/* neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
 * displs, recvtype, comm) */
#define NAGV_F                                                                 \
  sp_mpi__rec_ncoll(r, COMM(7), NULL, I(1), NULL, TYPE(2), CNT(4), 0, NULL,    \
                    TYPE(6))
FX_NCOLL(mpi_neighbor_allgatherv, 7, 8, NAGV_F)
FX_NCOLL(mpi_ineighbor_allgatherv, 7, 9, NAGV_F)
/* neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
 * recvcounts, rdispls, recvtype, comm) */
#define NA2AV_F                                                                \
  sp_mpi__rec_ncoll(r, COMM(8), CNT(1), 0, NULL, TYPE(3), CNT(5), 0, NULL,     \
                    TYPE(7))
FX_NCOLL(mpi_neighbor_alltoallv, 8, 9, NA2AV_F)
FX_NCOLL(mpi_ineighbor_alltoallv, 8, 10, NA2AV_F)
/* neighbor_alltoallw: alltoallv's, with a type per neighbour */
#define NA2AW_F                                                                \
  sp_mpi__rec_ncoll_fw(r, COMM(8), CNT(1), (const MPI_Fint *)b[3], CNT(5),     \
                       (const MPI_Fint *)b[7])
FX_NCOLL(mpi_neighbor_alltoallw, 8, 9, NA2AW_F)
FX_NCOLL(mpi_ineighbor_alltoallw, 8, 10, NA2AW_F)
