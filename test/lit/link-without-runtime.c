// Objects built with the plugin link and run without the runtime on the
// link line, as -finstrument-functions objects do against libc's empty
// hooks (a configure script's link test; a program linked plainly): the
// guard's weak sp_active_ is 0 and the weak hooks are never called. With
// the shared or the static runtime the same objects record.
// REQUIRES: runtime
// RUN: rm -rf %t && mkdir -p %t
// RUN: for O in -O0 -O2; do %clang $O -g -finstrument-functions -fpass-plugin=%plugin %s -o %t/plain$O && %t/plain$O | FileCheck %s --check-prefix=OUT || exit 1; done
// RUN: %clang -O2 -g -fpass-plugin=%plugin -c %s -o %t/obj.o
// RUN: %clang %t/obj.o -o %t/plain_ann && %t/plain_ann | FileCheck %s --check-prefix=OUT
// RUN: %clang %t/obj.o %sp_link -o %t/shared && env SP_FORMAT=spt SP_OUTPUT=%t/shared %t/shared | FileCheck %s --check-prefix=OUT
// RUN: %sp_dump %t/shared_rank00000.spt | FileCheck %s --check-prefix=REC
// RUN: %clang %t/obj.o -Wl,-u,sp__enter %runtime_lib/libscopeprof.a -lpthread -ldl -lm -o %t/static && env SP_FORMAT=spt SP_OUTPUT=%t/static %t/static | FileCheck %s --check-prefix=OUT
// RUN: %sp_dump %t/static_rank00000.spt | FileCheck %s --check-prefix=REC
// Unguarded calls (-sp-inline-check=false) are strong: they need the runtime.
// RUN: not %clang -O2 %load_plugin -mllvm -sp-inline-check=false %s -o %t/strong 2>&1 | FileCheck %s --check-prefix=STRONG
#include <stdio.h>

__attribute__((annotate("sp_region"), noinline)) int twice(int x) {
  return 2 * x;
}

int main(void) {
  int s = 0;
  for (int i = 0; i < 3; i++)
    s += twice(7);
  printf("%d\n", s);
  return 0;
}
// OUT: 42
// REC: region=twice {{.*}}calls=3
// STRONG: undefined reference to {{.*}}sp__enter
