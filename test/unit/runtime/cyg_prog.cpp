// cyg_prog.cpp - a g++ -finstrument-functions program: names must come out
// demangled, with overloads and template instances kept apart.
#include <cstdio>

namespace ns {
template <class T> __attribute__((noinline)) T twice(T x) { return x + x; }
} // namespace ns
static __attribute__((noinline)) int over(int x) { return x + 1; }
static __attribute__((noinline)) double over(double x) { return x + 0.5; }

int main() {
  std::printf("%d %g %d %g\n", ns::twice(3), ns::twice(2.0), over(1),
              over(2.0));
  return 0;
}
