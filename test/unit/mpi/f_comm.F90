! f_comm.F90 - known messages from Fortran on 4 ranks, built once per MPI
! binding (SP_F08: use mpi_f08, SP_USE_MPI: use mpi, else mpif.h) for
! check_fcomm.py: a ring (MPI_Sendrecv), a halo (MPI_Isend/Irecv, MPI_Waitall
! ignoring statuses), MPI_ANY_SOURCE, MPI_Wait (from Fortran, and from C:
! f_comm_wait.c), MPI_IN_PLACE collectives (one nonblocking), a
! sub-communicator, persistent requests (MPI_Startall) and MPI_Mprobe with
! MPI_Mrecv.
program f_comm
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
#define SOURCE st%MPI_SOURCE
  type(MPI_Status) :: st
#else
#define HANDLE(t) integer
#define SOURCE st(MPI_SOURCE)
  integer :: st(MPI_STATUS_SIZE)
#endif
  integer :: ierr, me, np, left, right, i, sme
  integer :: ring_s(250), ring_r(250), a(3), g(8), x(10), b(6), v(10)
  integer :: cnt(4) = (/1, 2, 3, 4/), dsp(4) = (/0, 1, 3, 6/)
  ! written by MPI between calls that do not name it (persistent requests)
  integer, volatile :: p(4, 2)
  double precision :: hs(100, 2), hr(100, 2)
  HANDLE(MPI_Request) :: reqs(4), q
  HANDLE(MPI_Comm) :: sub
  HANDLE(MPI_Message) :: msg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (np /= 4) error stop 1
  right = mod(me + 1, np)
  left = mod(me + np - 1, np)

  ! ring: 250 integers (1000 bytes) to the right, tag 1
  ring_s = me
  call MPI_Sendrecv(ring_s, 250, MPI_INTEGER, right, 1, ring_r, 250, &
                    MPI_INTEGER, left, 1, MPI_COMM_WORLD, st, ierr)
  if (ring_r(1) /= left .or. SOURCE /= left) error stop 2

  ! halo: 100 doubles (800 bytes) each way, tag 2
  hs = me
  call MPI_Irecv(hr(1, 1), 100, MPI_DOUBLE_PRECISION, left, 2, &
                 MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Irecv(hr(1, 2), 100, MPI_DOUBLE_PRECISION, right, 2, &
                 MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Isend(hs(1, 1), 100, MPI_DOUBLE_PRECISION, left, 2, &
                 MPI_COMM_WORLD, reqs(3), ierr)
  call MPI_Isend(hs(1, 2), 100, MPI_DOUBLE_PRECISION, right, 2, &
                 MPI_COMM_WORLD, reqs(4), ierr)
  call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE, ierr)
  if (hr(1, 1) /= left .or. hr(100, 2) /= right) error stop 3

  ! rank 0 to rank 1: 3 integers (12 bytes), tag 3, from MPI_ANY_SOURCE
  a = 7
  if (me == 0) call MPI_Send(a, 3, MPI_INTEGER, 1, 3, MPI_COMM_WORLD, ierr)
  if (me == 1) then
    call MPI_Recv(a, 3, MPI_INTEGER, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, st, &
                  ierr)
    if (SOURCE /= 0) error stop 4
  end if

  ! rank 2 to rank 3: 5 doubles (40 bytes), tag 4, each side waiting
  if (me == 2) then
    call MPI_Isend(hs, 5, MPI_DOUBLE_PRECISION, 3, 4, MPI_COMM_WORLD, q, ierr)
    call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
  else if (me == 3) then
    call MPI_Irecv(hr, 5, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 4, &
                   MPI_COMM_WORLD, q, ierr)
#ifdef SP_F08
    call f_comm_wait(q%MPI_VAL, i)
#else
    call f_comm_wait(q, i)
#endif
    if (i /= 2) error stop 5
  end if

  ! in place: 10 integers summed (40 bytes), 2 integers from each rank
  x = me
  call MPI_Allreduce(MPI_IN_PLACE, x, 10, MPI_INTEGER, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  if (x(10) /= 6) error stop 6
  g(2 * me + 1:2 * me + 2) = me
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, 2, MPI_INTEGER, &
                     MPI_COMM_WORLD, ierr)
  do i = 0, np - 1
    if (g(2 * i + 1) /= i .or. g(2 * i + 2) /= i) error stop 7
  end do
  ! nonblocking, in place: rank k's k + 1 integers gathered everywhere
  v = -1
  v(dsp(me + 1) + 1:dsp(me + 1) + me + 1) = me
  call MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, cnt, dsp, &
                       MPI_INTEGER, MPI_COMM_WORLD, q, ierr)
  call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
  if (v(1) /= 0 .or. v(7) /= 3 .or. v(10) /= 3) error stop 11
#ifdef SP_F08
  call MPI_Barrier(MPI_COMM_WORLD)
#else
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
#endif

  ! by parity, the higher rank first: world {2, 0} and {3, 1}; 6 integers
  ! (24 bytes), tag 6, to the other one, then 2 integers from the first
  call MPI_Comm_split(MPI_COMM_WORLD, mod(me, 2), -me, sub, ierr)
  call MPI_Comm_rank(sub, sme, ierr)
  b = me
  if (sme == 0) then
    call MPI_Send(b, 6, MPI_INTEGER, 1, 6, sub, ierr)
  else
    call MPI_Recv(b, 6, MPI_INTEGER, 0, 6, sub, MPI_STATUS_IGNORE, ierr)
  end if
  call MPI_Bcast(b, 2, MPI_INTEGER, 0, sub, ierr)
  if (b(1) /= 2 + mod(me, 2)) error stop 8
  call MPI_Comm_free(sub, ierr)

  ! persistent: 4 integers (16 bytes) to the right, tag 7, twice
  call MPI_Send_init(p(1, 1), 4, MPI_INTEGER, right, 7, MPI_COMM_WORLD, &
                     reqs(1), ierr)
  call MPI_Recv_init(p(1, 2), 4, MPI_INTEGER, left, 7, MPI_COMM_WORLD, &
                     reqs(2), ierr)
  do i = 1, 2
    p(:, 1) = me + i
    call MPI_Startall(2, reqs, ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    if (p(4, 2) /= left + i) error stop 9
  end do
  call MPI_Request_free(reqs(1), ierr)
  call MPI_Request_free(reqs(2), ierr)

  ! rank 1 to rank 0: 3 integers (12 bytes), tag 8, probed and received
  if (me == 1) call MPI_Send(a, 3, MPI_INTEGER, 0, 8, MPI_COMM_WORLD, ierr)
  if (me == 0) then
    call MPI_Mprobe(MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, msg, st, ierr)
    call MPI_Mrecv(a, 3, MPI_INTEGER, msg, MPI_STATUS_IGNORE, ierr)
    if (SOURCE /= 1 .or. a(3) /= 7) error stop 10
  end if
  call MPI_Finalize(ierr)
end program f_comm
