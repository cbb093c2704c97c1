/* f_comm_wait.c - f_comm.F90's MPI_Wait from C: a request begun from
 * Fortran, completed through the C binding (its record tied to the
 * Fortran MPI_Irecv). */
#include <mpi.h>

void f_comm_wait_(MPI_Fint *req, MPI_Fint *source);

void f_comm_wait_(MPI_Fint *req, MPI_Fint *source) {
  MPI_Request q = MPI_Request_f2c(*req);
  MPI_Status st;
  MPI_Wait(&q, &st);
  *req = MPI_Request_c2f(q);
  *source = st.MPI_SOURCE;
}
