/* sp_profile.h - profiles made by SP_MODE=profile: call paths with exact
 * sums instead of events. Read from a stream's PATHS and FRAMES records
 * or a profile .h5, written as a profile .h5 (docs/format-hdf5.md). */
#ifndef SP_PROFILE_FMT_H
#define SP_PROFILE_FMT_H

#include "sp_common.h"
#include "sp_ctr.h"
#include "sp_rank.h"
#include "sp_stats.h"
#include "sp_stream.h"

/* Exact sums of a set of calls, in ns. */
typedef struct sp_fmt_psum {
  int64_t calls, total, excl, outer, min, max, first, last;
  unsigned __int128 sq; /* sum of squared durations */
} sp_fmt_psum;

/* One call path of one (rank, thread). */
typedef struct sp_fmt_ppath {
  int32_t parent; /* index into the same array; -1: called from no region */
  int32_t region; /* index into sp_fmt_profile.regions */
  int32_t rank, thread;
  sp_fmt_psum s;
} sp_fmt_ppath;

typedef struct sp_fmt_profile {
  int64_t nregions;
  sp_fmt_region *regions; /* names unique */
  int64_t npaths;
  sp_fmt_ppath *paths; /* by rank, thread; a parent before its children */
  int64_t open_calls;  /* calls still open when written (closed then) */
  int64_t folded;      /* calls past the path bound (in their caller) */
} sp_fmt_profile;

void sp_fmt_profile_free(sp_fmt_profile *p); /* contents, not p */

/* src's regions (by name) and paths (parents renumbered) added to dst.
 * 0, or -1 when out of memory (dst stays valid). */
int sp_fmt_profile_append(sp_fmt_profile *dst, const sp_fmt_profile *src);

/* Empty sums (min and first at their largest). */
void sp_fmt_psum_init(sp_fmt_psum *s);
/* a += b */
void sp_fmt_psum_add(sp_fmt_psum *a, const sp_fmt_psum *b);
/* Schema 2's statistics of s (mean and std correctly rounded from the
 * exact sums, as sp_fmt_stats_source gives them for the same calls). */
void sp_fmt_psum_stats(const sp_fmt_psum *s, sp_fmt_stats *out);

/* One row per (rank, thread, region) with calls: the sums of its paths,
 * ordered as schema 2 orders rows (rank, thread, first start). *rows is
 * malloc'd; returns the count, or -1 when out of memory. */
typedef struct sp_fmt_prow {
  int32_t rank, thread, region;
  sp_fmt_psum s;
} sp_fmt_prow;
int64_t sp_fmt_profile_rows(const sp_fmt_profile *p, sp_fmt_prow **rows);

/* The stream's profile (SP_MODE=profile: PATHS and FRAMES records), calls
 * still open closed at its last stamp; 1 with *out filled (the caller
 * frees it), 0 when the stream holds none, -1 when out of memory. */
int sp_fmt_stream_profile(sp_fmt_stream *s, sp_fmt_profile *out);

/* Writes p as a schema-2 file with no events (metadata gets mode
 * "profile"), through tmp (NULL: a name of its own), renamed to path. */
int sp_fmt_h5_write_profile(const char *path, const char *tmp,
                            const sp_fmt_profile *p, const sp_fmt_meta *meta,
                            sp_fmt_err *err);
/* sp_fmt_h5_write_profile with nctr tables of counters per region
 * (SP_COUNTERS) as rank<N>/likwid groups. */
int sp_fmt_h5_write_profile_ctr(const char *path, const char *tmp,
                                const sp_fmt_profile *p,
                                const sp_fmt_meta *meta, const sp_fmt_ctr *ctr,
                                int64_t nctr, sp_fmt_err *err);

/* 1 if the .h5 at path was written by profile mode (its metadata's mode
 * is "profile"), 0 if not, -1 with err set if it cannot be read. */
int sp_fmt_h5_is_profile(const char *path, sp_fmt_err *err);

/* Reads a profile .h5: regions, paths and metadata. */
int sp_fmt_h5_read_profile(const char *path, sp_fmt_profile *out,
                           sp_fmt_meta *meta, sp_fmt_err *err);

#endif /* SP_PROFILE_FMT_H */
