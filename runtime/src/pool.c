/* pool.c - the memory budget (SP_MEMORY): chunks carved from one address
 * reservation and recycled through per-size free lists, so a run of any
 * length holds at most its budget; a thread that finds none waits for the
 * writer. Locked per chunk, never per event. */
#include "internal.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static const uint32_t class_bytes[SP__NCLASSES] = {1024, 4096, 16384, 65536};
#define SLAB (2u << 20) /* populated, and huge-page backed, in 2 MiB steps */

uint64_t sp__budget;
_Atomic uint64_t sp__wait_ns, sp__overrun_bytes;

/* [base, soft) is the budget; [soft, hard) is carved only when no chunk is
 * in flight to the writer and the asking thread has none of its own to
 * give back (every chunk then sits half-filled in some thread): waiting
 * could never end, so the budget is exceeded and the excess counted. */
static char *base, *soft, *hard, *populated;
static _Atomic(char *) carved;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t freed = PTHREAD_COND_INITIALIZER;
static sp__chunk_t *free_list[SP__NCLASSES];

int sp__pool_init(uint64_t budget) {
  if (budget < SLAB)
    budget = SLAB;
  budget = (budget + SLAB - 1) & ~(uint64_t)(SLAB - 1);
  size_t reserve = (size_t)budget * 2;
  char *p = mmap(NULL, reserve + SLAB, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return -1;
  char *q = (char *)(((uintptr_t)p + SLAB - 1) & ~(uintptr_t)(SLAB - 1));
  if (q > p)
    munmap(p, (size_t)(q - p));
  if (q + reserve < p + reserve + SLAB)
    munmap(q + reserve, (size_t)(p + reserve + SLAB - (q + reserve)));
  madvise(q, reserve, MADV_HUGEPAGE);
  sp__budget = budget;
  base = populated = q;
  soft = q + budget;
  hard = q + reserve;
  atomic_store(&carved, q);
  return 0;
}

/* Faults the next slab in now, off the hot path: on these VMs a fault per
 * 4 KiB page inside the recording loop costs more than the recording. */
static void populate_to(char *end) {
  while (populated < end) {
    if (madvise(populated, SLAB, MADV_POPULATE_WRITE) != 0)
      for (size_t off = 0; off < SLAB; off += 4096)
        ((volatile char *)populated)[off] = 0;
    populated += SLAB;
  }
}

static sp__chunk_t *carve(uint32_t cls, char *limit) {
  char *at = atomic_load_explicit(&carved, memory_order_relaxed);
  uint32_t bytes = class_bytes[cls];
  /* Past the soft limit already (carved over the budget before): nothing
   * is left below it, and the difference must not wrap. */
  if (at >= limit || (size_t)(limit - at) < bytes)
    return NULL;
  populate_to(at + bytes);
  sp__chunk_t *c = (sp__chunk_t *)(void *)at;
  c->bytes = bytes;
  c->cls = cls;
  c->cap = 0;
  __atomic_store_n(&c->state, SP__CH_FREE, __ATOMIC_RELAXED);
  /* Published after the header, so a walk never reads a torn one. */
  atomic_store_explicit(&carved, at + bytes, memory_order_release);
  if (at + bytes > soft)
    atomic_fetch_add(&sp__overrun_bytes, bytes);
  return c;
}

/* Same class first, then smaller ones (a region that wanted more just hands
 * off more often), then larger ones. Lock held. */
static sp__chunk_t *take_free(uint32_t cls) {
  for (int k = (int)cls; k >= 0; k--)
    if (free_list[k]) {
      sp__chunk_t *c = free_list[k];
      free_list[k] = c->next;
      return c;
    }
  for (uint32_t k = cls + 1; k < SP__NCLASSES; k++)
    if (free_list[k]) {
      sp__chunk_t *c = free_list[k];
      free_list[k] = c->next;
      return c;
    }
  return NULL;
}

static int64_t mono_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* over: 0 = within the budget, waiting while the writer holds chunks;
 * 1 = may carve past it (the caller gave back what it had). */
static sp__chunk_t *get(uint32_t cls, int over) {
  pthread_mutex_lock(&lock);
  sp__chunk_t *c = free_list[cls];
  if (c)
    free_list[cls] = c->next;
  else
    c = carve(cls, soft);
  if (!c)
    c = take_free(cls);
  int64_t waited_from = 0;
  while (!c && sp__writer_busy() &&
         atomic_load_explicit(&sp__state, memory_order_relaxed) ==
             SP__RUNNING) {
    if (!waited_from)
      waited_from = mono_now();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 10 * 1000 * 1000;
    if (ts.tv_nsec >= 1000000000)
      ts.tv_sec++, ts.tv_nsec -= 1000000000;
    pthread_cond_timedwait(&freed, &lock, &ts);
    c = take_free(cls);
  }
  if (!c && over)
    c = carve(cls, hard);
  pthread_mutex_unlock(&lock);
  if (waited_from)
    atomic_fetch_add(&sp__wait_ns, (uint64_t)(mono_now() - waited_from));
  if (c) {
    c->next = NULL;
    c->buf = NULL;
    __atomic_store_n(&c->nends, 0, __ATOMIC_RELAXED);
  }
  return c;
}

sp__chunk_t *sp__chunk_get(uint32_t cls) { return get(cls, 0); }
sp__chunk_t *sp__chunk_get_over(uint32_t cls) { return get(cls, 1); }

void sp__chunk_put(sp__chunk_t *c) {
  __atomic_store_n(&c->state, SP__CH_FREE, __ATOMIC_RELEASE);
  pthread_mutex_lock(&lock);
  c->next = free_list[c->cls];
  free_list[c->cls] = c;
  pthread_mutex_unlock(&lock);
}

void sp__chunks_put(sp__chunk_t **cs, int n) {
  for (int i = 0; i < n; i++)
    __atomic_store_n(&cs[i]->state, SP__CH_FREE, __ATOMIC_RELEASE);
  pthread_mutex_lock(&lock);
  for (int i = 0; i < n; i++) {
    cs[i]->next = free_list[cs[i]->cls];
    free_list[cs[i]->cls] = cs[i];
  }
  pthread_cond_broadcast(&freed);
  pthread_mutex_unlock(&lock);
}

void sp__pool_walk(void (*f)(sp__chunk_t *c, void *arg), void *arg) {
  char *end = atomic_load_explicit(&carved, memory_order_acquire);
  for (char *p = base; p && p < end;) {
    sp__chunk_t *c = (sp__chunk_t *)(void *)p;
    p += c->bytes;
    f(c, arg);
  }
}

/* The child of a fork owns no chunk: every one goes back to the free lists
 * (the parent writes what they hold). The lock was taken before the fork
 * (sp__pool_lock), so the lists are whole. */
static void free_all(sp__chunk_t *c, void *arg) {
  (void)arg;
  __atomic_store_n(&c->state, SP__CH_FREE, __ATOMIC_RELAXED);
  c->next = free_list[c->cls];
  free_list[c->cls] = c;
}

void sp__pool_lock(void) { pthread_mutex_lock(&lock); }
void sp__pool_unlock(void) { pthread_mutex_unlock(&lock); }

void sp__pool_after_fork(void) {
  memset(free_list, 0, sizeof free_list);
  sp__pool_walk(free_all, NULL);
  pthread_mutex_unlock(&lock);
  pthread_cond_init(&freed, NULL);
}

/* Finalize: the reservation past the chunks carved so far is given back,
 * so writing the final file finds address space even under a tight
 * `ulimit -v`. Carved chunks stay: a late thread may still write to one. */
void sp__pool_release_unused(void) {
  pthread_mutex_lock(&lock);
  char *at = atomic_load_explicit(&carved, memory_order_relaxed);
  char *from = (char *)(((uintptr_t)at + SLAB - 1) & ~(uintptr_t)(SLAB - 1));
  if (base && from < hard) {
    munmap(from, (size_t)(hard - from));
    hard = from;
    if (soft > hard)
      soft = hard;
  }
  pthread_mutex_unlock(&lock);
}
