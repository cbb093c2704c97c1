// throw_prog.cpp - records N calls inside an open region, then lets a C++
// exception escape main: std::terminate, abort(), SIGABRT.
#include "scope_profiler.h"

#include <cstdlib>
#include <stdexcept>

int main(int argc, char **argv) {
  long n = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 0;
  int outer = sp_region("outer"), work = sp_region("work");
  sp_begin(outer);
  for (long i = 0; i < n; i++) {
    sp_begin(work);
    sp_end(work);
  }
  throw std::runtime_error("uncaught");
}
