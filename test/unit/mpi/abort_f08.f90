! abort_f08.f90 - abort_f.f90 with use mpi_f08 (MPI_Abort is
! mpi_abort_f08_, its ierror left out).
program abort_f08
  use scope_profiler
  use mpi_f08
  implicit none
  integer :: rank, i, work, wait, aborting, x, y
  call MPI_Init()
  work = sp_region("work")
  wait = sp_region("wait")
  aborting = sp_region("abort")
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  do i = 1, 1000 * (rank + 1) + 7
    call sp_begin(work)
    call sp_end(work)
  end do
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 1) then
    call sp_begin(aborting)
    call MPI_Abort(MPI_COMM_WORLD, 3)
  end if
  x = 1
  call sp_begin(wait)
  call MPI_Allreduce(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call sp_end(wait)
  call MPI_Finalize()
end program abort_f08
