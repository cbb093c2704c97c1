! cyg_prog.f90 - a gfortran -finstrument-functions program: module procedures
! must come out as module::proc, recursion counted call by call.
module heat
contains
  recursive function fact(n) result(r)
    integer, intent(in) :: n
    integer :: r
    if (n <= 1) then
      r = 1
    else
      r = n * fact(n - 1)
    end if
  end function
  subroutine step(x)
    real, intent(inout) :: x
    x = x * 0.5
  end subroutine
end module
program demo
  use heat
  real :: x = 1.0
  integer :: i
  do i = 1, 3
    call step(x)
  end do
  print *, x, fact(5)
end program
