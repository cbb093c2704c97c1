/* no_omp.c - a program without OpenMP, for test_omp: prints each line of
 * its own memory map that names an OpenMP runtime (none is expected). */
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static int twice(int x) { return 2 * x; }

int main(void) {
  char line[4096];
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f)
    return 2;
  while (fgets(line, sizeof line, f))
    if (strstr(line, "libomp") || strstr(line, "libgomp") ||
        strstr(line, "libiomp"))
      fputs(line, stdout);
  fclose(f);
  return twice(0);
}
