/* sp_mpi_hooks.h - the runtime's internal interface with libscopeprof_mpi.so,
 * the one place of MPI: the layer registers what only MPI knows (the rank,
 * point-to-point messages for SP_MERGE), the runtime gives it what only the
 * runtime knows (its clock, its stream) and what to do at MPI_Finalize and
 * MPI_Abort. Both sides come from one build: not a public API. */
#ifndef SP_MPI_HOOKS_H
#define SP_MPI_HOOKS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_MPI_HOOKS_VERSION 1

/* An MPI_Request, whatever MPI's type (a pointer, an int). */
typedef struct sp__mpi_req {
  uint64_t opaque[2];
} sp__mpi_req;

/* What the layer does for the runtime. Messages are bytes on
 * MPI_COMM_WORLD, through the PMPI names (never recorded as the program's
 * calls); every function returns 0, or -1 when MPI failed. */
typedef struct sp__mpi_ops {
  int version; /* SP_MPI_HOOKS_VERSION */
  /* Rank and size in MPI_COMM_WORLD while MPI is initialized and not
   * finalized. */
  int (*query)(int *rank, int *size);
  /* As query, else what the layer saw while MPI was alive. */
  int (*rank)(int *rank, int *size);
  int (*send)(const void *buf, int len, int dst, int tag);
  int (*isend)(const void *buf, int len, int dst, int tag, sp__mpi_req *req);
  int (*irecv)(void *buf, int len, int src, int tag, sp__mpi_req *req);
  int (*test)(sp__mpi_req *req, int *done);
  void (*cancel)(sp__mpi_req *req);       /* cancels and waits */
  void (*request_free)(sp__mpi_req *req); /* leaves it to MPI */
  /* libscopeprof_h5mpi.so (SP_MERGE's parallel writer, on this MPI)
   * loaded: its dlopen handle, or NULL with why (size bytes) set. */
  void *(*h5mpi_load)(char *why, size_t size);
} sp__mpi_ops;

/* The layer, at load: from now on the runtime asks MPI through ops (which
 * must outlive the process). */
void sp__mpi_register(const sp__mpi_ops *ops);

/* 1 while the runtime records (the clock alignment runs only then). */
int sp__mpi_recording(void);
/* The runtime's clock in ns (what the stream's stamps are mapped from). */
int64_t sp__mpi_now_ns(void);
/* Which clock sp__mpi_now_ns reads: processes with the same nonzero value
 * read one clock (one kernel's CLOCK_MONOTONIC); 0 unknown. */
uint64_t sp__mpi_clock_id(void);
/* SP_MERGE's timeout in ns, 0 without SP_MERGE: at MPI_Finalize a rank
 * waits for another no longer than this. */
int64_t sp__mpi_merge_wait_ns(void);
/* A clock offset to rank 0 measured at phase ("init" or "fin") by method
 * into the stream (ok 0: rank 0 did not answer within wait_ns); says so
 * with SP_VERBOSE. */
void sp__mpi_clock_measured(const char *phase, const char *method, int rank,
                            int ok, int64_t offset, int64_t rtt, int64_t at,
                            int64_t wait_ns);
/* In MPI_Finalize, MPI still alive, after the clock alignment: SP_MERGE's
 * write of the job's file. */
void sp__mpi_finalizing(void);
/* What one MPI call sent or received (the stream keeps it as one or two
 * 32-byte slots, sp_stream_mpislot in format/sp_stream.h). */
typedef struct sp__mpi_msg {
  uint64_t start;  /* unused: sp__mpi_note gives every message its call's */
  uint64_t origin; /* a completion: the start sp__mpi_note gave the call
                      that began the request; 0 = none */
  int32_t region, origin_region;
  int32_t kind; /* SP_MPI_K_* of sp_stream.h: 1 send, 2 isend, 3 recv,
                   4 irecv, 5 a receive completed by a wait or test,
                   6 a collective, 7 a send completed by a wait or
                   test */
  int32_t peer; /* MPI_COMM_WORLD rank; -1 none, -2 any source */
  int32_t tag, comm, root, reserved;
  int64_t sent, recvd;
} sp__mpi_msg;

/* The n (1 or 2) records m of the MPI call of region that is open on this
 * thread (between its sp_begin and sp_end), each given that call's start
 * stamp, which is returned; 0 when the call is not recorded. No lock and
 * no system call: into a per-thread chunk that goes to the stream when
 * full and at finalize. */
uint64_t sp__mpi_note(int region, const sp__mpi_msg *m, int n);
/* The same for one message with no origin, no root and bytes one way
 * only (sent by the send kinds, received by the receive kinds), passed as
 * they are: written in place, the commonest messages' path. */
uint64_t sp__mpi_note1(int32_t region, int32_t kind, int32_t comm, int32_t peer,
                       int32_t tag, int64_t bytes);
/* sp__mpi_note1, then sp_end(region): a blocking call's message and end
 * in one call. */
void sp__mpi_note1_end(int32_t region, int32_t kind, int32_t comm, int32_t peer,
                       int32_t tag, int64_t bytes);
/* Communicator id's members (size MPI_COMM_WORLD ranks), into the stream
 * now: once per communicator. */
void sp__mpi_comm(int32_t id, int32_t size, const int32_t *world);

/* In MPI_Abort, before the PMPI call: this rank's calls to its stream, and
 * the job's other ranks on this node asked to save theirs. */
void sp__mpi_aborting(void);

#ifdef __cplusplus
}
#endif
#endif /* SP_MPI_HOOKS_H */
