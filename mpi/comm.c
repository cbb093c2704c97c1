/* comm.c - what the point-to-point and collective calls sent and received:
 * bytes, partner in MPI_COMM_WORLD numbering, tag, communicator, root, a
 * receive's real source from its status at completion. The generated
 * wrappers hand these calls here (sp_mpi__x_<name>) while their region is
 * open; each makes the PMPI call and gives the runtime its records (the
 * commonest are inline in the wrappers: comm_wrap.h). */
#include "comm.h"
#include "comm_int.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- communicators: id, size, this rank, members in world numbers ----
 * Kept as an attribute of the communicator, so a handle MPI reuses after
 * MPI_Comm_free never finds another communicator's members. The info of a
 * freed communicator is not freed: a request begun on it may still
 * complete after the free, and the table of requests holds it. */
typedef sp_mpi__comm_info comm_info;

comm_info sp_mpi__world_info = {0, -1, -1, 0, NULL};
static _Atomic int keyval_state; /* 0 none, 1 being made, 2 made */
static int keyval;
static _Atomic int32_t next_id = 1;
_Atomic unsigned sp_mpi__comm_gen, sp_mpi__type_gen;
__thread sp_mpi__last sp_mpi__last_seen = {.tsize = -1};

static comm_info *world_get(void) {
  if (__atomic_load_n(&sp_mpi__world_info.size, __ATOMIC_ACQUIRE) >= 0)
    return &sp_mpi__world_info;
  int size, me;
  if (PMPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS ||
      PMPI_Comm_rank(MPI_COMM_WORLD, &me) != MPI_SUCCESS)
    return NULL;
  sp_mpi__world_info.me = me;
  int32_t *ids = malloc((size_t)size * sizeof *ids);
  if (ids) {
    for (int i = 0; i < size; i++)
      ids[i] = i;
    sp__mpi_comm(0, size, ids);
    free(ids);
  }
  __atomic_store_n(&sp_mpi__world_info.size, size, __ATOMIC_RELEASE);
  return &sp_mpi__world_info;
}

static comm_info *info_new(MPI_Comm c) {
  comm_info *ci = calloc(1, sizeof *ci);
  if (!ci)
    return NULL;
  int inter = 0;
  MPI_Group g, wg;
  PMPI_Comm_test_inter(c, &inter);
  if ((inter ? PMPI_Comm_remote_group(c, &g) : PMPI_Comm_group(c, &g)) !=
      MPI_SUCCESS) {
    free(ci);
    return NULL;
  }
  int size = 0;
  PMPI_Group_size(g, &size);
  PMPI_Comm_rank(c, &ci->me);
  int *in = malloc((size_t)size * sizeof(int) + 1);
  ci->world = malloc((size_t)size * sizeof(int32_t) + 1);
  if (!in || !ci->world ||
      PMPI_Comm_group(MPI_COMM_WORLD, &wg) != MPI_SUCCESS) {
    free(in);
    free(ci->world);
    free(ci);
    PMPI_Group_free(&g);
    return NULL;
  }
  for (int i = 0; i < size; i++)
    in[i] = i;
  int *out = (int *)ci->world;
  PMPI_Group_translate_ranks(g, size, in, wg, out);
  for (int i = 0; i < size; i++)
    if (out[i] == MPI_UNDEFINED)
      ci->world[i] = SP_MPI_NONE; /* another job's process (spawn) */
  free(in);
  PMPI_Group_free(&g);
  PMPI_Group_free(&wg);
  ci->size = size;
  ci->inter = inter;
  ci->id = atomic_fetch_add(&next_id, 1);
  sp__mpi_comm(ci->id, ci->size, ci->world);
  return ci;
}

/* The communicator's info, made on its first recorded call. */
static comm_info *info_get(MPI_Comm c) {
  if (c == MPI_COMM_WORLD)
    return world_get();
  if (c == MPI_COMM_NULL)
    return NULL;
  int st = atomic_load(&keyval_state);
  if (st != 2) {
    int zero = 0;
    if (atomic_compare_exchange_strong(&keyval_state, &zero, 1)) {
      if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
                                  MPI_COMM_NULL_DELETE_FN, &keyval,
                                  NULL) != MPI_SUCCESS) {
        atomic_store(&keyval_state, 0);
        return NULL;
      }
      atomic_store(&keyval_state, 2);
    } else if (atomic_load(&keyval_state) != 2) {
      return NULL; /* another thread is making it: this call goes without */
    }
  }
  comm_info *ci = NULL;
  int flag = 0;
  if (PMPI_Comm_get_attr(c, keyval, &ci, &flag) == MPI_SUCCESS && flag)
    return ci;
  ci = info_new(c);
  if (ci)
    PMPI_Comm_set_attr(c, keyval, ci);
  return ci;
}

/* Kept as the thread's last communicator unless MPI_COMM_WORLD, until the
 * layer sees a communicator freed (its handle may come back as another). */
comm_info *sp_mpi__info_slow(MPI_Comm c) {
  unsigned gen = atomic_load_explicit(&sp_mpi__comm_gen, memory_order_relaxed);
  comm_info *ci = info_get(c);
  if (ci && c != MPI_COMM_WORLD) {
    sp_mpi__last_seen.c = c;
    sp_mpi__last_seen.ci = ci;
    sp_mpi__last_seen.cgen = gen;
  }
  return ci;
}

int sp_mpi__x_MPI_Comm_free(int r, MPI_Comm *c) {
  (void)r;
  atomic_fetch_add(&sp_mpi__comm_gen, 1);
  return PMPI_Comm_free(c);
}

int sp_mpi__x_MPI_Comm_disconnect(int r, MPI_Comm *c) {
  (void)r;
  atomic_fetch_add(&sp_mpi__comm_gen, 1);
  return PMPI_Comm_disconnect(c);
}

/* A type's size, asked of MPI once per run of calls with one type (the
 * thread's last, kept until the layer sees any MPI_Type_free). */
int64_t sp_mpi__tsize_slow(MPI_Datatype t) {
  int s = 0;
  if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &s) != MPI_SUCCESS ||
      s == MPI_UNDEFINED)
    return 0;
  sp_mpi__last_seen.t = t;
  sp_mpi__last_seen.tsize = s;
  sp_mpi__last_seen.tgen =
      atomic_load_explicit(&sp_mpi__type_gen, memory_order_relaxed);
  return s;
}

int sp_mpi__x_MPI_Type_free(int r, MPI_Datatype *t) {
  (void)r;
  atomic_fetch_add(&sp_mpi__type_gen, 1);
  return PMPI_Type_free(t);
}

/* ---- records ---- */

/* Bytes for dest: none for MPI_PROC_NULL, where nothing goes. */
#define TO(dest, bytes) ((dest) == MPI_PROC_NULL ? 0 : (bytes))

void sp_mpi__one(int r, int kind, const comm_info *ci, int peer, int tag,
                 int64_t sent, int64_t recvd) {
  int in = kind == SP_MPI_K_RECV || kind == SP_MPI_K_IRECV ||
           kind == SP_MPI_K_WAITRECV;
  if (!(in ? sent : recvd)) { /* one way: a send's path in the runtime */
    sp__mpi_note1(r, kind, ci->id, sp_mpi__world_of(ci, peer), tag,
                  in ? recvd : sent);
    return;
  }
  sp__mpi_msg m = {.origin = 0,
                   .region = r,
                   .origin_region = -1,
                   .kind = kind,
                   .peer = sp_mpi__world_of(ci, peer),
                   .tag = tag,
                   .comm = ci->id,
                   .root = -1,
                   .reserved = 0,
                   .sent = sent,
                   .recvd = recvd};
  sp__mpi_note(r, &m, 1);
}

static void isend_like(int r, int ret, int64_t count, MPI_Datatype type,
                       int dest, int tag, MPI_Comm comm, MPI_Request *req);
/* ctype: int, or MPI_Count for MPI-4's large-count (_c) forms */
#define ISEND_FN(name, ctype)                                                  \
  int sp_mpi__x_##name(int r, const void *buf, ctype count, MPI_Datatype type, \
                       int dest, int tag, MPI_Comm comm, MPI_Request *req) {   \
    int ret = P##name(buf, count, type, dest, tag, comm, req);                 \
    isend_like(r, ret, count, type, dest, tag, comm, req);                     \
    return ret;                                                                \
  }
ISEND_FN(MPI_Isend, int)
ISEND_FN(MPI_Issend, int)
ISEND_FN(MPI_Ibsend, int)
ISEND_FN(MPI_Irsend, int)

/* The blocking sends and MPI_Recv when MPI's Fortran binding calls them
 * (MPICH's do): recorded under the Fortran call's region, which its entry
 * point ends. A C program's are recorded inline (comm_wrap.h). */
#define SEND_FN(name, ctype)                                                   \
  int sp_mpi__x_##name(int r, const void *buf, ctype count, MPI_Datatype type, \
                       int dest, int tag, MPI_Comm comm) {                     \
    int ret = P##name(buf, count, type, dest, tag, comm);                      \
    if (ret == MPI_SUCCESS)                                                    \
      sp_mpi__rec_send(r, SP_MPI_K_SEND, count, type, dest, tag, comm);        \
    return ret;                                                                \
  }
SEND_FN(MPI_Send, int)
SEND_FN(MPI_Ssend, int)
SEND_FN(MPI_Bsend, int)
SEND_FN(MPI_Rsend, int)
#if MPI_VERSION >= 4
ISEND_FN(MPI_Isend_c, MPI_Count)
ISEND_FN(MPI_Issend_c, MPI_Count)
ISEND_FN(MPI_Ibsend_c, MPI_Count)
ISEND_FN(MPI_Irsend_c, MPI_Count)
SEND_FN(MPI_Send_c, MPI_Count)
SEND_FN(MPI_Ssend_c, MPI_Count)
SEND_FN(MPI_Bsend_c, MPI_Count)
SEND_FN(MPI_Rsend_c, MPI_Count)
#endif

int sp_mpi__x_MPI_Recv(int r, void *buf, int count, MPI_Datatype type,
                       int source, int tag, MPI_Comm comm, MPI_Status *st) {
  MPI_Status own;
  if (st == MPI_STATUS_IGNORE)
    st = &own;
  int ret = PMPI_Recv(buf, count, type, source, tag, comm, st);
  if (ret == MPI_SUCCESS)
    sp_mpi__rec_recv(r, comm, st);
  return ret;
}

int sp_mpi__x_MPI_Sendrecv(int r, const void *sbuf, int scount,
                           MPI_Datatype stype, int dest, int stag, void *rbuf,
                           int rcount, MPI_Datatype rtype, int source, int rtag,
                           MPI_Comm comm, MPI_Status *st) {
  MPI_Status own;
  if (st == MPI_STATUS_IGNORE)
    st = &own;
  int ret = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
                          source, rtag, comm, st);
  comm_info *ci;
  if (ret == MPI_SUCCESS && (ci = sp_mpi__info_of(comm))) {
    sp__mpi_msg m[2] = {{0}, {0}};
    for (int i = 0; i < 2; i++) {
      m[i].region = r;
      m[i].origin_region = -1;
      m[i].comm = ci->id;
      m[i].root = -1;
    }
    m[0].kind = SP_MPI_K_SEND;
    m[0].peer = sp_mpi__world_of(ci, dest);
    m[0].tag = stag;
    m[0].sent = TO(dest, (int64_t)scount * sp_mpi__tsize(stype));
    m[1].kind = SP_MPI_K_RECV;
    m[1].peer = sp_mpi__world_of(ci, st->MPI_SOURCE);
    m[1].tag = st->MPI_TAG;
    m[1].recvd = sp_mpi__status_bytes(st);
    sp__mpi_note(r, m, 2);
  }
  return ret;
}

int sp_mpi__x_MPI_Sendrecv_replace(int r, void *buf, int count,
                                   MPI_Datatype type, int dest, int stag,
                                   int source, int rtag, MPI_Comm comm,
                                   MPI_Status *st) {
  MPI_Status own;
  if (st == MPI_STATUS_IGNORE)
    st = &own;
  int ret = PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag,
                                  comm, st);
  comm_info *ci;
  if (ret == MPI_SUCCESS && (ci = sp_mpi__info_of(comm))) {
    sp_mpi__one(r, SP_MPI_K_SEND, ci, dest, stag,
                TO(dest, (int64_t)count * sp_mpi__tsize(type)), 0);
    sp_mpi__one(r, SP_MPI_K_RECV, ci, st->MPI_SOURCE, st->MPI_TAG, 0,
                sp_mpi__status_bytes(st));
  }
  return ret;
}

/* ---- nonblocking receives and sends: their requests kept (requests.c)
 * until the call that completes them, which makes the completion's
 * message ---- */

/* A nonblocking receive's record; its request kept for the completion. */
static void irecv_like(int r, int ret, int source, int tag, MPI_Comm comm,
                       MPI_Request *req) {
  comm_info *ci;
  if (ret == MPI_SUCCESS && (ci = sp_mpi__info_of(comm))) {
    uint64_t start = sp__mpi_note1(r, SP_MPI_K_IRECV, ci->id,
                                   sp_mpi__world_of(ci, source), tag, 0);
    sp_mpi__req_begun(start, r, ci, 0, 0, 0, *req);
  }
}

int sp_mpi__x_MPI_Irecv(int r, void *buf, int count, MPI_Datatype type,
                        int source, int tag, MPI_Comm comm, MPI_Request *req) {
  int ret = PMPI_Irecv(buf, count, type, source, tag, comm, req);
  irecv_like(r, ret, source, tag, comm, req);
  return ret;
}

#if MPI_VERSION >= 4
int sp_mpi__x_MPI_Irecv_c(int r, void *buf, MPI_Count count, MPI_Datatype type,
                          int source, int tag, MPI_Comm comm,
                          MPI_Request *req) {
  int ret = PMPI_Irecv_c(buf, count, type, source, tag, comm, req);
  irecv_like(r, ret, source, tag, comm, req);
  return ret;
}

int sp_mpi__x_MPI_Recv_c(int r, void *buf, MPI_Count count, MPI_Datatype type,
                         int source, int tag, MPI_Comm comm, MPI_Status *st) {
  MPI_Status own;
  if (st == MPI_STATUS_IGNORE)
    st = &own;
  int ret = PMPI_Recv_c(buf, count, type, source, tag, comm, st);
  if (ret == MPI_SUCCESS)
    sp_mpi__rec_recv(r, comm, st);
  return ret;
}
#endif

/* A nonblocking send's record; its request kept, so that the call that
 * completes it says when (SP_MPI_K_WAITSEND: late receiver). */
static void isend_like(int r, int ret, int64_t count, MPI_Datatype type,
                       int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  comm_info *ci;
  if (ret != MPI_SUCCESS || !(ci = sp_mpi__info_of(comm)))
    return;
  int32_t peer = sp_mpi__world_of(ci, dest);
  uint64_t start =
      sp__mpi_note1(r, SP_MPI_K_ISEND, ci->id, peer, tag,
                    TO(dest, (int64_t)count * sp_mpi__tsize(type)));
  if (dest != MPI_PROC_NULL)
    sp_mpi__req_begun(start, r, ci, 1, peer, tag, *req);
}

int sp_mpi__x_MPI_Wait(int r, MPI_Request *req, MPI_Status *st) {
  if (!sp_mpi__reqs_any())
    return PMPI_Wait(req, st);
  MPI_Status own;
  if (st == MPI_STATUS_IGNORE)
    st = &own;
  MPI_Request q = *req;
  int ret = PMPI_Wait(req, st);
  if (ret == MPI_SUCCESS)
    sp_mpi__req_done(r, q, st);
  return ret;
}

int sp_mpi__x_MPI_Test(int r, MPI_Request *req, int *flag, MPI_Status *st) {
  if (!sp_mpi__reqs_any())
    return PMPI_Test(req, flag, st);
  MPI_Status own;
  if (st == MPI_STATUS_IGNORE)
    st = &own;
  MPI_Request q = *req;
  int ret = PMPI_Test(req, flag, st);
  if (ret == MPI_SUCCESS && *flag)
    sp_mpi__req_done(r, q, st);
  return ret;
}

/* The requests of a call on n of them, copied before it (their values
 * change when they complete) into this thread's scratch, with statuses
 * for a caller that ignores them; NULL: the call goes unrecorded. */
static MPI_Request *before(int n, const MPI_Request reqs[], MPI_Status **sts) {
  MPI_Status *own;
  MPI_Request *q;
  if (!sp_mpi__reqs_any() || n <= 0 || !(q = sp_mpi__req_scratch(n, &own)))
    return NULL;
  memcpy(q, reqs, (size_t)n * sizeof *reqs);
  if (*sts == MPI_STATUSES_IGNORE)
    *sts = own;
  return q;
}

int sp_mpi__x_MPI_Waitany(int r, int n, MPI_Request reqs[], int *index,
                          MPI_Status *st) {
  MPI_Status *unused = NULL, own;
  MPI_Request *q = before(n, reqs, &unused);
  if (!q)
    return PMPI_Waitany(n, reqs, index, st);
  if (st == MPI_STATUS_IGNORE)
    st = &own;
  int ret = PMPI_Waitany(n, reqs, index, st);
  if (ret == MPI_SUCCESS && *index != MPI_UNDEFINED && *index >= 0 &&
      *index < n)
    sp_mpi__req_done(r, q[*index], st);
  return ret;
}

int sp_mpi__x_MPI_Testany(int r, int n, MPI_Request reqs[], int *index,
                          int *flag, MPI_Status *st) {
  MPI_Status *unused = NULL, own;
  MPI_Request *q = before(n, reqs, &unused);
  if (!q)
    return PMPI_Testany(n, reqs, index, flag, st);
  if (st == MPI_STATUS_IGNORE)
    st = &own;
  int ret = PMPI_Testany(n, reqs, index, flag, st);
  if (ret == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED && *index >= 0 &&
      *index < n)
    sp_mpi__req_done(r, q[*index], st);
  return ret;
}

int sp_mpi__x_MPI_Waitall(int r, int n, MPI_Request reqs[], MPI_Status sts[]) {
  MPI_Status *s = sts;
  MPI_Request *q = before(n, reqs, &s);
  if (!q)
    return PMPI_Waitall(n, reqs, sts);
  int ret = PMPI_Waitall(n, reqs, s);
  if (ret == MPI_SUCCESS)
    for (int i = 0; i < n; i++)
      sp_mpi__req_done(r, q[i], &s[i]);
  return ret;
}

int sp_mpi__x_MPI_Testall(int r, int n, MPI_Request reqs[], int *flag,
                          MPI_Status sts[]) {
  MPI_Status *s = sts;
  MPI_Request *q = before(n, reqs, &s);
  if (!q)
    return PMPI_Testall(n, reqs, flag, sts);
  int ret = PMPI_Testall(n, reqs, flag, s);
  if (ret == MPI_SUCCESS && *flag)
    for (int i = 0; i < n; i++)
      sp_mpi__req_done(r, q[i], &s[i]);
  return ret;
}

static void some(int r, int n, const MPI_Request q[], int out, const int idx[],
                 const MPI_Status sts[]) {
  if (out == MPI_UNDEFINED)
    return;
  for (int i = 0; i < out; i++)
    if (idx[i] >= 0 && idx[i] < n)
      sp_mpi__req_done(r, q[idx[i]], &sts[i]);
}

int sp_mpi__x_MPI_Waitsome(int r, int n, MPI_Request reqs[], int *out,
                           int idx[], MPI_Status sts[]) {
  MPI_Status *s = sts;
  MPI_Request *q = before(n, reqs, &s);
  if (!q)
    return PMPI_Waitsome(n, reqs, out, idx, sts);
  int ret = PMPI_Waitsome(n, reqs, out, idx, s);
  if (ret == MPI_SUCCESS)
    some(r, n, q, *out, idx, s);
  return ret;
}

int sp_mpi__x_MPI_Testsome(int r, int n, MPI_Request reqs[], int *out,
                           int idx[], MPI_Status sts[]) {
  MPI_Status *s = sts;
  MPI_Request *q = before(n, reqs, &s);
  if (!q)
    return PMPI_Testsome(n, reqs, out, idx, sts);
  int ret = PMPI_Testsome(n, reqs, out, idx, s);
  if (ret == MPI_SUCCESS)
    some(r, n, q, *out, idx, s);
  return ret;
}

/* ---- collectives: per rank, what leaves its buffers for other ranks and
 * what arrives from them (counts x type size; its own share not counted),
 * so the job's sent and received bytes of a collective are equal. ---- */

static void coll(int r, int ret, const comm_info *ci, int root, int64_t sent,
                 int64_t recvd) {
  if (ret != MPI_SUCCESS || !ci)
    return;
  sp__mpi_msg m = {0};
  m.region = r;
  m.origin_region = -1;
  m.kind = SP_MPI_K_COLL;
  m.peer = SP_MPI_NONE;
  m.tag = -1;
  m.comm = ci->id;
  m.root = root < 0 ? -1 : sp_mpi__world_of(ci, root);
  if (!ci->inter) { /* an intercommunicator's bytes are not counted */
    m.sent = sent;
    m.recvd = recvd;
  }
  sp__mpi_note(r, &m, 1);
}

static int64_t sum_but(const int counts[], int n, int skip) {
  int64_t s = 0;
  for (int i = 0; i < n; i++)
    if (i != skip)
      s += counts[i];
  return s;
}

/* The PMPI call, then coll() given root, sent and recvd as expressions of
 * the call's arguments and of n (the communicator's size) and me (this
 * rank in it). */
#define COLL_BODY(call, ...)                                                   \
  int ret = call;                                                              \
  comm_info *ci = ret == MPI_SUCCESS ? sp_mpi__info_of(comm) : NULL;           \
  if (ci) {                                                                    \
    int n = ci->size, me = ci->me;                                             \
    (void)n, (void)me;                                                         \
    coll(r, ret, ci, __VA_ARGS__);                                             \
  }                                                                            \
  return ret;

int sp_mpi__x_MPI_Barrier(int r, MPI_Comm comm) {
  COLL_BODY(PMPI_Barrier(comm), -1, 0, 0)
}
int sp_mpi__x_MPI_Ibarrier(int r, MPI_Comm comm, MPI_Request *q) {
  COLL_BODY(PMPI_Ibarrier(comm, q), -1, 0, 0)
}

#define BCAST_B(c, t)                                                          \
  root, me == root ? (int64_t)c *sp_mpi__tsize(t) * (n - 1) : 0,               \
      me == root ? 0 : (int64_t)c *sp_mpi__tsize(t)
int sp_mpi__x_MPI_Bcast(int r, void *buf, int c, MPI_Datatype t, int root,
                        MPI_Comm comm) {
  COLL_BODY(PMPI_Bcast(buf, c, t, root, comm), BCAST_B(c, t))
}
int sp_mpi__x_MPI_Ibcast(int r, void *buf, int c, MPI_Datatype t, int root,
                         MPI_Comm comm, MPI_Request *q) {
  COLL_BODY(PMPI_Ibcast(buf, c, t, root, comm, q), BCAST_B(c, t))
}

#define REDUCE_B(c, t)                                                         \
  root, me == root ? 0 : (int64_t)c *sp_mpi__tsize(t),                         \
      me == root ? (int64_t)c *sp_mpi__tsize(t) * (n - 1) : 0
int sp_mpi__x_MPI_Reduce(int r, const void *s, void *d, int c, MPI_Datatype t,
                         MPI_Op op, int root, MPI_Comm comm) {
  COLL_BODY(PMPI_Reduce(s, d, c, t, op, root, comm), REDUCE_B(c, t))
}
int sp_mpi__x_MPI_Ireduce(int r, const void *s, void *d, int c, MPI_Datatype t,
                          MPI_Op op, int root, MPI_Comm comm, MPI_Request *q) {
  COLL_BODY(PMPI_Ireduce(s, d, c, t, op, root, comm, q), REDUCE_B(c, t))
}

#define ALL_B(c, t)                                                            \
  -1, (int64_t)c *sp_mpi__tsize(t) * (n - 1),                                  \
      (int64_t)c *sp_mpi__tsize(t) * (n - 1)
int sp_mpi__x_MPI_Allreduce(int r, const void *s, void *d, int c,
                            MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  COLL_BODY(PMPI_Allreduce(s, d, c, t, op, comm), ALL_B(c, t))
}
int sp_mpi__x_MPI_Iallreduce(int r, const void *s, void *d, int c,
                             MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                             MPI_Request *q) {
  COLL_BODY(PMPI_Iallreduce(s, d, c, t, op, comm, q), ALL_B(c, t))
}
int sp_mpi__x_MPI_Reduce_scatter_block(int r, const void *s, void *d, int c,
                                       MPI_Datatype t, MPI_Op op,
                                       MPI_Comm comm) {
  COLL_BODY(PMPI_Reduce_scatter_block(s, d, c, t, op, comm), ALL_B(c, t))
}

#define RS_B(cs, t)                                                            \
  -1, sum_but(cs, n, me) * sp_mpi__tsize(t),                                   \
      (int64_t)cs[me] * sp_mpi__tsize(t) * (n - 1)
int sp_mpi__x_MPI_Reduce_scatter(int r, const void *s, void *d, const int cs[],
                                 MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  COLL_BODY(PMPI_Reduce_scatter(s, d, cs, t, op, comm), RS_B(cs, t))
}

#define SCAN_B(c, t)                                                           \
  -1, (int64_t)c *sp_mpi__tsize(t) * (n - 1 - me),                             \
      (int64_t)c *sp_mpi__tsize(t) * me
int sp_mpi__x_MPI_Scan(int r, const void *s, void *d, int c, MPI_Datatype t,
                       MPI_Op op, MPI_Comm comm) {
  COLL_BODY(PMPI_Scan(s, d, c, t, op, comm), SCAN_B(c, t))
}
int sp_mpi__x_MPI_Exscan(int r, const void *s, void *d, int c, MPI_Datatype t,
                         MPI_Op op, MPI_Comm comm) {
  COLL_BODY(PMPI_Exscan(s, d, c, t, op, comm), SCAN_B(c, t))
}

#define GATHER_B                                                               \
  root, me == root ? 0 : (int64_t)sc *sp_mpi__tsize(st),                       \
      me == root ? (int64_t)rc *sp_mpi__tsize(rt) * (n - 1) : 0
int sp_mpi__x_MPI_Gather(int r, const void *s, int sc, MPI_Datatype st, void *d,
                         int rc, MPI_Datatype rt, int root, MPI_Comm comm) {
  COLL_BODY(PMPI_Gather(s, sc, st, d, rc, rt, root, comm), GATHER_B)
}
int sp_mpi__x_MPI_Igather(int r, const void *s, int sc, MPI_Datatype st,
                          void *d, int rc, MPI_Datatype rt, int root,
                          MPI_Comm comm, MPI_Request *q) {
  COLL_BODY(PMPI_Igather(s, sc, st, d, rc, rt, root, comm, q), GATHER_B)
}
#define GATHERV_B                                                              \
  root, me == root ? 0 : (int64_t)sc *sp_mpi__tsize(st),                       \
      me == root ? sum_but(rcs, n, root) * sp_mpi__tsize(rt) : 0
int sp_mpi__x_MPI_Gatherv(int r, const void *s, int sc, MPI_Datatype st,
                          void *d, const int rcs[], const int dis[],
                          MPI_Datatype rt, int root, MPI_Comm comm) {
  COLL_BODY(PMPI_Gatherv(s, sc, st, d, rcs, dis, rt, root, comm), GATHERV_B)
}

#define SCATTER_B                                                              \
  root, me == root ? (int64_t)sc *sp_mpi__tsize(st) * (n - 1) : 0,             \
      me == root ? 0 : (int64_t)rc *sp_mpi__tsize(rt)
int sp_mpi__x_MPI_Scatter(int r, const void *s, int sc, MPI_Datatype st,
                          void *d, int rc, MPI_Datatype rt, int root,
                          MPI_Comm comm) {
  COLL_BODY(PMPI_Scatter(s, sc, st, d, rc, rt, root, comm), SCATTER_B)
}
int sp_mpi__x_MPI_Iscatter(int r, const void *s, int sc, MPI_Datatype st,
                           void *d, int rc, MPI_Datatype rt, int root,
                           MPI_Comm comm, MPI_Request *q) {
  COLL_BODY(PMPI_Iscatter(s, sc, st, d, rc, rt, root, comm, q), SCATTER_B)
}
#define SCATTERV_B                                                             \
  root, me == root ? sum_but(scs, n, root) * sp_mpi__tsize(st) : 0,            \
      me == root ? 0 : (int64_t)rc *sp_mpi__tsize(rt)
int sp_mpi__x_MPI_Scatterv(int r, const void *s, const int scs[],
                           const int dis[], MPI_Datatype st, void *d, int rc,
                           MPI_Datatype rt, int root, MPI_Comm comm) {
  COLL_BODY(PMPI_Scatterv(s, scs, dis, st, d, rc, rt, root, comm), SCATTERV_B)
}

/* MPI_IN_PLACE: a rank's own contribution is already in the receive
 * buffer, described by the receive count and type. */
#define AG_B                                                                   \
  -1,                                                                          \
      (s == MPI_IN_PLACE ? (int64_t)rc * sp_mpi__tsize(rt)                     \
                         : (int64_t)sc * sp_mpi__tsize(st)) *                  \
          (n - 1),                                                             \
      (int64_t)rc *sp_mpi__tsize(rt) * (n - 1)
int sp_mpi__x_MPI_Allgather(int r, const void *s, int sc, MPI_Datatype st,
                            void *d, int rc, MPI_Datatype rt, MPI_Comm comm) {
  COLL_BODY(PMPI_Allgather(s, sc, st, d, rc, rt, comm), AG_B)
}
int sp_mpi__x_MPI_Iallgather(int r, const void *s, int sc, MPI_Datatype st,
                             void *d, int rc, MPI_Datatype rt, MPI_Comm comm,
                             MPI_Request *q) {
  COLL_BODY(PMPI_Iallgather(s, sc, st, d, rc, rt, comm, q), AG_B)
}
int sp_mpi__x_MPI_Alltoall(int r, const void *s, int sc, MPI_Datatype st,
                           void *d, int rc, MPI_Datatype rt, MPI_Comm comm) {
  COLL_BODY(PMPI_Alltoall(s, sc, st, d, rc, rt, comm), AG_B)
}
int sp_mpi__x_MPI_Ialltoall(int r, const void *s, int sc, MPI_Datatype st,
                            void *d, int rc, MPI_Datatype rt, MPI_Comm comm,
                            MPI_Request *q) {
  COLL_BODY(PMPI_Ialltoall(s, sc, st, d, rc, rt, comm, q), AG_B)
}
#define AGV_B                                                                  \
  -1,                                                                          \
      (s == MPI_IN_PLACE ? (int64_t)rcs[me] * sp_mpi__tsize(rt)                \
                         : (int64_t)sc * sp_mpi__tsize(st)) *                  \
          (n - 1),                                                             \
      sum_but(rcs, n, me) * sp_mpi__tsize(rt)
int sp_mpi__x_MPI_Allgatherv(int r, const void *s, int sc, MPI_Datatype st,
                             void *d, const int rcs[], const int dis[],
                             MPI_Datatype rt, MPI_Comm comm) {
  COLL_BODY(PMPI_Allgatherv(s, sc, st, d, rcs, dis, rt, comm), AGV_B)
}
#define ATAV_B                                                                 \
  -1,                                                                          \
      s == MPI_IN_PLACE ? sum_but(rcs, n, me) * sp_mpi__tsize(rt)              \
                        : sum_but(scs, n, me) * sp_mpi__tsize(st),             \
      sum_but(rcs, n, me) * sp_mpi__tsize(rt)
int sp_mpi__x_MPI_Alltoallv(int r, const void *s, const int scs[],
                            const int sds[], MPI_Datatype st, void *d,
                            const int rcs[], const int rds[], MPI_Datatype rt,
                            MPI_Comm comm) {
  COLL_BODY(PMPI_Alltoallv(s, scs, sds, st, d, rcs, rds, rt, comm), ATAV_B)
}

static int64_t sum_w(const int counts[], const MPI_Datatype types[], int n,
                     int skip) {
  int64_t s = 0;
  for (int i = 0; i < n; i++)
    if (i != skip)
      s += (int64_t)counts[i] * sp_mpi__tsize(types[i]);
  return s;
}
#define ATAW_B                                                                 \
  -1, s == MPI_IN_PLACE ? sum_w(rcs, rts, n, me) : sum_w(scs, sts, n, me),     \
      sum_w(rcs, rts, n, me)
int sp_mpi__x_MPI_Alltoallw(int r, const void *s, const int scs[],
                            const int sds[], const MPI_Datatype sts[], void *d,
                            const int rcs[], const int rds[],
                            const MPI_Datatype rts[], MPI_Comm comm) {
  COLL_BODY(PMPI_Alltoallw(s, scs, sds, sts, d, rcs, rds, rts, comm), ATAW_B)
}

#if MPI_VERSION >= 4
/* MPI-4's persistent collectives move nothing when made: each MPI_Start of
 * one is the collective, recorded then (persist.c) with the bytes worked
 * out here as for the blocking form. The neighbourhood ones are regions
 * only. */
#define COLL_INIT(call, ...)                                                   \
  int ret = call;                                                              \
  comm_info *ci = ret == MPI_SUCCESS ? sp_mpi__info_of(comm) : NULL;           \
  (void)r;                                                                     \
  if (ci) {                                                                    \
    int n = ci->size, me = ci->me;                                             \
    (void)n, (void)me;                                                         \
    sp_mpi__persist_add_coll(comm, *q, __VA_ARGS__);                           \
  }                                                                            \
  return ret;

int sp_mpi__x_MPI_Barrier_init(int r, MPI_Comm comm, MPI_Info i,
                               MPI_Request *q) {
  COLL_INIT(PMPI_Barrier_init(comm, i, q), -1, 0, 0)
}
int sp_mpi__x_MPI_Bcast_init(int r, void *buf, int c, MPI_Datatype t, int root,
                             MPI_Comm comm, MPI_Info i, MPI_Request *q) {
  COLL_INIT(PMPI_Bcast_init(buf, c, t, root, comm, i, q), BCAST_B(c, t))
}
int sp_mpi__x_MPI_Reduce_init(int r, const void *s, void *d, int c,
                              MPI_Datatype t, MPI_Op op, int root,
                              MPI_Comm comm, MPI_Info i, MPI_Request *q) {
  COLL_INIT(PMPI_Reduce_init(s, d, c, t, op, root, comm, i, q), REDUCE_B(c, t))
}
int sp_mpi__x_MPI_Allreduce_init(int r, const void *s, void *d, int c,
                                 MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                                 MPI_Info i, MPI_Request *q) {
  COLL_INIT(PMPI_Allreduce_init(s, d, c, t, op, comm, i, q), ALL_B(c, t))
}
int sp_mpi__x_MPI_Reduce_scatter_block_init(int r, const void *s, void *d,
                                            int c, MPI_Datatype t, MPI_Op op,
                                            MPI_Comm comm, MPI_Info i,
                                            MPI_Request *q) {
  COLL_INIT(PMPI_Reduce_scatter_block_init(s, d, c, t, op, comm, i, q),
            ALL_B(c, t))
}
int sp_mpi__x_MPI_Reduce_scatter_init(int r, const void *s, void *d,
                                      const int cs[], MPI_Datatype t, MPI_Op op,
                                      MPI_Comm comm, MPI_Info i,
                                      MPI_Request *q) {
  COLL_INIT(PMPI_Reduce_scatter_init(s, d, cs, t, op, comm, i, q), RS_B(cs, t))
}
int sp_mpi__x_MPI_Scan_init(int r, const void *s, void *d, int c,
                            MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                            MPI_Info i, MPI_Request *q) {
  COLL_INIT(PMPI_Scan_init(s, d, c, t, op, comm, i, q), SCAN_B(c, t))
}
int sp_mpi__x_MPI_Exscan_init(int r, const void *s, void *d, int c,
                              MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                              MPI_Info i, MPI_Request *q) {
  COLL_INIT(PMPI_Exscan_init(s, d, c, t, op, comm, i, q), SCAN_B(c, t))
}
int sp_mpi__x_MPI_Gather_init(int r, const void *s, int sc, MPI_Datatype st,
                              void *d, int rc, MPI_Datatype rt, int root,
                              MPI_Comm comm, MPI_Info i, MPI_Request *q) {
  COLL_INIT(PMPI_Gather_init(s, sc, st, d, rc, rt, root, comm, i, q), GATHER_B)
}
int sp_mpi__x_MPI_Gatherv_init(int r, const void *s, int sc, MPI_Datatype st,
                               void *d, const int rcs[], const int dis[],
                               MPI_Datatype rt, int root, MPI_Comm comm,
                               MPI_Info i, MPI_Request *q) {
  COLL_INIT(PMPI_Gatherv_init(s, sc, st, d, rcs, dis, rt, root, comm, i, q),
            GATHERV_B)
}
int sp_mpi__x_MPI_Scatter_init(int r, const void *s, int sc, MPI_Datatype st,
                               void *d, int rc, MPI_Datatype rt, int root,
                               MPI_Comm comm, MPI_Info i, MPI_Request *q) {
  COLL_INIT(PMPI_Scatter_init(s, sc, st, d, rc, rt, root, comm, i, q),
            SCATTER_B)
}
int sp_mpi__x_MPI_Scatterv_init(int r, const void *s, const int scs[],
                                const int dis[], MPI_Datatype st, void *d,
                                int rc, MPI_Datatype rt, int root,
                                MPI_Comm comm, MPI_Info i, MPI_Request *q) {
  COLL_INIT(PMPI_Scatterv_init(s, scs, dis, st, d, rc, rt, root, comm, i, q),
            SCATTERV_B)
}
int sp_mpi__x_MPI_Allgather_init(int r, const void *s, int sc, MPI_Datatype st,
                                 void *d, int rc, MPI_Datatype rt,
                                 MPI_Comm comm, MPI_Info i, MPI_Request *q) {
  COLL_INIT(PMPI_Allgather_init(s, sc, st, d, rc, rt, comm, i, q), AG_B)
}
int sp_mpi__x_MPI_Alltoall_init(int r, const void *s, int sc, MPI_Datatype st,
                                void *d, int rc, MPI_Datatype rt, MPI_Comm comm,
                                MPI_Info i, MPI_Request *q) {
  COLL_INIT(PMPI_Alltoall_init(s, sc, st, d, rc, rt, comm, i, q), AG_B)
}
int sp_mpi__x_MPI_Allgatherv_init(int r, const void *s, int sc, MPI_Datatype st,
                                  void *d, const int rcs[], const int dis[],
                                  MPI_Datatype rt, MPI_Comm comm, MPI_Info i,
                                  MPI_Request *q) {
  COLL_INIT(PMPI_Allgatherv_init(s, sc, st, d, rcs, dis, rt, comm, i, q), AGV_B)
}
int sp_mpi__x_MPI_Alltoallv_init(int r, const void *s, const int scs[],
                                 const int sds[], MPI_Datatype st, void *d,
                                 const int rcs[], const int rds[],
                                 MPI_Datatype rt, MPI_Comm comm, MPI_Info i,
                                 MPI_Request *q) {
  COLL_INIT(PMPI_Alltoallv_init(s, scs, sds, st, d, rcs, rds, rt, comm, i, q),
            ATAV_B)
}
int sp_mpi__x_MPI_Alltoallw_init(int r, const void *s, const int scs[],
                                 const int sds[], const MPI_Datatype sts[],
                                 void *d, const int rcs[], const int rds[],
                                 const MPI_Datatype rts[], MPI_Comm comm,
                                 MPI_Info i, MPI_Request *q) {
  COLL_INIT(PMPI_Alltoallw_init(s, scs, sds, sts, d, rcs, rds, rts, comm, i, q),
            ATAW_B)
}

/* MPI-4's large-count (_c) forms: the bytes of their int-count siblings,
 * with 64-bit counts. */
static int64_t sum_but_c(const MPI_Count counts[], int n, int skip) {
  int64_t s = 0;
  for (int i = 0; i < n; i++)
    s += i == skip ? 0 : (int64_t)counts[i];
  return s;
}

int sp_mpi__x_MPI_Bcast_c(int r, void *buf, MPI_Count c, MPI_Datatype t,
                          int root, MPI_Comm comm) {
  COLL_BODY(PMPI_Bcast_c(buf, c, t, root, comm), BCAST_B(c, t))
}
int sp_mpi__x_MPI_Ibcast_c(int r, void *buf, MPI_Count c, MPI_Datatype t,
                           int root, MPI_Comm comm, MPI_Request *q) {
  COLL_BODY(PMPI_Ibcast_c(buf, c, t, root, comm, q), BCAST_B(c, t))
}
int sp_mpi__x_MPI_Bcast_init_c(int r, void *buf, MPI_Count c, MPI_Datatype t,
                               int root, MPI_Comm comm, MPI_Info info,
                               MPI_Request *q) {
  COLL_INIT(PMPI_Bcast_init_c(buf, c, t, root, comm, info, q), BCAST_B(c, t))
}
int sp_mpi__x_MPI_Reduce_c(int r, const void *s, void *d, MPI_Count c,
                           MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm) {
  COLL_BODY(PMPI_Reduce_c(s, d, c, t, op, root, comm), REDUCE_B(c, t))
}
int sp_mpi__x_MPI_Allreduce_c(int r, const void *s, void *d, MPI_Count c,
                              MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  COLL_BODY(PMPI_Allreduce_c(s, d, c, t, op, comm), ALL_B(c, t))
}
int sp_mpi__x_MPI_Iallreduce_c(int r, const void *s, void *d, MPI_Count c,
                               MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                               MPI_Request *q) {
  COLL_BODY(PMPI_Iallreduce_c(s, d, c, t, op, comm, q), ALL_B(c, t))
}
int sp_mpi__x_MPI_Allreduce_init_c(int r, const void *s, void *d, MPI_Count c,
                                   MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *q) {
  COLL_INIT(PMPI_Allreduce_init_c(s, d, c, t, op, comm, info, q), ALL_B(c, t))
}
int sp_mpi__x_MPI_Scan_c(int r, const void *s, void *d, MPI_Count c,
                         MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  COLL_BODY(PMPI_Scan_c(s, d, c, t, op, comm), SCAN_B(c, t))
}
int sp_mpi__x_MPI_Gather_c(int r, const void *s, MPI_Count sc, MPI_Datatype st,
                           void *d, MPI_Count rc, MPI_Datatype rt, int root,
                           MPI_Comm comm) {
  COLL_BODY(PMPI_Gather_c(s, sc, st, d, rc, rt, root, comm), GATHER_B)
}
int sp_mpi__x_MPI_Scatter_c(int r, const void *s, MPI_Count sc, MPI_Datatype st,
                            void *d, MPI_Count rc, MPI_Datatype rt, int root,
                            MPI_Comm comm) {
  COLL_BODY(PMPI_Scatter_c(s, sc, st, d, rc, rt, root, comm), SCATTER_B)
}
int sp_mpi__x_MPI_Allgather_c(int r, const void *s, MPI_Count sc,
                              MPI_Datatype st, void *d, MPI_Count rc,
                              MPI_Datatype rt, MPI_Comm comm) {
  COLL_BODY(PMPI_Allgather_c(s, sc, st, d, rc, rt, comm), AG_B)
}
int sp_mpi__x_MPI_Alltoall_c(int r, const void *s, MPI_Count sc,
                             MPI_Datatype st, void *d, MPI_Count rc,
                             MPI_Datatype rt, MPI_Comm comm) {
  COLL_BODY(PMPI_Alltoall_c(s, sc, st, d, rc, rt, comm), AG_B)
}
int sp_mpi__x_MPI_Reduce_scatter_block_c(int r, const void *s, void *d,
                                         MPI_Count c, MPI_Datatype t, MPI_Op op,
                                         MPI_Comm comm) {
  COLL_BODY(PMPI_Reduce_scatter_block_c(s, d, c, t, op, comm), ALL_B(c, t))
}
int sp_mpi__x_MPI_Exscan_c(int r, const void *s, void *d, MPI_Count c,
                           MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  COLL_BODY(PMPI_Exscan_c(s, d, c, t, op, comm), SCAN_B(c, t))
}
int sp_mpi__x_MPI_Ireduce_c(int r, const void *s, void *d, MPI_Count c,
                            MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm,
                            MPI_Request *q) {
  COLL_BODY(PMPI_Ireduce_c(s, d, c, t, op, root, comm, q), REDUCE_B(c, t))
}
int sp_mpi__x_MPI_Igather_c(int r, const void *s, MPI_Count sc, MPI_Datatype st,
                            void *d, MPI_Count rc, MPI_Datatype rt, int root,
                            MPI_Comm comm, MPI_Request *q) {
  COLL_BODY(PMPI_Igather_c(s, sc, st, d, rc, rt, root, comm, q), GATHER_B)
}
int sp_mpi__x_MPI_Iscatter_c(int r, const void *s, MPI_Count sc,
                             MPI_Datatype st, void *d, MPI_Count rc,
                             MPI_Datatype rt, int root, MPI_Comm comm,
                             MPI_Request *q) {
  COLL_BODY(PMPI_Iscatter_c(s, sc, st, d, rc, rt, root, comm, q), SCATTER_B)
}
int sp_mpi__x_MPI_Iallgather_c(int r, const void *s, MPI_Count sc,
                               MPI_Datatype st, void *d, MPI_Count rc,
                               MPI_Datatype rt, MPI_Comm comm, MPI_Request *q) {
  COLL_BODY(PMPI_Iallgather_c(s, sc, st, d, rc, rt, comm, q), AG_B)
}
int sp_mpi__x_MPI_Ialltoall_c(int r, const void *s, MPI_Count sc,
                              MPI_Datatype st, void *d, MPI_Count rc,
                              MPI_Datatype rt, MPI_Comm comm, MPI_Request *q) {
  COLL_BODY(PMPI_Ialltoall_c(s, sc, st, d, rc, rt, comm, q), AG_B)
}
int sp_mpi__x_MPI_Gatherv_c(int r, const void *s, MPI_Count sc, MPI_Datatype st,
                            void *d, const MPI_Count rcs[],
                            const MPI_Aint dis[], MPI_Datatype rt, int root,
                            MPI_Comm comm) {
  COLL_BODY(PMPI_Gatherv_c(s, sc, st, d, rcs, dis, rt, root, comm), root,
            me == root ? 0 : (int64_t)sc * sp_mpi__tsize(st),
            me == root ? sum_but_c(rcs, n, root) * sp_mpi__tsize(rt) : 0)
}
int sp_mpi__x_MPI_Scatterv_c(int r, const void *s, const MPI_Count scs[],
                             const MPI_Aint dis[], MPI_Datatype st, void *d,
                             MPI_Count rc, MPI_Datatype rt, int root,
                             MPI_Comm comm) {
  COLL_BODY(PMPI_Scatterv_c(s, scs, dis, st, d, rc, rt, root, comm), root,
            me == root ? sum_but_c(scs, n, root) * sp_mpi__tsize(st) : 0,
            me == root ? 0 : (int64_t)rc * sp_mpi__tsize(rt))
}
int sp_mpi__x_MPI_Allgatherv_c(int r, const void *s, MPI_Count sc,
                               MPI_Datatype st, void *d, const MPI_Count rcs[],
                               const MPI_Aint dis[], MPI_Datatype rt,
                               MPI_Comm comm) {
  COLL_BODY(PMPI_Allgatherv_c(s, sc, st, d, rcs, dis, rt, comm), -1,
            (s == MPI_IN_PLACE ? (int64_t)rcs[me] * sp_mpi__tsize(rt)
                               : (int64_t)sc * sp_mpi__tsize(st)) *
                (n - 1),
            sum_but_c(rcs, n, me) * sp_mpi__tsize(rt))
}
int sp_mpi__x_MPI_Alltoallv_c(int r, const void *s, const MPI_Count scs[],
                              const MPI_Aint sds[], MPI_Datatype st, void *d,
                              const MPI_Count rcs[], const MPI_Aint rds[],
                              MPI_Datatype rt, MPI_Comm comm) {
  COLL_BODY(PMPI_Alltoallv_c(s, scs, sds, st, d, rcs, rds, rt, comm), -1,
            s == MPI_IN_PLACE ? sum_but_c(rcs, n, me) * sp_mpi__tsize(rt)
                              : sum_but_c(scs, n, me) * sp_mpi__tsize(st),
            sum_but_c(rcs, n, me) * sp_mpi__tsize(rt))
}
#endif

/* ---- comm_int.h: the records of calls made elsewhere (fcomm.c: the
 * Fortran bindings; persist.c: persistent requests, matched receives) ---- */

int sp_mpi__shape(MPI_Comm c, int *n, int *me) {
  comm_info *ci = sp_mpi__info_of(c);
  if (!ci)
    return -1;
  *n = ci->size;
  *me = ci->me;
  return 0;
}

void sp_mpi__rec_send(int r, int kind, int64_t count, MPI_Datatype t, int dest,
                      int tag, MPI_Comm c) {
  comm_info *ci = sp_mpi__info_of(c);
  if (ci)
    sp_mpi__one(r, kind, ci, dest, tag,
                TO(dest, (int64_t)count * sp_mpi__tsize(t)), 0);
}

void sp_mpi__rec_isend(int r, int64_t count, MPI_Datatype t, int dest, int tag,
                       MPI_Comm c, MPI_Request *req) {
  isend_like(r, MPI_SUCCESS, count, t, dest, tag, c, req);
}

void sp_mpi__rec_recv(int r, MPI_Comm c, const MPI_Status *st) {
  comm_info *ci = sp_mpi__info_of(c);
  if (ci)
    sp_mpi__one(r, SP_MPI_K_RECV, ci, st->MPI_SOURCE, st->MPI_TAG, 0,
                sp_mpi__status_bytes(st));
}

void sp_mpi__rec_irecv(int r, int source, int tag, MPI_Comm c,
                       MPI_Request *req) {
  irecv_like(r, MPI_SUCCESS, source, tag, c, req);
}

void sp_mpi__rec_coll(int r, MPI_Comm c, int root, int64_t sent,
                      int64_t recvd) {
  coll(r, MPI_SUCCESS, sp_mpi__info_of(c), root, sent, recvd);
}

void sp_mpi__handles_freed(void) {
  atomic_fetch_add(&sp_mpi__comm_gen, 1);
  atomic_fetch_add(&sp_mpi__type_gen, 1);
}
