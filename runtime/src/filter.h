/* filter.h - the run-time filter (SP_FILTER): the plugin's filter-file
 * syntax, applied to regions as the program runs, with no rebuild. */
#ifndef SP_FILTER_H
#define SP_FILTER_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

/* Non-zero once a filter file with at least one rule is loaded. */
SP_HIDDEN extern int sp__filter_on;
/* Set once at init, maybe while other threads run: read atomically (a plain
 * load on x86 and aarch64). */
#define SP__FILTER_ON() __atomic_load_n(&sp__filter_on, __ATOMIC_RELAXED)
/* Per region: 0 undecided, 1 recorded, 2 excluded. */
SP_HIDDEN extern uint8_t sp__filter_state[SP__MAX_REGIONS];

/* For the hot paths' rare branches: 1 when id is known to be excluded. */
static inline __attribute__((always_inline)) int sp__filter_out(int32_t id) {
  if (SP_UNLIKELY(SP__FILTER_ON()) && (uint32_t)id < SP__MAX_REGIONS)
    return __atomic_load_n(&sp__filter_state[id], __ATOMIC_RELAXED) == 2;
  return id == SP_REGION_EXCLUDED; /* sp_region's id for an excluded name */
}

typedef struct sp__filter sp__filter_t;

/* Parses text (len bytes) of file path: the filter, or NULL with one
 * "PATH:LINE: why" in err. */
SP_HIDDEN sp__filter_t *sp__filter_parse(const char *path, const char *text,
                                         size_t len, char *err, size_t errlen);
SP_HIDDEN void sp__filter_free(sp__filter_t *f);
/* 1 to record a region of this name and file (NULL: none), 0 to skip it;
 * the last matching rule wins, as in the plugin. */
SP_HIDDEN int sp__filter_decide(const sp__filter_t *f, const char *name,
                                const char *file);
/* At init: reads file path; on any error one line on stderr, no filter. */
SP_HIDDEN void sp__filter_load(const char *path);
/* The slow paths' test: 1 when region id is excluded (decided once). */
SP_HIDDEN int sp__filter_skip(int32_t id);
/* The slow paths' test with its guards: sp_region's excluded id, or a
 * region the loaded filter excludes. */
static inline int sp__filter_drops(int32_t id) {
  return id == SP_REGION_EXCLUDED ||
         (SP_UNLIKELY(SP__FILTER_ON()) && sp__filter_skip(id));
}
/* An address region at its first call: decided from its symbol's name. */
SP_HIDDEN void sp__filter_addr(int32_t id, const void *fn);

#endif /* SP_FILTER_H */
