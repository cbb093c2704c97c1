/* test_hash.c - the internal hash table (format/sp_hash.h): adding and
 * finding, growth, colliding hashes, and failed allocations (calloc is
 * wrapped at link time so a test can make it fail). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sp_hash.h"
#include "sp_util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* calloc calls left before one fails; -1 = never fail. */
static int calloc_fail_in = -1;
static int callocs;

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size) {
  callocs++;
  if (calloc_fail_in == 0)
    return NULL;
  if (calloc_fail_in > 0)
    calloc_fail_in--;
  return __real_calloc(n, size);
}

#define NKEYS 5000
static char keys[NKEYS][16];

/* The caller's side of a table keyed by string: find, or add as index ix. */
static int64_t find_str(const sp__hash *t, uint64_t h, const char *key,
                        sp__hash_it *it) {
  int64_t i = sp__hash_first(t, h, it);
  for (; i >= 0; i = sp__hash_next(t, it))
    if (strcmp(keys[i], key) == 0)
      return i;
  return -1;
}

static uint64_t hash_of(const char *s) {
  uint64_t h = sp__fnv1a(SP__FNV_SEED, s);
  return h ^ (h >> 29);
}

static int setup(void **state) {
  (void)state;
  for (int i = 0; i < NKEYS; i++)
    snprintf(keys[i], sizeof keys[i], "region_%d", i);
  calloc_fail_in = -1;
  return 0;
}

static void empty_table_finds_nothing(void **state) {
  (void)state;
  sp__hash t = {0};
  sp__hash_it it;
  assert_int_equal(sp__hash_first(&t, 0, &it), -1);
  assert_int_equal(sp__hash_first(&t, 12345, &it), -1);
  assert_null(t.slot);
  assert_int_equal(t.n, 0);
  sp__hash_free(&t); /* of an empty table: nothing to free */
  assert_null(t.slot);
}

static void add_find_grow(void **state) {
  (void)state;
  sp__hash t = {0};
  uint64_t last_cap = 0;
  int grew = 0;
  for (int i = 0; i < NKEYS; i++) {
    sp__hash_it it;
    assert_int_equal(find_str(&t, hash_of(keys[i]), keys[i], &it), -1);
    assert_int_equal(sp__hash_add(&t, &it, i), 0);
    assert_int_equal(t.n, i + 1);
    uint64_t cap = t.mask + 1;
    assert_int_equal(cap & (cap - 1), 0);  /* a power of two */
    assert_true((uint64_t)t.n * 2 <= cap); /* load at most 1/2 */
    int grown = cap != last_cap;
    if (grown) {
      if (last_cap)
        assert_int_equal(cap, last_cap * 2); /* grows by doubling */
      last_cap = cap;
      grew++;
    }
    /* Every key added so far is still there after a growth. */
    if (grown || i % 499 == 0)
      for (int j = 0; j <= i; j++)
        assert_int_equal(find_str(&t, hash_of(keys[j]), keys[j], &it), j);
  }
  assert_int_equal(t.mask + 1, 16384); /* 5000 keys at load <= 1/2 */
  assert_true(grew >= 8);              /* from 16 slots up */
  sp__hash_it it;
  for (int i = 0; i < NKEYS; i++)
    assert_int_equal(find_str(&t, hash_of(keys[i]), keys[i], &it), i);
  assert_int_equal(find_str(&t, hash_of("region_5000"), "region_5000", &it),
                   -1);
  assert_int_equal(find_str(&t, hash_of(""), "", &it), -1);
  sp__hash_free(&t);
  assert_null(t.slot);
  assert_int_equal(t.n, 0);
  assert_int_equal(t.mask, 0);
  /* A freed table is an empty one, and can be used again. */
  assert_int_equal(sp__hash_first(&t, hash_of(keys[7]), &it), -1);
  assert_int_equal(sp__hash_add(&t, &it, 7), 0);
  assert_int_equal(find_str(&t, hash_of(keys[7]), keys[7], &it), 7);
  sp__hash_free(&t);
}

/* Every key under one hash: one long probe, the caller's compare tells
 * them apart, and growth keeps them all. */
static void constant_hash_collides(void **state) {
  (void)state;
  sp__hash t = {0};
  const uint64_t h = 0x5eed;
  enum { N = 300 };
  for (int i = 0; i < N; i++) {
    sp__hash_it it;
    assert_int_equal(find_str(&t, h, keys[i], &it), -1);
    assert_int_equal(sp__hash_add(&t, &it, i), 0);
  }
  assert_int_equal(t.n, N);
  sp__hash_it it;
  for (int i = 0; i < N; i++)
    assert_int_equal(find_str(&t, h, keys[i], &it), i);
  assert_int_equal(find_str(&t, h, keys[N], &it), -1);
  /* The probe gives each entry under the hash once, no other. */
  int seen[N] = {0}, count = 0;
  for (int64_t i = sp__hash_first(&t, h, &it); i >= 0;
       i = sp__hash_next(&t, &it)) {
    assert_true(i >= 0 && i < N);
    seen[i]++;
    count++;
  }
  assert_int_equal(count, N);
  for (int i = 0; i < N; i++)
    assert_int_equal(seen[i], 1);
  /* Another hash landing in the cluster passes over it and is not mixed
   * up with its entries. */
  uint64_t other = h + 1;
  assert_int_equal(sp__hash_first(&t, other, &it), -1);
  assert_int_equal(sp__hash_add(&t, &it, N), 0);
  assert_int_equal(sp__hash_first(&t, other, &it), N);
  assert_int_equal(sp__hash_next(&t, &it), -1);
  assert_int_equal(find_str(&t, h, keys[N], &it), -1);
  assert_int_equal(find_str(&t, h, keys[N - 1], &it), N - 1);
  sp__hash_free(&t);
}

/* Integer keys under a bijective mix: the hash is the key, no compare. */
static void integer_keys_by_hash(void **state) {
  (void)state;
  sp__hash t = {0};
  for (int64_t k = 0; k < 1000; k++) {
    sp__hash_it it;
    uint64_t h = (uint64_t)k * 0x9e3779b97f4a7c15ull; /* odd: a bijection */
    assert_int_equal(sp__hash_first(&t, h, &it), -1);
    assert_int_equal(sp__hash_add(&t, &it, 1000 - k), 0);
  }
  for (int64_t k = 0; k < 1000; k++) {
    sp__hash_it it;
    uint64_t h = (uint64_t)k * 0x9e3779b97f4a7c15ull;
    assert_int_equal(sp__hash_first(&t, h, &it), 1000 - k);
    assert_int_equal(sp__hash_next(&t, &it), -1);
  }
  sp__hash_free(&t);
}

static void reserve_then_add_allocates_nothing(void **state) {
  (void)state;
  sp__hash t = {0};
  assert_int_equal(sp__hash_reserve(&t, 1000), 0);
  assert_int_equal(t.mask + 1, 2048);
  assert_int_equal(t.n, 0);
  sp__hash_slot *slots = t.slot;
  int before = callocs;
  calloc_fail_in = 0; /* any allocation now would fail the adds */
  for (int i = 0; i < 1000; i++) {
    sp__hash_it it;
    assert_int_equal(find_str(&t, hash_of(keys[i]), keys[i], &it), -1);
    assert_int_equal(sp__hash_add(&t, &it, i), 0);
  }
  calloc_fail_in = -1;
  assert_int_equal(callocs, before);
  assert_ptr_equal(t.slot, slots);
  /* A smaller reserve keeps the table as it is. */
  assert_int_equal(sp__hash_reserve(&t, 10), 0);
  assert_ptr_equal(t.slot, slots);
  sp__hash_it it;
  for (int i = 0; i < 1000; i++)
    assert_int_equal(find_str(&t, hash_of(keys[i]), keys[i], &it), i);
  /* The 1025th entry grows the table. */
  assert_int_equal(sp__hash_reserve(&t, 1025), 0);
  assert_int_equal(t.mask + 1, 4096);
  for (int i = 0; i < 1000; i++)
    assert_int_equal(find_str(&t, hash_of(keys[i]), keys[i], &it), i);
  sp__hash_free(&t);
}

/* A growth that cannot allocate: -1 and ENOMEM, nothing added, the
 * table as it was; the same add succeeds once memory is back. */
static void allocation_failure(void **state) {
  (void)state;
  sp__hash t = {0};
  sp__hash_it it;
  /* The first add allocates: failing it leaves the table empty. */
  calloc_fail_in = 0;
  errno = 0;
  assert_int_equal(sp__hash_first(&t, hash_of(keys[0]), &it), -1);
  assert_int_equal(sp__hash_add(&t, &it, 0), -1);
  assert_int_equal(errno, ENOMEM);
  assert_null(t.slot);
  assert_int_equal(t.n, 0);
  calloc_fail_in = -1;
  /* Fill 16 slots to load 1/2: the 9th entry must grow. */
  for (int i = 0; i < 8; i++) {
    assert_int_equal(find_str(&t, hash_of(keys[i]), keys[i], &it), -1);
    assert_int_equal(sp__hash_add(&t, &it, i), 0);
  }
  assert_int_equal(t.mask + 1, 16);
  sp__hash_slot *slots = t.slot;
  calloc_fail_in = 0;
  errno = 0;
  assert_int_equal(find_str(&t, hash_of(keys[8]), keys[8], &it), -1);
  assert_int_equal(sp__hash_add(&t, &it, 8), -1);
  assert_int_equal(errno, ENOMEM);
  assert_int_equal(t.n, 8);
  assert_int_equal(t.mask + 1, 16);
  assert_ptr_equal(t.slot, slots);
  for (int i = 0; i < 8; i++)
    assert_int_equal(find_str(&t, hash_of(keys[i]), keys[i], &it), i);
  assert_int_equal(find_str(&t, hash_of(keys[8]), keys[8], &it), -1);
  calloc_fail_in = -1;
  assert_int_equal(sp__hash_add(&t, &it, 8), 0);
  assert_int_equal(t.n, 9);
  assert_int_equal(t.mask + 1, 32);
  for (int i = 0; i < 9; i++)
    assert_int_equal(find_str(&t, hash_of(keys[i]), keys[i], &it), i);
  /* A reserve too large for the address space, or negative, fails
   * without touching the table or calling calloc. */
  int before = callocs;
  errno = 0;
  assert_int_equal(sp__hash_reserve(&t, INT64_MAX), -1);
  assert_int_equal(errno, ENOMEM);
  errno = 0;
  assert_int_equal(sp__hash_reserve(&t, -1), -1);
  assert_int_equal(errno, ENOMEM);
  assert_int_equal(callocs, before);
  assert_int_equal(t.n, 9);
  for (int i = 0; i < 9; i++)
    assert_int_equal(find_str(&t, hash_of(keys[i]), keys[i], &it), i);
  sp__hash_free(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(empty_table_finds_nothing, setup),
      cmocka_unit_test_setup(add_find_grow, setup),
      cmocka_unit_test_setup(constant_hash_collides, setup),
      cmocka_unit_test_setup(integer_keys_by_hash, setup),
      cmocka_unit_test_setup(reserve_then_add_allocates_nothing, setup),
      cmocka_unit_test_setup(allocation_failure, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
