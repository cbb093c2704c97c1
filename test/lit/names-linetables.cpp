// -gline-tables-only has no linkage names in its subprograms: C++ overloads
// must stay apart anyway, and the file/line still come from debug info.
// RUN: %clangxx -O0 -gline-tables-only -S -emit-llvm -Xclang -disable-llvm-passes -o %t.ll %s
// RUN: %opt -load-pass-plugin %plugin -passes=scopeprof,verify -S %t.ll | FileCheck %s

// CHECK-DAG: [[FILE:@.sp.str[.0-9]*]] = private unnamed_addr constant [{{[0-9]+}} x i8] c"{{.*}}names-linetables.cpp\00"
// CHECK-DAG: [[I:@.sp.str[.0-9]*]] = private unnamed_addr constant [{{[0-9]+}} x i8] c"over(int)\00"
// CHECK-DAG: [[D:@.sp.str[.0-9]*]] = private unnamed_addr constant [{{[0-9]+}} x i8] c"over(double)\00"
// CHECK-DAG: @sp.site._Z4overi = private global { i32, i32, ptr, ptr } { i32 -1, i32 [[#@LINE+4]], ptr [[I]], ptr [[FILE]] }
// CHECK-DAG: @sp.site._Z4overd = private global { i32, i32, ptr, ptr } { i32 -1, i32 [[#@LINE+4]], ptr [[D]], ptr [[FILE]] }
// CHECK: call void @sp__enter(ptr @sp.site._Z4overi), !dbg
// CHECK: call void @sp__enter(ptr @sp.site._Z4overd), !dbg
__attribute__((annotate("sp_region"))) int over(int x) { return x + 1; }
__attribute__((annotate("sp_region"))) double over(double x) { return x * 2; }
