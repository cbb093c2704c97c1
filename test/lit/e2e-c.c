// End to end, C: annotate, a recursive function, a static function, and a
// -finstrument-functions build, each at -O0 and -O2; names, counts, lines.
// REQUIRES: runtime
// RUN: rm -rf %t && mkdir -p %t
// RUN: for O in -O0 -O2; do %clang $O -g -fpass-plugin=%plugin %s %sp_link -o %t/ann$O && env SP_FORMAT=spt SP_OUTPUT=%t/ann$O %t/ann$O 2> %t/err$O.txt && %sp_dump %t/ann${O}_rank00000.spt | FileCheck %s --check-prefix=ANN && FileCheck %s --check-prefix=CLEAN --allow-empty < %t/err$O.txt || exit 1; done
// RUN: for O in -O0 -O2; do %clang $O -g -finstrument-functions -fpass-plugin=%plugin %s %sp_link -o %t/cyg$O && env SP_FORMAT=spt SP_OUTPUT=%t/cyg$O %t/cyg$O && %sp_dump %t/cyg${O}_rank00000.spt | FileCheck %s --check-prefix=CYG || exit 1; done

__attribute__((annotate("sp_region"))) int fib(int n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((annotate("sp_region:kernel"))) static int kernel(int x) {
  return x * x;
}

static int helper(int x) { return kernel(x) + 1; }

int main(void) {
  int s = fib(10); // 177 calls
  for (int i = 0; i < 4; ++i)
    s += helper(i);
  return s == 55 + 4 + 14 ? 0 : 1;
}

// ANN: rank 0 version 4
// ANN-NEXT: block rank=0 thread=0 region=fib file={{.*}}e2e-c.c line=8 calls=177
// ANN-NEXT: block rank=0 thread=0 region=kernel file={{.*}}e2e-c.c line=12 calls=4
// ANN-NOT: region=

// The runtime warns on stderr about regions left open or closed out of
// order; neither may happen.
// CLEAN-NOT: scopeprof:

// With -finstrument-functions every function is a region (the annotated
// ones once, not twice); helper is inlined at -O2 but keeps its region.
// CYG: block rank=0 thread=0 region=fib file={{.*}}e2e-c.c line=8 calls=177
// CYG-NEXT: block rank=0 thread=0 region=helper file={{.*}}e2e-c.c line=16 calls=4
// CYG-NEXT: block rank=0 thread=0 region=kernel file={{.*}}e2e-c.c line=12 calls=4
// CYG-NEXT: block rank=0 thread=0 region=main file={{.*}}e2e-c.c line=18 calls=1
