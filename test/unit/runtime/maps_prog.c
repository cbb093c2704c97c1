/* maps_prog.c - a program that is not an MPI program, linked with
 * libscopeprof: records 5 calls of "work", finalizes (SP_FORMAT, SP_MERGE
 * from the test), then prints the mapped files of its own address space
 * that are ScopeProf's or MPI's, one per line, and the number of calls
 * sp_finalize reported as written. */
#include <scope_profiler.h>

#include <stdio.h>
#include <string.h>

static int wanted(const char *path) {
  static const char *const names[] = {"scopeprof", "libmpi",   "libopen-",
                                      "libpmix",   "libhwloc", "mpich",
                                      "h5mpi"};
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strstr(base, names[i]))
      return 1;
  return 0;
}

int main(void) {
  int work = sp_region("work");
  for (int i = 0; i < 5; i++) {
    sp_begin(work);
    sp_end(work);
  }
  int rc = sp_finalize();
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f)
    return 2;
  char line[4096], last[4096] = "";
  while (fgets(line, sizeof line, f)) {
    char *path = strchr(line, '/');
    if (!path)
      continue;
    path[strcspn(path, "\n")] = 0;
    /* each file once (a library has several mappings, in a row) */
    if (strcmp(path, last) != 0 && wanted(path))
      printf("mapped %s\n", strrchr(path, '/') + 1);
    snprintf(last, sizeof last, "%s", path);
  }
  fclose(f);
  printf("sp_finalize %d\n", rc);
  return 0;
}
