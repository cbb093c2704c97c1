/* dlclose.c - the program's dlclose, so the -finstrument-functions regions
 * of an object it unloads keep their names and code loaded there later
 * gets regions of its own. Alone in its file: a static link takes it only
 * for a program that calls dlclose and does not define one itself. */
#include "internal.h"

#include <dlfcn.h>
#include <stdint.h>

typedef int (*dlclose_fn)(void *);

SP_API int dlclose(void *handle) {
  static dlclose_fn real;
  dlclose_fn next = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
  if (!next) {
    next = (dlclose_fn)(uintptr_t)dlsym(RTLD_NEXT, "dlclose");
    if (!next)
      return -1; /* no dlclose after ours: nothing to close with */
    __atomic_store_n(&real, next, __ATOMIC_RELEASE);
  }
  /* Only address regions (cyg.c, ompt.c) depend on what is loaded. */
  if (!atomic_load_explicit(&sp__nregions, memory_order_acquire))
    return next(handle);
  void *before = sp__dl_closing();
  int rc = next(handle);
  sp__dl_closed(before, rc == 0);
  return rc;
}
