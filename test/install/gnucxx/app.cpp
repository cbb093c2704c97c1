// app.cpp - a C++ program whose hot loop is in the standard library's
// headers (std::vector::operator[], std::sort): built with sp-c++ and g++,
// only its own functions may be recorded.
#include <algorithm>
#include <cstdio>
#include <vector>

static long __attribute__((noinline)) sum(const std::vector<long> &v) {
  long s = 0;
  for (size_t i = 0; i < v.size(); i++)
    s += v[i];
  return s;
}

static void __attribute__((noinline)) fill(std::vector<long> &v) {
  for (size_t i = 0; i < v.size(); i++)
    v[i] = (long)((i * 7919) % 1000);
  std::sort(v.begin(), v.end());
}

int main() {
  std::vector<long> v(1000);
  long s = 0;
  for (int k = 0; k < 3; k++) {
    fill(v);
    s += sum(v);
  }
  std::printf("%ld\n", s);
  return 0;
}
