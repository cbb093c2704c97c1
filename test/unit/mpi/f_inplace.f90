! f_inplace.f90 - mpif.h, MPI_Allreduce with MPI_IN_PLACE: with MPICH its
! mpif.h constants are common blocks the program shares with MPI's Fortran
! library only when the link keeps it, which sp-fc does whatever
! --as-needed says. 2 checked MPI_Allreduce per rank.
program f_inplace
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nranks, i, s
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  do i = 1, 2
    s = rank + i
    call MPI_Allreduce(MPI_IN_PLACE, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS .or. s /= nranks * (nranks - 1) / 2 + nranks * i) error stop 1
  end do
  call MPI_Finalize(ierr)
end program f_inplace
