// The filter file: include/exclude by function and file glob, last match
// wins, min-instructions; -mllvm -sp-filter and $SP_FILTER; bad lines are
// compiler errors naming FILE:LINE.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf '# keep hot code only\nexclude function small_*\ninclude function small_keep\nmin-instructions 6\n\nexclude function big_skip\n' > %t/f.txt
// RUN: %clang -O1 -finstrument-functions %load_plugin -mllvm -sp-filter=%t/f.txt -mllvm -sp-verbose -S -emit-llvm -o %t/out.ll %s 2> %t/why.txt
// RUN: FileCheck %s --check-prefix=IR < %t/out.ll
// RUN: FileCheck %s --check-prefix=WHY < %t/why.txt
// RUN: env SP_FILTER=%t/f.txt %clang -O1 -finstrument-functions -fpass-plugin=%plugin -S -emit-llvm -o - %s | FileCheck %s --check-prefix=IR
//
// File globs.
// RUN: printf 'exclude file *filter.c\ninclude function big_*\n' > %t/g.txt
// RUN: %clang -O1 -finstrument-functions %load_plugin -mllvm -sp-filter=%t/g.txt -S -emit-llvm -o - %s | FileCheck %s --check-prefix=GLOB
//
// Errors: one compiler error naming FILE:LINE (once, though the pass runs at
// two points of the pipeline), no crash, no output.
// RUN: printf '# ok\ninclude function f\nfrobnicate x\n' > %t/bad1.txt
// RUN: not %clang -O1 -finstrument-functions %load_plugin -mllvm -sp-filter=%t/bad1.txt -c -o %t/bad.o %s 2>&1 | FileCheck %s --check-prefix=BAD1 -DDIR=%t
// RUN: not test -e %t/bad.o
// RUN: printf 'min-instructions lots\n' > %t/bad2.txt
// RUN: not %clang -O0 -finstrument-functions %load_plugin -mllvm -sp-filter=%t/bad2.txt -c -o %t/bad.o %s 2>&1 | FileCheck %s --check-prefix=BAD2 -DDIR=%t
// RUN: printf 'include function\n' > %t/bad3.txt
// RUN: not %clang -O2 -finstrument-functions %load_plugin -mllvm -sp-filter=%t/bad3.txt -c -o %t/bad.o %s 2>&1 | FileCheck %s --check-prefix=BAD3 -DDIR=%t
// RUN: printf 'exclude file [z-a\n' > %t/bad4.txt
// RUN: not %clang -O2 -finstrument-functions %load_plugin -mllvm -sp-filter=%t/bad4.txt -c -o %t/bad.o %s 2>&1 | FileCheck %s --check-prefix=BAD4 -DDIR=%t
// RUN: env SP_FILTER=%t/missing.txt not %clang -O2 -finstrument-functions -fpass-plugin=%plugin -c -o %t/bad.o %s 2>&1 | FileCheck %s --check-prefix=MISSING -DDIR=%t

int small_a(int x) { return x + 1; }
int small_keep(int x) { return x + 2; }
int big_skip(int *p, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i)
    s += p[i] * i;
  return s;
}
int big_keep(int *p, int n) {
  int s = 1;
  for (int i = 0; i < n; ++i)
    s ^= p[i] + i;
  return s;
}
int tiny(int x) { return x; }

// IR-NOT: @sp.site.small_a
// IR-NOT: @sp.site.big_skip
// IR-NOT: @sp.site.tiny
// IR-DAG: @sp.site.small_keep =
// IR-DAG: @sp.site.big_keep =
// IR-NOT: __cyg_profile_func

// WHY-DAG: skipped 'small_a': excluded by [[F:.*]]f.txt:2 'exclude function small_*'
// WHY-DAG: instrumented 'small_keep' [{{.*}}filter.c:-1] (-finstrument-functions;
// WHY-DAG: skipped 'big_skip': excluded by [[F]]f.txt:6 'exclude function big_skip'
// WHY-DAG: instrumented 'big_keep'
// WHY-DAG: skipped 'tiny': {{[0-9]+}} instructions < min-instructions 6 ([[F]]f.txt:4)

// GLOB-NOT: @sp.site.small_a
// GLOB-DAG: @sp.site.big_skip =
// GLOB-DAG: @sp.site.big_keep =
// GLOB-NOT: @sp.site.tiny

// BAD1: error: scopeprof: [[DIR]]/bad1.txt:3: unknown directive 'frobnicate'
// BAD1-NEXT: 1 error generated.
// BAD2: error: scopeprof: [[DIR]]/bad2.txt:1: min-instructions needs a non-negative integer, got 'lots'
// BAD2-NEXT: 1 error generated.
// BAD3: error: scopeprof: [[DIR]]/bad3.txt:1: missing glob after 'include function'
// BAD3-NEXT: 1 error generated.
// BAD4: error: scopeprof: [[DIR]]/bad4.txt:1: bad glob '[z-a'
// BAD4-NEXT: 1 error generated.
// MISSING: error: scopeprof: cannot read filter file [[DIR]]/missing.txt: No such file or directory
// MISSING-NEXT: 1 error generated.
