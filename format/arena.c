/* arena.c - memory for timestamp arrays that a reader reuses from rank to
 * rank: one huge-page-backed block, so after the first rank no page is
 * faulted in again (a 4 KiB fault costs microseconds in this kind of VM). */
#include "sp_format.h"

#include <stdlib.h>
#include <sys/mman.h>

int sp_fmt_arena_reserve(sp_fmt_arena *a, size_t bytes) {
  if (a->cap - a->used >= bytes)
    return 0;
  if (a->used > 0) /* arrays live in it: it cannot move */
    return -1;
  size_t huge = (size_t)2 << 20, cap = (bytes + huge - 1) / huge * huge;
  void *p = NULL;
  if (posix_memalign(&p, huge, cap) != 0)
    return -1;
  madvise(p, cap, MADV_HUGEPAGE); /* a hint: may be refused */
  free(a->base);
  a->base = p;
  a->cap = cap;
  return 0;
}

int64_t *sp_fmt_arena_take(sp_fmt_arena *a, int64_t n) {
  int64_t *p = (int64_t *)(void *)((char *)a->base + a->used);
  a->used += (size_t)n * 8;
  return p;
}

void sp_fmt_arena_clear(sp_fmt_arena *a) { a->used = 0; }

void sp_fmt_arena_free(sp_fmt_arena *a) {
  free(a->base);
  a->base = NULL;
  a->cap = a->used = 0;
}
