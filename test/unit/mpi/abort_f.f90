! abort_f.f90 - abort.c in Fortran with mpif.h (MPI_Abort is mpi_abort_):
! rank r records 1000 * (r + 1) + 7 calls of "work"; after a barrier rank 1
! calls MPI_Abort inside "abort", the others wait in a reduction inside
! "wait".
program abort_f
  use scope_profiler
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, i, work, wait, aborting, x, y
  call MPI_Init(ierr)
  work = sp_region("work")
  wait = sp_region("wait")
  aborting = sp_region("abort")
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  do i = 1, 1000 * (rank + 1) + 7
    call sp_begin(work)
    call sp_end(work)
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 1) then
    call sp_begin(aborting)
    call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
  end if
  x = 1
  call sp_begin(wait)
  call MPI_Allreduce(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call sp_end(wait)
  call MPI_Finalize(ierr)
end program abort_f
