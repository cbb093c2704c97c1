/* cyg.c - __cyg_profile_func_enter/exit, so gcc/gfortran/clang
 * -finstrument-functions builds are profiled without the plugin. Regions
 * are keyed by function address here; names are resolved by the writer,
 * at finalize, or when the program's dlclose unloads the function. */
#include "filter.h"
#include "hotpath.h"

/* entering: 1 for the enter hook (a call dropped at the guard is counted;
 * the exit hook's end then finds the guard too and writes nothing). */
static __attribute__((noinline)) int32_t addr_slow(const void *fn,
                                                   int entering) {
  if (!SP__ACTIVE())
    return -1;
  int g = sp__guard_enter(entering);
  if (!g)
    return -1;
  sp__thread_t *t = sp__self;
  int32_t id = -1;
  int excluded = 0;
  if (t || (t = sp__thread_slow()))
    id = sp__register_addr(fn);
  if (id >= 0)
    sp__obj_note(id); /* at its first call: its object for the stream */
  if (id >= 0 && SP_UNLIKELY(SP__FILTER_ON())) {
    sp__filter_addr(id, fn); /* needs the name: at its first call only */
    if ((excluded = sp__filter_out(id)) != 0)
      id = -1; /* cached so: its later calls stop at the cache */
  }
  if (id >= 0 || excluded) {
    unsigned h = (unsigned)((uintptr_t)fn >> 4) & 255u;
    t->cyg_cache[h].id = id;
    /* Atomic, as a dlclose in another thread may clear it (symbols.c). */
    __atomic_store_n(&t->cyg_cache[h].fn, fn, __ATOMIC_RELAXED);
  }
  sp__guard_leave(g);
  return id;
}

/* A direct-mapped per-thread cache in front of the lock-free table. Read
 * with a plain load, which keeps this path as short as it was: the one
 * other writer, a dlclose in another thread, only ever clears an entry of
 * a library it unloaded, which no thread may be calling into meanwhile. */
static inline int32_t addr_id(const void *fn, int entering) {
  sp__thread_t *t = sp__tls;
  unsigned h = (unsigned)((uintptr_t)fn >> 4) & 255u;
  if (SP_LIKELY(t && t->cyg_cache[h].fn == fn))
    return t->cyg_cache[h].id;
  return addr_slow(fn, entering);
}

SP_API void __cyg_profile_func_enter(void *fn, void *call_site) {
  (void)call_site;
  int32_t id = addr_id(fn, 1);
  if (SP_LIKELY(id >= 0))
    sp__begin_fast(id);
}

SP_API void __cyg_profile_func_exit(void *fn, void *call_site) {
  (void)call_site;
  int32_t id = addr_id(fn, 0);
  if (SP_LIKELY(id >= 0))
    sp__end_fast(id);
}
