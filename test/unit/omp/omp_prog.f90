! omp_prog.f90 - OpenMP constructs for test_omp, in Fortran: on 4 threads,
! a parallel region with a do loop, a reduction, an explicit barrier, a
! critical section, tasks in a single + taskwait, and a loop where thread i
! does (i+1) units of work (three times; a unit is 40 ms asleep). Each
! thread also records "omp_thread_<n>" once, so the checker knows which
! output thread is which OpenMP thread. Stops with 1 if a result is wrong.
module omp_work
  use iso_c_binding, only: c_int
  implicit none
  ! A unit of the unbalanced loop's work is 40 ms off the CPU, so the
  ! threads reach its barrier in the order of their work whatever else runs
  ! on the machine (CPU-bound work on 2 shared cores let a thread with less
  ! work start late and arrive after one with more).
  interface
    integer(c_int) function usleep(us) bind(c, name="usleep")
      import :: c_int
      integer(c_int), value :: us
    end function usleep
  end interface
contains
  subroutine work(units)
    integer, intent(in) :: units
    integer(c_int) :: rc
    rc = usleep(int(units * 40000, c_int))
  end subroutine work
end module omp_work

program omp_prog
  use omp_lib
  use scope_profiler
  use omp_work
  implicit none
  integer :: i, t, rep, id, nthreads, crit, tasks
  integer :: a(1000)
  integer(8) :: s
  character(len=32) :: name
  s = 0
  crit = 0
  tasks = 0
  nthreads = 0
  !$omp parallel private(name, id, rep, t)
  write (name, '(a,i0)') 'omp_thread_', omp_get_thread_num()
  id = sp_region(trim(name))
  call sp_begin(id)
  call sp_end(id)
  !$omp single
  nthreads = omp_get_num_threads()
  !$omp end single
  !$omp do ! LOOP
  do i = 1, 1000
    a(i) = i
  end do
  !$omp end do
  !$omp do reduction(+:s) ! REDUCTION
  do i = 1, 1000
    s = s + a(i)
  end do
  !$omp end do
  !$omp barrier ! BARRIER
  !$omp critical ! CRITICAL
  crit = crit + 1
  !$omp end critical
  !$omp single ! SINGLE
  do t = 1, 8
    !$omp task ! TASK
    !$omp atomic
    tasks = tasks + 1
    !$omp end task
  end do
  !$omp taskwait ! TASKWAIT
  !$omp end single
  do rep = 1, 3
    !$omp do schedule(static, 1) ! UNBALANCED
    do i = 0, omp_get_num_threads() - 1
      call work(i + 1)
    end do
    !$omp end do
  end do
  !$omp end parallel
  if (s /= 500500 .or. crit /= nthreads .or. tasks /= 8) then
    print *, 'wrong: sum', s, 'critical', crit, 'tasks', tasks, 'threads', nthreads
    stop 1
  end if
end program omp_prog
