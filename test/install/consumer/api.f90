! api.f90 - the Fortran module, linked through ScopeProf::fortran.
program f_api
  use scope_profiler
  implicit none
  integer :: r, i
  r = sp_region_at("fortran_by_hand", "api.f90", 5)
  do i = 1, 3
    call sp_begin(r)
    call sp_end(r)
  end do
  call sp_finalize()
end program f_api
