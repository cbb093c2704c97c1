/* mpi.c - the rank and size from MPI itself, for launchers that export none
 * of the usual variables, the rank finalize settles on, and one clock for
 * the job (offsets to rank 0 measured at MPI_Init and MPI_Finalize). MPI is
 * found with dlsym: the runtime never links it. */
#include "internal.h"
#include "sp_mpi_hooks.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int (*flag_fn)(int *);
typedef int (*comm_fn)(void *, int *);

/* MPI_COMM_WORLD: OpenMPI's is the address of a global; the MPICH ABI
 * (MPICH, Intel MPI, MVAPICH, Cray MPICH) uses the integer 0x44000000. */
static void *comm_world(void) {
  void *ompi = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world");
  return ompi ? ompi : (void *)(uintptr_t)0x44000000;
}

/* The PMPI names: the runtime's own questions are not the program's MPI
 * calls, and an MPI call recorder (libscopeprof_mpi.so) must not see them. */
int sp__mpi_query(int *rank, int *size) {
  flag_fn initialized =
      (flag_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "PMPI_Initialized");
  flag_fn finalized = (flag_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "PMPI_Finalized");
  comm_fn comm_rank = (comm_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "PMPI_Comm_rank");
  comm_fn comm_size = (comm_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "PMPI_Comm_size");
  int ini = 0, fin = 1;
  if (!initialized || !finalized || !comm_rank || !comm_size)
    return -1;
  if (initialized(&ini) != 0 || !ini || finalized(&fin) != 0 || fin)
    return -1;
  void *world = comm_world();
  if (comm_rank(world, rank) != 0 || comm_size(world, size) != 0)
    return -1;
  return 0;
}

/* Rank and size seen while MPI was alive, for a finalize that runs after
 * MPI_Finalize (at exit): captured at MPI_Init and MPI_Finalize below. */
static int captured = 0, captured_rank = -1, captured_size = -1;

int sp__mpi_rank(int *rank, int *size) {
  if (sp__mpi_query(rank, size) == 0)
    return 0;
  if (!captured)
    return -1;
  *rank = captured_rank;
  *size = captured_size;
  return 0;
}

/* The rank this process reports, decided at finalize: the environment's,
 * else MPI's (which also gives the job's size), else 0. */
int sp__final_rank(void) {
  int rank = sp__rank_from_env(), mrank = -1, msize = -1;
  if (rank < 0 && sp__mpi_rank(&mrank, &msize) == 0) {
    rank = mrank;
    sp__mpi_size = msize;
  }
  return rank < 0 ? 0 : rank;
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
 * receive posted that could take them. */
#define SYNC_TAG 32701 /* below MPI_TAG_UB's least value, 32767 */
#define SYNC_ROUNDS 16
#define SYNC_MAX_ROUNDS 128
#define SYNC_CALM 16
#define SYNC_DONE (-1) /* a rank's last message: no more pings */
#define SP__STR_(x) #x
#define SP__STR(x) SP__STR_(x)
#define SYNC_WAIT_NS INT64_C(60000000000)

typedef sp__p2p p2p;

/* MPI_BYTE and MPI_STATUS_IGNORE as comm_world tells the ABIs apart:
 * OpenMPI's datatypes are addresses of globals and its MPI_STATUS_IGNORE
 * is NULL; the MPICH ABI's MPI_BYTE is 0x4c00010d, MPI_STATUS_IGNORE 1. */
int sp__p2p_get(p2p *m) {
  *(void **)&m->send = dlsym(RTLD_DEFAULT, "PMPI_Send");
  *(void **)&m->irecv = dlsym(RTLD_DEFAULT, "PMPI_Irecv");
  *(void **)&m->test = dlsym(RTLD_DEFAULT, "PMPI_Test");
  *(void **)&m->cancel = dlsym(RTLD_DEFAULT, "PMPI_Cancel");
  *(void **)&m->wait = dlsym(RTLD_DEFAULT, "PMPI_Wait");
  *(void **)&m->isend = dlsym(RTLD_DEFAULT, "PMPI_Isend");
  *(void **)&m->request_free = dlsym(RTLD_DEFAULT, "PMPI_Request_free");
  m->world = comm_world();
  if (dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world")) {
    m->byte = dlsym(RTLD_DEFAULT, "ompi_mpi_byte");
    m->status_ignore = NULL;
  } else {
    m->byte = (void *)(uintptr_t)0x4c00010d;
    m->status_ignore = (void *)(uintptr_t)1;
  }
  return m->send && m->irecv && m->test && m->cancel && m->wait && m->isend &&
                 m->request_free && m->byte
             ? 0
             : -1;
}

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
 * a wait, never a hang. The request is an OpenMPI pointer or an MPICH int;
 * 8 zeroed bytes hold either. */
static int recv_within(const p2p *m, int64_t *v, int src, int yield) {
  uint64_t req = 0;
  int flag = 0;
  if (m->irecv(v, 8, m->byte, src, SYNC_TAG, m->world, &req) != 0)
    return -1;
  int64_t until = raw_now() + sync_wait_ns;
  while (!flag) {
    if (m->test(&req, &flag, m->status_ignore) != 0)
      return -1;
    if (yield) /* waiting for its turn: leave the CPU to those exchanging */
      sched_yield();
    if (!flag && raw_now() > until) {
      m->cancel(&req);
      m->wait(&req, m->status_ignore);
      return -1;
    }
  }
  return 0;
}

static int send_to(const p2p *m, const int64_t *v, int dst) {
  return m->send(v, 8, m->byte, dst, SYNC_TAG, m->world);
}

typedef struct sync_result {
  int64_t offset, rtt, at; /* ns: rank 0's clock - ours, round trip, when */
} sync_result;

/* Rank 0 answers every other rank in turn; the others ask. 0, or -1 when
 * this rank got no answer. */
static int measure(const p2p *m, int rank, int size, sync_result *out) {
  int64_t go = 0;
  if (rank == 0) {
    for (int r = 1; r < size; r++)
      for (int k = 0; k <= SYNC_MAX_ROUNDS; k++) {
        int64_t ping, t;
        if (recv_within(m, &ping, r, k == 0) != 0 || ping == SYNC_DONE)
          break;
        t = sp__mono_ns();
        if (send_to(m, &t, r) != 0)
          break;
      }
    for (int r = 1; r < size; r++)
      send_to(m, &go, r);
    out->offset = out->rtt = 0;
    out->at = sp__mono_ns();
    return 0;
  }
  int64_t best = INT64_MAX, done = SYNC_DONE;
  for (int k = 0, since = 0; k < SYNC_MAX_ROUNDS; k++, since++) {
    if (k >= SYNC_ROUNDS && since >= SYNC_CALM)
      break;
    int64_t ping = k, t0, t1, t2;
    t0 = sp__mono_ns();
    if (send_to(m, &ping, 0) != 0 || recv_within(m, &t1, 0, k == 0) != 0)
      return -1;
    t2 = sp__mono_ns();
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
  if (send_to(m, &done, 0) != 0 || recv_within(m, &go, 0, 1) != 0)
    return -1;
  return 0;
}

/* The measurement into the stream as META records, so that a stream
 * recovered after a crash carries it too; the stream's reader maps the
 * stamps with it (format/stream_read.c). */
static void sync_to_stream(const char *phase, int rank, const sync_result *r,
                           int ok) {
  if (atomic_load(&sp__state) != SP__RUNNING || !sp__stream_acquire(2000))
    return;
  if (sp__stream_open(1) == 0) {
    char key[64];
    if (sp__rank_from_env() < 0)
      sp__stream_meta_int("rank", rank);
    sp__stream_meta_str(
        "clock_sync_method",
        "MPI ping-pong with rank 0, shortest of " SP__STR(
            SYNC_ROUNDS) "-" SP__STR(SYNC_MAX_ROUNDS) " round trips");
    if (ok) {
      snprintf(key, sizeof key, "clock_offset_%s_ns", phase);
      sp__stream_meta_int(key, r->offset);
      snprintf(key, sizeof key, "clock_rtt_%s_ns", phase);
      sp__stream_meta_int(key, r->rtt);
      snprintf(key, sizeof key, "clock_sync_%s_ns", phase);
      sp__stream_meta_int(key, r->at);
    } else {
      snprintf(key, sizeof key, "clock_sync_%s_failed", phase);
      sp__stream_meta_int(key, 1);
    }
  }
  sp__token_give();
}

/* Whether this process took part at MPI_Init: then it takes part at
 * MPI_Finalize too, whatever happened in between (sp_finalize called
 * first), because the other ranks count on it. */
static _Atomic int synced_init, synced_fin;

static void capture_rank(void) {
  int r, s;
  if (!captured && sp__mpi_query(&r, &s) == 0) {
    captured_rank = r;
    captured_size = s;
    captured = 1;
  }
}

static void sync_phase(const char *phase) {
  int rank, size;
  p2p m;
  if (sp__mpi_query(&rank, &size) != 0 || sp__p2p_get(&m) != 0)
    return;
  sync_result r = {0, 0, 0};
  int ok =
      size < 2 ? (r.at = sp__mono_ns(), 1) : measure(&m, rank, size, &r) == 0;
  sync_to_stream(phase, rank, &r, ok);
  const char *call = strcmp(phase, "init") == 0 ? "MPI_Init" : "MPI_Finalize";
  if (ok)
    sp__debug("rank %d: clock offset to rank 0 at %s: %lld ns (round trip "
              "%lld ns)",
              rank, call, (long long)r.offset, (long long)r.rtt);
  else
    sp__debug("rank %d: no answer from rank 0 at %s in %d s: no clock offset",
              rank, call, (int)(sync_wait_ns / 1000000000));
}

static void before_finalize(void) {
  capture_rank();
  if (!atomic_load(&synced_init) || atomic_exchange(&synced_fin, 1))
    return;
  if (sp__cfg.merge &&
      (int64_t)sp__cfg.merge_timeout * 1000000000 < sync_wait_ns)
    sync_wait_ns = (int64_t)sp__cfg.merge_timeout * 1000000000;
  sync_phase("fin");
  /* The job's one file needs MPI: written now, not at exit. */
  if (sp__cfg.merge)
    sp__merge_at_finalize();
}

/* MPI_Finalize deletes the attributes of MPI_COMM_SELF first, while MPI
 * still works (MPI-2.2, 8.7.1): the standard's hook for a tool, reached
 * however the program calls MPI_Finalize (C or Fortran, through the
 * runtime's MPI_Finalize or not). Handles: MPI_COMM_SELF as comm_world;
 * the keyval is an int in both ABIs. */
typedef int (*attr_copy_fn)(void *, int, void *, void *, void *, int *);
typedef int (*attr_delete_fn)(void *, int, void *, void *);
typedef int (*create_keyval_fn)(attr_copy_fn, attr_delete_fn, int *, void *);
typedef int (*set_attr_fn)(void *, int, void *);

static int no_copy(void *comm, int keyval, void *extra, void *in, void *out,
                   int *flag) {
  (void)comm, (void)keyval, (void)extra, (void)in, (void)out;
  *flag = 0;
  return 0;
}

static int at_finalize(void *comm, int keyval, void *value, void *extra) {
  (void)comm, (void)keyval, (void)value, (void)extra;
  before_finalize();
  return 0;
}

static void hook_finalize(void) {
  create_keyval_fn create = (create_keyval_fn)(uintptr_t)dlsym(
      RTLD_DEFAULT, "PMPI_Comm_create_keyval");
  set_attr_fn set =
      (set_attr_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "PMPI_Comm_set_attr");
  void *self = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_self");
  if (!dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world"))
    self = (void *)(uintptr_t)0x44000001;
  int keyval;
  if (create && set && self && create(no_copy, at_finalize, &keyval, NULL) == 0)
    set(self, keyval, NULL);
}

SP_API void sp__mpi_after_init(void) {
  capture_rank();
  if (atomic_load(&sp__state) != SP__RUNNING ||
      atomic_exchange(&synced_init, 1))
    return;
  hook_finalize();
  sync_phase("init");
}

/* MPI_Init and MPI_Init_thread through the profiling interface, for a
 * program that has the runtime but not libscopeprof_mpi.so ahead of MPI:
 * the next definition (the layer's, or MPI's own), then the measurement,
 * which runs once however many of these a call went through. */
/* The next definition of name after this library's, else MPI's pmpi; where
 * MPI is in no global scope (a Python module's dlopen loaded it), the pmpi
 * of the caller's own dependencies. */
static void *next_mpi(const char *name, const char *pmpi, const void *caller) {
  void *f = dlsym(RTLD_NEXT, name);
  Dl_info info;
  if (!f)
    f = dlsym(RTLD_DEFAULT, pmpi);
  if (!f && dladdr(caller, &info) && info.dli_fname && info.dli_fname[0]) {
    void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (h) {
      f = dlsym(h, pmpi);
      dlclose(h);
    }
  }
  return f;
}

SP_API int MPI_Init(int *argc, char ***argv) {
  int (*next)(int *, char ***) = (int (*)(int *, char ***))(uintptr_t)next_mpi(
      "MPI_Init", "PMPI_Init", __builtin_return_address(0));
  int rc = next ? next(argc, argv) : 16; /* MPI_ERR_OTHER */
  if (rc == 0)
    sp__mpi_after_init();
  return rc;
}

SP_API int MPI_Init_thread(int *argc, char ***argv, int required,
                           int *provided) {
  typedef int (*init_thread_fn)(int *, char ***, int, int *);
  init_thread_fn next = (init_thread_fn)(uintptr_t)next_mpi(
      "MPI_Init_thread", "PMPI_Init_thread", __builtin_return_address(0));
  int rc = next ? next(argc, argv, required, provided) : 16;
  if (rc == 0)
    sp__mpi_after_init();
  return rc;
}

/* The MPI profiling interface: a program linked with -lscopeprof before its
 * MPI library calls this MPI_Finalize, which notes the rank, then finalizes
 * through PMPI_Finalize as every PMPI tool does (the clock is measured
 * again in there, by the MPI_COMM_SELF attribute). */
SP_API int MPI_Finalize(void) {
  capture_rank();
  int (*pmpi)(void) =
      (int (*)(void))(uintptr_t)dlsym(RTLD_DEFAULT, "PMPI_Finalize");
  return pmpi ? pmpi() : 16; /* MPI_ERR_OTHER in the MPICH and OpenMPI ABIs */
}

/* MPI_Abort ends this process without exit handlers and the launcher kills
 * the others: what this rank recorded goes to its stream first (as before
 * an exec), and the job's other ranks on this node save theirs before the
 * launcher hears of the abort (abort.c). */
static void before_abort(void) {
  int64_t t0 = sp__mono_ns();
  sp__flush_to_stream(SP_STREAM_STOP_MPI_ABORT);
  sp__debug("MPI_Abort: this rank's calls saved to the stream in %.3f ms",
            (double)(sp__mono_ns() - t0) / 1e6);
  sp__abort_others();
}

/* MPI_Comm is a pointer (OpenMPI) or an int (MPICH ABI); either passes
 * through unchanged in the first argument register. */
SP_API int MPI_Abort(void *comm, int code) {
  before_abort();
  int (*pmpi)(void *, int) =
      (int (*)(void *, int))(uintptr_t)dlsym(RTLD_DEFAULT, "PMPI_Abort");
  return pmpi ? pmpi(comm, code) : 16;
}

/* The Fortran bindings call PMPI_Abort themselves (OpenMPI's mpif.h and
 * use mpi: mpi_abort_ and its spellings; use mpi_f08: mpi_abort_f08_), so
 * they are defined here too, and go on to the same binding's PMPI name:
 * MPI converts the handle and sets ierror as it would have. Without one,
 * the C call, the handle converted with PMPI_Comm_f2c. */
typedef void (*f_abort_fn)(int *, int *, int *);

static void fortran_abort(const char *pmpi, int *comm, int *code, int *ierr) {
  before_abort();
  f_abort_fn f = (f_abort_fn)(uintptr_t)dlsym(RTLD_NEXT, pmpi);
  if (!f)
    f = (f_abort_fn)(uintptr_t)dlsym(RTLD_DEFAULT, pmpi);
  if (f) {
    f(comm, code, ierr);
    return;
  }
  void *(*f2c)(int) =
      (void *(*)(int))(uintptr_t)dlsym(RTLD_DEFAULT, "PMPI_Comm_f2c");
  int (*c_abort)(void *, int) =
      (int (*)(void *, int))(uintptr_t)dlsym(RTLD_DEFAULT, "PMPI_Abort");
  int rc = f2c && c_abort ? c_abort(f2c(*comm), *code) : 16;
  if (ierr)
    *ierr = rc;
}

SP_API void mpi_abort_(int *comm, int *code, int *ierr) {
  fortran_abort("pmpi_abort_", comm, code, ierr);
}
SP_API void mpi_abort__(int *comm, int *code, int *ierr) {
  fortran_abort("pmpi_abort__", comm, code, ierr);
}
SP_API void mpi_abort(int *comm, int *code, int *ierr) {
  fortran_abort("pmpi_abort", comm, code, ierr);
}
SP_API void MPI_ABORT(int *comm, int *code, int *ierr) {
  fortran_abort("PMPI_ABORT", comm, code, ierr);
}
/* type(MPI_Comm) holds one integer: passed by reference, it is the
 * integer's address; ierror is optional (NULL when absent). */
SP_API void mpi_abort_f08_(int *comm, int *code, int *ierr) {
  fortran_abort("pmpi_abort_f08_", comm, code, ierr);
}
