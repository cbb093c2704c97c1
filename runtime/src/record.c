/* record.c - the hot path: per-thread call buffers and nesting stacks.
 * No locks, no allocation per event; chunks come from large pre-faulted
 * per-thread mappings. */
#include "hotpath.h"

#include <string.h>
#include <sys/mman.h>

__thread sp__thread_t *sp__tls;
_Atomic(sp__thread_t *) sp__threads;
static _Atomic int32_t n_threads;

/* Chunk sizes are powers of two in bytes, header included, so that they
 * tile the arena blocks exactly: no pre-faulted byte goes unused. */
#define FIRST_BLOCK (256u << 10) /* a thread's first arena block */
#define HUGE_BLOCK (2u << 20)    /* later blocks: one transparent huge page */
#define FIRST_CHUNK 1024u        /* bytes of a region's first chunk */
#define MAX_CHUNK (256u << 10)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static void *map_populated(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

/* A 2 MiB block backed by one huge page where the kernel allows it: page
 * faults then cost once per 131,072 calls instead of once per 256, and the
 * writes stay as cheap as into warm memory (docs/performance.md). */
static void *map_huge(size_t bytes) {
  size_t align = HUGE_BLOCK;
  char *p = mmap(NULL, bytes + align, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  char *q = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
  if (q > p)
    munmap(p, (size_t)(q - p));
  if (q + bytes < p + bytes + align)
    munmap(q + bytes, (size_t)(p + bytes + align - (q + bytes)));
  madvise(q, bytes, MADV_HUGEPAGE);
  if (madvise(q, bytes, MADV_POPULATE_WRITE) != 0) /* kernels before 5.14 */
    for (size_t off = 0; off < bytes; off += 4096)
      ((volatile char *)q)[off] = 0;
  return q;
}

sp__thread_t *sp__thread_slow(void) {
  if (atomic_load_explicit(&sp__state, memory_order_acquire) == SP__UNINIT)
    sp__ensure_init();
  if (atomic_load_explicit(&sp__state, memory_order_acquire) != SP__RUNNING)
    return NULL;
  sp__thread_t *t = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (t == MAP_FAILED)
    return NULL;
  /* Reserved, not committed: pages fault in only as deep as calls nest. */
  t->stack =
      mmap(NULL, SP__STACK_MAX * sizeof(sp__frame_t), PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (t->stack == MAP_FAILED) {
    munmap(t, sizeof *t);
    return NULL;
  }
  t->index = atomic_fetch_add(&n_threads, 1);
  sp__thread_t *head = atomic_load(&sp__threads);
  do
    t->next = head;
  while (!atomic_compare_exchange_weak(&sp__threads, &head, t));
  sp__tls = t;
  return t;
}

/* Carves a chunk from the thread's arena, mapping a new pre-faulted block
 * when it runs out: the page faults happen here, once per block, not on
 * the hot path. A thread's first block is small, so that the many threads
 * that record little stay cheap; the rest are huge pages. */
static sp__chunk_t *chunk_new(sp__thread_t *t, size_t bytes) {
  if ((size_t)(t->arena_end - t->arena) < bytes) {
    size_t block = t->arena_blocks ? HUGE_BLOCK : FIRST_BLOCK;
    char *p = t->arena_blocks ? map_huge(block) : map_populated(block);
    if (!p)
      return NULL;
    t->arena_blocks++;
    t->arena = p;
    t->arena_end = p + block;
  }
  sp__chunk_t *c = (sp__chunk_t *)t->arena;
  t->arena += bytes;
  c->next = NULL;
  c->cap = (bytes - sizeof(sp__chunk_t)) / sizeof(sp__pair_t);
  return c;
}

static sp__buf_t *buf_get(sp__thread_t *t, int32_t id) {
  if ((uint32_t)id >=
      (uint32_t)atomic_load_explicit(&sp__nregions, memory_order_acquire)) {
    t->n_invalid++;
    return NULL;
  }
  sp__buf_t **page = &t->pages[(uint32_t)id >> SP__PAGE_BITS];
  if (!*page) {
    void *p = mmap(NULL, SP__PAGE_SIZE * sizeof(sp__buf_t),
                   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return NULL;
    atomic_store_explicit((_Atomic(sp__buf_t *) *)page, p,
                          memory_order_release);
  }
  return &(*page)[(uint32_t)id & (SP__PAGE_SIZE - 1)];
}

/* The buffer is full (or new): link a chunk twice the size of the last. */
static int buf_grow(sp__thread_t *t, sp__buf_t *b) {
  size_t bytes = FIRST_CHUNK;
  if (b->tail) {
    bytes = (sizeof(sp__chunk_t) + b->tail->cap * sizeof(sp__pair_t)) * 2;
    if (bytes > MAX_CHUNK)
      bytes = MAX_CHUNK;
  }
  sp__chunk_t *c = chunk_new(t, bytes);
  if (!c)
    return -1;
  if (b->tail)
    atomic_store_explicit((_Atomic(sp__chunk_t *) *)&b->tail->next, c,
                          memory_order_release);
  else
    atomic_store_explicit((_Atomic(sp__chunk_t *) *)&b->head, c,
                          memory_order_release);
  b->tail = c;
  b->cur = c->data;
  b->end = c->data + c->cap;
  return 0;
}

/* Every rare case of a begin: first call on this thread, a region new to
 * the thread, a full chunk, nesting too deep, recording stopped. */
__attribute__((noinline)) void sp__begin_slow(int32_t id) {
  if (!sp__active)
    return;
  sp__thread_t *t = sp__tls;
  if (!t && !(t = sp__thread_slow()))
    return;
  if ((uint32_t)id >= SP__MAX_REGIONS) {
    t->n_invalid++;
    return;
  }
  sp__buf_t *b = buf_get(t, id);
  if (!b)
    return;
  if (b->cur == b->end && buf_grow(t, b) != 0) {
    t->n_dropped++;
    return;
  }
  if (t->depth >= SP__STACK_MAX) {
    t->overflow++;
    t->n_dropped++;
    return;
  }
  sp__pair_t *p = b->cur++;
  t->stack[t->depth].region = id;
  t->stack[t->depth].slot = p;
  t->depth++;
  p->start = sp__now();
}

/* sp_end that does not match the innermost open call. */
__attribute__((noinline)) void sp__end_slow(sp__thread_t *t, int32_t id,
                                            uint64_t now) {
  if (t->overflow) { /* this end belongs to a call that was not recorded */
    t->overflow--;
    return;
  }
  uint32_t i = t->depth;
  while (i > 0 && t->stack[i - 1].region != id)
    i--;
  if (i == 0) {
    t->n_unmatched++;
    return;
  }
  /* Close everything opened above the matching call at the same instant,
   * so the output stays properly nested. */
  t->n_mismatch++;
  while (t->depth > i) {
    t->stack[--t->depth].slot->end = now;
    t->n_closed_above++;
  }
  t->stack[--t->depth].slot->end = now;
}

#undef sp_begin
#undef sp_end

SP_API void sp_begin(int region) { sp__begin_fast(region); }
SP_API void sp_end(int region) { sp__end_fast(region); }

/* ---- the calls the pass plugin inserts (sp_hooks.h) ---- */
static __attribute__((noinline)) void site_enter_slow(sp_site *s) {
  if (!sp__active)
    return;
  int32_t id = sp__register(s->name && *s->name ? s->name : "<unnamed>",
                            s->file, s->line);
  if (id < 0)
    return;
  __atomic_store_n(&s->id, id, __ATOMIC_RELEASE);
  sp__begin_fast(id);
}

SP_API void sp__enter(sp_site *s) {
  int32_t id = __atomic_load_n(&s->id, __ATOMIC_ACQUIRE);
  if (SP_UNLIKELY(id < 0)) {
    site_enter_slow(s);
    return;
  }
  sp__begin_fast(id);
}

SP_API void sp__exit(sp_site *s) {
  int32_t id = __atomic_load_n(&s->id, __ATOMIC_ACQUIRE);
  if (SP_LIKELY(id >= 0))
    sp__end_fast(id);
}

/* In a forked child only the forking thread exists, and the parent's
 * calls are the parent's to write: drop them, keep the open frames so
 * their ends match, but point them at a scratch pair that is never
 * written out. */
void sp__record_after_fork(void) {
  sp__thread_t *self = sp__tls;
  atomic_store(&sp__threads, self);
  atomic_store(&n_threads, self ? 1 : 0);
  if (!self)
    return;
  self->next = NULL;
  self->index = 0;
  for (unsigned p = 0; p < SP__MAX_PAGES; p++)
    if (self->pages[p])
      memset(self->pages[p], 0, SP__PAGE_SIZE * sizeof(sp__buf_t));
  for (uint32_t i = 0; i < self->depth; i++)
    self->stack[i].slot = &self->scratch;
  self->inherited = self->depth;
  self->arena = self->arena_end = NULL;
  self->n_mismatch = self->n_closed_above = self->n_unmatched = 0;
  self->n_dropped = self->n_invalid = 0;
}
