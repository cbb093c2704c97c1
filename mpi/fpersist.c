/* fpersist.c - persistent requests and matched receives from the Fortran
 * bindings: recorded as persist.c records their C forms, from the Fortran
 * handles (fcomm.h) after MPI's binding returned. */
#include "comm.h"
#include "comm_int.h"
#include "fcomm.h"

/* send_init and the like(buffer, count, datatype, peer, tag, comm,
 * request, ierror) */
#define FX_INIT(name, send)                                                    \
  void sp_mpi__fx_##name(int r, sp_mpi__ffn f, void *const *a) {               \
    ARGS;                                                                      \
    if (sp_mpi__fcall(r, f, b, 7))                                             \
      sp_mpi__persist_add(send, I(1), TYPE(2), I(3), I(4), COMM(5),            \
                          PMPI_Request_f2c(I(6)));                             \
  }
FX_INIT(mpi_send_init, 1)
FX_INIT(mpi_ssend_init, 1)
FX_INIT(mpi_bsend_init, 1)
FX_INIT(mpi_rsend_init, 1)
FX_INIT(mpi_recv_init, 0)

void sp_mpi__fx_mpi_start(int r, sp_mpi__ffn f, void *const *a) {
  ARGS;
  if (sp_mpi__fcall(r, f, b, 1))
    sp_mpi__persist_started(r, PMPI_Request_f2c(I(0)));
}

void sp_mpi__fx_mpi_startall(int r, sp_mpi__ffn f, void *const *a) {
  ARGS;
  if (!sp_mpi__fcall(r, f, b, 2))
    return;
  const MPI_Fint *q = b[1];
  for (int i = 0; i < I(0); i++)
    sp_mpi__persist_started(r, PMPI_Request_f2c(q[i]));
}

/* mprobe(source, tag, comm, message, status, ierror) */
void sp_mpi__fx_mpi_mprobe(int r, sp_mpi__ffn f, void *const *a) {
  ARGS;
  OWN_STATUS(4);
  if (sp_mpi__fcall(r, f, b, 5)) {
    MPI_Status st;
    sp_mpi__fstatus_c(b[4], 0, &st);
    sp_mpi__probed(PMPI_Message_f2c(I(3)), COMM(2), &st);
  }
}

/* improbe(source, tag, comm, flag, message, status, ierror) */
void sp_mpi__fx_mpi_improbe(int r, sp_mpi__ffn f, void *const *a) {
  ARGS;
  OWN_STATUS(5);
  if (sp_mpi__fcall(r, f, b, 6) && I(3)) {
    MPI_Status st;
    sp_mpi__fstatus_c(b[5], 0, &st);
    sp_mpi__probed(PMPI_Message_f2c(I(4)), COMM(2), &st);
  }
}

/* mrecv(buffer, count, datatype, message, status, ierror) */
void sp_mpi__fx_mpi_mrecv(int r, sp_mpi__ffn f, void *const *a) {
  ARGS;
  OWN_STATUS(4);
  /* taken after the call: a C MPI_Mrecv the binding calls takes it */
  MPI_Message m = PMPI_Message_f2c(I(3));
  MPI_Comm c;
  int source, tag;
  if (sp_mpi__fcall(r, f, b, 5) && sp_mpi__probed_take(m, &c, &source, &tag)) {
    MPI_Status st;
    sp_mpi__fstatus_c(b[4], 0, &st);
    sp_mpi__rec_recv(r, c, &st);
  }
}

/* imrecv(buffer, count, datatype, message, request, ierror) */
void sp_mpi__fx_mpi_imrecv(int r, sp_mpi__ffn f, void *const *a) {
  ARGS;
  MPI_Message m = PMPI_Message_f2c(I(3));
  MPI_Comm c;
  int source, tag;
  if (sp_mpi__fcall(r, f, b, 5) && sp_mpi__probed_take(m, &c, &source, &tag)) {
    MPI_Request q = PMPI_Request_f2c(I(4));
    sp_mpi__rec_irecv(r, source, tag, c, &q);
  }
}
