/* h5mpi_load.c - finds and loads libscopeprof_h5mpi.so for the runtime:
 * SP_MERGE's parallel writer, the runtime's HDF5 writer on parallel HDF5
 * and this layer's MPI, which then serves every HDF5 write of the process
 * (runtime/src/h5_load.c). */
#include "layer.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SP__H5MPI_MODULE "libscopeprof_h5mpi.so"

#ifdef SP_H5MPI_SONAME
static void *par_module;

static int loaded(const char *soname) {
  void *h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
  if (h)
    dlclose(h);
  dlerror();
  return h != NULL;
}

/* It links the MPI library this layer links, so it is the program's. It
 * is never deep bound: a program linked with MPI holds copies of MPI's
 * objects (MPI_COMM_WORLD, the datatypes: copy relocations) that MPI
 * itself uses, and a deep-bound module would pass MPI the stale originals.
 * So its parallel HDF5 must be the only HDF5 in the program's global
 * scope. Looked for in scopeprof/ beside this library, beside it, then
 * where it is installed. */
void *sp_mpi__h5mpi_load(char *why, size_t size) {
  if (par_module)
    return par_module;
  if (!loaded(SP_H5MPI_SONAME) && dlsym(RTLD_DEFAULT, "H5open")) {
    dlerror();
    snprintf(why, size, "the program holds an HDF5 other than %s's (%s)",
             SP__H5MPI_MODULE, SP_H5MPI_SONAME);
    return NULL;
  }
  dlerror();
  char paths[3][PATH_MAX];
  int n = 0;
  Dl_info info;
  if (dladdr((void *)&sp_mpi__h5mpi_load, &info) && info.dli_fname) {
    const char *slash = strrchr(info.dli_fname, '/');
    int len = slash ? (int)(slash - info.dli_fname) : 1;
    const char *dir = slash ? info.dli_fname : ".";
    if (snprintf(paths[n], PATH_MAX, "%.*s/scopeprof/%s", len, dir,
                 SP__H5MPI_MODULE) < PATH_MAX)
      n++;
    if (snprintf(paths[n], PATH_MAX, "%.*s/%s", len, dir, SP__H5MPI_MODULE) <
        PATH_MAX)
      n++;
  }
  snprintf(paths[n++], PATH_MAX, "%s", SP_H5MPI_MODULE_PATH);
  for (int i = 0; i < n; i++) {
    if (access(paths[i], F_OK) != 0)
      continue;
    void *h = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char *e = dlerror();
      snprintf(why, size, "cannot load %s: %s", paths[i],
               e ? e : "dlopen failed");
      return NULL;
    }
    par_module = h;
    return h;
  }
  snprintf(why, size, "%s was not found", SP__H5MPI_MODULE);
  return NULL;
}
#else
void *sp_mpi__h5mpi_load(char *why, size_t size) {
  snprintf(why, size, "this libscopeprof_mpi was built without parallel HDF5");
  return NULL;
}
#endif
