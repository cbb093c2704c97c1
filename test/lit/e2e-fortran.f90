! End to end, Fortran (flang-22 -finstrument-functions): a module procedure,
! the main program, a recursive function; -O0 and -O2, with and without -g.
! REQUIRES: flang-instrument, runtime
! RUN: rm -rf %t && mkdir -p %t
! RUN: for O in -O0 -O2; do %flang $O -g -finstrument-functions -fpass-plugin=%plugin %s %sp_link -o %t/a$O && env SP_FORMAT=spt SP_OUTPUT=%t/p$O %t/a$O > %t/out$O.txt 2> %t/err$O.txt && %sp_dump %t/p${O}_rank00000.spt | FileCheck %s && FileCheck %s --check-prefix=CLEAN --allow-empty < %t/err$O.txt && llvm-nm %t/a$O | FileCheck %s --check-prefix=NM || exit 1; done
! RUN: for O in -O0 -O2; do %flang $O -finstrument-functions -fpass-plugin=%plugin %s %sp_link -o %t/b$O && env SP_FORMAT=spt SP_OUTPUT=%t/q$O %t/b$O > /dev/null && %sp_dump %t/q${O}_rank00000.spt | FileCheck %s --check-prefix=NODBG || exit 1; done
! RUN: %flang -O2 -finstrument-functions -fpass-plugin=%plugin -S -emit-llvm -o - %s | FileCheck %s --check-prefix=IR

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
  end function fact

  subroutine step(x)
    real, intent(inout) :: x
    x = x + 1.0
  end subroutine step
end module heat

program Demo
  use heat
  real :: y
  integer :: i
  y = 0
  do i = 1, 3
    call step(y)
  end do
  print *, y, fact(5)
end program Demo

! Names are lower case (Fortran is case-insensitive; see docs/plugin.md).
! CHECK: block rank=0 thread=0 region=demo file={{.*}}e2e-fortran.f90 line=27 calls=1
! CHECK-NEXT: block rank=0 thread=0 region=heat::fact file={{.*}}e2e-fortran.f90 line=11 calls=5
! CHECK-NEXT: block rank=0 thread=0 region=heat::step file={{.*}}e2e-fortran.f90 line=21 calls=3
! CHECK-NOT: region=main
! CLEAN-NOT: scopeprof:
! NM-NOT: __cyg_profile_func

! Without debug info: names from Flang's mangling, the program as "main",
! no file, line -1.
! NODBG: block rank=0 thread=0 region=heat::fact file=- line=-1 calls=5
! NODBG-NEXT: block rank=0 thread=0 region=heat::step file=- line=-1 calls=3
! NODBG-NEXT: block rank=0 thread=0 region=main file=- line=-1 calls=1

! IR-NOT: __cyg_profile_func
! IR-DAG: c"heat::fact\00"
! IR-DAG: @sp.site._QMheatPfact = private global
! IR-DAG: @sp.site._QQmain = private global
