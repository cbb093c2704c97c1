/* comm.h - the calls whose bytes and partners the layer records (comm.c,
 * icoll.c, persist.c; Fortran: fcomm.c, fpersist.c), and what another file
 * of the layer needs to record one: the generated wrappers hand each call
 * to sp_mpi__x_<name> or sp_mpi__fx_<name> while its region is open
 * (comm_decl.h, generated from mpi.h, declares them), or record it inline
 * (comm_wrap.h: sp_mpi__xe_<name>, which also ends the region). */
#ifndef SP_MPI_COMM_H
#define SP_MPI_COMM_H

#include "layer.h"

#include <stdatomic.h>
#include <stdint.h>

/* sp__mpi_msg kinds and partners: the values of sp_stream.h's SP_MPI_K_*,
 * SP_MPI_NONE and SP_MPI_ANY (the stream's layout, which the layer does
 * not include). */
enum {
  SP_MPI_K_SEND = 1,
  SP_MPI_K_ISEND = 2,
  SP_MPI_K_RECV = 3,
  SP_MPI_K_IRECV = 4,
  SP_MPI_K_WAITRECV = 5,
  SP_MPI_K_COLL = 6,
  SP_MPI_K_WAITSEND = 7,
};
#define SP_MPI_NONE (-1)
#define SP_MPI_ANY (-2)

#define SP_MPI_HIDDEN __attribute__((visibility("hidden")))

/* A communicator: the id its records name, its size, this rank in it,
 * its members (an intercommunicator's remote group) in world numbers. */
typedef struct sp_mpi__comm_info {
  int32_t id, size, me, inter;
  int32_t *world; /* NULL: MPI_COMM_WORLD itself */
} sp_mpi__comm_info;

/* c's info, made (and its members into the stream) on its first
 * recorded call; NULL for MPI_COMM_NULL or when MPI fails. */
static inline sp_mpi__comm_info *sp_mpi__info_of(MPI_Comm c);
/* Bytes of one element of t (0: unknown). */
static inline int64_t sp_mpi__tsize(MPI_Datatype t);
/* Rank r of ci in MPI_COMM_WORLD numbers; SP_MPI_NONE for MPI_PROC_NULL,
 * MPI_ROOT or out of range, SP_MPI_ANY for MPI_ANY_SOURCE. */
static inline int32_t sp_mpi__world_of(const sp_mpi__comm_info *ci, int r);
/* Bytes a completed receive's status says arrived. */
static inline int64_t sp_mpi__status_bytes(const MPI_Status *st);

/* One message of the call of region r (open on this thread) on ci. */
SP_MPI_HIDDEN void sp_mpi__one(int r, int kind, const sp_mpi__comm_info *ci,
                               int peer, int tag, int64_t sent, int64_t recvd);
/* A nonblocking call's request begun (its message recorded at start, as
 * sp__mpi_note returned): kept until the call that completes it, on this
 * thread or another. send: a send's, with its partner (world rank) and
 * tag; a receive's come from the status at completion. */
SP_MPI_HIDDEN void sp_mpi__req_begun(uint64_t start, int r,
                                     const sp_mpi__comm_info *ci, int send,
                                     int32_t peer, int32_t tag,
                                     MPI_Request req);
/* The request of value req (as it was before the completing call) done
 * in call r with status st: its completion's message. */
SP_MPI_HIDDEN void sp_mpi__req_done(int r, MPI_Request req,
                                    const MPI_Status *st);
/* The request of value req freed without completion (MPI_Request_free). */
SP_MPI_HIDDEN void sp_mpi__req_forget(MPI_Request req);
/* 0 when no request can be in flight (none kept by this thread, no other
 * thread keeps any): a completing call need not look. */
SP_MPI_HIDDEN int sp_mpi__reqs_any(void);
/* This thread's scratch for a call on n requests: the returned n requests
 * and *sts n statuses; NULL when out of memory. */
SP_MPI_HIDDEN MPI_Request *sp_mpi__req_scratch(int n, MPI_Status **sts);

#include "comm_wrap.h"

#include "comm_decl.h"

#endif
