// End to end, C++: overloads, templates, lambdas, and a throw through three
// instrumented frames that is caught, leaving no region open; -O0 and -O2.
// REQUIRES: runtime
// RUN: rm -rf %t && mkdir -p %t
// RUN: for O in -O0 -O2; do %clangxx $O -g -finstrument-functions -fpass-plugin=%plugin %s %sp_link -o %t/a$O && env SP_FORMAT=spt SP_OUTPUT=%t/p$O %t/a$O > %t/out$O.txt 2> %t/err$O.txt && %sp_dump %t/p${O}_rank00000.spt | FileCheck %s && FileCheck %s --check-prefix=OUT < %t/out$O.txt && FileCheck %s --check-prefix=CLEAN --allow-empty < %t/err$O.txt || exit 1; done
// And with annotate only.
// RUN: for O in -O0 -O2; do %clangxx $O -DANNOTATE -fpass-plugin=%plugin %s %sp_link -o %t/b$O && env SP_FORMAT=spt SP_OUTPUT=%t/q$O %t/b$O > /dev/null 2> %t/errb$O.txt && %sp_dump %t/q${O}_rank00000.spt | FileCheck %s --check-prefix=ANN && FileCheck %s --check-prefix=CLEAN --allow-empty < %t/errb$O.txt || exit 1; done
#include <cstdio>

#ifdef ANNOTATE
#define R __attribute__((annotate("sp_region")))
#else
#define R
#endif

R __attribute__((noinline)) int over(int x) { return x + 1; }
R __attribute__((noinline)) double over(double x) { return x * 2; }
template <class T> R __attribute__((noinline)) T twice(T x) { return x + x; }

R __attribute__((noinline)) int thrower(int depth) {
  if (depth == 0)
    throw 42;
  return depth;
}
R __attribute__((noinline)) int middle(int d) { return thrower(d) + 1; }
R __attribute__((noinline)) int outer(int d) { return middle(d) + 1; }

int main() {
  int s = over(1) + (int)over(2.0) + twice(3) + (int)twice(1.5);
  auto sq = [](int v) __attribute__((noinline)) { return v * v; };
  for (int i = 0; i < 3; ++i)
    s += sq(i);
  int caught = 0;
  for (int i = 0; i < 2; ++i) {
    try {
      s += outer(0);
    } catch (int e) {
      caught += e;
    }
  }
  s += outer(5);
  std::printf("s=%d caught=%d\n", s, caught);
  return 0;
}

// OUT: s=27 caught=84
// The runtime warns on stderr about regions left open or closed out of
// order; neither may happen.
// CLEAN-NOT: scopeprof:
// CHECK: block rank=0 thread=0 region=double twice<double>(double) file={{.*}}e2e-cxx.cpp line=18 calls=1
// CHECK-NEXT: block rank=0 thread=0 region=int twice<int>(int) file={{.*}}e2e-cxx.cpp line=18 calls=1
// CHECK-NEXT: block rank=0 thread=0 region=main file={{.*}}e2e-cxx.cpp line=28 calls=1
// CHECK-NEXT: block rank=0 thread=0 region=main::$_0::operator()(int) const file={{.*}}e2e-cxx.cpp line=30 calls=3
// CHECK-NEXT: block rank=0 thread=0 region=middle(int) file={{.*}}e2e-cxx.cpp line=25 calls=3
// CHECK-NEXT: block rank=0 thread=0 region=outer(int) file={{.*}}e2e-cxx.cpp line=26 calls=3
// CHECK-NEXT: block rank=0 thread=0 region=over(double) file={{.*}}e2e-cxx.cpp line=17 calls=1
// CHECK-NEXT: block rank=0 thread=0 region=over(int) file={{.*}}e2e-cxx.cpp line=16 calls=1
// CHECK-NEXT: block rank=0 thread=0 region=thrower(int) file={{.*}}e2e-cxx.cpp line=20 calls=3
// ANN: region=double twice<double>(double) file={{.*}}e2e-cxx.cpp line=-1 calls=1
// ANN: region=middle(int) file={{.*}}e2e-cxx.cpp line=-1 calls=3
// ANN: region=outer(int) file={{.*}}e2e-cxx.cpp line=-1 calls=3
// ANN: region=thrower(int) file={{.*}}e2e-cxx.cpp line=-1 calls=3
