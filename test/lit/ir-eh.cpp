// C++: a call that may throw becomes an invoke whose cleanup closes the
// region and resumes; a function's own cleanup closes it before its resume.
// RUN: %clangxx -O0 -g -S -emit-llvm -Xclang -disable-llvm-passes -o %t.ll %s
// RUN: %opt -load-pass-plugin %plugin -passes=scopeprof,verify -sp-inline-check=false -S %t.ll | FileCheck %s

int may_throw(int);

// CHECK-LABEL: define {{.*}}i32 @_Z6throwsi({{.*}} personality ptr @__gxx_personality_v0
// CHECK: call void @sp__enter(ptr @sp.site._Z6throwsi)
// CHECK: invoke noundef i32 @_Z9may_throwi(
// CHECK-NEXT: to label %{{.*}} unwind label %[[PAD:sp.cleanup]]
// CHECK: call void @sp__exit(ptr @sp.site._Z6throwsi), !dbg
// CHECK-NEXT: ret i32
// CHECK: [[PAD]]:
// CHECK-NEXT: %[[LP:[0-9a-z.]+]] = landingpad { ptr, i32 }
// CHECK-NEXT: cleanup
// CHECK-NEXT: call void @sp__exit(ptr @sp.site._Z6throwsi), !dbg ![[PADLOC:[0-9]+]]
// CHECK-NEXT: resume { ptr, i32 } %[[LP]]
__attribute__((annotate("sp_region"))) int throws(int x) {
  return may_throw(x) + 1;
}

// noexcept: an exception cannot leave it, so no cleanup is added.
// CHECK-LABEL: define {{.*}}i32 @_Z7nothrowi(
// CHECK: call void @sp__enter(ptr @sp.site._Z7nothrowi)
// CHECK-NOT: sp.cleanup
// CHECK: call void @sp__exit(ptr @sp.site._Z7nothrowi)
// CHECK-NEXT: ret i32
__attribute__((annotate("sp_region"))) int nothrow(int x) noexcept {
  return may_throw(x);
}

struct Guard {
  ~Guard();
};

// Own cleanup (a destructor): the region closes before its resume.
// CHECK-LABEL: define {{.*}}i32 @_Z7guardedi(
// CHECK: call void @sp__enter(ptr @sp.site._Z7guardedi)
// CHECK: invoke noundef i32 @_Z9may_throwi(
// CHECK: landingpad
// CHECK: call void @sp__exit(ptr @sp.site._Z7guardedi)
// CHECK-NEXT: resume
__attribute__((annotate("sp_region"))) int guarded(int x) {
  Guard g;
  return may_throw(x);
}

// CHECK-DAG: ![[SP:[0-9]+]] = distinct !DISubprogram(name: "throws"
// CHECK-DAG: ![[PADLOC]] = !DILocation(line: 0, scope: ![[SP]])
