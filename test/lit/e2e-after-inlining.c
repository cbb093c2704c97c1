// End to end, -finstrument-functions-after-inlining: only functions still
// out of line after optimisation are regions (at -O2 the inlined helper is
// not); at -O0 nothing is inlined. Annotated functions are regions anyway.
// REQUIRES: runtime
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O0 -g -finstrument-functions-after-inlining -fpass-plugin=%plugin %s %sp_link -o %t/a0
// RUN: env SP_FORMAT=spt SP_OUTPUT=%t/p0 %t/a0 && %sp_dump %t/p0_rank00000.spt | FileCheck %s --check-prefix=O0
// RUN: %clang -O2 -g -finstrument-functions-after-inlining -fpass-plugin=%plugin %s %sp_link -o %t/a2
// RUN: env SP_FORMAT=spt SP_OUTPUT=%t/p2 %t/a2 && %sp_dump %t/p2_rank00000.spt | FileCheck %s --check-prefix=O2
// RUN: llvm-nm %t/a0 %t/a2 | FileCheck %s --check-prefix=NM

static int helper(int x) { return x + 1; }
__attribute__((noinline)) int outline(int x) { return helper(x) * 2; }
__attribute__((annotate("sp_region"))) static int marked(int x) {
  return x - 1;
}
int main(void) {
  int s = 0;
  for (int i = 0; i < 3; ++i)
    s += outline(i) + marked(i);
  return s == 12 + 0 ? 0 : 1;
}

// O0: region=helper file={{.*}} line=12 calls=3
// O0-NEXT: region=main file={{.*}} line=17 calls=1
// O0-NEXT: region=marked file={{.*}} line=14 calls=3
// O0-NEXT: region=outline file={{.*}} line=13 calls=3
// O2-NOT: region=helper
// O2: region=main file={{.*}} line=17 calls=1
// O2-NEXT: region=marked file={{.*}} line=14 calls=3
// O2-NEXT: region=outline file={{.*}} line=13 calls=3
// NM-NOT: __cyg_profile_func
