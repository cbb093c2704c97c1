/* persist.c - the messages of persistent requests (MPI_*_init, each
 * MPI_Start recorded as the nonblocking call it starts, completed by its
 * Wait/Test; a persistent collective's start as the collective) and of matched
 * receives (MPI_Mprobe/Improbe, then MPI_Mrecv/Imrecv), through comm.c's
 * records (comm_int.h). */
#include <stdlib.h>

#include "comm.h"
#include "comm_int.h"

/* ---- persistent requests: what this thread's MPI_*_init calls set up ----
 * A short list per thread (a program keeps a few per neighbour), searched
 * at each start; a request started on another thread than the one that
 * made it is not found there and its starts go unrecorded. */
typedef struct preq {
  MPI_Request q;
  int send; /* 1 send, 0 receive, 2 collective */
  int64_t count;
  int peer, tag;
  MPI_Datatype type;
  MPI_Comm comm;
  int64_t sent, recvd; /* a collective's bytes; its root in peer */
} preq;

static __thread __attribute__((tls_model("initial-exec"))) struct {
  preq *v;
  int n, cap;
} pr;

static void add(preq p) {
  if (pr.n == pr.cap) {
    int cap = pr.cap ? pr.cap * 2 : 16;
    preq *v = realloc(pr.v, (size_t)cap * sizeof *v);
    if (!v)
      return;
    pr.v = v;
    pr.cap = cap;
  }
  pr.v[pr.n++] = p;
}

void sp_mpi__persist_add(int send, int64_t count, MPI_Datatype t, int peer,
                         int tag, MPI_Comm c, MPI_Request q) {
  add((preq){q, send, count, peer, tag, t, c, 0, 0});
}

void sp_mpi__persist_add_coll(MPI_Comm comm, MPI_Request q, int root,
                              int64_t sent, int64_t recvd) {
  add((preq){q, 2, 0, root, -1, MPI_DATATYPE_NULL, comm, sent, recvd});
}

static int init_like(int ret, int send, int64_t count, MPI_Datatype type,
                     int peer, int tag, MPI_Comm comm, const MPI_Request *q) {
  if (ret == MPI_SUCCESS)
    sp_mpi__persist_add(send, count, type, peer, tag, comm, *q);
  return ret;
}

/* ctype: int, or MPI_Count for MPI-4's large-count (_c) forms; cnst: a
 * send's const */
#define INIT_FN(name, cnst, ctype, send)                                       \
  int sp_mpi__x_##name(int r, cnst void *buf, ctype count, MPI_Datatype type,  \
                       int peer, int tag, MPI_Comm comm, MPI_Request *q) {     \
    (void)r;                                                                   \
    return init_like(P##name(buf, count, type, peer, tag, comm, q), send,      \
                     count, type, peer, tag, comm, q);                         \
  }
INIT_FN(MPI_Send_init, const, int, 1)
INIT_FN(MPI_Ssend_init, const, int, 1)
INIT_FN(MPI_Bsend_init, const, int, 1)
INIT_FN(MPI_Rsend_init, const, int, 1)
INIT_FN(MPI_Recv_init, , int, 0)
#if MPI_VERSION >= 4
INIT_FN(MPI_Send_init_c, const, MPI_Count, 1)
INIT_FN(MPI_Ssend_init_c, const, MPI_Count, 1)
INIT_FN(MPI_Bsend_init_c, const, MPI_Count, 1)
INIT_FN(MPI_Rsend_init_c, const, MPI_Count, 1)
INIT_FN(MPI_Recv_init_c, , MPI_Count, 0)
#endif

static preq *find(MPI_Request q) {
  for (int i = 0; i < pr.n; i++)
    if (pr.v[i].q == q)
      return &pr.v[i];
  return NULL;
}

/* Request q started by call r: the nonblocking send's or receive's record,
 * the request kept for the call that completes it. */
void sp_mpi__persist_started(int r, MPI_Request q) {
  preq *p = pr.n ? find(q) : NULL;
  if (!p)
    return;
  if (p->send == 2)
    sp_mpi__rec_coll(r, p->comm, p->peer, p->sent, p->recvd);
  else if (p->send)
    sp_mpi__rec_isend(r, p->count, p->type, p->peer, p->tag, p->comm, &q);
  else
    sp_mpi__rec_irecv(r, p->peer, p->tag, p->comm, &q);
}

int sp_mpi__x_MPI_Start(int r, MPI_Request *q) {
  int ret = PMPI_Start(q);
  if (ret == MPI_SUCCESS && pr.n)
    sp_mpi__persist_started(r, *q);
  return ret;
}

int sp_mpi__x_MPI_Startall(int r, int n, MPI_Request q[]) {
  int ret = PMPI_Startall(n, q);
  if (ret == MPI_SUCCESS && pr.n)
    for (int i = 0; i < n; i++)
      sp_mpi__persist_started(r, q[i]);
  return ret;
}

/* Any request freed: a started one's entry goes without a record; a
 * persistent one is forgotten. */
int sp_mpi__x_MPI_Request_free(int r, MPI_Request *q) {
  (void)r;
  MPI_Request before = *q;
  int ret = PMPI_Request_free(q);
  if (ret != MPI_SUCCESS)
    return ret;
  sp_mpi__req_forget(before);
  sp_mpi__persist_forget(before);
  return ret;
}

void sp_mpi__persist_forget(MPI_Request q) {
  preq *p = pr.n ? find(q) : NULL;
  if (p)
    *p = pr.v[--pr.n];
}

/* ---- matched receives: each message's communicator, source and tag from
 * its probe, until its receive (a short list per thread) ---- */
typedef struct probed {
  MPI_Message m;
  MPI_Comm comm;
  int source, tag;
} probed;

static __thread __attribute__((tls_model("initial-exec"))) struct {
  probed *v;
  int n, cap;
} pm;

void sp_mpi__probed(MPI_Message m, MPI_Comm comm, const MPI_Status *st) {
  if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC)
    return;
  if (pm.n == pm.cap) {
    int cap = pm.cap ? pm.cap * 2 : 16;
    probed *v = realloc(pm.v, (size_t)cap * sizeof *v);
    if (!v)
      return;
    pm.v = v;
    pm.cap = cap;
  }
  pm.v[pm.n++] = (probed){m, comm, st->MPI_SOURCE, st->MPI_TAG};
}

/* Takes message m's entry out; 0 if none. */
static int probed_take(MPI_Message m, probed *out) {
  for (int i = 0; i < pm.n; i++)
    if (pm.v[i].m == m) {
      *out = pm.v[i];
      pm.v[i] = pm.v[--pm.n];
      return 1;
    }
  return 0;
}

int sp_mpi__probed_take(MPI_Message m, MPI_Comm *c, int *source, int *tag) {
  probed p;
  if (!pm.n || !probed_take(m, &p))
    return 0;
  *c = p.comm;
  *source = p.source;
  *tag = p.tag;
  return 1;
}

int sp_mpi__x_MPI_Mprobe(int r, int source, int tag, MPI_Comm comm,
                         MPI_Message *m, MPI_Status *st) {
  (void)r;
  MPI_Status own;
  if (st == MPI_STATUS_IGNORE)
    st = &own;
  int ret = PMPI_Mprobe(source, tag, comm, m, st);
  if (ret == MPI_SUCCESS)
    sp_mpi__probed(*m, comm, st);
  return ret;
}

int sp_mpi__x_MPI_Improbe(int r, int source, int tag, MPI_Comm comm, int *flag,
                          MPI_Message *m, MPI_Status *st) {
  (void)r;
  MPI_Status own;
  if (st == MPI_STATUS_IGNORE)
    st = &own;
  int ret = PMPI_Improbe(source, tag, comm, flag, m, st);
  if (ret == MPI_SUCCESS && *flag)
    sp_mpi__probed(*m, comm, st);
  return ret;
}

int sp_mpi__x_MPI_Mrecv(int r, void *buf, int count, MPI_Datatype type,
                        MPI_Message *m, MPI_Status *st) {
  MPI_Status own;
  if (st == MPI_STATUS_IGNORE)
    st = &own;
  probed p;
  int known = pm.n && probed_take(*m, &p);
  int ret = PMPI_Mrecv(buf, count, type, m, st);
  if (ret == MPI_SUCCESS && known)
    sp_mpi__rec_recv(r, p.comm, st);
  return ret;
}

int sp_mpi__x_MPI_Imrecv(int r, void *buf, int count, MPI_Datatype type,
                         MPI_Message *m, MPI_Request *q) {
  probed p;
  int known = pm.n && probed_take(*m, &p);
  int ret = PMPI_Imrecv(buf, count, type, m, q);
  if (ret == MPI_SUCCESS && known)
    sp_mpi__rec_irecv(r, p.source, p.tag, p.comm, q);
  return ret;
}
