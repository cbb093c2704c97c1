// Without debug info: the module's source file and line -1, no !dbg.
// RUN: %clang -O0 -S -emit-llvm -Xclang -disable-llvm-passes -o %t.ll %s
// RUN: %opt -load-pass-plugin %plugin -passes=scopeprof,verify -S %t.ll | FileCheck %s

// CHECK-DAG: [[FILE:@.sp.str[.0-9]*]] = private unnamed_addr constant [{{[0-9]+}} x i8] c"{{.*}}ir-nodebug.c\00"
// CHECK-DAG: @sp.site.f = private global { i32, i32, ptr, ptr } { i32 -1, i32 -1, ptr {{@.sp.str[.0-9]*}}, ptr [[FILE]] }
// CHECK: call void @sp__enter(ptr @sp.site.f){{$}}
// CHECK: call void @sp__exit(ptr @sp.site.f){{$}}
__attribute__((annotate("sp_region"))) int f(int x) { return x; }
