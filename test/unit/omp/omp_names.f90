! omp_names.f90 - OpenMP constructs whose names are checked at -O0 and -O2:
! two parallel regions (the first in a loop, run twice), a parallel
! worksharing loop, a single that creates tasks, and a parallel region
! nested as the last statement of another. check_names.py finds each
! construct's line by its marker comment. Stops with 1 if a result is wrong.
program omp_names
  use omp_lib
  implicit none
  integer :: i, t, nt, n, rep, inner, want
  integer(8) :: s1, s2, tasks
  integer, allocatable :: a(:)
  s1 = 0
  s2 = 0
  tasks = 0
  inner = 0
  n = 16384 - command_argument_count()
  allocate (a(n))
  do rep = 1, command_argument_count() + 2 ! twice: the call in a loop
    !$omp parallel private(t) ! PAR1
    t = omp_get_thread_num()
    !$omp atomic
    s1 = s1 + t + 1
    !$omp end parallel
  end do
  do i = 1, n
    a(i) = i
  end do
  !$omp parallel ! PAR2
  !$omp do reduction(+:s2) ! FOR
  do i = 1, n
    s2 = s2 + a(i)
  end do
  !$omp end do
  !$omp end parallel
  !$omp parallel private(t) ! PAR3
  !$omp single ! SINGLE
  do t = 1, 8
    !$omp task ! TASK
    !$omp atomic
    tasks = tasks + 1
    !$omp end task
  end do
  !$omp end single
  !$omp end parallel
  ! a parallel region as the last statement of another's body (at -O2 its
  ! call may be a tail call, whose return address is the OpenMP runtime's)
  !$omp parallel num_threads(2) ! OUTER
  !$omp parallel num_threads(2) ! INNER
  !$omp atomic
  inner = inner + 1
  !$omp end parallel
  !$omp end parallel
  nt = omp_get_max_threads()
  if (omp_get_max_active_levels() > 1) then
    want = 4
  else
    want = 2
  end if
  if (inner /= want .or. s1 /= nt * (nt + 1) .or. s2 /= int(n, 8) * (n + 1) / 2 .or. tasks /= 8) then
    print *, 'wrong:', s1, s2, tasks, inner
    stop 1
  end if
end program omp_names
