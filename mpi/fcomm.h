/* fcomm.h - how fcomm.c reads a Fortran binding's arguments: each an
 * address (of an INTEGER, or of a derived type of one for mpi_f08's
 * handles), passed on to MPI's binding by SP_MPI_FCALL. */
#ifndef SP_MPI_FCOMM_H
#define SP_MPI_FCOMM_H

#include <string.h>

#include "layer.h"

#define SP_MPI_FARGS 16
#define SP_MPI_FCALL(f, a)                                                     \
  f(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],  \
    a[12], a[13], a[14], a[15])

/* INTEGERs in a Fortran status (MPI_STATUS_SIZE): MPI_F_STATUS_SIZE where
 * mpi.h has it, else the C status's size (OpenMPI and MPICH make them
 * equal). */
#ifdef MPI_F_STATUS_SIZE
#define SP_MPI_FSTATUS MPI_F_STATUS_SIZE
#else
#define SP_MPI_FSTATUS ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif

/* Non-zero if p is the Fortran MPI_IN_PLACE (the MPI's Fortran sentinel
 * symbols, looked up once), or MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE. */
int sp_mpi__f_in_place(const void *p);
int sp_mpi__f_status_ignore(const void *p);
int sp_mpi__f_statuses_ignore(const void *p);

/* The arguments, in b, a copy that may take this layer's own status. */
#define ARGS                                                                   \
  void *b[SP_MPI_FARGS];                                                       \
  memcpy(b, a, sizeof b)
#define I(k) (*(const MPI_Fint *)b[k])
#define COMM(k) PMPI_Comm_f2c(I(k))
#define TYPE(k) PMPI_Type_f2c(I(k))
#define TSIZE(k) sp_mpi__tsize(TYPE(k))
/* Argument k, a status: this layer's own when the caller ignores it. */
#define OWN_STATUS(k)                                                          \
  MPI_Fint own_[SP_MPI_FSTATUS];                                               \
  if (sp_mpi__f_status_ignore(b[k]))                                           \
  b[k] = own_

/* MPI's binding f called with b: 1 if it succeeded (ierror at b[ierr]; -1:
 * none) and is left to record, 0 if not (fcomm.c). */
int sp_mpi__fcall(int r, sp_mpi__ffn f, void *const *b, int ierr);
/* The C form of the i-th Fortran status at fst. */
void sp_mpi__fstatus_c(const void *fst, int i, MPI_Status *st);

#endif
