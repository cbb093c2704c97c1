// The whole Clang pipeline (release Clang skips the verifier) leaves valid
// IR and debug info: every -O, -g and -gline-tables-only, annotate,
// -finstrument-functions (with C++ exception cleanups) and -after-inlining.
// RUN: rm -rf %t && mkdir -p %t
// RUN: for O in -O0 -O1 -O2 -O3; do for G in -g -gline-tables-only; do for I in -finstrument-functions -finstrument-functions-after-inlining -DNONE; do %clangxx $O $G $I -fpass-plugin=%plugin -S -emit-llvm -o %t/o.ll %s && %opt -passes=verify -disable-output %t/o.ll && FileCheck %s < %t/o.ll || exit 1; done; done; done
// RUN: %clangxx -O2 -g -finstrument-functions -fpass-plugin=%plugin -Rpass=scopeprof -Rpass-missed=scopeprof -c -o %t/r.o %s 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: env SP_PLUGIN_VERBOSE=1 %clangxx -O2 -finstrument-functions -fpass-plugin=%plugin -c -o %t/v.o %s 2>&1 | FileCheck %s --check-prefix=VERBOSE

struct Guard {
  int *p;
  ~Guard() { ++*p; }
};
int may_throw(int);

__attribute__((annotate("sp_region"))) int work(int x) {
  int n = 0;
  {
    Guard g{&n};
    x += may_throw(x);
  }
  return x + n;
}
int caller(int x) {
  try {
    return work(x) + work(x + 1);
  } catch (...) {
    return -1;
  }
}
[[noreturn]] void fail(int x) { throw x; }

// CHECK: call void @sp__enter(
// CHECK: call void @sp__exit(
// CHECK-NOT: __cyg_profile_func

// REMARK-DAG: remark: instrumented 'work(int)' [{{.*}}verify-pipeline.cpp:15] (annotate; {{.*}}) [-Rpass=scopeprof]
// REMARK-DAG: remark: instrumented 'caller(int)' {{.*}} [-Rpass=scopeprof]
// VERBOSE-DAG: scopeprof: {{.*}}verify-pipeline.cpp: instrumented 'fail(int)' [{{.*}}verify-pipeline.cpp:-1] (-finstrument-functions; 0 exit(s), 1 call(s) given an EH cleanup)
// VERBOSE-DAG: scopeprof: {{.*}}verify-pipeline.cpp: instrumented 'Guard::~Guard()'
