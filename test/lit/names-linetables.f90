! Flang with -gline-tables-only: module names come from the mangling, the
! main program's name from its subprogram.
! REQUIRES: flang-instrument
! RUN: %flang -O0 -gline-tables-only -finstrument-functions -fpass-plugin=%plugin -S -emit-llvm -o - %s | FileCheck %s
module heat
contains
  subroutine step(x)
    real, intent(inout) :: x
    x = x + 1.0
  end subroutine step
end module heat
program Demo
  use heat
  real :: y
  y = 0
  call step(y)
  print *, y
end program Demo
! CHECK-DAG: c"heat::step\00"
! CHECK-DAG: c"demo\00"
! CHECK-DAG: @sp.site._QMheatPstep = private global { i32, i32, ptr, ptr } { i32 -1, i32 7,
! CHECK-DAG: @sp.site._QQmain = private global { i32, i32, ptr, ptr } { i32 -1, i32 12,
! CHECK-NOT: __cyg_profile_func
