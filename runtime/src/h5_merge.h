/* h5_merge.h - what libscopeprof_h5.so offers rank 0 of an SP_MERGE job:
 * the format library's reserved writer, whose events the ranks write
 * themselves (sp_fmt_put_le64). Shared by h5_module.c and h5_load.c. */
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
} sp__h5_merge_ops;

#endif /* SP_H5_MERGE_H */
