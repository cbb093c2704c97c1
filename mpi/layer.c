/* layer.c - the hand-written part of the recording wrappers of
 * libscopeprof_mpi.so: SP_MPI, lazy region registration, the Fortran entry
 * points' PMPI twins. */
#include "layer.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

int sp_mpi__ids[SP_MPI_NFUNCS];
int sp_mpi__on = 1;
int sp_mpi__msgs_on = 1;
__thread int sp_mpi__in_fortran;
__thread int sp_mpi__f_region = -1, sp_mpi__f_claimed;

/* sp_region is thread-safe and gives the same id for the same name: two
 * threads that race here store the same value, so no lock and no CAS. */
int sp_mpi__register(int fn) {
  int id = sp_region(sp_mpi__names[fn]);
  if (id >= 0)
    __atomic_store_n(&sp_mpi__ids[fn], id + 1, __ATOMIC_RELAXED);
  return id;
}

sp_mpi__ffn sp_mpi__fortran(sp_mpi__ffn *cache, sp_mpi__ffn linked,
                            const char *sym) {
  return sp_mpi__fortran_or_next(cache, linked, sym, NULL);
}

sp_mpi__ffn sp_mpi__fortran_or_next(sp_mpi__ffn *cache, sp_mpi__ffn linked,
                                    const char *sym, const char *next) {
  sp_mpi__ffn f = linked;
  if (!f)
    *(void **)&f = dlsym(RTLD_DEFAULT, sym);
  if (!f && next)
    *(void **)&f = dlsym(RTLD_NEXT, next);
  char libs[1024] = "", why[512] = "";
  size_t n = 0;
  for (int i = 0; !f && sp_mpi__flibs[i]; i++) {
    /* Never closed: the program goes on calling into it. */
    void *h = dlopen(sp_mpi__flibs[i], RTLD_NOW | RTLD_GLOBAL);
    if (h)
      *(void **)&f = dlsym(h, sym);
    if (h && !f && next)
      *(void **)&f = dlsym(h, next);
    else if (!why[0])
      snprintf(why, sizeof why, "; %s", dlerror());
    if (n < sizeof libs)
      n += (size_t)snprintf(libs + n, sizeof libs - n, "%s%s", i ? ", " : "",
                            sp_mpi__flibs[i]);
  }
  if (!f) {
    fprintf(stderr,
            "scopeprof: MPI's Fortran binding %s is neither loaded nor in "
            "the Fortran libraries of the MPI libscopeprof_mpi.so was built "
            "with (%s)%s\n",
            sym, libs[0] ? libs : "none", why);
    abort();
  }
  __atomic_store_n(cache, f, __ATOMIC_RELAXED);
  return f;
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

static void read_bool(const char *name, int *out) {
  const char *v = getenv(name);
  if (v && parse_bool(v, out) != 0)
    fprintf(stderr,
            "scopeprof: %s=%s is not a boolean (1/0, true/false, "
            "on/off, yes/no); using 1\n",
            name, v);
}

__attribute__((constructor)) static void sp_mpi__ctor(void) {
  read_bool("SP_MPI", &sp_mpi__on);
  read_bool("SP_MPI_MESSAGES", &sp_mpi__msgs_on);
}
