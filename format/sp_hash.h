/* sp_hash.h - the one open-addressing hash table of the format library and
 * the tools: (hash, index) pairs, keys hashed and compared by the caller.
 * Internal; the probe is static inline so a lookup's compare is inlined. */
#ifndef SP_HASH_H
#define SP_HASH_H

#include <errno.h>
#include <stdint.h>

/* The caller keeps its keys in an array of its own; the table maps a
 * 64-bit hash of a key to the key's index there, keeping the hash's low 32
 * bits as a tag (8 bytes a slot): an equal tag makes a candidate, whose key
 * the caller compares. Capacity is a power of two, probing linear from
 * hash & mask, and the load stays at most 1/2, so a probe always reaches
 * an empty slot. The caller's hash must be mixed in its low bits: they
 * pick the slot. Growing re-places entries from their tags, so keys are
 * never hashed again. */
typedef struct sp__hash_slot {
  uint32_t tag; /* the hash's low 32 bits: they also place it (mask below
                   2^32), and most unequal keys differ in them */
  uint32_t ix1; /* index + 1; 0 = empty, so calloc'ed slots are empty */
} sp__hash_slot;

/* Entries a table holds at most: indices fit 31 bits, slots 32. */
#define SP__HASH_MAX ((int64_t)1 << 30)

typedef struct sp__hash {
  sp__hash_slot *slot; /* NULL until the first reserve or add */
  uint64_t mask;       /* slots - 1 (0 while slot is NULL) */
  int64_t n;           /* entries */
} sp__hash;

/* Where a probe stands: the hash looked for and the slot it reached. */
typedef struct sp__hash_it {
  uint64_t hash, pos;
} sp__hash_it;

/* Room for n entries in all, so adding up to them allocates nothing.
 * 0, or -1 with errno ENOMEM (the table is unchanged). */
int sp__hash_reserve(sp__hash *t, int64_t n);

/* Frees the slots; the table is empty again (and may be reused). */
void sp__hash_free(sp__hash *t);

/* From it->pos on: the index of the next entry stored under it->hash, or
 * -1 with it->pos at the empty slot that ended the probe. */
static inline int64_t sp__hash_scan(const sp__hash *t, sp__hash_it *it) {
  if (!t->slot)
    return -1;
  for (;; it->pos = (it->pos + 1) & t->mask) {
    const sp__hash_slot *s = &t->slot[it->pos];
    if (!s->ix1)
      return -1;
    if (s->tag == (uint32_t)it->hash)
      return (int64_t)s->ix1 - 1;
  }
}

/* The first entry stored under hash (its index), or -1. Entries with
 * equal hashes (equal or colliding keys) follow through sp__hash_next:
 *   for (ix = sp__hash_first(t, h, &it); ix >= 0; ix = sp__hash_next(t, &it))
 *     if (same_key(ix)) break;
 * After -1, sp__hash_add(t, &it, ix) adds a new key's index. */
static inline int64_t sp__hash_first(const sp__hash *t, uint64_t hash,
                                     sp__hash_it *it) {
  it->hash = hash;
  it->pos = hash & t->mask;
  return sp__hash_scan(t, it);
}

/* The entry after the one the probe stands on, or -1. */
static inline int64_t sp__hash_next(const sp__hash *t, sp__hash_it *it) {
  it->pos = (it->pos + 1) & t->mask;
  return sp__hash_scan(t, it);
}

/* Stores ix (>= 0) under the hash of a probe that ended with -1, growing
 * the table first when the load would pass 1/2. 0, or -1 with errno
 * ENOMEM (nothing added, the table as it was). */
static inline int sp__hash_add(sp__hash *t, sp__hash_it *it, int64_t ix) {
  if (ix < 0 || ix >= SP__HASH_MAX) {
    errno = ENOMEM;
    return -1;
  }
  if (!t->slot || (uint64_t)(t->n + 1) * 2 > t->mask + 1) {
    if (sp__hash_reserve(t, t->n + 1) != 0)
      return -1;
    it->pos = it->hash & t->mask;
    while (t->slot[it->pos].ix1)
      it->pos = (it->pos + 1) & t->mask;
  }
  t->slot[it->pos].tag = (uint32_t)it->hash;
  t->slot[it->pos].ix1 = (uint32_t)(ix + 1);
  t->n++;
  return 0;
}

#endif /* SP_HASH_H */
