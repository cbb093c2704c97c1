/* runtime.c - libscopeprof_mpi.so's share of the runtime, the only code that
 * knows MPI: the rank, MPI_Finalize and MPI_Abort (C and Fortran), one clock
 * for the job (offsets to rank 0 at MPI_Init and MPI_Finalize) and SP_MERGE's
 * messages, through typed PMPI calls (sp_mpi_hooks.h). */
#include "layer.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

/* ---- the rank ----
 * The PMPI names: the runtime's own questions are not the program's MPI
 * calls, and the recording wrappers must not see them. */
static int query(int *rank, int *size) {
  int ini = 0, fin = 1;
  if (PMPI_Initialized(&ini) != MPI_SUCCESS || !ini ||
      PMPI_Finalized(&fin) != MPI_SUCCESS || fin)
    return -1;
  if (PMPI_Comm_rank(MPI_COMM_WORLD, rank) != MPI_SUCCESS ||
      PMPI_Comm_size(MPI_COMM_WORLD, size) != MPI_SUCCESS)
    return -1;
  return 0;
}

/* Rank and size seen while MPI was alive, for a finalize that runs after
 * MPI_Finalize (at exit): captured at MPI_Init and MPI_Finalize. */
static int captured, captured_rank = -1, captured_size = -1;

static void capture_rank(void) {
  int r, s;
  if (!captured && query(&r, &s) == 0) {
    captured_rank = r;
    captured_size = s;
    captured = 1;
  }
}

static int rank_seen(int *rank, int *size) {
  if (query(rank, size) == 0)
    return 0;
  if (!captured)
    return -1;
  *rank = captured_rank;
  *size = captured_size;
  return 0;
}

/* ---- bytes between ranks, on MPI_COMM_WORLD ---- */
_Static_assert(sizeof(MPI_Request) <= sizeof(sp__mpi_req),
               "sp__mpi_req holds an MPI_Request");

static MPI_Request *req_of(sp__mpi_req *r) {
  return (MPI_Request *)(void *)r->opaque;
}

static int p2p_send(const void *buf, int len, int dst, int tag) {
  return PMPI_Send(buf, len, MPI_BYTE, dst, tag, MPI_COMM_WORLD) == MPI_SUCCESS
             ? 0
             : -1;
}

static int p2p_isend(const void *buf, int len, int dst, int tag,
                     sp__mpi_req *req) {
  memset(req, 0, sizeof *req);
  return PMPI_Isend(buf, len, MPI_BYTE, dst, tag, MPI_COMM_WORLD,
                    req_of(req)) == MPI_SUCCESS
             ? 0
             : -1;
}

static int p2p_irecv(void *buf, int len, int src, int tag, sp__mpi_req *req) {
  memset(req, 0, sizeof *req);
  return PMPI_Irecv(buf, len, MPI_BYTE, src, tag, MPI_COMM_WORLD,
                    req_of(req)) == MPI_SUCCESS
             ? 0
             : -1;
}

static int p2p_test(sp__mpi_req *req, int *done) {
  return PMPI_Test(req_of(req), done, MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0
                                                                        : -1;
}

static void p2p_cancel(sp__mpi_req *req) {
  PMPI_Cancel(req_of(req));
  PMPI_Wait(req_of(req), MPI_STATUS_IGNORE);
}

static void p2p_request_free(sp__mpi_req *req) {
  PMPI_Request_free(req_of(req));
}

static const sp__mpi_ops ops = {SP_MPI_HOOKS_VERSION,
                                query,
                                rank_seen,
                                p2p_send,
                                p2p_isend,
                                p2p_irecv,
                                p2p_test,
                                p2p_cancel,
                                p2p_request_free,
                                sp_mpi__h5mpi_load};

/* At load (after libscopeprof's own constructor: the layer depends on
 * it): from now on the runtime asks MPI through the layer. */
__attribute__((constructor)) static void register_ops(void) {
  sp__mpi_register(&ops);
}

/* ---- one clock for the job ----
 * Each rank measures the offset of its clock to rank 0's with a ping-pong:
 * it sends, rank 0 answers with its own time, and the exchange with the
 * shortest round trip gives offset = rank 0's time - the midpoint of the
 * round trip (wrong by at most half that round trip). A rank exchanges
 * SYNC_ROUNDS times, and on up to SYNC_MAX_ROUNDS while the last
 * SYNC_CALM exchanges found a shorter round trip: on a busy node an
 * exchange is fast only while both processes happen to run. The messages
 * go through the PMPI names on MPI_COMM_WORLD with a tag of their own,
 * during MPI_Init and MPI_Finalize only, when the program can have no
 * receive posted that could take them. A rank first sends which clock it
 * reads (sp__mpi_clock_id) and rank 0 answers with its own: a rank of rank
 * 0's node reads rank 0's clock itself, and its offset is then 0 exactly,
 * where a ping-pong on a busy node can be off by hundreds of us. */
#define SYNC_TAG 32701 /* below MPI_TAG_UB's least value, 32767 */
#define SYNC_ROUNDS 16
#define SYNC_MAX_ROUNDS 128
#define SYNC_CALM 16
#define SYNC_DONE (-1) /* a rank's last message: no more pings */
#define SP__STR_(x) #x
#define SP__STR(x) SP__STR_(x)
#define SYNC_METHOD                                                            \
  "MPI ping-pong with rank 0, shortest of " SP__STR(SYNC_ROUNDS) "-" SP__STR(  \
      SYNC_MAX_ROUNDS) " round trips"
#define SYNC_SAME "rank 0's own clock (CLOCK_MONOTONIC of one kernel): offset 0"
#define SYNC_WAIT_NS INT64_C(60000000000)

/* Timeouts run on the raw clock, not the runtime's (which tests skew). */
static int64_t raw_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* How long a rank waits for another: SYNC_WAIT_NS, or at MPI_Finalize
 * under SP_MERGE the merge's own timeout when shorter: a rank that died
 * before MPI_Finalize then costs the survivors the timeout the user chose
 * for the merge, not SYNC_WAIT_NS on top of it. */
static int64_t sync_wait_ns = SYNC_WAIT_NS;

/* One int64 from rank src, waiting at most sync_wait_ns: a rank that does
 * not take part (another program of an MPMD job, SP_ENABLE=0 there) costs
 * a wait, never a hang. */
static int recv_within(int64_t *v, int src, int yield) {
  sp__mpi_req req;
  int flag = 0;
  if (p2p_irecv(v, 8, src, SYNC_TAG, &req) != 0)
    return -1;
  int64_t until = raw_now() + sync_wait_ns;
  while (!flag) {
    if (p2p_test(&req, &flag) != 0)
      return -1;
    if (yield) /* waiting for its turn: leave the CPU to those exchanging */
      sched_yield();
    if (!flag && raw_now() > until) {
      p2p_cancel(&req);
      return -1;
    }
  }
  return 0;
}

static int send_to(const int64_t *v, int dst) {
  return p2p_send(v, 8, dst, SYNC_TAG);
}

typedef struct sync_result {
  int64_t offset, rtt, at; /* ns: rank 0's clock - ours, round trip, when */
  int same;                /* rank 0's clock itself: offset 0, no rtt */
} sync_result;

/* This process's sp__mpi_clock_id as a message: never SYNC_DONE. */
static int64_t clock_id(void) {
  int64_t id = (int64_t)sp__mpi_clock_id();
  return id == SYNC_DONE ? SYNC_DONE - 1 : id;
}

/* Rank 0 answers every other rank in turn; the others ask. 0, or -1 when
 * this rank got no answer. */
static int measure(int rank, int size, sync_result *out) {
  int64_t go = 0, id = clock_id();
  if (rank == 0) {
    for (int r = 1; r < size; r++) {
      int64_t theirs;
      if (recv_within(&theirs, r, 1) != 0 || theirs == SYNC_DONE ||
          send_to(&id, r) != 0)
        continue;
      for (int k = 0; k <= SYNC_MAX_ROUNDS; k++) {
        int64_t ping, t;
        if (recv_within(&ping, r, 0) != 0 || ping == SYNC_DONE)
          break;
        t = sp__mpi_now_ns();
        if (send_to(&t, r) != 0)
          break;
      }
    }
    for (int r = 1; r < size; r++)
      send_to(&go, r);
    out->offset = out->rtt = 0;
    out->at = sp__mpi_now_ns();
    return 0;
  }
  int64_t best = INT64_MAX, done = SYNC_DONE, ours;
  if (send_to(&id, 0) != 0 || recv_within(&ours, 0, 1) != 0)
    return -1;
  if (id != 0 && ours == id) {
    out->same = 1;
    out->offset = out->rtt = 0;
    out->at = sp__mpi_now_ns();
    if (send_to(&done, 0) != 0 || recv_within(&go, 0, 1) != 0)
      return -1;
    return 0;
  }
  for (int k = 0, since = 0; k < SYNC_MAX_ROUNDS; k++, since++) {
    if (k >= SYNC_ROUNDS && since >= SYNC_CALM)
      break;
    int64_t ping = k, t0, t1, t2;
    t0 = sp__mpi_now_ns();
    if (send_to(&ping, 0) != 0 || recv_within(&t1, 0, 0) != 0)
      return -1;
    t2 = sp__mpi_now_ns();
    if (t2 - t0 < best) {
      best = t2 - t0;
      out->at = t0 + best / 2;
      out->offset = t1 - out->at;
      since = -1;
    }
  }
  out->rtt = best;
  /* Then it waits, off the CPU, until rank 0 is through with every rank:
   * a rank running on (computing, or spinning in MPI) would slow the
   * others' exchanges where ranks share cores. */
  if (send_to(&done, 0) != 0 || recv_within(&go, 0, 1) != 0)
    return -1;
  return 0;
}

static void sync_phase(const char *phase) {
  int rank, size;
  if (query(&rank, &size) != 0)
    return;
  sync_result r = {0, 0, 0, 0};
  int ok =
      size < 2 ? (r.at = sp__mpi_now_ns(), 1) : measure(rank, size, &r) == 0;
  sp__mpi_clock_measured(phase, r.same ? SYNC_SAME : SYNC_METHOD, rank, ok,
                         r.offset, r.rtt, r.at, sync_wait_ns);
}

/* Whether this process took part at MPI_Init: then it takes part at
 * MPI_Finalize too, whatever happened in between (sp_finalize called
 * first), because the other ranks count on it. */
static _Atomic int synced_init, synced_fin;

static void before_finalize(void) {
  capture_rank();
  if (!atomic_load(&synced_init) || atomic_exchange(&synced_fin, 1))
    return;
  int64_t merge_wait = sp__mpi_merge_wait_ns();
  if (merge_wait > 0 && merge_wait < sync_wait_ns)
    sync_wait_ns = merge_wait;
  sync_phase("fin");
  sp__mpi_finalizing();
}

/* MPI_Finalize deletes the attributes of MPI_COMM_SELF first, while MPI
 * still works (MPI-2.2, 8.7.1): the standard's hook for a tool, reached
 * however the program calls MPI_Finalize (C or Fortran, through the
 * layer's MPI_Finalize or not). */
static int at_finalize(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm, (void)keyval, (void)value, (void)extra;
  before_finalize();
  return MPI_SUCCESS;
}

void sp_mpi__after_init(void) {
  capture_rank();
  if (!sp__mpi_recording() || atomic_exchange(&synced_init, 1))
    return;
  int keyval;
  if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &keyval,
                              NULL) == MPI_SUCCESS)
    PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL);
  sync_phase("init");
}

/* ---- MPI_Finalize, MPI_Abort ---- */

/* Notes the rank, then finalizes through PMPI_Finalize as every PMPI tool
 * does (the clock is measured again in there, by the MPI_COMM_SELF
 * attribute). Not a region: the runtime's own work happens inside. */
SP_MPI_EXPORT int MPI_Finalize(void) {
  capture_rank();
  return PMPI_Finalize();
}

/* The same from Fortran (mpif.h and use mpi; use mpi_f08), forwarded as
 * the generated entry points are (layer.h): ierror is the one argument. */
#define SP_F_ARGS(a)                                                           \
  void *a##0, void *a##1, void *a##2, void *a##3, void *a##4, void *a##5,      \
      void *a##6, void *a##7, void *a##8, void *a##9, void *a##10,             \
      void *a##11, void *a##12, void *a##13, void *a##14, void *a##15
#define SP_F_PASS(a)                                                           \
  a##0, a##1, a##2, a##3, a##4, a##5, a##6, a##7, a##8, a##9, a##10, a##11,    \
      a##12, a##13, a##14, a##15
extern void pmpi_finalize_(SP_F_ARGS(a)) __attribute__((weak));
extern void pmpi_finalize_f08_(SP_F_ARGS(a)) __attribute__((weak));

SP_MPI_EXPORT void mpi_finalize_(SP_F_ARGS(a)) {
  static sp_mpi__ffn f_;
  sp_mpi__ffn f = __atomic_load_n(&f_, __ATOMIC_RELAXED);
  if (!f)
    f = sp_mpi__fortran(&f_, pmpi_finalize_, "pmpi_finalize_");
  capture_rank();
  f(SP_F_PASS(a));
}

SP_MPI_EXPORT void mpi_finalize_f08_(SP_F_ARGS(a)) {
  static sp_mpi__ffn f_;
  sp_mpi__ffn f = __atomic_load_n(&f_, __ATOMIC_RELAXED);
  if (!f)
    f = sp_mpi__fortran_or_next(&f_, pmpi_finalize_f08_, "pmpi_finalize_f08_",
                                "mpi_finalize_f08_");
  capture_rank();
  f(SP_F_PASS(a));
}

/* MPI_Abort ends this process without exit handlers and the launcher kills
 * the others: the runtime saves this rank's calls and asks the job's other
 * ranks on the node to save theirs first. */
SP_MPI_EXPORT int MPI_Abort(MPI_Comm comm, int code) {
  sp__mpi_aborting();
  return PMPI_Abort(comm, code);
}

/* The Fortran bindings call PMPI_Abort themselves (OpenMPI's mpif.h and
 * use mpi: mpi_abort_ and its spellings; use mpi_f08: mpi_abort_f08_), so
 * they are defined here too, and go on to the same binding's PMPI name:
 * MPI converts the handle and sets ierror as it would have. Without one
 * (the Fortran library not loaded), the C call, the handle converted with
 * PMPI_Comm_f2c. type(MPI_Comm) holds one integer: passed by reference, it
 * is the integer's address; ierror is optional (NULL when absent). */
typedef void f_abort_fn(MPI_Fint *, MPI_Fint *, MPI_Fint *);
extern f_abort_fn pmpi_abort_ __attribute__((weak));
extern f_abort_fn pmpi_abort__ __attribute__((weak));
extern f_abort_fn pmpi_abort __attribute__((weak));
extern f_abort_fn PMPI_ABORT __attribute__((weak));
extern f_abort_fn pmpi_abort_f08_ __attribute__((weak));

static void fortran_abort(f_abort_fn *f, MPI_Fint *comm, MPI_Fint *code,
                          MPI_Fint *ierr) {
  sp__mpi_aborting();
  if (f) {
    f(comm, code, ierr);
    return;
  }
  int rc = PMPI_Abort(PMPI_Comm_f2c(*comm), (int)*code);
  if (ierr)
    *ierr = rc;
}

SP_MPI_EXPORT void mpi_abort_(MPI_Fint *comm, MPI_Fint *code, MPI_Fint *ierr) {
  fortran_abort(pmpi_abort_, comm, code, ierr);
}
SP_MPI_EXPORT void mpi_abort__(MPI_Fint *comm, MPI_Fint *code, MPI_Fint *ierr) {
  fortran_abort(pmpi_abort__, comm, code, ierr);
}
SP_MPI_EXPORT void mpi_abort(MPI_Fint *comm, MPI_Fint *code, MPI_Fint *ierr) {
  fortran_abort(pmpi_abort, comm, code, ierr);
}
SP_MPI_EXPORT void MPI_ABORT(MPI_Fint *comm, MPI_Fint *code, MPI_Fint *ierr) {
  fortran_abort(PMPI_ABORT, comm, code, ierr);
}
SP_MPI_EXPORT void mpi_abort_f08_(MPI_Fint *comm, MPI_Fint *code,
                                  MPI_Fint *ierr) {
  fortran_abort(pmpi_abort_f08_, comm, code, ierr);
}
