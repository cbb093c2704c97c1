! omp_names.f90 - OpenMP constructs whose names are checked at -O0 and -O2:
! two parallel regions, a parallel worksharing loop, and a single that
! creates tasks. check_names.py finds each construct's line by its marker
! comment. Stops with 1 if a result is wrong.
program omp_names
  use omp_lib
  implicit none
  integer :: i, t, nt, n
  integer(8) :: s1, s2, tasks
  integer, allocatable :: a(:)
  s1 = 0
  s2 = 0
  tasks = 0
  n = 16384 - command_argument_count()
  allocate (a(n))
  !$omp parallel private(t) ! PAR1
  t = omp_get_thread_num()
  !$omp atomic
  s1 = s1 + t + 1
  !$omp end parallel
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
  nt = omp_get_max_threads()
  if (s1 /= nt * (nt + 1) / 2 .or. s2 /= int(n, 8) * (n + 1) / 2 .or. tasks /= 8) then
    print *, 'wrong:', s1, s2, tasks
    stop 1
  end if
end program omp_names
