/* sym_prog.cpp - C++ functions for -finstrument-functions, named
 * demangled; with an argument it dies by SIGSEGV after its calls. */
#include <csignal>

namespace ns {
template <class T> __attribute__((noinline)) T twice(T x) { return 2 * x; }
} // namespace ns

__attribute__((noinline)) double over(double x) { return ns::twice(x); }

int main(int argc, char **) {
  volatile double v = over(2.0) + ns::twice(3);
  if (argc > 1)
    raise(SIGSEGV);
  return v == 0;
}
