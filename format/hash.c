/* hash.c - the out-of-line part of sp_hash.h: growing (a rehash from the
 * stored hashes) and freeing. */
#include "sp_hash.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* Fewer slots than this are never worth a separate growth step. */
#define SP__HASH_MIN 16

int sp__hash_reserve(sp__hash *t, int64_t n) {
  uint64_t have = t->slot ? t->mask + 1 : 0;
  if (n < 0 || n > SP__HASH_MAX) {
    errno = ENOMEM;
    return -1;
  }
  if (t->slot && (uint64_t)n * 2 <= have)
    return 0;
  uint64_t cap = have ? have : SP__HASH_MIN;
  while (cap < (uint64_t)n * 2)
    cap *= 2;
  sp__hash_slot *s = calloc((size_t)cap, sizeof *s);
  if (!s) {
    errno = ENOMEM;
    return -1;
  }
  for (uint64_t i = 0; i < have; i++) {
    if (!t->slot[i].ix1)
      continue;
    uint64_t j = t->slot[i].tag & (cap - 1);
    while (s[j].ix1)
      j = (j + 1) & (cap - 1);
    s[j] = t->slot[i];
  }
  free(t->slot);
  t->slot = s;
  t->mask = cap - 1;
  return 0;
}

void sp__hash_free(sp__hash *t) {
  free(t->slot);
  t->slot = NULL;
  t->mask = 0;
  t->n = 0;
}
