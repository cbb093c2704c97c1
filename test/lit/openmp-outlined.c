// OpenMP bodies that Clang outlines are not regions: the runtime records
// them through OMPT ("omp implicit task @ file:line", "omp task @ ...").
// At -O0 -g Clang emits foo.omp_outlined calling foo.omp_outlined_debug__,
// both with hooks; at -O2 the debug__ body (and its hooks) is inlined.
// RUN: %clang -fopenmp -O0 -g -finstrument-functions %load_plugin -S -emit-llvm -o - %s -Rpass-missed=scopeprof 2>%t.o0.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.o0.remarks
// RUN: %clang -fopenmp -O2 -g -finstrument-functions %load_plugin -S -emit-llvm -o - %s | FileCheck %s

// CHECK-NOT: @sp.site.{{[^ ]*}}omp
// CHECK: define {{.*}}void @foo(
// CHECK: call void @sp__enter(ptr {{.*}}@sp.site.foo)
// CHECK-NOT: call void @sp__enter
// CHECK-NOT: __cyg_profile_func
// REMARK-DAG: skipped 'foo.omp_outlined': OpenMP outlined body
// REMARK-DAG: skipped 'foo.omp_outlined_debug__': OpenMP outlined body
void foo(double *a, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    a[i] *= 2;
#pragma omp parallel
#pragma omp single
  {
#pragma omp task
    a[0] += 1;
  }
}
