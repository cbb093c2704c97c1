/* layer.c - the hand-written part of libscopeprof_mpi.so: SP_MPI, lazy region
 * registration and the test that tells the runtime's own MPI queries apart. */
#include "layer.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

int sp_mpi__ids[SP_MPI_NFUNCS];
int sp_mpi__on = 1;

/* The code of libscopeprof.so, [lo, hi): its executable segments' span. */
static uintptr_t rt_lo, rt_hi;

/* sp_region is thread-safe and gives the same id for the same name: two
 * threads that race here store the same value, so no lock and no CAS. */
int sp_mpi__register(int fn) {
  int id = sp_region(sp_mpi__names[fn]);
  if (id >= 0)
    __atomic_store_n(&sp_mpi__ids[fn], id + 1, __ATOMIC_RELAXED);
  return id;
}

int sp_mpi__from_runtime(const void *ra) {
  uintptr_t a = (uintptr_t)ra;
  return a >= rt_lo && a < rt_hi;
}

void sp_mpi__missing(const char *sym) {
  fprintf(stderr,
          "scopeprof: %s is not loaded (libscopeprof_mpi.so was "
          "built for another MPI?)\n",
          sym);
  abort();
}

static int find_runtime(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  uintptr_t target = (uintptr_t)data, lo = UINTPTR_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
      continue;
    uintptr_t s = info->dlpi_addr + ph->p_vaddr;
    if (s < lo)
      lo = s;
    if (s + ph->p_memsz > hi)
      hi = s + ph->p_memsz;
  }
  if (target < lo || target >= hi)
    return 0;
  rt_lo = lo;
  rt_hi = hi;
  return 1;
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
  /* sp_strerror is a function of libscopeprof.so that no program takes
   * the address of, so its address is the library's own. */
  dl_iterate_phdr(find_runtime, (void *)(uintptr_t)&sp_strerror);
}
