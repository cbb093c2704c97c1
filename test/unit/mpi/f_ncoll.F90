! f_ncoll.F90 - neighbourhood collectives from Fortran on 4 ranks, built
! once per MPI binding as f_comm.F90 is, for check_fncoll.py: a periodic
! 2x2 grid (MPI_Neighbor_allgather), a non-periodic line of 4
! (MPI_Neighbor_alltoall: the ends' MPI_PROC_NULL blocks move nothing) and a weighted distributed graph, out to the next two
! ranks and in from the previous two (MPI_Neighbor_alltoallw with a type
! per neighbour). (OpenMPI 4.1's MPI_Neighbor_alltoallv and _alltoallw
! fail on Cartesian communicators, whatever the layer.)
program f_ncoll
#if defined(SP_F08)
  use mpi_f08
#elif defined(SP_USE_MPI)
  use mpi
#endif
  implicit none
#if !defined(SP_F08) && !defined(SP_USE_MPI)
  include 'mpif.h'
#endif
#ifdef SP_F08
#define HANDLE(t) type(t)
#else
#define HANDLE(t) integer
#endif
  integer :: ierr, me, np, srcs(2), dsts(2), w(2) = (/1, 2/), dims(2) = (/2, 2/), d1(1) = (/4/), c(2) = (/1, 2/)
  logical :: per(2) = (/.true., .true./), p1(1) = (/.false./)
  integer :: ib(12), ob(12)
  double precision :: db(8), dob(8)
  integer(kind=MPI_ADDRESS_KIND) :: ad(2) = &
      (/0_MPI_ADDRESS_KIND, 16_MPI_ADDRESS_KIND/)
  HANDLE(MPI_Comm) :: grid, line, graph
  HANDLE(MPI_Datatype) :: ty(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (np /= 4) error stop 1
  ib = 0
  db = 0
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, .false., grid, ierr)
  call MPI_Neighbor_allgather(ib, 3, MPI_INTEGER, ob, 3, MPI_INTEGER, grid, ierr)
  call MPI_Cart_create(MPI_COMM_WORLD, 1, d1, p1, .false., line, ierr)
  call MPI_Neighbor_alltoall(db, 2, MPI_DOUBLE_PRECISION, dob, 2, &
                             MPI_DOUBLE_PRECISION, line, ierr)
  srcs = (/mod(me + 3, 4), mod(me + 2, 4)/)
  dsts = (/mod(me + 1, 4), mod(me + 2, 4)/)
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, w, 2, dsts, w, &
                                      MPI_INFO_NULL, .false., graph, ierr)
  ty(1) = MPI_INTEGER
  ty(2) = MPI_DOUBLE_PRECISION
  call MPI_Neighbor_alltoallw(db, c, ad, ty, dob, c, ad, ty, graph, ierr)
  call MPI_Comm_free(graph, ierr)
  call MPI_Comm_free(line, ierr)
  call MPI_Comm_free(grid, ierr)
  call MPI_Finalize(ierr)
end program f_ncoll
