// -finstrument-functions marks functions with attributes; the pass consumes
// them at PipelineStart, and the -after-inlining ones only at OptimizerLast.
// RUN: %clang -O1 -S -emit-llvm -Xclang -disable-llvm-passes -finstrument-functions -o %t.pre.ll %s
// RUN: %opt -load-pass-plugin %plugin -passes=scopeprof-start,verify -S %t.pre.ll | FileCheck %s --check-prefixes=CHECK,PRE
// RUN: %clang -O1 -S -emit-llvm -Xclang -disable-llvm-passes -finstrument-functions-after-inlining -o %t.post.ll %s
// RUN: %opt -load-pass-plugin %plugin -passes=scopeprof-start,verify -S %t.post.ll | FileCheck %s --check-prefix=START
// RUN: %opt -load-pass-plugin %plugin -passes=scopeprof-last,verify -S %t.post.ll | FileCheck %s --check-prefixes=CHECK,POST

// CHECK-LABEL: define {{.*}}i32 @leaf(
// CHECK: call void @sp__enter(ptr @sp.site.leaf)
// CHECK: call void @sp__exit(ptr @sp.site.leaf)
// START-LABEL: define {{.*}}i32 @leaf(
// START-NOT: sp__enter
int leaf(int x) { return x * 3; }

// CHECK-LABEL: define {{.*}}i32 @quiet(
// CHECK-NOT: sp__enter
// CHECK: ret
__attribute__((no_instrument_function)) int quiet(int x) { return leaf(x); }

// CHECK-NOT: instrument-function-{{entry|exit}}
// PRE-NOT: __cyg_profile_func
// POST-NOT: __cyg_profile_func
// START: "instrument-function-entry-inlined"="__cyg_profile_func_enter"
