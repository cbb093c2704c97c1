/* sp_hooks.h - the ABI of the calls the ScopeProf pass plugin inserts.
 * Declared once here; pass/ emits exactly these symbols and this layout. */
#ifndef SP_HOOKS_H
#define SP_HOOKS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One per instrumented function, a private global the plugin emits as
 *   { i32 -1, i32 line, ptr name, ptr file }
 * (natural alignment, 24 bytes on LP64). The runtime registers the region
 * on the first call from any thread and stores its id in `id`, so the
 * per-call path is one load and a compare. name and file are NUL-terminated
 * constants; file may be NULL or "" (unknown); line is -1 when unknown. */
typedef struct sp_site {
  int32_t id;
  int32_t line;
  const char *name;
  const char *file;
} sp_site;

/* Entry and every exit of an instrumented function. Both are safe before
 * sp_init, after sp_finalize, with SP_ENABLE=0 and from any thread. The
 * plugin guards each call with the public flag `sp_active_`
 * (scope_profiler.h) as the header's macros do, so a run with SP_ENABLE=0
 * pays a load and a predicted branch per call (-mllvm -sp-inline-check=false
 * emits the calls unguarded). */
void sp__enter(sp_site *site);
void sp__exit(sp_site *site);

#ifdef __cplusplus
}
#endif
#endif /* SP_HOOKS_H */
