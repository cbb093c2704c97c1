/* comm_int.h - comm.c's records for calls the layer makes elsewhere: the
 * Fortran bindings (fcomm.c) and persistent requests and matched receives
 * (persist.c) record through these, after their own MPI call succeeded. */
#ifndef SP_MPI_COMM_INT_H
#define SP_MPI_COMM_INT_H

#include "comm.h"

#include <stdint.h>

/* (A type's size in bytes: sp_mpi__tsize, comm.h.) */
/* The communicator's size and this rank in it; -1 if not known. */
int sp_mpi__shape(MPI_Comm c, int *n, int *me);
/* A blocking send of kind SP_MPI_K_SEND. */
void sp_mpi__rec_send(int r, int kind, int64_t count, MPI_Datatype t, int dest,
                      int tag, MPI_Comm c);
/* A nonblocking send, *req kept for the call that completes it. */
void sp_mpi__rec_isend(int r, int64_t count, MPI_Datatype t, int dest, int tag,
                       MPI_Comm c, MPI_Request *req);
/* A blocking receive, source, tag and bytes from its status. */
void sp_mpi__rec_recv(int r, MPI_Comm c, const MPI_Status *st);
/* A nonblocking receive, *req kept for the call that completes it. */
void sp_mpi__rec_irecv(int r, int source, int tag, MPI_Comm c,
                       MPI_Request *req);
/* (Requests in flight: sp_mpi__reqs_any, sp_mpi__req_done and
 * sp_mpi__req_forget, comm.h.) */
/* A collective: root (-1: none) in c's numbering, this rank's bytes. */
void sp_mpi__rec_coll(int r, MPI_Comm c, int root, int64_t sent, int64_t recvd);
/* A neighbourhood collective on c (ncoll.c): per out-neighbour scs[i]
 * (sc when scs is NULL) elements of sts[i] (st when sts is NULL) sent,
 * per in-neighbour rcs/rc of rts/rt received; MPI_PROC_NULL neighbours
 * move nothing. */
void sp_mpi__rec_ncoll(int r, MPI_Comm c, const int *scs, int sc,
                       const MPI_Datatype *sts, MPI_Datatype st, const int *rcs,
                       int rc, const MPI_Datatype *rts, MPI_Datatype rt);
/* The same for the Fortran alltoallw forms: Fortran type handles. */
void sp_mpi__rec_ncoll_fw(int r, MPI_Comm c, const int *scs,
                          const MPI_Fint *fsts, const int *rcs,
                          const MPI_Fint *frts);
/* A communicator or type was freed where the layer did not see its handle
 * (a Fortran binding): handles kept for speed are not trusted again. */
void sp_mpi__handles_freed(void);

/* persist.c's: persistent request q made (send: 1 for a send, peer its
 * destination or source), started by call r, freed; message m probed on c
 * with status st, taken at its receive (0: not known). */
void sp_mpi__persist_add(int send, int64_t count, MPI_Datatype t, int peer,
                         int tag, MPI_Comm c, MPI_Request q);
/* A persistent collective (MPI-4) made on comm: each start of q records
 * it with root (in comm; -1 none) and the bytes. */
void sp_mpi__persist_add_coll(MPI_Comm comm, MPI_Request q, int root,
                              int64_t sent, int64_t recvd);
void sp_mpi__persist_started(int r, MPI_Request q);
void sp_mpi__persist_forget(MPI_Request q);
void sp_mpi__probed(MPI_Message m, MPI_Comm c, const MPI_Status *st);
int sp_mpi__probed_take(MPI_Message m, MPI_Comm *c, int *source, int *tag);

#endif
