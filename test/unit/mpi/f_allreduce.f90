! f_allreduce.f90 - mpif.h, MPI_Allreduce and nothing else of MPI's Fortran
! library that the MPI layer does not define: linked with --as-needed, the
! link keeps no reference to libmpi_mpifh, and the layer's entry points must
! find their pmpi_ twins all the same. 4 checked MPI_Allreduce per rank.
program f_allreduce
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nranks, i, s
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  do i = 1, 4
    call MPI_Allreduce(rank + i, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS .or. s /= nranks * (nranks - 1) / 2 + nranks * i) error stop 1
  end do
  call MPI_Finalize(ierr)
end program f_allreduce
