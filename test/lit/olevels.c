// The callbacks fire at -O0, -O2 and -O3: annotate and -finstrument-functions
// both give regions, and the program's profile shows them.
// RUN: rm -rf %t && mkdir -p %t
// RUN: for O in -O0 -O2 -O3; do %clang $O -fpass-plugin=%plugin -S -emit-llvm -o - %s | FileCheck %s --check-prefix=ANN || exit 1; done
// RUN: for O in -O0 -O2 -O3; do %clang $O -finstrument-functions -fpass-plugin=%plugin -S -emit-llvm -o - %s | FileCheck %s --check-prefix=CYG || exit 1; done
// REQUIRES: runtime
// RUN: for O in -O0 -O2 -O3; do %clang $O -g -fpass-plugin=%plugin %s %sp_link -o %t/a$O && env SP_FORMAT=spt SP_OUTPUT=%t/p$O %t/a$O && %sp_dump %t/p${O}_rank00000.spt | FileCheck %s --check-prefix=PROF || exit 1; done

__attribute__((annotate("sp_region"), noinline)) int hot(int x) {
  return x * 3;
}
int main(void) {
  int s = 0;
  for (int i = 0; i < 5; ++i)
    s += hot(i);
  return s == 30 ? 0 : 1;
}

// ANN: @sp.site.hot = private global
// ANN: call void @sp__enter(ptr {{.*}}@sp.site.hot)
// ANN: call void @sp__exit(ptr {{.*}}@sp.site.hot)
// CYG-DAG: @sp.site.hot = private global
// CYG-DAG: @sp.site.main = private global
// CYG-NOT: __cyg_profile_func
// PROF: block rank=0 thread=0 region=hot file={{.*}}olevels.c line=[[#@LINE-16]] calls=5
