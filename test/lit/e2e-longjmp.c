// longjmp is a documented limitation: the frames it skips get no exit call.
// The runtime's mismatched-end rule repairs the nesting: the next exit of
// the outer region closes them, every call is kept, and finalize says so.
// REQUIRES: runtime
// RUN: rm -rf %t && mkdir -p %t
// RUN: for O in -O0 -O2; do %clang $O -g -fpass-plugin=%plugin %s %sp_link -o %t/a$O && env SP_FORMAT=spt SP_OUTPUT=%t/p$O %t/a$O 2> %t/err$O.txt && %sp_dump %t/p${O}_rank00000.spt | FileCheck %s && FileCheck %s --check-prefix=WARN < %t/err$O.txt || exit 1; done
#include <setjmp.h>

static jmp_buf env;

__attribute__((annotate("sp_region"), noinline)) void deep(int n) {
  if (n == 0)
    longjmp(env, 1);
  deep(n - 1);
}

__attribute__((annotate("sp_region"), noinline)) void outer(void) {
  if (!setjmp(env))
    deep(2);
}

int main(void) {
  for (int i = 0; i < 3; ++i)
    outer();
  return 0;
}

// CHECK: region=deep file={{.*}}e2e-longjmp.c line=11 calls=9
// CHECK-NEXT: region=outer file={{.*}}e2e-longjmp.c line=17 calls=3
// WARN: scopeprof: 3 sp_end call(s) did not match the innermost open region
