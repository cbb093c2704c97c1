/* sp_hooks.h - the ABI of the calls the ScopeProf pass plugin inserts.
 * Declared once here; pass/ emits exactly these symbols and this layout. */
#ifndef SP_HOOKS_H
#define SP_HOOKS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One per instrumented function, a private global the plugin emits as
 *   { i32 SP_SITE_UNSEEN, i32 line, ptr name, ptr file }
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

/* `id` before the runtime registered the site, and once the run-time
 * filter (SP_FILTER) excluded it: the plugin's guard skips both calls of
 * an excluded site inline. */
#define SP_SITE_UNSEEN (-1)
#define SP_SITE_EXCLUDED (-2)

/* The layout the plugin emits ({i32, i32, ptr, ptr}, natural alignment),
 * checked where this header is compiled: the runtime and the plugin. */
#ifdef __cplusplus
#define SP_SITE_ASSERT_ static_assert
#else
#define SP_SITE_ASSERT_ _Static_assert
#endif
SP_SITE_ASSERT_(__builtin_offsetof(sp_site, id) == 0, "sp_site.id at 0");
SP_SITE_ASSERT_(__builtin_offsetof(sp_site, line) == 4, "sp_site.line at 4");
SP_SITE_ASSERT_(__builtin_offsetof(sp_site, name) == 8, "sp_site.name at 8");
SP_SITE_ASSERT_(__builtin_offsetof(sp_site, file) == 8 + sizeof(void *),
                "sp_site.file after name");
SP_SITE_ASSERT_(sizeof(sp_site) == 8 + 2 * sizeof(void *), "sp_site size");
#undef SP_SITE_ASSERT_

/* Entry and every exit of an instrumented function. Both are safe before
 * sp_init, after sp_finalize, with SP_ENABLE=0 and from any thread. The
 * plugin guards each call with the public flag `sp_active_`
 * (scope_profiler.h) and `id != SP_SITE_EXCLUDED`, as the header's inline
 * functions do, so a run with SP_ENABLE=0 or an excluded function pays two
 * loads and a predicted branch per call (-mllvm -sp-inline-check=false
 * emits the calls unguarded). */
void sp__enter(sp_site *site);
void sp__exit(sp_site *site);

#ifdef __cplusplus
}
#endif
#endif /* SP_HOOKS_H */
