/* cyg.c - __cyg_profile_func_enter/exit, so gcc/gfortran/clang
 * -finstrument-functions builds are profiled without the plugin. Regions
 * are keyed by function address here; names are resolved at finalize. */
#include "hotpath.h"

static inline int32_t addr_id(sp__thread_t *t, const void *fn) {
  unsigned h = (unsigned)((uintptr_t)fn >> 4) & 255u;
  if (SP_LIKELY(t->cyg_cache[h].fn == fn))
    return t->cyg_cache[h].id;
  int32_t id = sp__register_addr(fn);
  if (id >= 0) {
    t->cyg_cache[h].fn = fn;
    t->cyg_cache[h].id = id;
  }
  return id;
}

SP_API void __cyg_profile_func_enter(void *fn, void *call_site) {
  (void)call_site;
  sp__thread_t *t = sp__tls;
  if (SP_UNLIKELY(!t)) {
    if (!sp_active_ || !(t = sp__thread_slow()))
      return;
  }
  if (SP_UNLIKELY(!sp_active_))
    return;
  int32_t id = addr_id(t, fn);
  if (id >= 0)
    begin_fast(t, id);
}

SP_API void __cyg_profile_func_exit(void *fn, void *call_site) {
  (void)call_site;
  sp__thread_t *t = sp__tls;
  if (SP_UNLIKELY(!t || !sp_active_))
    return;
  int32_t id = addr_id(t, fn);
  if (id >= 0)
    end_fast(t, id);
}
