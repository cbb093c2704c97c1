/* h5_merge.h - what the HDF5 modules offer the ranks of an SP_MERGE job:
 * rank 0 the format library's reserved writer, whose events the ranks
 * write themselves (sp_fmt_put_le64); with libscopeprof_h5mpi.so, every
 * rank the events' collective write through parallel HDF5. Shared by
 * h5_module.c and h5_load.c. */
#ifndef SP_H5_MERGE_H
#define SP_H5_MERGE_H

#include "sp_format.h"

typedef struct sp__h5_merge_ops {
  /* A schema-2 file that becomes path at close, its events reserved:
   * *tmp (valid until close or abort) and at[2] say where they go. */
  void *(*open)(const char *path, int64_t events, const char **tmp,
                int64_t at[2], sp_fmt_err *err);
  /* The next row, in schema-2 order (sp_fmt_h5w_row of a reserved writer). */
  int (*row)(void *w, int32_t rank, const sp_fmt_source *src,
             const sp_fmt_stats *st, sp_fmt_err *err);
  /* Metadata, index, rename into place; frees w. */
  int (*close)(void *w, const sp_fmt_meta *meta, sp_fmt_err *err);
  void (*abort)(void *w); /* nothing left at path; frees w */
  /* A writer for tmp, made and filled by the ranks together (par below):
   * rows and close as after open; NULL with err set, tmp removed. */
  void *(*adopt)(const char *path, const char *tmp, int64_t events,
                 sp_fmt_err *err);
  /* A rank's MPI messages (sp_fmt_h5w_mpi: m's contents move in). */
  int (*mpi)(void *w, int32_t rank, sp_fmt_mpi *m, sp_fmt_err *err);
  /* A rank's counters per region (SP_COUNTERS) as its rank<N>/likwid
   * group, once every rank's calls are in the file. */
  int (*counters)(void *w, const sp_fmt_ctr *c, sp_fmt_err *err);
} sp__h5_merge_ops;

/* libscopeprof_h5mpi.so only: collective over MPI_COMM_WORLD (every rank
 * calls each, the same number of times), as sp_h5p.h says. */
typedef struct sp__h5_par_ops {
  void *(*create)(const char *tmp, int64_t events, sp_fmt_err *err);
  int (*put)(void *p, int64_t first, int64_t *starts, int64_t *ends, int64_t n,
             sp_fmt_err *err);
  int (*close)(void *p, sp_fmt_err *err);
} sp__h5_par_ops;

#endif /* SP_H5_MERGE_H */
