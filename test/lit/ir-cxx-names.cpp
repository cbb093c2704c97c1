// C++ regions carry the demangled signature: overloads, templates and
// lambdas stay distinct.
// RUN: %clangxx -O0 -g -finstrument-functions -S -emit-llvm -Xclang -disable-llvm-passes -o %t.ll %s
// RUN: %opt -load-pass-plugin %plugin -passes=scopeprof,verify -S %t.ll | FileCheck %s

// CHECK-DAG: c"over(int)\00"
// CHECK-DAG: c"over(double)\00"
// CHECK-DAG: c"int twice<int>(int)\00"
// CHECK-DAG: c"double twice<double>(double)\00"
// CHECK-DAG: c"ns::S::method() const\00"
// CHECK-DAG: c"use()::$_0::operator()(int) const\00"
// CHECK-DAG: c"use()\00"
// CHECK-NOT: __cyg_profile_func
int over(int x) { return x + 1; }
double over(double x) { return x + 2; }
template <class T> T twice(T x) { return x + x; }
namespace ns {
struct S {
  int method() const { return 4; }
};
} // namespace ns
int use() {
  auto l = [](int y) { return y * 5; };
  return over(1) + (int)over(2.0) + twice(3) + (int)twice(4.0) +
         ns::S().method() + l(6);
}
