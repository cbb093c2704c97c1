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
// A generic lambda is named as c++filt names it (LLVM's demangler says
// 'lambda'(int* const&) with a stray auto):
// CHECK-DAG: c"auto each<int*>(int*, int*)::{lambda(auto:1 const&)#1}::operator()<int>(int const&) const\00"
// CHECK-DAG: c"int each<int*>(int*, int*)\00"
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

template <class It> int each(It a, It b) {
  auto f = [](const auto &x) { return x + 1; };
  int s = 0;
  for (; a != b; ++a)
    s += f(*a);
  return s;
}
int use2() {
  int v[2] = {1, 2};
  return each(v, v + 2);
}
