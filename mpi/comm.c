/* comm.c - what the point-to-point and collective calls sent and received:
 * bytes, partner in MPI_COMM_WORLD numbering, tag, communicator, root, a
 * receive's real source from its status at completion. The generated
 * wrappers hand these calls here (sp_mpi__x_<name>) while their region is
 * open; each makes the PMPI call and gives the runtime its records. */
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
typedef struct comm_info {
  int32_t id, size, me, inter;
  int32_t *world; /* NULL: MPI_COMM_WORLD itself */
} comm_info;

static comm_info world_info = {0, -1, -1, 0, NULL};
static _Atomic int keyval_state; /* 0 none, 1 being made, 2 made */
static int keyval;
static _Atomic int32_t next_id = 1;

static comm_info *world_get(void) {
  if (__atomic_load_n(&world_info.size, __ATOMIC_ACQUIRE) >= 0)
    return &world_info;
  int size, me;
  if (PMPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS ||
      PMPI_Comm_rank(MPI_COMM_WORLD, &me) != MPI_SUCCESS)
    return NULL;
  world_info.me = me;
  int32_t *ids = malloc((size_t)size * sizeof *ids);
  if (ids) {
    for (int i = 0; i < size; i++)
      ids[i] = i;
    sp__mpi_comm(0, size, ids);
    free(ids);
  }
  __atomic_store_n(&world_info.size, size, __ATOMIC_RELEASE);
  return &world_info;
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
static comm_info *info_slow(MPI_Comm c) {
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

/* A thread's last communicator other than MPI_COMM_WORLD, kept until the
 * layer sees a communicator freed (its handle may come back as another). */
static _Atomic unsigned comm_gen;
static __thread __attribute__((tls_model("initial-exec"))) struct {
  MPI_Comm c;
  comm_info *ci;
  unsigned gen;
} last_comm;

static inline comm_info *info_of(MPI_Comm c) {
  if (c == MPI_COMM_WORLD &&
      __atomic_load_n(&world_info.size, __ATOMIC_ACQUIRE) >= 0)
    return &world_info;
  unsigned gen = atomic_load_explicit(&comm_gen, memory_order_relaxed);
  if (last_comm.ci && last_comm.c == c && last_comm.gen == gen)
    return last_comm.ci;
  comm_info *ci = info_slow(c);
  if (ci && c != MPI_COMM_WORLD) {
    last_comm.c = c;
    last_comm.ci = ci;
    last_comm.gen = gen;
  }
  return ci;
}

int sp_mpi__x_MPI_Comm_free(int r, MPI_Comm *c) {
  (void)r;
  atomic_fetch_add(&comm_gen, 1);
  return PMPI_Comm_free(c);
}

int sp_mpi__x_MPI_Comm_disconnect(int r, MPI_Comm *c) {
  (void)r;
  atomic_fetch_add(&comm_gen, 1);
  return PMPI_Comm_disconnect(c);
}

static int32_t world_of(const comm_info *ci, int r) {
  if (r == MPI_PROC_NULL || r == MPI_ROOT)
    return SP_MPI_NONE;
  if (r == MPI_ANY_SOURCE)
    return SP_MPI_ANY;
  if (r < 0 || r >= ci->size)
    return SP_MPI_NONE;
  return ci->world ? ci->world[r] : r;
}

/* A type's size, asked of MPI once per run of calls with one type: a
 * thread's last type is kept until the layer sees any MPI_Type_free (a
 * freed handle may come back as another type). */
static _Atomic unsigned type_gen;
static __thread __attribute__((tls_model("initial-exec"))) struct {
  MPI_Datatype t;
  int64_t size;
  unsigned gen;
  int valid;
} last_type;

static int64_t tsize_slow(MPI_Datatype t) {
  int s = 0;
  if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &s) != MPI_SUCCESS ||
      s == MPI_UNDEFINED)
    return 0;
  last_type.t = t;
  last_type.size = s;
  last_type.gen = atomic_load_explicit(&type_gen, memory_order_relaxed);
  last_type.valid = 1;
  return s;
}

static inline int64_t tsize(MPI_Datatype t) {
  if (last_type.valid && last_type.t == t &&
      last_type.gen == atomic_load_explicit(&type_gen, memory_order_relaxed))
    return last_type.size;
  return tsize_slow(t);
}

int sp_mpi__x_MPI_Type_free(int r, MPI_Datatype *t) {
  (void)r;
  atomic_fetch_add(&type_gen, 1);
  return PMPI_Type_free(t);
}

/* ---- records ---- */

/* Bytes for dest: none for MPI_PROC_NULL, where nothing goes. */
#define TO(dest, bytes) ((dest) == MPI_PROC_NULL ? 0 : (bytes))

static inline void one(int r, int kind, const comm_info *ci, int peer, int tag,
                       int64_t sent, int64_t recvd) {
  sp__mpi_msg m = {.origin = 0,
                   .region = r,
                   .origin_region = -1,
                   .kind = kind,
                   .peer = world_of(ci, peer),
                   .tag = tag,
                   .comm = ci->id,
                   .root = -1,
                   .reserved = 0,
                   .sent = sent,
                   .recvd = recvd};
  sp__mpi_note(r, &m, 1);
}

static int send_like(int r, int ret, int kind, int count, MPI_Datatype type,
                     int dest, int tag, MPI_Comm comm) {
  comm_info *ci;
  if (ret == MPI_SUCCESS && (ci = info_of(comm)))
    one(r, kind, ci, dest, tag, TO(dest, (int64_t)count * tsize(type)), 0);
  return ret;
}

static int64_t status_bytes(const MPI_Status *st) {
  int n = 0;
  if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED)
    return 0;
  return n;
}

#define SEND_FN(name, kind)                                                    \
  int sp_mpi__x_##name(int r, const void *buf, int count, MPI_Datatype type,   \
                       int dest, int tag, MPI_Comm comm) {                     \
    return send_like(r, P##name(buf, count, type, dest, tag, comm), kind,      \
                     count, type, dest, tag, comm);                            \
  }
SEND_FN(MPI_Send, SP_MPI_K_SEND)
SEND_FN(MPI_Ssend, SP_MPI_K_SEND)
SEND_FN(MPI_Bsend, SP_MPI_K_SEND)
SEND_FN(MPI_Rsend, SP_MPI_K_SEND)

static void isend_like(int r, int ret, int count, MPI_Datatype type, int dest,
                       int tag, MPI_Comm comm, MPI_Request *req);
#define ISEND_FN(name)                                                         \
  int sp_mpi__x_##name(int r, const void *buf, int count, MPI_Datatype type,   \
                       int dest, int tag, MPI_Comm comm, MPI_Request *req) {   \
    int ret = P##name(buf, count, type, dest, tag, comm, req);                 \
    isend_like(r, ret, count, type, dest, tag, comm, req);                     \
    return ret;                                                                \
  }
ISEND_FN(MPI_Isend)
ISEND_FN(MPI_Issend)
ISEND_FN(MPI_Ibsend)
ISEND_FN(MPI_Irsend)

int sp_mpi__x_MPI_Recv(int r, void *buf, int count, MPI_Datatype type,
                       int source, int tag, MPI_Comm comm, MPI_Status *st) {
  MPI_Status own;
  if (st == MPI_STATUS_IGNORE)
    st = &own;
  int ret = PMPI_Recv(buf, count, type, source, tag, comm, st);
  comm_info *ci;
  if (ret == MPI_SUCCESS && (ci = info_of(comm)))
    one(r, SP_MPI_K_RECV, ci, st->MPI_SOURCE, st->MPI_TAG, 0, status_bytes(st));
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
  if (ret == MPI_SUCCESS && (ci = info_of(comm))) {
    sp__mpi_msg m[2] = {{0}, {0}};
    for (int i = 0; i < 2; i++) {
      m[i].region = r;
      m[i].origin_region = -1;
      m[i].comm = ci->id;
      m[i].root = -1;
    }
    m[0].kind = SP_MPI_K_SEND;
    m[0].peer = world_of(ci, dest);
    m[0].tag = stag;
    m[0].sent = TO(dest, (int64_t)scount * tsize(stype));
    m[1].kind = SP_MPI_K_RECV;
    m[1].peer = world_of(ci, st->MPI_SOURCE);
    m[1].tag = st->MPI_TAG;
    m[1].recvd = status_bytes(st);
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
  if (ret == MPI_SUCCESS && (ci = info_of(comm))) {
    one(r, SP_MPI_K_SEND, ci, dest, stag,
        TO(dest, (int64_t)count * tsize(type)), 0);
    one(r, SP_MPI_K_RECV, ci, st->MPI_SOURCE, st->MPI_TAG, 0, status_bytes(st));
  }
  return ret;
}

/* ---- nonblocking receives and sends: this thread's requests in flight ----
 * Open addressing over the request's value; a request completed on
 * another thread than the one that began it is not found there, and its
 * completion goes unrecorded (the send side still counts the message). */
typedef struct pending {
  uint64_t key; /* 0: empty */
  uint64_t start;
  int32_t region;
  int32_t send;      /* 1: a send's, with its partner (world rank) and tag */
  int32_t peer, tag; /* (a receive's come from its status) */
  const comm_info *ci;
} pending;

typedef struct ptable {
  pending *slot;
  uint64_t cap, n; /* cap a power of two */
  MPI_Request *reqs;
  MPI_Status *sts;
  uint64_t scratch; /* entries of reqs and sts */
} ptable;

static __thread __attribute__((tls_model("initial-exec"))) ptable pt;

static uint64_t req_key(MPI_Request q) {
  uint64_t k = 0;
  memcpy(&k, &q, sizeof q < sizeof k ? sizeof q : sizeof k);
  return k;
}

static uint64_t hash_key(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return k;
}

static void ptable_put(uint64_t key, uint64_t start, int32_t region,
                       const comm_info *ci, int32_t send, int32_t peer,
                       int32_t tag) {
  if (!key)
    return;
  if ((pt.n + 1) * 2 > pt.cap) {
    uint64_t cap = pt.cap ? pt.cap * 2 : 256;
    pending *s = calloc(cap, sizeof *s);
    if (!s)
      return;
    for (uint64_t i = 0; i < pt.cap; i++)
      if (pt.slot[i].key) {
        uint64_t j = hash_key(pt.slot[i].key) & (cap - 1);
        while (s[j].key)
          j = (j + 1) & (cap - 1);
        s[j] = pt.slot[i];
      }
    free(pt.slot);
    pt.slot = s;
    pt.cap = cap;
  }
  /* A receive's request replaces a stale one of the same value; sends may
   * share one (OpenMPI hands every send it completed at once the same
   * empty request), each an entry of its own. */
  uint64_t j = hash_key(key) & (pt.cap - 1);
  while (pt.slot[j].key && (send || pt.slot[j].key != key || pt.slot[j].send))
    j = (j + 1) & (pt.cap - 1);
  if (!pt.slot[j].key)
    pt.n++;
  pt.slot[j] = (pending){key, start, region, send, peer, tag, ci};
}

/* Takes key's entry out, the earliest begun of several (backward shift:
 * no tombstones); 0 if none. */
static int ptable_take(uint64_t key, pending *out) {
  if (!pt.n || !key)
    return 0;
  uint64_t mask = pt.cap - 1, j = UINT64_MAX;
  for (uint64_t k = hash_key(key) & mask; pt.slot[k].key; k = (k + 1) & mask)
    if (pt.slot[k].key == key &&
        (j == UINT64_MAX || pt.slot[k].start < pt.slot[j].start))
      j = k;
  if (j == UINT64_MAX)
    return 0;
  *out = pt.slot[j];
  uint64_t hole = j;
  for (uint64_t k = (j + 1) & mask; pt.slot[k].key; k = (k + 1) & mask) {
    uint64_t home = hash_key(pt.slot[k].key) & mask;
    /* k's entry may move into the hole unless its home lies after it */
    if (((k - home) & mask) >= ((k - hole) & mask)) {
      pt.slot[hole] = pt.slot[k];
      hole = k;
    }
  }
  pt.slot[hole].key = 0;
  pt.n--;
  return 1;
}

/* A nonblocking receive's record; its request kept for the completion. */
static void irecv_like(int r, int ret, int source, int tag, MPI_Comm comm,
                       MPI_Request *req) {
  comm_info *ci;
  if (ret == MPI_SUCCESS && (ci = info_of(comm))) {
    sp__mpi_msg m = {0};
    m.region = r;
    m.origin_region = -1;
    m.kind = SP_MPI_K_IRECV;
    m.peer = world_of(ci, source);
    m.tag = tag;
    m.comm = ci->id;
    m.root = -1;
    uint64_t start = sp__mpi_note(r, &m, 1);
    if (start)
      ptable_put(req_key(*req), start, r, ci, 0, 0, 0);
  }
}

int sp_mpi__x_MPI_Irecv(int r, void *buf, int count, MPI_Datatype type,
                        int source, int tag, MPI_Comm comm, MPI_Request *req) {
  int ret = PMPI_Irecv(buf, count, type, source, tag, comm, req);
  irecv_like(r, ret, source, tag, comm, req);
  return ret;
}

/* A nonblocking send's record; its request kept, so that the call that
 * completes it says when (SP_MPI_K_WAITSEND: late receiver). */
static void isend_like(int r, int ret, int count, MPI_Datatype type, int dest,
                       int tag, MPI_Comm comm, MPI_Request *req) {
  comm_info *ci;
  if (ret != MPI_SUCCESS || !(ci = info_of(comm)))
    return;
  sp__mpi_msg m = {0};
  m.region = r;
  m.origin_region = -1;
  m.kind = SP_MPI_K_ISEND;
  m.peer = world_of(ci, dest);
  m.tag = tag;
  m.comm = ci->id;
  m.root = -1;
  m.sent = TO(dest, (int64_t)count * tsize(type));
  uint64_t start = sp__mpi_note(r, &m, 1);
  if (start && dest != MPI_PROC_NULL)
    ptable_put(req_key(*req), start, r, ci, 1, m.peer, tag);
}

/* Request key completed by call r with status st: its receive's record,
 * or its send's. */
static void completed(int r, uint64_t key, const MPI_Status *st) {
  pending p;
  int cancelled = 0;
  if (!ptable_take(key, &p) ||
      (PMPI_Test_cancelled(st, &cancelled) == MPI_SUCCESS && cancelled))
    return; /* a cancelled request moved nothing */
  sp__mpi_msg m = {0};
  m.origin = p.start;
  m.region = r;
  m.origin_region = p.region;
  m.kind = p.send ? SP_MPI_K_WAITSEND : SP_MPI_K_WAITRECV;
  m.peer = p.send ? p.peer : world_of(p.ci, st->MPI_SOURCE);
  m.tag = p.send ? p.tag : st->MPI_TAG;
  m.comm = p.ci->id;
  m.root = -1;
  m.recvd = p.send ? 0 : status_bytes(st);
  sp__mpi_note(r, &m, 1);
}

/* n requests copied (their values change when they complete) and statuses
 * for a caller that ignores them, in this thread's scratch. */
static int scratch(int n) {
  if ((uint64_t)n <= pt.scratch)
    return 0;
  uint64_t cap = (uint64_t)n < 64 ? 64 : (uint64_t)n;
  MPI_Request *q = malloc(cap * sizeof *q);
  MPI_Status *s = malloc(cap * sizeof *s);
  if (!q || !s) {
    free(q);
    free(s);
    return -1;
  }
  free(pt.reqs);
  free(pt.sts);
  pt.reqs = q, pt.sts = s, pt.scratch = cap;
  return 0;
}

int sp_mpi__x_MPI_Wait(int r, MPI_Request *req, MPI_Status *st) {
  if (!pt.n)
    return PMPI_Wait(req, st);
  MPI_Status own;
  if (st == MPI_STATUS_IGNORE)
    st = &own;
  uint64_t key = req_key(*req);
  int ret = PMPI_Wait(req, st);
  if (ret == MPI_SUCCESS)
    completed(r, key, st);
  return ret;
}

int sp_mpi__x_MPI_Test(int r, MPI_Request *req, int *flag, MPI_Status *st) {
  if (!pt.n)
    return PMPI_Test(req, flag, st);
  MPI_Status own;
  if (st == MPI_STATUS_IGNORE)
    st = &own;
  uint64_t key = req_key(*req);
  int ret = PMPI_Test(req, flag, st);
  if (ret == MPI_SUCCESS && *flag)
    completed(r, key, st);
  return ret;
}

int sp_mpi__x_MPI_Waitany(int r, int n, MPI_Request reqs[], int *index,
                          MPI_Status *st) {
  if (!pt.n || n <= 0 || scratch(n) != 0)
    return PMPI_Waitany(n, reqs, index, st);
  MPI_Status own;
  if (st == MPI_STATUS_IGNORE)
    st = &own;
  memcpy(pt.reqs, reqs, (size_t)n * sizeof *reqs);
  int ret = PMPI_Waitany(n, reqs, index, st);
  if (ret == MPI_SUCCESS && *index != MPI_UNDEFINED && *index >= 0 &&
      *index < n)
    completed(r, req_key(pt.reqs[*index]), st);
  return ret;
}

int sp_mpi__x_MPI_Testany(int r, int n, MPI_Request reqs[], int *index,
                          int *flag, MPI_Status *st) {
  if (!pt.n || n <= 0 || scratch(n) != 0)
    return PMPI_Testany(n, reqs, index, flag, st);
  MPI_Status own;
  if (st == MPI_STATUS_IGNORE)
    st = &own;
  memcpy(pt.reqs, reqs, (size_t)n * sizeof *reqs);
  int ret = PMPI_Testany(n, reqs, index, flag, st);
  if (ret == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED && *index >= 0 &&
      *index < n)
    completed(r, req_key(pt.reqs[*index]), st);
  return ret;
}

int sp_mpi__x_MPI_Waitall(int r, int n, MPI_Request reqs[], MPI_Status sts[]) {
  if (!pt.n || n <= 0 || scratch(n) != 0)
    return PMPI_Waitall(n, reqs, sts);
  if (sts == MPI_STATUSES_IGNORE)
    sts = pt.sts;
  memcpy(pt.reqs, reqs, (size_t)n * sizeof *reqs);
  int ret = PMPI_Waitall(n, reqs, sts);
  if (ret == MPI_SUCCESS)
    for (int i = 0; i < n; i++)
      completed(r, req_key(pt.reqs[i]), &sts[i]);
  return ret;
}

int sp_mpi__x_MPI_Testall(int r, int n, MPI_Request reqs[], int *flag,
                          MPI_Status sts[]) {
  if (!pt.n || n <= 0 || scratch(n) != 0)
    return PMPI_Testall(n, reqs, flag, sts);
  if (sts == MPI_STATUSES_IGNORE)
    sts = pt.sts;
  memcpy(pt.reqs, reqs, (size_t)n * sizeof *reqs);
  int ret = PMPI_Testall(n, reqs, flag, sts);
  if (ret == MPI_SUCCESS && *flag)
    for (int i = 0; i < n; i++)
      completed(r, req_key(pt.reqs[i]), &sts[i]);
  return ret;
}

static void some(int r, int n, int out, const int idx[],
                 const MPI_Status sts[]) {
  if (out == MPI_UNDEFINED)
    return;
  for (int i = 0; i < out; i++)
    if (idx[i] >= 0 && idx[i] < n)
      completed(r, req_key(pt.reqs[idx[i]]), &sts[i]);
}

int sp_mpi__x_MPI_Waitsome(int r, int n, MPI_Request reqs[], int *out,
                           int idx[], MPI_Status sts[]) {
  if (!pt.n || n <= 0 || scratch(n) != 0)
    return PMPI_Waitsome(n, reqs, out, idx, sts);
  if (sts == MPI_STATUSES_IGNORE)
    sts = pt.sts;
  memcpy(pt.reqs, reqs, (size_t)n * sizeof *reqs);
  int ret = PMPI_Waitsome(n, reqs, out, idx, sts);
  if (ret == MPI_SUCCESS)
    some(r, n, *out, idx, sts);
  return ret;
}

int sp_mpi__x_MPI_Testsome(int r, int n, MPI_Request reqs[], int *out,
                           int idx[], MPI_Status sts[]) {
  if (!pt.n || n <= 0 || scratch(n) != 0)
    return PMPI_Testsome(n, reqs, out, idx, sts);
  if (sts == MPI_STATUSES_IGNORE)
    sts = pt.sts;
  memcpy(pt.reqs, reqs, (size_t)n * sizeof *reqs);
  int ret = PMPI_Testsome(n, reqs, out, idx, sts);
  if (ret == MPI_SUCCESS)
    some(r, n, *out, idx, sts);
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
  m.root = root < 0 ? -1 : world_of(ci, root);
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
  comm_info *ci = ret == MPI_SUCCESS ? info_of(comm) : NULL;                   \
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
  root, me == root ? (int64_t)c *tsize(t) * (n - 1) : 0,                       \
      me == root ? 0 : (int64_t)c *tsize(t)
int sp_mpi__x_MPI_Bcast(int r, void *buf, int c, MPI_Datatype t, int root,
                        MPI_Comm comm) {
  COLL_BODY(PMPI_Bcast(buf, c, t, root, comm), BCAST_B(c, t))
}
int sp_mpi__x_MPI_Ibcast(int r, void *buf, int c, MPI_Datatype t, int root,
                         MPI_Comm comm, MPI_Request *q) {
  COLL_BODY(PMPI_Ibcast(buf, c, t, root, comm, q), BCAST_B(c, t))
}

#define REDUCE_B(c, t)                                                         \
  root, me == root ? 0 : (int64_t)c *tsize(t),                                 \
      me == root ? (int64_t)c *tsize(t) * (n - 1) : 0
int sp_mpi__x_MPI_Reduce(int r, const void *s, void *d, int c, MPI_Datatype t,
                         MPI_Op op, int root, MPI_Comm comm) {
  COLL_BODY(PMPI_Reduce(s, d, c, t, op, root, comm), REDUCE_B(c, t))
}
int sp_mpi__x_MPI_Ireduce(int r, const void *s, void *d, int c, MPI_Datatype t,
                          MPI_Op op, int root, MPI_Comm comm, MPI_Request *q) {
  COLL_BODY(PMPI_Ireduce(s, d, c, t, op, root, comm, q), REDUCE_B(c, t))
}

#define ALL_B(c, t)                                                            \
  -1, (int64_t)c *tsize(t) * (n - 1), (int64_t)c *tsize(t) * (n - 1)
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
  -1, sum_but(cs, n, me) * tsize(t), (int64_t)cs[me] * tsize(t) * (n - 1)
int sp_mpi__x_MPI_Reduce_scatter(int r, const void *s, void *d, const int cs[],
                                 MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  COLL_BODY(PMPI_Reduce_scatter(s, d, cs, t, op, comm), RS_B(cs, t))
}

#define SCAN_B(c, t)                                                           \
  -1, (int64_t)c *tsize(t) * (n - 1 - me), (int64_t)c *tsize(t) * me
int sp_mpi__x_MPI_Scan(int r, const void *s, void *d, int c, MPI_Datatype t,
                       MPI_Op op, MPI_Comm comm) {
  COLL_BODY(PMPI_Scan(s, d, c, t, op, comm), SCAN_B(c, t))
}
int sp_mpi__x_MPI_Exscan(int r, const void *s, void *d, int c, MPI_Datatype t,
                         MPI_Op op, MPI_Comm comm) {
  COLL_BODY(PMPI_Exscan(s, d, c, t, op, comm), SCAN_B(c, t))
}

#define GATHER_B                                                               \
  root, me == root ? 0 : (int64_t)sc *tsize(st),                               \
      me == root ? (int64_t)rc *tsize(rt) * (n - 1) : 0
int sp_mpi__x_MPI_Gather(int r, const void *s, int sc, MPI_Datatype st, void *d,
                         int rc, MPI_Datatype rt, int root, MPI_Comm comm) {
  COLL_BODY(PMPI_Gather(s, sc, st, d, rc, rt, root, comm), GATHER_B)
}
int sp_mpi__x_MPI_Igather(int r, const void *s, int sc, MPI_Datatype st,
                          void *d, int rc, MPI_Datatype rt, int root,
                          MPI_Comm comm, MPI_Request *q) {
  COLL_BODY(PMPI_Igather(s, sc, st, d, rc, rt, root, comm, q), GATHER_B)
}
int sp_mpi__x_MPI_Gatherv(int r, const void *s, int sc, MPI_Datatype st,
                          void *d, const int rcs[], const int dis[],
                          MPI_Datatype rt, int root, MPI_Comm comm) {
  COLL_BODY(PMPI_Gatherv(s, sc, st, d, rcs, dis, rt, root, comm), root,
            me == root ? 0 : (int64_t)sc * tsize(st),
            me == root ? sum_but(rcs, n, root) * tsize(rt) : 0)
}

#define SCATTER_B                                                              \
  root, me == root ? (int64_t)sc *tsize(st) * (n - 1) : 0,                     \
      me == root ? 0 : (int64_t)rc *tsize(rt)
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
int sp_mpi__x_MPI_Scatterv(int r, const void *s, const int scs[],
                           const int dis[], MPI_Datatype st, void *d, int rc,
                           MPI_Datatype rt, int root, MPI_Comm comm) {
  COLL_BODY(PMPI_Scatterv(s, scs, dis, st, d, rc, rt, root, comm), root,
            me == root ? sum_but(scs, n, root) * tsize(st) : 0,
            me == root ? 0 : (int64_t)rc * tsize(rt))
}

/* MPI_IN_PLACE: a rank's own contribution is already in the receive
 * buffer, described by the receive count and type. */
#define AG_B                                                                   \
  -1,                                                                          \
      (s == MPI_IN_PLACE ? (int64_t)rc * tsize(rt)                             \
                         : (int64_t)sc * tsize(st)) *                          \
          (n - 1),                                                             \
      (int64_t)rc *tsize(rt) * (n - 1)
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
int sp_mpi__x_MPI_Allgatherv(int r, const void *s, int sc, MPI_Datatype st,
                             void *d, const int rcs[], const int dis[],
                             MPI_Datatype rt, MPI_Comm comm) {
  COLL_BODY(PMPI_Allgatherv(s, sc, st, d, rcs, dis, rt, comm), -1,
            (s == MPI_IN_PLACE ? (int64_t)rcs[me] * tsize(rt)
                               : (int64_t)sc * tsize(st)) *
                (n - 1),
            sum_but(rcs, n, me) * tsize(rt))
}
int sp_mpi__x_MPI_Alltoallv(int r, const void *s, const int scs[],
                            const int sds[], MPI_Datatype st, void *d,
                            const int rcs[], const int rds[], MPI_Datatype rt,
                            MPI_Comm comm) {
  COLL_BODY(PMPI_Alltoallv(s, scs, sds, st, d, rcs, rds, rt, comm), -1,
            s == MPI_IN_PLACE ? sum_but(rcs, n, me) * tsize(rt)
                              : sum_but(scs, n, me) * tsize(st),
            sum_but(rcs, n, me) * tsize(rt))
}

static int64_t sum_w(const int counts[], const MPI_Datatype types[], int n,
                     int skip) {
  int64_t s = 0;
  for (int i = 0; i < n; i++)
    if (i != skip)
      s += (int64_t)counts[i] * tsize(types[i]);
  return s;
}
int sp_mpi__x_MPI_Alltoallw(int r, const void *s, const int scs[],
                            const int sds[], const MPI_Datatype sts[], void *d,
                            const int rcs[], const int rds[],
                            const MPI_Datatype rts[], MPI_Comm comm){
    COLL_BODY(PMPI_Alltoallw(s, scs, sds, sts, d, rcs, rds, rts, comm), -1,
              s == MPI_IN_PLACE ? sum_w(rcs, rts, n, me)
                                : sum_w(scs, sts, n, me),
              sum_w(rcs, rts, n, me))}

/* ---- comm_int.h: the records of calls made elsewhere (fcomm.c: the
 * Fortran bindings; persist.c: persistent requests, matched receives) ---- */

int64_t sp_mpi__tsize(MPI_Datatype t) {
  return tsize(t);
}

int sp_mpi__shape(MPI_Comm c, int *n, int *me) {
  comm_info *ci = info_of(c);
  if (!ci)
    return -1;
  *n = ci->size;
  *me = ci->me;
  return 0;
}

void sp_mpi__rec_send(int r, int kind, int count, MPI_Datatype t, int dest,
                      int tag, MPI_Comm c) {
  send_like(r, MPI_SUCCESS, kind, count, t, dest, tag, c);
}

void sp_mpi__rec_isend(int r, int count, MPI_Datatype t, int dest, int tag,
                       MPI_Comm c, MPI_Request *req) {
  isend_like(r, MPI_SUCCESS, count, t, dest, tag, c, req);
}

void sp_mpi__rec_recv(int r, MPI_Comm c, const MPI_Status *st) {
  comm_info *ci = info_of(c);
  if (ci)
    one(r, SP_MPI_K_RECV, ci, st->MPI_SOURCE, st->MPI_TAG, 0, status_bytes(st));
}

void sp_mpi__rec_irecv(int r, int source, int tag, MPI_Comm c,
                       MPI_Request *req) {
  irecv_like(r, MPI_SUCCESS, source, tag, c, req);
}

int sp_mpi__pending(void) { return pt.n != 0; }

void sp_mpi__rec_done(int r, MPI_Request before, const MPI_Status *st) {
  completed(r, req_key(before), st);
}

void sp_mpi__rec_forget(MPI_Request q) {
  pending p;
  if (pt.n)
    ptable_take(req_key(q), &p);
}

void sp_mpi__rec_coll(int r, MPI_Comm c, int root, int64_t sent,
                      int64_t recvd) {
  coll(r, MPI_SUCCESS, info_of(c), root, sent, recvd);
}

void sp_mpi__handles_freed(void) {
  atomic_fetch_add(&comm_gen, 1);
  atomic_fetch_add(&type_gen, 1);
}
