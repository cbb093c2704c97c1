/* sp_stats.h - summary statistics (schema 2's summary_statistics) and exclusive
 * time by nesting. Internal. */
#ifndef SP_STATS_H
#define SP_STATS_H

#include "sp_rank.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_fmt_stats {
  int64_t calls, total_ns, min_ns, max_ns, first_start_ns, last_end_ns;
  int64_t exclusive_ns;   /* total minus direct children on the same thread */
  int64_t gpu_total_ns;   /* -1 = none */
  double mean_ns, std_ns; /* std: population */
  /* total_ns less the calls nested inside another call of the same region
   * on the same thread (recursion): the time spent in the region; -1 =
   * unknown (an .h5 written before the field existed) */
  int64_t outer_total_ns;
} sp_fmt_stats;

/* Statistics of one source's calls alone (exclusive_ns = total_ns; the
 * outer total from containment among its own calls). mean
 * and std are the correctly rounded values of exact sums, not of a running
 * approximation. Returns 0, or -1 when out of memory. */
int sp_fmt_stats_source(const sp_fmt_source *src, sp_fmt_stats *out);

/* Where containment failed: two calls overlap without nesting. */
typedef struct sp_fmt_nesting {
  int bad; /* 0 = properly nested */
  int32_t thread;
  const char *outer, *inner; /* region names (point into the sources) */
  int64_t outer_start, inner_start;
} sp_fmt_nesting;

/* Statistics of srcs[0..n), which must all be one rank's one thread, each
 * in start order: out[i] for srcs[i]. exclusive_ns comes from reconstructing
 * nesting by containment across all n sources (merged by start asc, end
 * desc, index asc). Sources are read in batches within a budget of 1 to 8
 * MiB.
 * Returns 0, or -1 when out of memory. Improper nesting is not an error:
 * nest (if given) describes the first case and exclusive times count only
 * properly nested children. */
int sp_fmt_stats_thread(const sp_fmt_source *srcs, int64_t n, sp_fmt_stats *out,
                        sp_fmt_nesting *nest);

/* A rank's sources with each thread's adjacent: sp_fmt_rank_sources
 * ordered by thread, then block order. out holds r->nblocks entries. */
void sp_fmt_rank_sources_by_thread(const sp_fmt_rank *r, sp_fmt_source *out);

/* sp_fmt_stats_thread over each run of one thread in srcs[0..n) (sources
 * grouped by thread, as sp_fmt_rank_sources_by_thread gives them).
 * Returns the number of threads whose calls are not properly nested (nest,
 * if given, describes the first), or -1 when out of memory. */
int64_t sp_fmt_stats_rank(const sp_fmt_source *srcs, int64_t n,
                          sp_fmt_stats *out, sp_fmt_nesting *nest);

/* A caller's view of the calls the statistics read, so it can use each
 * batch while it is in cache (sp-import writes it to its output) instead
 * of reading the calls a second time. Only sources read through read() are
 * seen here (sources with arrays in memory are used in place). i is the
 * source's index in the srcs given to sp_fmt_stats_rank_read. */
typedef struct sp_fmt_stats_reader {
  /* Optional: of the next n (>= 1) calls of srcs[i] from call first on, how
   * many the next batch reads (1 to n; out of range is clamped). NULL: n. */
  int64_t (*batch_size)(void *ctx, int64_t i, int64_t first, int64_t n);
  /* Optional: called once per batch read, right after it is read. Order:
   * each source's batches come in call order, contiguous from call 0 to its
   * last, each call exactly once; batches of different sources of one
   * thread interleave as the merge needs them; threads come one after the
   * other, in srcs order. starts and ends are valid during the call only.
   * Called on the caller's thread, before sp_fmt_stats_rank_read returns. */
  void (*batch)(void *ctx, int64_t i, int64_t first, int64_t n,
                const int64_t *starts, const int64_t *ends);
  void *ctx;
} sp_fmt_stats_reader;

/* sp_fmt_stats_rank, handing rd (if not NULL) each batch read. The
 * statistics do not depend on where batches end. */
int64_t sp_fmt_stats_rank_read(const sp_fmt_source *srcs, int64_t n,
                               sp_fmt_stats *out, sp_fmt_nesting *nest,
                               const sp_fmt_stats_reader *rd);

/* The one-line description of an improper nesting found in `path`'s rank
 * `rank`, as the tools print it. */
void sp_fmt_nesting_describe(const sp_fmt_nesting *nest, const char *path,
                             int32_t rank, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* SP_STATS_H */
