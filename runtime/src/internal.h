/* internal.h - state shared by the runtime's files: globals, per-thread
 * buffers, the clock, and the helpers finalize needs. Not installed. */
#ifndef SP_INTERNAL_H
#define SP_INTERNAL_H

#include "scope_profiler.h"
#include "sp_hooks.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define SP_HIDDEN __attribute__((visibility("hidden")))
#define SP_LIKELY(x) __builtin_expect(!!(x), 1)
#define SP_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Diagnostics: one line with a fixed prefix. Never called per event. */
SP_HIDDEN void sp__warn(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* As sp__warn, but only when SP_VERBOSE is set. */
SP_HIDDEN void sp__debug(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* ---- limits (documented in docs/runtime.md) ---- */
#define SP__PAGE_BITS 12 /* 4096 regions per table page */
#define SP__PAGE_SIZE (1u << SP__PAGE_BITS)
#define SP__MAX_PAGES 1024 /* so at most 4,194,304 regions */
#define SP__MAX_REGIONS (SP__PAGE_SIZE * SP__MAX_PAGES)
#define SP__STACK_MAX (1u << 20) /* nesting depth per thread */

/* ---- life cycle ---- */
enum { SP__UNINIT = 0, SP__RUNNING, SP__DISABLED, SP__FINALIZED };
SP_HIDDEN extern _Atomic int sp__state;
SP_HIDDEN void sp__ensure_init(void);
SP_HIDDEN void sp__set_active(int on);
SP_HIDDEN int sp__finalize(int at_exit);

/* ---- configuration, read once at init ---- */
typedef struct sp__config {
  char prefix[PATH_MAX]; /* before %p/%h expansion */
  int format_h5;         /* 1: write .h5, 0: .spt */
  int verbose;
  char label[256];
} sp__config_t;
SP_HIDDEN extern sp__config_t sp__cfg;

SP_HIDDEN int sp__rank_from_env(void);
SP_HIDDEN int sp__size_from_env(void);
/* Rank and size from an initialized, not yet finalized MPI; 0 or -1. */
SP_HIDDEN int sp__mpi_query(int *rank, int *size);
/* As sp__mpi_query, else what MPI_Finalize captured. */
SP_HIDDEN int sp__mpi_rank(int *rank, int *size);
/* The rank and job size this process reports, decided at finalize. */
SP_HIDDEN extern int sp__mpi_size;
/* Expands %p, %h and %% of prefix and appends _rank<NNNNN><ext>. */
SP_HIDDEN int sp__output_path(const char *prefix, int rank, const char *ext,
                              char *out, size_t size);

/* ---- clock ---- */
SP_HIDDEN extern int sp__clock_tsc; /* 1: raw TSC ticks, 0: CLOCK_MONOTONIC */
SP_HIDDEN void sp__clock_init(void);
SP_HIDDEN void sp__clock_end(void); /* second calibration point */
/* Converts a recorded stamp to CLOCK_MONOTONIC ns. */
SP_HIDDEN int64_t sp__clock_ns(uint64_t stamp);
SP_HIDDEN int64_t sp__mono_ns(void);
SP_HIDDEN const char *sp__clock_name(void);

static inline uint64_t sp__now(void) {
  if (SP_LIKELY(sp__clock_tsc))
    return __builtin_ia32_rdtsc();
  return (uint64_t)sp__mono_ns();
}

/* ---- regions ---- */
typedef struct sp__region {
  const char *name; /* NULL for an address region until resolved */
  const char *file; /* NULL = unknown */
  int line;
  const void *addr; /* function address of a __cyg_profile region */
} sp__region_t;

SP_HIDDEN extern _Atomic int32_t sp__nregions;
SP_HIDDEN sp__region_t *sp__region_get(int32_t id);
SP_HIDDEN int32_t sp__register(const char *name, const char *file, int line);
SP_HIDDEN int32_t sp__register_addr(const void *fn);
SP_HIDDEN void sp__registry_lock(void);
SP_HIDDEN void sp__registry_unlock(void);
SP_HIDDEN void *sp__arena_alloc(size_t size); /* never freed; 16-aligned */

/* ---- per-thread recording ---- */
typedef struct sp__pair {
  uint64_t start, end;
} sp__pair_t;

typedef struct sp__chunk {
  struct sp__chunk *next;
  uint64_t cap; /* pairs */
  sp__pair_t data[];
} sp__chunk_t;

/* The calls of one region on one thread: a list of chunks, the last one
 * filled up to cur. */
typedef struct sp__buf {
  sp__pair_t *cur, *end;
  sp__chunk_t *head, *tail;
} sp__buf_t;

typedef struct sp__frame {
  int32_t region;
  sp__pair_t *slot; /* &thread->scratch for frames inherited across fork */
} sp__frame_t;

typedef struct sp__thread {
  sp__buf_t *pages[SP__MAX_PAGES];
  sp__frame_t *stack; /* SP__STACK_MAX frames, reserved, touched lazily */
  uint32_t depth;
  uint32_t overflow;  /* frames beyond SP__STACK_MAX, not recorded */
  uint32_t inherited; /* frames below this came from the parent (fork) */
  sp__pair_t scratch;
  /* arena for chunks */
  char *arena, *arena_end;
  uint64_t arena_blocks;
  /* counters, reported at finalize */
  uint64_t n_mismatch, n_closed_above, n_unmatched, n_dropped, n_invalid;
  int32_t index; /* creation order */
  struct sp__thread *next;
  /* __cyg_profile cache: function address -> region id */
  struct {
    const void *fn;
    int32_t id;
  } cyg_cache[256];
} sp__thread_t;

SP_HIDDEN extern __thread sp__thread_t *sp__tls;
SP_HIDDEN extern _Atomic(sp__thread_t *) sp__threads; /* newest first */
SP_HIDDEN sp__thread_t *sp__thread_slow(void);
SP_HIDDEN void sp__record_after_fork(void);

static inline sp__buf_t *sp__buf_peek(sp__thread_t *t, int32_t id) {
  sp__buf_t *page = t->pages[(uint32_t)id >> SP__PAGE_BITS];
  return page ? &page[(uint32_t)id & (SP__PAGE_SIZE - 1)] : NULL;
}

/* ---- symbols (off the hot path: called at finalize) ---- */
/* Name of the function at addr, demangled, malloc'd; never NULL. */
SP_HIDDEN char *sp__symbol_name(const void *addr);

/* ---- metadata ---- */
struct sp_fmt_meta;
SP_HIDDEN void sp__metadata_collect(struct sp_fmt_meta *m);
SP_HIDDEN int64_t sp__start_time_ns(void);
SP_HIDDEN extern char sp__start_timestamp[64];

/* ---- .h5 output (h5_load.c) ---- */
struct sp_fmt_source;
struct sp_fmt_err;
/* Writes one rank's .h5 through libscopeprof_h5.so, loaded now: srcs are
 * its (thread, region) sources ordered by thread, then first start. 0, or
 * -1 with err set (also when the module or HDF5 cannot be loaded); on
 * failure nothing is left under path. */
SP_HIDDEN int sp__write_h5(const char *path, int32_t rank,
                           const struct sp_fmt_source *srcs, int64_t n,
                           const struct sp_fmt_meta *meta,
                           struct sp_fmt_err *err);

#endif /* SP_INTERNAL_H */
