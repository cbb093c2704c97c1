// annotate("sp_region") and annotate("sp_region:NAME") on external and
// static functions: site globals, names, file, line, debug locations.
// RUN: %clang -O0 -g -S -emit-llvm -Xclang -disable-llvm-passes -o %t.ll %s
// RUN: %opt -load-pass-plugin %plugin -passes=scopeprof,verify -S %t.ll | FileCheck %s

// CHECK-DAG: [[FILE:@.sp.str[.0-9]*]] = private unnamed_addr constant [{{[0-9]+}} x i8] c"{{.*}}ir-annotate.c\00"
// CHECK-DAG: [[WORK:@.sp.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"work\00"
// CHECK-DAG: [[CUSTOM:@.sp.str[.0-9]*]] = private unnamed_addr constant [12 x i8] c"custom name\00"
// CHECK-DAG: @sp.site.work = private global { i32, i32, ptr, ptr } { i32 -1, i32 [[#@LINE+18]], ptr [[WORK]], ptr [[FILE]] }, align 8
// CHECK-DAG: @sp.site.helper = private global { i32, i32, ptr, ptr } { i32 -1, i32 [[#@LINE+25]], ptr [[CUSTOM]], ptr [[FILE]] }, align 8
// A function without the annotation gets no site.
// CHECK-NOT: @sp.site.plain

// Each call sits behind the runtime's sp_active_ flag (likely taken).
// CHECK-LABEL: define {{.*}}i32 @work(
// CHECK: %[[A:sp.active[0-9]*]] = load i32, ptr @sp_active_
// CHECK-NEXT: %[[CN:[0-9]+]] = icmp ne i32 %[[A]], 0
// CHECK-NEXT: %[[CI:sp.id[0-9]*]] = load atomic i32, ptr @sp.site.work monotonic, align 4
// CHECK-NEXT: %[[CX:[0-9]+]] = icmp ne i32 %[[CI]], -2
// CHECK-NEXT: %[[C:[0-9]+]] = and i1 %[[CN]], %[[CX]]
// CHECK-NEXT: br i1 %[[C]], label %[[ON:sp.on[0-9]*]], label %{{[0-9]+}}, !prof ![[LIKELY:[0-9]+]]
// CHECK: [[ON]]:
// CHECK-NEXT: call void @sp__enter(ptr @sp.site.work), !dbg ![[WENTRY:[0-9]+]]
// CHECK: call void @sp__exit(ptr @sp.site.work), !dbg ![[WEXIT:[0-9]+]]
// CHECK-NEXT: br label
// CHECK: ret i32
__attribute__((annotate("sp_region"))) int work(int n) {
  if (n > 10)
    return n - 1;
  return n * 2;
}

// Clang emits the static helper after its first user, plain().
__attribute__((annotate("sp_region:custom name"))) static int
helper(int n) {
  return n + 1;
}

// CHECK-LABEL: define {{.*}}i32 @plain(
// CHECK-NOT: sp__enter
// CHECK: ret
int plain(int n) { return helper(n) + work(n); }

// CHECK-LABEL: define internal i32 @helper(
// CHECK: call void @sp__enter(ptr @sp.site.helper), !dbg
// CHECK: call void @sp__exit(ptr @sp.site.helper), !dbg

// CHECK: declare extern_weak void @sp__enter(ptr) [[ATTR:#[0-9]+]]
// CHECK: declare extern_weak void @sp__exit(ptr) [[ATTR]]
// CHECK: attributes [[ATTR]] = { nounwind }
// CHECK-DAG: ![[LIKELY]] = !{!"branch_weights"{{.*}}, i32 {{[0-9]+}}, i32 1}
// CHECK-DAG: ![[WSP:[0-9]+]] = distinct !DISubprogram(name: "work", {{.*}}line: [[#@LINE-25]], {{.*}}scopeLine: [[#@LINE-25]]
// The entry call sits on the scope line, the exit on the return's line.
// CHECK-DAG: ![[WENTRY]] = !DILocation(line: [[#@LINE-27]], scope: ![[WSP]])
// CHECK-DAG: ![[WEXIT]] = !DILocation(line: [[#@LINE-24]], column: 1, scope: ![[WSP]])
