// Under -finstrument-functions, functions defined in system headers (here
// libstdc++'s std::vector and std::accumulate) are not regions unless
// -mllvm -sp-system-headers asks for them; the program's own are.
// REQUIRES: runtime
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clangxx -O0 -g -finstrument-functions -fpass-plugin=%plugin %s %sp_link -o %t/def && env SP_FORMAT=spt SP_OUTPUT=%t/def %t/def
// RUN: %sp_dump %t/def_rank00000.spt | FileCheck %s --check-prefix=DEF
// RUN: %sp_dump %t/def_rank00000.spt | grep -c '^block' | FileCheck %s --check-prefix=TWO
// RUN: %clangxx -O0 -g -finstrument-functions %load_plugin -mllvm -sp-system-headers %s %sp_link -o %t/all && env SP_FORMAT=spt SP_OUTPUT=%t/all %t/all
// RUN: %sp_dump %t/all_rank00000.spt | FileCheck %s --check-prefix=ALL
// RUN: %clangxx -O0 -g -finstrument-functions %load_plugin -mllvm -sp-verbose -c %s -o %t/v.o 2>&1 | FileCheck %s --check-prefix=WHY
#include <numeric>
#include <vector>

__attribute__((noinline)) double total(const std::vector<double> &v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

int main() {
  std::vector<double> v(100, 1.5);
  double s = 0;
  for (int i = 0; i < 3; i++)
    s += total(v);
  return s == 450.0 ? 0 : 1;
}
// DEF-DAG: block rank=0 thread=0 region=total(std::vector<double, std::allocator<double> > const&) {{.*}}calls=3
// DEF-DAG: block rank=0 thread=0 region=main {{.*}}calls=1
// TWO: {{^}}2{{$}}
// ALL-DAG: region=total(std::vector<double, std::allocator<double> > const&) {{.*}}calls=3
// ALL-DAG: region=double std::accumulate<{{.*}}calls=3
// WHY: skipped 'double std::accumulate<{{.*}}': defined in a system header ({{.*}}include/c++/{{[0-9]+}}/bits/stl_numeric.h; -mllvm -sp-system-headers keeps these)
