! native_prog.f90 - built by test_native_trace.py from the package's Fortran
! module and one-file C runtime: two nested regions, one without a location.
program native_prog
  use scope_profiler
  implicit none
  integer :: solve, io, i, j, ierr
  call sp_init(prefix='ftrace', ierr=ierr)
  if (ierr /= 0) stop 1
  solve = sp_region_at('solve', 'native_prog.f90', 9)
  io = sp_region('io')
  do i = 1, 6
    call sp_begin(solve)
    do j = 1, 2
      call sp_begin(io)
      call sp_end(io)
    end do
    call sp_end(solve)
  end do
  call sp_finalize(ierr)
  if (ierr /= 0) stop 2
end program native_prog
