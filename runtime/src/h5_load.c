/* h5_load.c - finds and loads libscopeprof_h5.so, the HDF5 writer, when a
 * rank writes .h5, so HDF5 never enters a process that does not; and, for
 * SP_MERGE's parallel write, takes libscopeprof_h5mpi.so (the same writer on
 * parallel HDF5) from the MPI layer, which then serves every HDF5 write of
 * the process. */
#include "h5_merge.h"
#include "internal.h"
#include "sp_format.h"
#include "sp_mpi_hooks.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*sp__h5_write_fn)(const char *path, int32_t rank,
                               const sp_fmt_source *srcs, int64_t n,
                               const sp_fmt_meta *meta, sp_fmt_mpi *mpi,
                               sp_fmt_err *err);

#define SP__H5_MODULE "libscopeprof_h5.so"
#define SP__H5MPI_MODULE "libscopeprof_h5mpi.so"

#ifdef SP_USE_HDF5
static int sanitized(void) {
  static const char *const names[] = {"__asan_init", "__tsan_init",
                                      "__msan_init", "__hwasan_init"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (dlsym(RTLD_DEFAULT, names[i]))
      return 1;
  dlerror();
  return 0;
}

/* How the module binds HDF5. A program that has loaded another HDF5 (the
 * MPI build: the same symbols under another soname, or one linked into
 * the program) keeps it to itself only if the module looks in its own
 * dependencies first (RTLD_DEEPBIND): the module and its serial HDF5 then
 * use theirs, two libraries side by side. A program that has loaded the
 * module's own HDF5 (same soname: one copy per process) shares it, and
 * must be bound normally: the program holds copies of the library's
 * variables (the H5T_NATIVE_*_g, H5P_CLS_*_g ids, copy relocations) that
 * the library updates, and a deep-bound module would read the stale
 * originals. Sanitizer runtimes refuse RTLD_DEEPBIND and end the process. */
static int loaded(const char *soname) {
  void *h = soname[0] ? dlopen(soname, RTLD_LAZY | RTLD_NOLOAD) : NULL;
  if (h)
    dlclose(h);
  dlerror();
  return h != NULL;
}

static int deep_bind(const char *soname) {
  return !sanitized() && !loaded(soname);
}

/* Candidates, in order: $SP_H5_MODULE alone when set; else scopeprof/ and
 * then the directory of the libscopeprof.so this code is in (not for the
 * static library, which is part of the program); then the install path. */
static int candidates(char paths[3][PATH_MAX], const char *name,
                      const char *installed) {
  const char *env = strcmp(name, SP__H5_MODULE) == 0 ? sp__cfg.h5_module : "";
  int n = 0;
  if (*env) {
    snprintf(paths[n++], PATH_MAX, "%s", env);
    return n;
  }
  Dl_info info;
  struct link_map *lm = NULL;
  if (dladdr1((void *)&sp__write_h5, &info, (void **)&lm, RTLD_DL_LINKMAP) &&
      lm && lm->l_name && lm->l_name[0] && info.dli_fname) {
    const char *slash = strrchr(info.dli_fname, '/');
    int len = slash ? (int)(slash - info.dli_fname) : 1;
    const char *dir = slash ? info.dli_fname : ".";
    if (snprintf(paths[n], PATH_MAX, "%.*s/scopeprof/%s", len, dir, name) <
        PATH_MAX)
      n++;
    if (snprintf(paths[n], PATH_MAX, "%.*s/%s", len, dir, name) < PATH_MAX)
      n++;
  }
  if (installed[0])
    snprintf(paths[n++], PATH_MAX, "%s", installed);
  return n;
}

#ifndef SP_H5_MODULE_PATH
#define SP_H5_MODULE_PATH ""
#endif
#ifndef SP_H5_SONAME
#define SP_H5_SONAME ""
#endif
#endif

#ifdef SP_USE_HDF5
/* The module, loaded on first use and kept loaded: HDF5 may hold
 * thread-specific data and exit handlers. NULL with err set (naming path,
 * the file being written) when it cannot be. */
static void *par_module; /* libscopeprof_h5mpi.so, once loaded */

static void *module(const char *path, sp_fmt_err *err) {
  static void *h;
  if (par_module)
    return par_module;
  if (h)
    return h;
  char paths[3][PATH_MAX];
  int np = candidates(paths, SP__H5_MODULE, SP_H5_MODULE_PATH), found = -1;
  for (int i = 0; i < np && found < 0; i++)
    if (access(paths[i], F_OK) == 0)
      found = i;
  if (found < 0) {
    sp_fmt_err_set(err,
                   "%.900s: cannot write .h5: the HDF5 writer %s was not "
                   "found (looked for %s%s%s%s%s)",
                   path, SP__H5_MODULE, paths[0], np > 1 ? ", " : "",
                   np > 1 ? paths[1] : "", np > 2 ? ", " : "",
                   np > 2 ? paths[2] : "");
    return NULL;
  }
  int flags =
      RTLD_NOW | RTLD_LOCAL | (deep_bind(SP_H5_SONAME) ? RTLD_DEEPBIND : 0);
  h = dlopen(paths[found], flags);
  if (!h) {
    const char *why = dlerror();
    sp_fmt_err_set(err, "%.900s: cannot load the HDF5 writer: %s", path,
                   why ? why : paths[found]);
  }
  return h;
}

/* name from the module, or NULL with err set. */
static void *entry(const char *path, const char *name, sp_fmt_err *err) {
  void *h = module(path, err), *f = h ? dlsym(h, name) : NULL;
  if (h && !f)
    sp_fmt_err_set(err, "%.900s: cannot load the HDF5 writer: it has no %s",
                   path, name);
  return f;
}
#endif

int sp__write_h5(const char *path, int32_t rank, const sp_fmt_source *srcs,
                 int64_t n, const sp_fmt_meta *meta, sp_fmt_mpi *mpi,
                 sp_fmt_err *err) {
#ifndef SP_USE_HDF5
  (void)rank, (void)srcs, (void)n, (void)meta, (void)mpi;
  sp_fmt_err_set(err, "%.900s: this libscopeprof was built without HDF5", path);
  return -1;
#else
  static sp__h5_write_fn write_fn;
  if (!write_fn)
    *(void **)&write_fn = entry(path, "sp__h5_write", err);
  return write_fn ? write_fn(path, rank, srcs, n, meta, mpi, err) : -1;
#endif
}

int sp__write_h5_profile(const char *path, const struct sp_fmt_profile *p,
                         const sp_fmt_meta *meta, sp_fmt_err *err) {
#ifndef SP_USE_HDF5
  (void)p, (void)meta;
  sp_fmt_err_set(err, "%.900s: this libscopeprof was built without HDF5", path);
  return -1;
#else
  int (*write_fn)(const char *, const struct sp_fmt_profile *,
                  const sp_fmt_meta *, sp_fmt_err *);
  *(void **)&write_fn = entry(path, "sp__h5_write_profile", err);
  return write_fn ? write_fn(path, p, meta, err) : -1;
#endif
}

int sp__write_h5_counters(const char *path, const struct sp_fmt_ctr *c,
                          sp_fmt_err *err) {
#ifndef SP_USE_HDF5
  (void)c;
  sp_fmt_err_set(err, "%.900s: this libscopeprof was built without HDF5", path);
  return -1;
#else
  int (*write_fn)(const char *, const struct sp_fmt_ctr *, sp_fmt_err *);
  *(void **)&write_fn = entry(path, "sp__h5_write_counters", err);
  return write_fn ? write_fn(path, c, err) : -1;
#endif
}

const sp__h5_merge_ops *sp__h5_merge(const char *path, sp_fmt_err *err) {
#ifndef SP_USE_HDF5
  sp_fmt_err_set(err, "%.900s: this libscopeprof was built without HDF5", path);
  return NULL;
#else
  const sp__h5_merge_ops *(*get)(void);
  *(void **)&get = entry(path, "sp__h5_merge_get", err);
  return get ? get() : NULL;
#endif
}

/* The parallel module, libscopeprof_h5mpi.so: the MPI layer loads it (it
 * links the layer's MPI), and from then on it serves every HDF5 write of
 * the process (module above). */
const sp__h5_par_ops *sp__h5_par(sp_fmt_err *err) {
#ifdef SP_USE_HDF5
  const sp__mpi_ops *m = sp__mpi_get();
  char why[512] = "no MPI layer in the process";
  void *h = par_module;
  if (!h && m && m->h5mpi_load)
    h = m->h5mpi_load(why, sizeof why);
  if (!h) {
    sp_fmt_err_set(err, "%s", why);
    return NULL;
  }
  par_module = h;
  const sp__h5_par_ops *(*get)(void) = NULL;
  *(void **)&get = dlsym(h, "sp__h5_par_get");
  if (!get)
    sp_fmt_err_set(err, "%s has no sp__h5_par_get", SP__H5MPI_MODULE);
  return get ? get() : NULL;
#else
  sp_fmt_err_set(err, "this libscopeprof was built without HDF5");
  return NULL;
#endif
}
