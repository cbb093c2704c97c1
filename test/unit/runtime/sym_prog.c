/* sym_prog.c - a -finstrument-functions program whose functions (global
 * and static) are named from its symbol table; with "segv" it dies by
 * SIGSEGV after its calls, before any exit handler runs. Built again with
 * -DREBUILT it is another binary (another build-id) at the same path. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile int sink;

__attribute__((noinline)) static void sym_static_leaf(int i) { sink += i; }

__attribute__((noinline)) void sym_middle(int n) {
  for (int i = 0; i < n; i++)
    sym_static_leaf(i);
#ifdef REBUILT
  sink += 7;
#endif
}

__attribute__((noinline)) void sym_outer(void) {
  for (int i = 0; i < 3; i++)
    sym_middle(4);
}

int main(int argc, char **argv) {
  sym_outer();
  if (argc > 1 && strcmp(argv[1], "segv") == 0)
    raise(SIGSEGV);
  return sink == 0;
}
