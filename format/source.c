/* source.c - sources over an in-memory rank, so one writer serves the
 * runtime's buffers and the importer's arrays; and freeing a rank. */
#include "sp_rank.h"

#include <stdlib.h>
#include <string.h>

void sp_fmt_block_read(const sp_fmt_source *src, int64_t first, int64_t n,
                       int64_t *starts, int64_t *ends) {
  const sp_fmt_block *b = src->ctx;
  memcpy(starts, b->starts + first, (size_t)n * sizeof *starts);
  memcpy(ends, b->ends + first, (size_t)n * sizeof *ends);
}

void sp_fmt_rank_sources(const sp_fmt_rank *r, sp_fmt_source *out) {
  for (int64_t i = 0; i < r->nblocks; i++) {
    const sp_fmt_block *b = &r->blocks[i];
    const sp_fmt_region *rg = &r->regions[b->region];
    sp_fmt_source s = {b->thread, rg->name,          rg->file, rg->line,
                       b->count,  sp_fmt_block_read, b,        i};
    out[i] = s;
  }
}

void sp_fmt_rank_free(sp_fmt_rank *r) {
  if (!r)
    return;
  for (int64_t i = 0; i < r->nregions; i++) {
    free(r->regions[i].name);
    free(r->regions[i].file);
  }
  free(r->regions);
  for (int64_t i = 0; i < r->nblocks; i++) {
    free(r->blocks[i].starts);
    free(r->blocks[i].ends);
  }
  free(r->blocks);
  sp_fmt_meta_free(&r->meta);
  sp_fmt_mpi_free(&r->mpi);
  r->regions = NULL;
  r->blocks = NULL;
  r->nregions = r->nblocks = 0;
}

int sp_fmt_row_cmp(const sp_fmt_source *a, int64_t first_a,
                   const sp_fmt_source *b, int64_t first_b) {
  if (a->thread != b->thread)
    return a->thread < b->thread ? -1 : 1;
  /* A row without calls has no first start: it goes last, by name, so the
   * output is deterministic. */
  if ((a->count > 0) != (b->count > 0))
    return a->count > 0 ? -1 : 1;
  if (a->count > 0 && first_a != first_b)
    return first_a < first_b ? -1 : 1;
  return strcmp(a->name, b->name);
}
