// no_instrument_function is honoured by Clang (no attribute, no hook), at
// every -O; the object keeps no reference to __cyg_profile_func_*. Clang 19
// and 22 have no -finstrument-functions-exclude-* lists (GCC-only options):
// the filter file's exclude rules do that job.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not %clang -finstrument-functions-exclude-function-list=x -c -o %t/n.o %s 2>&1 | FileCheck %s --check-prefix=NOLIST
// RUN: printf 'exclude function skipped_by_list\n' > %t/list.txt
// RUN: for O in -O0 -O1 -O2 -O3; do %clang $O -g -finstrument-functions %load_plugin -mllvm -sp-filter=%t/list.txt -mllvm -sp-verbose -c -o %t/x$O.o %s 2> %t/why$O.txt || exit 1; done
// RUN: for O in -O0 -O1 -O2 -O3; do llvm-nm %t/x$O.o | FileCheck %s --check-prefix=NM || exit 1; done
// RUN: for O in -O0 -O1 -O2 -O3; do FileCheck %s --check-prefix=WHY < %t/why$O.txt || exit 1; done
// RUN: printf 'exclude file */exclude.c\n' > %t/file.txt
// RUN: %clang -O2 -finstrument-functions %load_plugin -mllvm -sp-filter=%t/file.txt -c -o %t/f.o %s
// RUN: llvm-nm %t/f.o | FileCheck %s --check-prefix=NONE

__attribute__((noinline)) int kept(int x) { return x * 7; }
__attribute__((no_instrument_function, noinline)) int quiet(int x) {
  return kept(x) + 1;
}
__attribute__((noinline)) int skipped_by_list(int x) { return quiet(x) - 1; }

// NOLIST: unknown argument

// NM-NOT: __cyg_profile_func
// NM: w sp__enter
// NM: w sp__exit
// NM-NOT: __cyg_profile_func

// WHY-DAG: instrumented 'kept'
// WHY-DAG: skipped 'skipped_by_list': excluded by {{.*}}list.txt:1
// WHY-NOT: 'quiet'

// NONE-NOT: __cyg_profile_func
// NONE-NOT: sp__
