! f_mpi.f90 - 'use mpi' calls for the MPI layer's Fortran test: 3 checked
! MPI_Allreduce on every rank, 2 MPI_Send from rank 0 to rank 1.
program f_mpi
  use mpi
  implicit none
  integer :: ierr, rank, nranks, i, v, s, st(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  do i = 1, 3
    v = rank + i
    call MPI_Allreduce(v, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS .or. s /= nranks * (nranks - 1) / 2 + nranks * i) error stop 1
  end do
  do i = 1, 2
    if (rank == 0) call MPI_Send(i, 1, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, ierr)
    if (rank == 1) then
      call MPI_Recv(v, 1, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, st, ierr)
      if (v /= i .or. st(MPI_SOURCE) /= 0) error stop 2
    end if
  end do
  call MPI_Finalize(ierr)
end program f_mpi
