/* record.c - the hot path: per-thread call buffers and nesting stacks.
 * No locks, no allocation per event; chunks come from large pre-faulted
 * per-thread mappings. */
#include "hotpath.h"

#include <string.h>
#include <sys/mman.h>

__thread sp__thread_t *sp__tls;
_Atomic(sp__thread_t *) sp__threads;
static _Atomic int32_t n_threads;

#define ARENA_BYTES (4u << 20)
#define FIRST_CAP 64u          /* pairs in a region's first chunk */
#define MAX_CAP (64u << 10)    /* 1 MiB chunks at most */

static void *map_populated(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
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
  t->stack = mmap(NULL, SP__STACK_MAX * sizeof(sp__frame_t),
                  PROT_READ | PROT_WRITE,
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

/* Carves a chunk of cap pairs from the thread's arena, mapping a new
 * pre-faulted block when it runs out (the page faults happen here, once
 * per block, instead of once per 256 calls on the hot path). */
static sp__chunk_t *chunk_new(sp__thread_t *t, uint64_t cap) {
  size_t bytes = sizeof(sp__chunk_t) + cap * sizeof(sp__pair_t);
  if ((size_t)(t->arena_end - t->arena) < bytes) {
    size_t block = bytes > ARENA_BYTES ? bytes : ARENA_BYTES;
    char *p = map_populated(block);
    if (!p)
      return NULL;
    t->arena = p;
    t->arena_end = p + block;
  }
  sp__chunk_t *c = (sp__chunk_t *)t->arena;
  t->arena += bytes;
  c->next = NULL;
  c->cap = cap;
  return c;
}

__attribute__((noinline)) sp__buf_t *sp__buf_slow(sp__thread_t *t, int32_t id) {
  if ((uint32_t)id >= (uint32_t)atomic_load_explicit(&sp__nregions,
                                                     memory_order_acquire)) {
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
__attribute__((noinline)) int sp__buf_grow(sp__thread_t *t, sp__buf_t *b) {
  uint64_t cap = b->tail ? b->tail->cap * 2 : FIRST_CAP;
  if (cap > MAX_CAP)
    cap = MAX_CAP;
  sp__chunk_t *c = chunk_new(t, cap);
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
  b->end = c->data + cap;
  return 0;
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
    sp__frame_t *f = &t->stack[--t->depth];
    if (f->slot)
      f->slot->end = now;
    t->n_closed_above++;
  }
  sp__frame_t *f = &t->stack[--t->depth];
  if (f->slot)
    f->slot->end = now;
}


#undef sp_begin
#undef sp_end

SP_API void sp_begin(int region) {
  sp__thread_t *t = sp__tls;
  if (SP_UNLIKELY(!t)) {
    if (!sp_active_ || !(t = sp__thread_slow()))
      return;
  }
  if (SP_UNLIKELY(!sp_active_))
    return;
  begin_fast(t, region);
}

SP_API void sp_end(int region) {
  sp__thread_t *t = sp__tls;
  if (SP_UNLIKELY(!t || !sp_active_))
    return;
  end_fast(t, region);
}

/* ---- the calls the pass plugin inserts (sp_hooks.h) ---- */
static __attribute__((noinline)) int32_t site_register(sp_site *s) {
  int32_t id = sp__register(s->name && *s->name ? s->name : "<unnamed>",
                            s->file, s->line);
  if (id >= 0)
    __atomic_store_n(&s->id, id, __ATOMIC_RELEASE);
  return id;
}

SP_API void sp__enter(sp_site *s) {
  sp__thread_t *t = sp__tls;
  if (SP_UNLIKELY(!t)) {
    if (!sp_active_ || !(t = sp__thread_slow()))
      return;
  }
  if (SP_UNLIKELY(!sp_active_))
    return;
  int32_t id = __atomic_load_n(&s->id, __ATOMIC_ACQUIRE);
  if (SP_UNLIKELY(id < 0) && (id = site_register(s)) < 0)
    return;
  begin_fast(t, id);
}

SP_API void sp__exit(sp_site *s) {
  sp__thread_t *t = sp__tls;
  if (SP_UNLIKELY(!t || !sp_active_))
    return;
  int32_t id = __atomic_load_n(&s->id, __ATOMIC_ACQUIRE);
  if (SP_UNLIKELY(id < 0))
    return;
  end_fast(t, id);
}

/* In a forked child only the forking thread exists, and the parent's
 * calls are the parent's to write: drop them, keep the open frames so
 * their ends match, but record nothing for them. */
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
    self->stack[i].slot = NULL;
  self->arena = self->arena_end = NULL;
  self->n_mismatch = self->n_closed_above = self->n_unmatched = 0;
  self->n_dropped = self->n_invalid = 0;
}
