! gf_endings.f90 - a gfortran -finstrument-functions program, with
! libgfortran's backtrace handlers on (as by default): n calls of work
! inside one open call of outer, then the signal given, raised; run as
! rt_gf_endings SIG,N by test_endings.
module ends
  use iso_c_binding
  implicit none
  interface
    integer(c_int) function c_raise(sig) bind(C, name="raise")
      import :: c_int
      integer(c_int), value :: sig
    end function
  end interface
  integer :: total = 0
contains
  subroutine work()
    total = total + 1
  end subroutine
  subroutine outer(n, sig)
    integer, intent(in) :: n, sig
    integer :: i, rc
    do i = 1, n
      call work()
    end do
    rc = c_raise(int(sig, c_int))
    print *, 'not ended', rc, total
  end subroutine
end module
program gf_endings
  use ends
  character(len=64) :: arg
  integer :: n, sig
  call get_command_argument(1, arg)
  read (arg, *) sig, n
  call outer(n, sig)
end program
