/* cyg.c - __cyg_profile_func_enter/exit, so gcc/gfortran/clang
 * -finstrument-functions builds are profiled without the plugin. Regions
 * are keyed by function address here; names are resolved by the writer,
 * at finalize, or when the program's dlclose unloads the function. */
#include "hotpath.h"

static __attribute__((noinline)) int32_t addr_slow(const void *fn) {
  if (!SP__ACTIVE())
    return -1;
  sp__thread_t *t = sp__tls;
  if (!t && !(t = sp__thread_slow()))
    return -1;
  int32_t id = sp__register_addr(fn);
  if (id >= 0) {
    unsigned h = (unsigned)((uintptr_t)fn >> 4) & 255u;
    t->cyg_cache[h].id = id;
    /* Atomic, as a dlclose in another thread may clear it (symbols.c). */
    __atomic_store_n(&t->cyg_cache[h].fn, fn, __ATOMIC_RELAXED);
  }
  return id;
}

/* A direct-mapped per-thread cache in front of the lock-free table. Read
 * with a plain load, which keeps this path as short as it was: the one
 * other writer, a dlclose in another thread, only ever clears an entry of
 * a library it unloaded, which no thread may be calling into meanwhile. */
static inline int32_t addr_id(const void *fn) {
  sp__thread_t *t = sp__tls;
  unsigned h = (unsigned)((uintptr_t)fn >> 4) & 255u;
  if (SP_LIKELY(t && t->cyg_cache[h].fn == fn))
    return t->cyg_cache[h].id;
  return addr_slow(fn);
}

SP_API void __cyg_profile_func_enter(void *fn, void *call_site) {
  (void)call_site;
  int32_t id = addr_id(fn);
  if (SP_LIKELY(id >= 0))
    sp__begin_fast(id);
}

SP_API void __cyg_profile_func_exit(void *fn, void *call_site) {
  (void)call_site;
  int32_t id = addr_id(fn);
  if (SP_LIKELY(id >= 0))
    sp__end_fast(id);
}
