! f90_api.f90 - the Fortran module API with nesting and recursion, built with
! gfortran -finstrument-functions as well; test_runtime.c checks its file.
program api_demo
  use scope_profiler
  implicit none
  integer :: outer, inner, rec, i, ierr, again
  call sp_init(ierr=ierr)
  if (ierr /= 0) stop 2
  outer = sp_region_at("outer   ", "api_prog.f90   ", 10)
  inner = sp_region("inner  ")
  rec = sp_region_at("fact", "api_prog.f90", 30)
  again = sp_region("outer")
  if (again /= outer) stop 3
  if (sp_region("   ") /= -1) stop 6 ! SP_EINVAL
  call sp_begin(outer)
  do i = 1, 3
    call sp_begin(inner)
    call sp_end(inner)
  end do
  ! Paused: these calls of inner are not recorded (inner stays at 3 calls);
  ! a second resume has no pause to end (SP_EINVAL).
  call sp_pause(ierr)
  if (ierr /= 0) stop 7
  call sp_begin(inner)
  call sp_end(inner)
  call sp_resume(ierr)
  if (ierr /= 0) stop 8
  call sp_resume(ierr)
  if (ierr /= -1) stop 9
  call sp_end(outer)
  print *, fact(4, rec)
  call sp_finalize(ierr)
  if (ierr /= 0) stop 4
  call sp_finalize(ierr)
  if (ierr /= 0) stop 5
contains
  recursive function fact(n, id) result(r)
    integer, intent(in) :: n, id
    integer :: r
    call sp_begin(id)
    if (n <= 1) then
      r = 1
    else
      r = n * fact(n - 1, id)
    end if
    call sp_end(id)
  end function fact
end program api_demo
