// annotate("sp_region:") with no name: a compiler warning, and the region
// takes the function's name.
// RUN: %clang -O2 -fpass-plugin=%plugin -S -emit-llvm -o %t.ll %s 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: FileCheck %s < %t.ll
// WARN: warning: scopeprof: annotate("sp_region:") on 'f' gives no name; the region is named after the function
// CHECK: c"f\00"
// CHECK: @sp.site.f = private global
__attribute__((annotate("sp_region:"))) int f(int x) { return x + 1; }
