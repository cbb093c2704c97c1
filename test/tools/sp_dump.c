/* sp_dump.c - prints a profile (.spt or .h5) as stable text for tests:
 * blocks sorted by rank, thread, region name; --events adds every call. */
#include "sp_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct row {
  const sp_fmt_rank *r;
  const sp_fmt_block *b;
} row_t;

static int cmp_row(const void *a, const void *b) {
  const row_t *x = a, *y = b;
  if (x->r->rank != y->r->rank)
    return x->r->rank < y->r->rank ? -1 : 1;
  if (x->b->thread != y->b->thread)
    return x->b->thread < y->b->thread ? -1 : 1;
  return strcmp(x->r->regions[x->b->region].name,
                y->r->regions[y->b->region].name);
}

static void dump(const sp_fmt_rank *ranks, int64_t n, int events) {
  for (int64_t i = 0; i < n; i++) {
    const sp_fmt_rank *r = &ranks[i];
    printf("rank %d version %d\n", r->rank, r->version);
    row_t *rows = calloc((size_t)(r->nblocks ? r->nblocks : 1), sizeof *rows);
    if (!rows)
      return;
    for (int64_t k = 0; k < r->nblocks; k++)
      rows[k] = (row_t){r, &r->blocks[k]};
    qsort(rows, (size_t)r->nblocks, sizeof *rows, cmp_row);
    for (int64_t k = 0; k < r->nblocks; k++) {
      const sp_fmt_block *b = rows[k].b;
      const sp_fmt_region *g = &r->regions[b->region];
      printf("block rank=%d thread=%d region=%s file=%s line=%d calls=%lld\n",
             r->rank, b->thread, g->name, g->file ? g->file : "-",
             g->file ? g->line : -1, (long long)b->count);
      for (int64_t c = 0; events && c < b->count; c++)
        printf("  call %lld %lld\n", (long long)b->starts[c],
               (long long)b->ends[c]);
    }
    free(rows);
  }
}

int main(int argc, char **argv) {
  int events = 0, rc = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--events") == 0) {
      events = 1;
      continue;
    }
    sp_fmt_err err = {{0}};
    if (sp_fmt_is_spt(argv[i])) {
      sp_fmt_rank r = {0};
      if (sp_fmt_spt_read(argv[i], &r, &err) != 0) {
        fprintf(stderr, "sp-dump: %s\n", err.msg);
        rc = 1;
        continue;
      }
      dump(&r, 1, events);
      sp_fmt_rank_free(&r);
#ifdef SP_USE_HDF5
    } else if (sp_fmt_is_h5(argv[i])) {
      sp_fmt_rank *ranks = NULL;
      int64_t n = 0;
      if (sp_fmt_h5_read(argv[i], &ranks, &n, &err) != 0) {
        fprintf(stderr, "sp-dump: %s\n", err.msg);
        rc = 1;
        continue;
      }
      dump(ranks, n, events);
      for (int64_t k = 0; k < n; k++)
        sp_fmt_rank_free(&ranks[k]);
      free(ranks);
#endif
    } else {
      fprintf(stderr, "sp-dump: %s: not a ScopeProf profile\n", argv[i]);
      rc = 1;
    }
  }
  return rc;
}
