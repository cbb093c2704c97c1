! omp_prog.f90 - a Fortran parallel do with a reduction, for test_omp.
program omp_prog
  implicit none
  integer :: i
  integer(8) :: s
  s = 0
  !$omp parallel do reduction(+:s)
  do i = 1, 1000
    s = s + i
  end do
  !$omp end parallel do
  if (s /= 500500) then
    print *, 'wrong sum', s
    stop 1
  end if
end program omp_prog
