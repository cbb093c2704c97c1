/* layer.c - the hand-written part of libscopeprof_mpi.so: SP_MPI and lazy
 * region registration. */
#include "layer.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

int sp_mpi__ids[SP_MPI_NFUNCS];
int sp_mpi__on = 1;

/* sp_region is thread-safe and gives the same id for the same name: two
 * threads that race here store the same value, so no lock and no CAS. */
int sp_mpi__register(int fn) {
  int id = sp_region(sp_mpi__names[fn]);
  if (id >= 0)
    __atomic_store_n(&sp_mpi__ids[fn], id + 1, __ATOMIC_RELAXED);
  return id;
}

void sp_mpi__missing(const char *sym) {
  fprintf(stderr,
          "scopeprof: %s is not loaded (libscopeprof_mpi.so was "
          "built for another MPI?)\n",
          sym);
  abort();
}

static int parse_bool(const char *v, int *out) {
  static const char *const yes[] = {"1", "true", "on", "yes"};
  static const char *const no[] = {"0", "false", "off", "no"};
  for (int i = 0; i < 4; i++) {
    if (!strcasecmp(v, yes[i]))
      return *out = 1, 0;
    if (!strcasecmp(v, no[i]))
      return *out = 0, 0;
  }
  return -1;
}

__attribute__((constructor)) static void sp_mpi__ctor(void) {
  const char *v = getenv("SP_MPI");
  if (v && parse_bool(v, &sp_mpi__on) != 0)
    fprintf(stderr,
            "scopeprof: SP_MPI=%s is not a boolean (1/0, true/false, "
            "on/off, yes/no); using 1\n",
            v);
}
