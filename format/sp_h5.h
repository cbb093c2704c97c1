/* sp_h5.h - the schema-2 HDF5 file (docs/format-hdf5.md): the writer's and
 * reader's API, with no HDF5 header (the code in h5_*.c). Internal. */
#ifndef SP_H5_H
#define SP_H5_H

#include "sp_ctr.h"
#include "sp_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_FMT_SCHEMA 2

#define SP_FMT_HAVE_HDF5_API 1 /* the declarations below exist; the code */
                               /* only when built with SP_USE_HDF5 */

typedef struct sp_fmt_progress sp_fmt_progress;

typedef struct sp_fmt_h5w sp_fmt_h5w;

/* Starts a schema-2 file that becomes path on sp_fmt_h5w_close (written
 * under a temporary name until then). Datasets are chunked and grow, so
 * rows stream in with memory bounded by one batch. */
sp_fmt_h5w *sp_fmt_h5w_open(const char *path, sp_fmt_err *err);
/* sp_fmt_h5w_open writing into tmp, a name of the caller's that does not
 * exist yet, which becomes path at close (tmp may be path itself: a name
 * the caller renames into place, so there is one temporary, not two);
 * NULL: a temporary name of its own, as sp_fmt_h5w_open. */
sp_fmt_h5w *sp_fmt_h5w_open_as(const char *path, const char *tmp,
                               sp_fmt_err *err);

/* Appends one row (rank, src->thread, region src->name) with src's calls.
 * Rows must come ordered by rank, thread, then first start. Region ids are
 * given in order of first appearance. stats may be NULL: then computed
 * from src alone, with exclusive_ns = total_ns. */
int sp_fmt_h5w_row(sp_fmt_h5w *w, int32_t rank, const sp_fmt_source *src,
                   const sp_fmt_stats *stats, sp_fmt_err *err);

/* For callers that write the calls themselves, faster than HDF5 would
 * (sp-import): before any row, sizes the event datasets to exactly n calls
 * (contiguous, allocated now). Rows then take no calls through the writer
 * (src->count only) and need their stats given: the caller writes each row's
 * calls with sp_fmt_h5w_put at the offset sp_fmt_h5w_events gave before the
 * row, and the rows must add up to n by close. Rows of a reserved writer
 * make no HDF5 call (the index is written at close), so any one thread at
 * a time may add them. */
int sp_fmt_h5w_reserve(sp_fmt_h5w *w, int64_t n, sp_fmt_err *err);

/* Calls written so far: the next row's first event. */
int64_t sp_fmt_h5w_events(const sp_fmt_h5w *w);

/* Writes n calls (timestamps in this machine's order, any alignment) at
 * event index first of a reserved writer, with pwrite: no HDF5 call, so
 * any thread may put while another adds rows. */
int sp_fmt_h5w_put(const sp_fmt_h5w *w, int64_t first, const void *starts,
                   const void *ends, int64_t n, sp_fmt_err *err);

/* A reserved writer for a file other processes have made and filled:
 * tmp, a schema-2 file with group events and its two datasets of exactly
 * n calls written, becomes path at close. Rows (with their stats) and
 * metadata follow as after sp_fmt_h5w_reserve, with no sp_fmt_h5w_put.
 * NULL with err set, tmp removed, when tmp is not such a file. */
sp_fmt_h5w *sp_fmt_h5w_adopt(const char *path, const char *tmp, int64_t n,
                             sp_fmt_err *err);

/* Where a reserved writer's events go, for other processes that write
 * their share with sp_fmt_put_le64 at at[0] + 8 * first (start times) and
 * at[1] + 8 * first (end times) of the file *tmp (the temporary name, valid
 * until close). Returns 0, or -1 when w is not reserved. */
int sp_fmt_h5w_layout(const sp_fmt_h5w *w, const char **tmp, int64_t at[2]);

/* Rank rank's MPI messages and communicators (docs/format-hdf5.md,
 * rank<N>/mpi/), written at close: m's contents move into the writer (m
 * is left empty), whatever the result. Regions the messages name that no
 * row has are added to region_table. */
int sp_fmt_h5w_mpi(sp_fmt_h5w *w, int32_t rank, sp_fmt_mpi *m, sp_fmt_err *err);

/* Every rank's MPI datasets of a schema-2 file: *out gets one entry per
 * rank that has them, ascending (none: 0 entries, not an error); each
 * entry's names are the file's region_table. */
int sp_fmt_h5_read_mpi(const char *path, sp_fmt_mpi_rank **out, int64_t *n,
                       sp_fmt_err *err);

/* Attributes of /metadata (replaces any set before). */
int sp_fmt_h5w_meta(sp_fmt_h5w *w, const sp_fmt_meta *meta, sp_fmt_err *err);

/* Writes region_table and the root attribute, closes, renames into place.
 * On failure the temporary is removed and path is untouched. Frees w. */
int sp_fmt_h5w_close(sp_fmt_h5w *w, sp_fmt_err *err);

/* Discards everything written; path is untouched. Frees w. */
void sp_fmt_h5w_abort(sp_fmt_h5w *w);

/* Counters per region (SP_COUNTERS): c as group rank<c->rank>/likwid of
 * the file being written (nothing when c has no counter). 0, or -1 with
 * err set; a rank's group is written once. */
int sp_fmt_h5w_counters(sp_fmt_h5w *w, const sp_fmt_ctr *c, sp_fmt_err *err);
/* The same group added to the finished, closed schema-2 file at path (a
 * writer's own temporary name, before it is renamed into place). */
int sp_fmt_h5_add_counters(const char *path, const sp_fmt_ctr *c,
                           sp_fmt_err *err);
/* Every rank<N>/likwid group of the file: *n tables (0: none), ascending
 * by rank, each freed with sp_fmt_ctr_free, then the array with free. */
int sp_fmt_h5_read_counters(const char *path, sp_fmt_ctr **out, int64_t *n,
                            sp_fmt_err *err);
/* The tables of any input: an .h5's groups, a stream's COUNTERS records
 * (one table, of the stream's rank); none for a .spt. As above. */
int sp_fmt_ctr_read(const char *path, sp_fmt_ctr **out, int64_t *n,
                    sp_fmt_err *err);

/* Reads a schema-2 file (per-rank or merged): *ranks gets one entry per
 * rank it holds, ascending, each with the file's metadata. Files without
 * rank_region_index/threads have every row on thread 0. */
int sp_fmt_h5_read(const char *path, sp_fmt_rank **ranks, int64_t *nranks,
                   sp_fmt_err *err);
/* sp_fmt_h5_read, adding to p (NULL: none) the calls read as their stamps
 * arrive: the file's calls in all. */
int sp_fmt_h5_read_progress(const char *path, sp_fmt_rank **ranks,
                            int64_t *nranks, sp_fmt_progress *p,
                            sp_fmt_err *err);

/* Reads only rank_region_index and region_table (no events): one entry per
 * row, for summary-only consumers. */
typedef struct sp_fmt_h5_row {
  int32_t rank, thread, region;
  int64_t event_offset, event_count;
  char *source_file; /* NULL = none */
  int32_t source_line;
  sp_fmt_stats stats;
} sp_fmt_h5_row;

typedef struct sp_fmt_h5_summary {
  int64_t nnames;
  char **names;
  int64_t nrows;
  sp_fmt_h5_row *rows;
  sp_fmt_meta meta;
} sp_fmt_h5_summary;

int sp_fmt_h5_read_summary(const char *path, sp_fmt_h5_summary *out,
                           sp_fmt_err *err);
void sp_fmt_h5_summary_free(sp_fmt_h5_summary *s);

/* 1 if the schema-2 file at path has summary statistics to read with
 * sp_fmt_h5_read_summary, or is anything else (left to the reader, whose
 * message says what is wrong); 0 for a file written before summary records
 * existed, or before they held outer_total_ns: its calls must be read
 * instead. */
int sp_fmt_h5_has_summary(const char *path);

/* 1 if the file at path starts with the HDF5 signature. */
int sp_fmt_is_h5(const char *path);

/* n timestamps from p (this machine's order, any alignment) written as
 * little-endian int64 at file offset at of fd, in writes that end on
 * 256 KiB boundaries of the file. Returns 0, or -1 with errno set (0: no
 * progress). */
int sp_fmt_put_le64(int fd, int64_t at, const void *p, int64_t n);

#ifdef __cplusplus
}
#endif
#endif /* SP_H5_H */
