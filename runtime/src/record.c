/* record.c - the slow paths behind hotpath.h: per-thread states (made,
 * recycled when their thread exits), chunks refilled from the pool and
 * handed to the writer, open calls detached from handed-off chunks. */
#include "filter.h"
#include "hotpath.h"

#include <string.h>
#include <sys/mman.h>

__thread sp__thread_t *sp__tls;
__thread sp__thread_t *sp__self;
__thread int sp__guard;
_Atomic uint64_t sp__signal_drops;
_Atomic(sp__thread_t *) sp__threads;
_Atomic int sp__in_slow;
static _Atomic int32_t n_threads;
static pthread_mutex_t states_lock = PTHREAD_MUTEX_INITIALIZER;
static sp__thread_t *free_states;
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
/* Counters of threads that exited, added at their exit. */
static _Atomic uint64_t gone[5];

#define FIRST_STACK 256u /* frames */
#define PAGE_BYTES (SP__PAGE_SIZE * sizeof(sp__buf_t))

#define BUMP(x)                                                                \
  __atomic_store_n(&(x), __atomic_load_n(&(x), __ATOMIC_RELAXED) + 1,          \
                   __ATOMIC_RELAXED)

/* A slow path runs between enter and leave; finalize waits until none is
 * in progress after it changed the state, so none hands off a chunk or
 * changes a thread's state under its feet. */
static int enter(void) {
  atomic_fetch_add(&sp__in_slow, 1);
  if (atomic_load(&sp__state) == SP__RUNNING)
    return 1;
  atomic_fetch_sub(&sp__in_slow, 1);
  return 0;
}

static void leave(void) { atomic_fetch_sub(&sp__in_slow, 1); }

/* The guard of the slow paths against signal handlers that record on the
 * same thread. A handler that finds the guard set and sp__tls clear has
 * interrupted a slow path, which may hold a lock: its call is dropped. One
 * that comes between the two stores finds sp__tls still set and the slow
 * path not begun: it runs its own and puts the guard back as it was. The
 * fences keep the compiler from moving the slow path's work across them. */
int sp__guard_enter(int count) {
  if (sp__guard && !sp__tls) {
    if (count)
      atomic_fetch_add_explicit(&sp__signal_drops, 1, memory_order_relaxed);
    return 0;
  }
  int was = sp__guard;
  sp__guard = 1;
  atomic_signal_fence(memory_order_seq_cst);
  sp__tls = NULL; /* every fast path of a handler now takes a slow path */
  atomic_signal_fence(memory_order_seq_cst);
  return was ? 2 : 1;
}

/* The guard cleared before the fast paths see the state again: a handler
 * in between finds neither and runs a slow path of its own. */
void sp__guard_leave(int entered) {
  atomic_signal_fence(memory_order_seq_cst);
  if (entered == 1)
    sp__guard = 0;
  atomic_signal_fence(memory_order_seq_cst);
  sp__tls = sp__self;
  atomic_signal_fence(memory_order_seq_cst);
}

static void thread_exit(void *arg);
static void make_key(void) { pthread_key_create(&exit_key, thread_exit); }

static void *map(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

sp__thread_t *sp__thread_slow(void) {
  if (atomic_load_explicit(&sp__state, memory_order_acquire) == SP__UNINIT)
    sp__ensure_init();
  if (atomic_load_explicit(&sp__state, memory_order_acquire) != SP__RUNNING)
    return NULL;
  pthread_once(&key_once, make_key);
  pthread_mutex_lock(&states_lock);
  sp__thread_t *t = free_states;
  if (t)
    free_states = t->free_next;
  pthread_mutex_unlock(&states_lock);
  if (!t) {
    t = map(sizeof *t);
    if (!t)
      return NULL;
    t->stack = map(FIRST_STACK * sizeof(sp__frame_t));
    if (!t->stack) {
      munmap(t, sizeof *t);
      return NULL;
    }
    t->stack_cap = FIRST_STACK;
    sp__thread_t *head = atomic_load(&sp__threads);
    do
      t->next = head;
    while (!atomic_compare_exchange_weak(&sp__threads, &head, t));
  }
  t->index = atomic_fetch_add(&n_threads, 1);
  __atomic_store_n(&t->live, 1, __ATOMIC_RELEASE);
  sp__self = t; /* the fast paths see it when the guard is left */
  pthread_setspecific(exit_key, t);
  sp__altstack_thread();
  return t;
}

static sp__buf_t *buf_get(sp__thread_t *t, int32_t id) {
  sp__buf_t **page = &t->pages[(uint32_t)id >> SP__PAGE_BITS];
  if (!*page && !(*page = map(PAGE_BYTES)))
    return NULL;
  return &(*page)[(uint32_t)id & (SP__PAGE_SIZE - 1)];
}

/* Open calls whose slots lie in [lo, hi) of a chunk that goes to the
 * writer: from now on their ends travel as ENDS entries. Frames are in
 * start order, so the scan stops at the first that began before the
 * chunk's first call. */
static void detach(sp__thread_t *t, sp__pair_t *lo, sp__pair_t *hi,
                   int64_t first) {
  if (lo == hi)
    return;
  uint64_t first_start = lo->start;
  for (uint32_t i = t->depth; i-- > 0;) {
    sp__frame_t *f = &t->stack[i];
    if ((uint32_t)f->region & SP__DETACHED) {
      if (f->start < first_start)
        break;
      continue;
    }
    sp__pair_t *s = f->slot;
    if (s >= lo && s < hi) {
      f->index = first + (s - lo);
      f->start = s->start;
      f->flags = 0;
      f->slot = NULL;
      f->region = (int32_t)((uint32_t)f->region | SP__DETACHED);
    } else if (s->start < first_start) {
      break;
    }
  }
}

/* Gives the buffer's chunk to the writer (or back to the pool when it
 * holds nothing); the buffer is then empty, so its next call takes the
 * slow path. */
static void handoff(sp__thread_t *t, sp__buf_t *b) {
  sp__chunk_t *c = b->chunk;
  if (!c)
    return;
  sp__pair_t *pairs = SP__PAIRS(c);
  int64_t n = b->cur - pairs;
  sp_stream_calls *h = SP__CALLS(c);
  h->count = n;
  c->rec.type = SP_STREAM_CALLS;
  c->rec.size = (uint32_t)(sizeof(sp_stream_rec) + sizeof *h +
                           (size_t)n * sizeof(sp__pair_t));
  detach(t, pairs, pairs + n, h->first);
  b->next_first += n;
  b->chunk = NULL;
  if (n) {
    __atomic_store_n(&c->state, SP__CH_QUEUED, __ATOMIC_RELEASE);
    SP__PUBLISH(&b->cur, (sp__pair_t *)NULL);
    b->end = NULL;
    sp__writer_push(c);
  } else {
    SP__PUBLISH(&b->cur, (sp__pair_t *)NULL);
    b->end = NULL;
    sp__chunk_put(c);
  }
}

static void handoff_ends(sp__thread_t *t) {
  sp__chunk_t *c = t->ends;
  if (!c)
    return;
  t->ends = NULL;
  int64_t n = __atomic_load_n(&c->nends, __ATOMIC_RELAXED);
  if (!n) {
    sp__chunk_put(c);
    return;
  }
  memcpy(c->payload, &n, 8);
  c->rec.type = SP_STREAM_ENDS;
  c->rec.size =
      (uint32_t)(sizeof(sp_stream_rec) + 8 + (size_t)n * sizeof(sp_stream_end));
  __atomic_store_n(&c->state, SP__CH_QUEUED, __ATOMIC_RELEASE);
  sp__writer_push(c);
}

/* Every chunk this thread fills goes to the writer, so memory frees up for
 * a thread that found the budget used up with nothing in flight. */
static void flush_own(sp__thread_t *t) {
  for (unsigned p = 0; p < SP__MAX_PAGES; p++) {
    sp__buf_t *page = t->pages[p];
    if (!page)
      continue;
    for (unsigned i = 0; i < SP__PAGE_SIZE; i++)
      if (page[i].chunk)
        handoff(t, &page[i]);
  }
  handoff_ends(t);
}

static sp__chunk_t *chunk_for(sp__thread_t *t, uint32_t cls) {
  sp__chunk_t *c = sp__chunk_get(cls);
  if (!c) {
    flush_own(t);
    c = sp__chunk_get(cls);
  }
  if (!c) {
    c = sp__chunk_get_over(cls);
  }
  return c;
}

/* The buffer is full (or new): hand its chunk off, take the next one. */
static int refill(sp__thread_t *t, sp__buf_t *b, int32_t id) {
  handoff(t, b);
  sp__chunk_t *c = chunk_for(t, b->cls);
  if (!c)
    return -1;
  c->kind = SP__CH_CALLS;
  c->cap = (uint32_t)((c->bytes - sizeof *c - sizeof(sp_stream_calls)) /
                      sizeof(sp__pair_t));
  c->buf = b;
  sp_stream_calls *h = SP__CALLS(c);
  h->thread = t->index;
  h->region = id;
  h->first = b->next_first;
  h->count = 0;
  h->flags = 0;
  __atomic_store_n(&c->state, SP__CH_OWNED, __ATOMIC_RELEASE);
  b->chunk = c;
  b->cls = c->cls + 1 < SP__NCLASSES ? c->cls + 1 : c->cls;
  b->end = SP__PAIRS(c) + c->cap;
  SP__PUBLISH(&b->cur, SP__PAIRS(c));
  return 0;
}

static int grow_stack(sp__thread_t *t) {
  uint32_t cap = t->stack_cap * 2;
  if (cap > SP__STACK_MAX)
    cap = SP__STACK_MAX;
  sp__frame_t *s = map((size_t)cap * sizeof *s);
  if (!s)
    return -1;
  memcpy(s, t->stack, (size_t)t->depth * sizeof *s);
  munmap(t->stack, (size_t)t->stack_cap * sizeof *s);
  t->stack = s;
  t->stack_cap = cap;
  return 0;
}

static void begin_slow(int32_t id, int a);

/* Every rare case of a begin: first call on this thread, a region new to
 * the thread, a full chunk, a stack to grow, recording stopped; and every
 * begin with SP_COUNTERS, which counters.c makes. */
__attribute__((noinline)) void sp__begin_slow(int32_t id) {
  int a = SP__ACTIVE();
  if (a >= SP__ACTIVE_COUNTERS) {
    sp__cnt_begin(id);
    return;
  }
  begin_slow(id, a);
}

/* The fast path's work, which a begin with counters cannot take (the flag
 * is not 1), then the slow path's as if recording. */
void sp__begin_trace(int32_t id) {
  sp__thread_t *t = sp__tls;
  if (t && (uint32_t)id < SP__MAX_REGIONS) {
    sp__buf_t *b = sp__buf_peek(t, id);
    uint32_t d = t->depth;
    if (b && b->cur != b->end && d < t->stack_cap) {
      sp__open_call(t, b, b->cur, d, id);
      return;
    }
  }
  begin_slow(id, 1);
}

void sp__end_trace(int32_t id, uint64_t stamp) {
  sp__thread_t *t = sp__tls;
  if (!t)
    return;
  uint32_t d = t->depth;
  if (d && t->stack[d - 1].region == id && !t->overflow) {
    t->depth = d - 1;
    SP__STORE(&t->stack[d - 1].slot->end, stamp ? stamp : sp__now());
    return;
  }
  if (!sp__filter_out(id))
    sp__end_slow(t, id, stamp ? stamp : sp__now());
}

/* What sp__begin_trace would make for id (the thread's state, the
 * region's buffer with room, a deeper stack), made now, so that it takes
 * the fast path; a call it cannot make ready is left to it (dropped and
 * counted there). */
void sp__trace_ready(int32_t id) {
  sp__thread_t *t = sp__tls;
  if (t && (uint32_t)id < SP__MAX_REGIONS) {
    sp__buf_t *b = sp__buf_peek(t, id);
    if (b && b->cur != b->end && t->depth < t->stack_cap)
      return;
  }
  if (sp__filter_drops(id))
    return;
  int g = sp__guard_enter(1);
  if (!g)
    return;
  if (!enter()) {
    sp__guard_leave(g);
    return;
  }
  t = sp__self;
  if ((t || (t = sp__thread_slow())) &&
      (uint32_t)id <
          (uint32_t)atomic_load_explicit(&sp__nregions, memory_order_acquire) &&
      (t->depth < t->stack_cap ||
       (t->stack_cap < SP__STACK_MAX && grow_stack(t) == 0))) {
    sp__buf_t *b = buf_get(t, id);
    if (b && b->cur == b->end)
      refill(t, b, id);
  }
  leave();
  sp__guard_leave(g);
}

/* a: the flag's value, 1 for a begin with counters (recording). */
static void begin_slow(int32_t id, int a) {
  /* An excluded region never gets a chunk: its calls all come here. */
  if (!a || sp__filter_drops(id))
    return;
  int g = sp__guard_enter(1);
  if (!g)
    return;
  if (!enter()) {
    sp__guard_leave(g);
    return;
  }
  sp__thread_t *t = sp__self;
  if (!t && !(t = sp__thread_slow()))
    goto out;
  if ((uint32_t)id >=
      (uint32_t)atomic_load_explicit(&sp__nregions, memory_order_acquire)) {
    BUMP(t->n_invalid);
    goto out;
  }
  if (t->depth >= t->stack_cap &&
      (t->stack_cap >= SP__STACK_MAX || grow_stack(t) != 0)) {
    t->overflow++;
    BUMP(t->n_dropped);
    goto out;
  }
  sp__buf_t *b = buf_get(t, id);
  if (!b || (b->cur == b->end && refill(t, b, id) != 0)) {
    /* No memory for it: a frame that records nothing keeps its end
     * matched (a dropped call is counted). */
    BUMP(t->n_dropped);
    sp__frame_t *f = &t->stack[t->depth++];
    f->region = (int32_t)((uint32_t)id | SP__DETACHED);
    f->flags = SP__F_DROPPED;
    f->slot = NULL;
    f->start = sp__now(); /* keeps frames in start order for detach() */
    goto out;
  }
  sp__open_call(t, b, b->cur, t->depth, id);
out:
  leave();
  sp__guard_leave(g);
}

/* The end of a call whose chunk already went to the writer. */
static void end_detached(sp__thread_t *t, const sp__frame_t *f, uint64_t now) {
  if (!enter())
    return; /* finalize closes it at its own time */
  sp__chunk_t *c = t->ends;
  if (c && __atomic_load_n(&c->nends, __ATOMIC_RELAXED) == c->cap) {
    handoff_ends(t);
    c = NULL;
  }
  if (!c) {
    c = chunk_for(t, 1);
    if (!c) {
      BUMP(t->n_dropped);
      leave();
      return;
    }
    c->kind = SP__CH_ENDS;
    c->cap = (uint32_t)((c->bytes - sizeof *c - 8) / sizeof(sp_stream_end));
    __atomic_store_n(&c->state, SP__CH_OWNED, __ATOMIC_RELEASE);
    t->ends = c;
  }
  int64_t n = __atomic_load_n(&c->nends, __ATOMIC_RELAXED);
  sp_stream_end *e = &SP__ENDS(c)[n];
  e->thread = t->index;
  e->region = (int32_t)((uint32_t)f->region & ~SP__DETACHED);
  e->index = f->index;
  e->end = now;
  __atomic_store_n(&c->nends, n + 1, __ATOMIC_RELEASE);
  leave();
}

/* flags mean something only on a detached frame: the fast path reuses
 * frames without clearing them. */
static void close_frame(sp__thread_t *t, sp__frame_t *f, uint64_t now) {
  if (!((uint32_t)f->region & SP__DETACHED))
    SP__STORE(&f->slot->end, now);
  else if (!(f->flags & (SP__F_INHERITED | SP__F_DROPPED)))
    end_detached(t, f, now);
}

/* Where a frame's end goes when a pause may have hidden it (above: the end
 * given to the call it held); *hidden counts the calls so closed. A frame
 * that records nothing takes no part. */
static uint64_t frame_end(const sp__frame_t *f, uint64_t above, uint64_t now,
                          int *hidden) {
  uint64_t start;
  if (!((uint32_t)f->region & SP__DETACHED))
    start = __atomic_load_n(&f->slot->start, __ATOMIC_RELAXED);
  else if (!(f->flags & (SP__F_INHERITED | SP__F_DROPPED)))
    start = f->start;
  else
    return above;
  int h;
  uint64_t e = sp__pause_cut(start, above, now, &h);
  *hidden += h;
  return e;
}

static int frame_is(const sp__frame_t *f, int32_t id) {
  return (int32_t)((uint32_t)f->region & ~SP__DETACHED) == id;
}

/* sp_end that does not match the innermost open call, or whose call was
 * detached. */
static void end_guarded(sp__thread_t *t, int32_t id, uint64_t now) {
  if (t->overflow) { /* this end belongs to a call that was not recorded */
    t->overflow--;
    return;
  }
  uint32_t i = t->depth;
  while (i > 0 && !frame_is(&t->stack[i - 1], id))
    i--;
  if (i == 0) {
    BUMP(t->n_unmatched);
    return;
  }
  /* Close everything opened above the matching call, innermost first, so
   * the output stays properly nested: at this end's time, or at the
   * latest pause's start for a call whose end that pause hid (counted
   * apart: a pause, not a missing end, explains it). */
  uint64_t e = 0;
  int hidden = 0, missing = 0;
  while (t->depth > i) {
    sp__frame_t *f = &t->stack[--t->depth];
    int h = hidden;
    e = frame_end(f, e, now, &hidden);
    close_frame(t, f, e ? e : now);
    missing += h == hidden;
  }
  if (missing) {
    BUMP(t->n_mismatch);
    __atomic_store_n(&t->n_closed_above, t->n_closed_above + (uint64_t)missing,
                     __ATOMIC_RELAXED);
  }
  if (hidden)
    sp__pause_hidden((uint64_t)hidden);
  close_frame(t, &t->stack[--t->depth], e > now ? e : now);
}

__attribute__((noinline)) void sp__end_slow(sp__thread_t *t, int32_t id,
                                            uint64_t now) {
  /* Its begin pushed nothing: the stack is left as it is. */
  if (sp__filter_drops(id))
    return;
  int g = sp__guard_enter(0);
  if (!g)
    return; /* its begin found the guard as well, and was dropped */
  end_guarded(t, id, now);
  sp__guard_leave(g);
}

/* A thread's end: its open calls end now, its chunks go to the writer and
 * its state waits for the next thread. */
static void thread_exit(void *arg) {
  sp__thread_t *t = arg;
  if (!t)
    return;
  int g = sp__guard_enter(0);
  if (!g)
    return;
  if (!enter()) {
    sp__guard_leave(g);
    return;
  }
  /* Its open calls end now, or where a pause hid their end. */
  uint64_t now = sp__now(), e = 0;
  int hidden = 0;
  while (t->depth > 0) {
    sp__frame_t *f = &t->stack[--t->depth];
    e = frame_end(f, e, now, &hidden);
    close_frame(t, f, e ? e : now);
  }
  if (hidden)
    sp__pause_hidden((uint64_t)hidden);
  t->overflow = 0;
  flush_own(t);
  for (unsigned p = 0; p < SP__MAX_PAGES; p++)
    if (t->pages[p]) /* zero pages again, and give their memory back */
      madvise(t->pages[p], PAGE_BYTES, MADV_DONTNEED);
  uint64_t *cnt[5] = {&t->n_mismatch, &t->n_closed_above, &t->n_unmatched,
                      &t->n_dropped, &t->n_invalid};
  for (int k = 0; k < 5; k++) {
    atomic_fetch_add(&gone[k], __atomic_load_n(cnt[k], __ATOMIC_RELAXED));
    __atomic_store_n(cnt[k], 0, __ATOMIC_RELAXED);
  }
  __atomic_store_n(&t->live, 0, __ATOMIC_RELEASE);
  sp__self = NULL;
  pthread_mutex_lock(&states_lock);
  t->free_next = free_states;
  free_states = t;
  pthread_mutex_unlock(&states_lock);
  leave();
  sp__guard_leave(g);
}

void sp__thread_counters(uint64_t out[5]) {
  for (int k = 0; k < 5; k++)
    out[k] = atomic_load(&gone[k]);
  for (sp__thread_t *t = atomic_load(&sp__threads); t; t = t->next) {
    out[0] += __atomic_load_n(&t->n_mismatch, __ATOMIC_RELAXED);
    out[1] += __atomic_load_n(&t->n_closed_above, __ATOMIC_RELAXED);
    out[2] += __atomic_load_n(&t->n_unmatched, __ATOMIC_RELAXED);
    out[3] += __atomic_load_n(&t->n_dropped, __ATOMIC_RELAXED);
    out[4] += __atomic_load_n(&t->n_invalid, __ATOMIC_RELAXED);
  }
}

int64_t sp__chunk_count(const sp__chunk_t *c) {
  uint32_t st = __atomic_load_n(&c->state, __ATOMIC_ACQUIRE);
  if (st == SP__CH_FREE)
    return -1;
  if (c->kind == SP__CH_ENDS)
    return __atomic_load_n(&c->nends, __ATOMIC_ACQUIRE);
  if (st == SP__CH_QUEUED)
    return SP__CALLS(c)->count;
  const sp__buf_t *b = c->buf;
  sp__pair_t *cur = b ? __atomic_load_n(&b->cur, __ATOMIC_ACQUIRE) : NULL;
  sp__pair_t *pairs = SP__PAIRS(c);
  if (cur >= pairs && cur <= pairs + c->cap)
    return cur - pairs;
  /* Handed off while we looked: its count is final now. */
  if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == SP__CH_QUEUED)
    return SP__CALLS(c)->count;
  return -1;
}

#undef sp_begin
#undef sp_end

SP_API void sp_begin(int region) { sp__begin_fast(region); }
SP_API void sp_end(int region) { sp__end_fast(region); }

/* ---- the calls the pass plugin inserts (sp_hooks.h) ---- */
static __attribute__((noinline)) void site_enter_slow(sp_site *s) {
  if (!SP__ACTIVE())
    return;
  int g = sp__guard_enter(1);
  if (!g)
    return;
  int32_t id = sp__register(s->name && *s->name ? s->name : "<unnamed>",
                            s->file, s->line);
  sp__guard_leave(g);
  if (id < 0)
    return;
  if (sp__filter_drops(id)) {
    /* Excluded: the site says so, and its calls stop at sp__enter and
     * sp__exit (which take only ids >= 0). */
    __atomic_store_n(&s->id, SP_SITE_EXCLUDED, __ATOMIC_RELEASE);
    return;
  }
  __atomic_store_n(&s->id, id, __ATOMIC_RELEASE);
  sp__begin_fast(id);
}

SP_API void sp__enter(sp_site *s) {
  int32_t id = __atomic_load_n(&s->id, __ATOMIC_ACQUIRE);
  if (SP_UNLIKELY(id < 0)) {
    if (id != SP_SITE_EXCLUDED)
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

/* In a forked child only the forking thread exists, and every chunk is the
 * parent's to write (the pool takes them all back): the child starts empty,
 * its open frames marked inherited so their ends write nothing. */
void sp__record_after_fork(void) {
  sp__thread_t *self = sp__self;
  free_states = NULL;
  for (sp__thread_t *t = atomic_load(&sp__threads); t; t = t->next) {
    if (t == self)
      continue;
    __atomic_store_n(&t->live, 0, __ATOMIC_RELAXED);
    for (unsigned p = 0; p < SP__MAX_PAGES; p++)
      if (t->pages[p])
        madvise(t->pages[p], PAGE_BYTES, MADV_DONTNEED);
    t->depth = 0;
    t->ends = NULL;
    t->free_next = free_states;
    free_states = t;
  }
  for (int k = 0; k < 5; k++)
    atomic_store(&gone[k], 0);
  atomic_store(&n_threads, self ? 1 : 0);
  if (!self)
    return;
  self->index = 0;
  for (unsigned p = 0; p < SP__MAX_PAGES; p++)
    if (self->pages[p])
      memset(self->pages[p], 0, PAGE_BYTES);
  for (uint32_t i = 0; i < self->depth; i++) {
    sp__frame_t *f = &self->stack[i];
    f->region = (int32_t)((uint32_t)f->region | SP__DETACHED);
    f->flags = SP__F_INHERITED;
    f->slot = NULL;
    f->start = 0;
  }
  self->ends = NULL;
  self->n_mismatch = self->n_closed_above = self->n_unmatched = 0;
  self->n_dropped = self->n_invalid = 0;
}

/* Around fork, so that no thread holds the states' lock in the copy. */
void sp__states_lock(void) { pthread_mutex_lock(&states_lock); }
void sp__states_unlock(void) { pthread_mutex_unlock(&states_lock); }
