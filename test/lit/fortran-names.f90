! Fortran region names with and without debug info: module procedures,
! internal procedures (host::inner), bind(C) procedures (their C name),
! external procedures (without the symbol's trailing '_').
! REQUIRES: flang-instrument
! RUN: %flang -O0 -g -finstrument-functions -fpass-plugin=%plugin -S -emit-llvm -o - %s | FileCheck %s --check-prefixes=CHECK,DBG
! RUN: %flang -O0 -finstrument-functions -fpass-plugin=%plugin -S -emit-llvm -o - %s | FileCheck %s --check-prefixes=CHECK,NODBG
! RUN: %flang -O2 -finstrument-functions -fpass-plugin=%plugin -S -emit-llvm -o - %s | FileCheck %s --check-prefixes=CHECK,NODBG
module solver
contains
  subroutine host(x)
    real :: x
    call inner()
  contains
    subroutine inner()
      x = x + 1
    end subroutine inner
  end subroutine host
  subroutine cfun(y) bind(c, name="c_fun")
    real :: y
    y = y * 2
  end subroutine cfun
end module solver
subroutine ext(z)
  real :: z
  z = z - 1
end subroutine ext

! CHECK-DAG: c"solver::host\00"
! CHECK-DAG: c"solver::host::inner\00"
! CHECK-DAG: c"c_fun\00"
! CHECK-DAG: c"ext\00"
! DBG-DAG: @sp.site._QMsolverPhost = private global { i32, i32, ptr, ptr } { i32 -1, i32 10,
! DBG-DAG: @sp.site._QMsolverFhostPinner = private global { i32, i32, ptr, ptr } { i32 -1, i32 14,
! DBG-DAG: @sp.site.ext_ = private global { i32, i32, ptr, ptr } { i32 -1, i32 23,
! NODBG-DAG: @sp.site._QMsolverPhost = private global { i32, i32, ptr, ptr } { i32 -1, i32 -1, ptr {{@.sp.str[.0-9]*}}, ptr null }
! CHECK-NOT: __cyg_profile_func
