/* sym_omp.c - OpenMP constructs (through OMPT) on two threads; with "segv"
 * the program dies by SIGSEGV after them, before any exit handler runs. */
#include <omp.h>
#include <signal.h>
#include <string.h>

static volatile int sink;

int main(int argc, char **argv) {
#pragma omp parallel num_threads(2) /* MARK parallel */
  {
    sink += omp_get_thread_num();
#pragma omp for /* MARK for */
    for (int i = 0; i < 8; i++)
      sink += i;
  }
#pragma omp parallel num_threads(2) /* MARK second */
  {
#pragma omp single /* MARK single */
    sink += 1;
  }
  if (argc > 1 && strcmp(argv[1], "segv") == 0)
    raise(SIGSEGV);
  return 0;
}
