/* registry.c - region ids: name -> id (and function address -> id for the
 * __cyg_profile hooks, (code pointer, construct) -> id for OpenMP), lock-free
 * to read, locked only to add. */
#include "internal.h"
#include "sp_util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
_Atomic int32_t sp__nregions;
_Atomic uint64_t sp__names_refused;
static sp__region_t *_Atomic pages[SP__MAX_PAGES];

void sp__registry_lock(void) { pthread_mutex_lock(&reg_lock); }
void sp__registry_unlock(void) { pthread_mutex_unlock(&reg_lock); }

/* ---- arena: names and tables, allocated in large blocks, never freed ---- */
static char *arena_cur, *arena_end;

void *sp__arena_alloc(size_t size) { /* caller holds reg_lock */
  size = (size + 15) & ~(size_t)15;
  if ((size_t)(arena_end - arena_cur) < size) {
    size_t block = size > (1u << 20) ? size : (1u << 20);
    void *p = mmap(NULL, block, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return NULL;
    arena_cur = p;
    arena_end = arena_cur + block;
  }
  void *r = arena_cur;
  arena_cur += size;
  return r;
}

static char *arena_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = sp__arena_alloc(n);
  if (d)
    memcpy(d, s, n);
  return d;
}

sp__region_t *sp__region_get(int32_t id) {
  if (id < 0 || id >= atomic_load_explicit(&sp__nregions, memory_order_acquire))
    return NULL;
  sp__region_t *page =
      atomic_load_explicit(&pages[id >> SP__PAGE_BITS], memory_order_acquire);
  return &page[id & (SP__PAGE_SIZE - 1)];
}

/* ---- open-addressing hash tables, replaced (never freed) when grown ----
 * Not format/sp_hash.h's table: here readers probe without the lock while
 * a writer adds (each slot one atomic id), a grown table must outlive the
 * readers still in the old one, and memory comes from the arena, never
 * from the program's malloc. */
typedef struct table {
  uint64_t mask;
  _Atomic int32_t slots[]; /* region id + 1; 0 = empty */
} table_t;

static table_t *_Atomic by_name;
static table_t *_Atomic by_addr;
static uint32_t n_named, n_addr;

static uint64_t hash_str(const char *s) { return sp__fnv1a(SP__FNV_SEED, s); }

static uint64_t hash_ptr(const void *p, int32_t kind) {
  uint64_t x = (uint64_t)(uintptr_t)p ^ ((uint64_t)(uint32_t)kind << 56);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

static int32_t find(table_t *t, uint64_t h, const char *name, const void *addr,
                    int32_t kind) {
  if (!t)
    return -1;
  for (uint64_t i = h & t->mask;; i = (i + 1) & t->mask) {
    int32_t v = atomic_load_explicit(&t->slots[i], memory_order_acquire);
    if (v == 0)
      return -1;
    sp__region_t *r = sp__region_get(v - 1);
    if (!r)
      return -1;
    if (name ? (r->addr == NULL && strcmp(r->name, name) == 0)
             : (r->addr == addr && r->kind == kind &&
                !__atomic_load_n(&r->gone, __ATOMIC_ACQUIRE)))
      return v - 1;
  }
}

static table_t *table_new(uint64_t nslots) {
  table_t *t = sp__arena_alloc(sizeof(table_t) + nslots * sizeof(int32_t));
  if (!t)
    return NULL;
  memset(t->slots, 0, nslots * sizeof(int32_t));
  t->mask = nslots - 1;
  return t;
}

static void table_put(table_t *t, uint64_t h, int32_t id) {
  uint64_t i = h & t->mask;
  while (atomic_load_explicit(&t->slots[i], memory_order_relaxed))
    i = (i + 1) & t->mask;
  atomic_store_explicit(&t->slots[i], id + 1, memory_order_release);
}

static uint64_t key_hash(const sp__region_t *r) {
  return r->addr || r->kind ? hash_ptr(r->addr, r->kind) : hash_str(r->name);
}

/* Keeps the load factor under 1/2; called with reg_lock held. */
static int table_reserve(table_t *_Atomic *slot, uint32_t count) {
  table_t *t = atomic_load_explicit(slot, memory_order_relaxed);
  if (t && (uint64_t)(count + 1) * 2 <= t->mask + 1)
    return 0;
  uint64_t n = t ? (t->mask + 1) * 2 : 1024;
  table_t *nt = table_new(n);
  if (!nt)
    return -1;
  if (t)
    for (uint64_t i = 0; i <= t->mask; i++) {
      int32_t v = atomic_load_explicit(&t->slots[i], memory_order_relaxed);
      if (v)
        table_put(nt, key_hash(sp__region_get(v - 1)), v - 1);
    }
  atomic_store_explicit(slot, nt, memory_order_release);
  return 0;
}

/* Adds a region record: its id, SP_ELIMIT or SP_ENOMEM; reg_lock held. */
static int32_t add_region(const char *name, const char *file, int line,
                          const void *addr, int32_t kind) {
  int32_t id = atomic_load_explicit(&sp__nregions, memory_order_relaxed);
  if ((uint32_t)id >= SP__MAX_REGIONS)
    return SP_ELIMIT;
  if ((name && strlen(name) > SP__NAME_MAX) ||
      (file && strlen(file) > SP__NAME_MAX)) {
    atomic_fetch_add(&sp__names_refused, 1);
    return SP_ELIMIT; /* never cut: two long names would merge */
  }
  sp__region_t *page =
      atomic_load_explicit(&pages[id >> SP__PAGE_BITS], memory_order_relaxed);
  if (!page) {
    page = sp__arena_alloc(SP__PAGE_SIZE * sizeof(sp__region_t));
    if (!page)
      return SP_ENOMEM;
    atomic_store_explicit(&pages[id >> SP__PAGE_BITS], page,
                          memory_order_release);
  }
  sp__region_t *r = &page[id & (SP__PAGE_SIZE - 1)];
  r->name = name ? arena_strdup(name) : NULL;
  r->file = (file && *file) ? arena_strdup(file) : NULL;
  r->line = (file && *file) ? line : -1;
  r->addr = addr;
  r->kind = kind;
  if ((name && !r->name) || (file && *file && !r->file))
    return SP_ENOMEM;
  atomic_store_explicit(&sp__nregions, id + 1, memory_order_release);
  return id;
}

/* The ids of new regions: id, or SP_ELIMIT or SP_ENOMEM; reg_lock held. */
static int32_t add_named(uint64_t h, const char *name, const char *file,
                         int line) {
  if (table_reserve(&by_name, n_named) != 0)
    return SP_ENOMEM;
  int32_t id = add_region(name, file, line, NULL, 0);
  if (id >= 0) {
    table_put(atomic_load_explicit(&by_name, memory_order_relaxed), h, id);
    n_named++;
  }
  return id;
}

static int32_t add_addr(uint64_t h, const void *fn, int32_t kind) {
  if (table_reserve(&by_addr, n_addr) != 0)
    return SP_ENOMEM;
  int32_t id = add_region(NULL, NULL, -1, fn, kind);
  if (id >= 0) {
    table_put(atomic_load_explicit(&by_addr, memory_order_relaxed), h, id);
    n_addr++;
  }
  return id;
}

int32_t sp__register(const char *name, const char *file, int line) {
  uint64_t h = hash_str(name);
  int32_t id = find(atomic_load_explicit(&by_name, memory_order_acquire), h,
                    name, NULL, 0);
  if (id >= 0)
    return id;
  pthread_mutex_lock(&reg_lock);
  id = find(atomic_load_explicit(&by_name, memory_order_relaxed), h, name, NULL,
            0);
  if (id < 0)
    id = add_named(h, name, file, line);
  pthread_mutex_unlock(&reg_lock);
  return id;
}

int32_t sp__region_find(const char *name) {
  int32_t id = find(atomic_load_explicit(&by_name, memory_order_acquire),
                    hash_str(name), name, NULL, 0);
  return id >= 0 ? id : SP_EBUSY;
}

int32_t sp__register_addr_kind(const void *fn, int32_t kind) {
  uint64_t h = hash_ptr(fn, kind);
  int32_t id = find(atomic_load_explicit(&by_addr, memory_order_acquire), h,
                    NULL, fn, kind);
  if (id >= 0)
    return id;
  pthread_mutex_lock(&reg_lock);
  id = find(atomic_load_explicit(&by_addr, memory_order_relaxed), h, NULL, fn,
            kind);
  if (id < 0)
    id = add_addr(h, fn, kind);
  pthread_mutex_unlock(&reg_lock);
  return id;
}

int32_t sp__register_addr(const void *fn) {
  return sp__register_addr_kind(fn, 0);
}
