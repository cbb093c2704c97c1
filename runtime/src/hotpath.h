/* hotpath.h - the inline per-event code shared by sp_begin/sp_end, the
 * plugin's hooks and the __cyg_profile hooks.
 *
 * The contract of sp__enter/sp__exit, sp_begin/sp_end and
 * __cyg_profile_func_enter/exit at -O2 (GCC 12 and Clang 22; checked on
 * x86-64 by the tests runtime_hotpath_codegen*):
 * - A recorded call is the fall-through path of the function (every
 *   conditional branch not taken): loads, compares, one clock read (the
 *   TSC; without it, the call below, out of line) and the stores, no call.
 * - No lock, no atomic read-modify-write (lock prefix, xchg with memory,
 *   cmpxchg, xadd), no fence, on any path.
 * - The only calls are those whose answer the path needs: sp__mono_ns,
 *   the clock when the TSC is not used; the cyg hooks' addr_slow, a
 *   per-thread cache miss. Every other rare case (disabled or paused,
 *   first call on a thread, a region new to the thread, a full chunk,
 *   nesting too deep, profile mode's misses, every end with SP_COUNTERS)
 *   is a tail call (jmp) to a
 *   slow path; an excluded region's begin or end returns without any (not
 *   checked by the test).
 * - Those calls keep values in callee-saved registers, which the compilers
 *   save in the prologue, so the recorded path pays for them too: 3 to 5
 *   pushes, 5 at most. */
#ifndef SP_HOTPATH_H
#define SP_HOTPATH_H

#include "counters.h"
#include "filter.h"
#include "internal.h"
#include "profile.h"

/* The exported flag, read through a hidden alias: no GOT load. */
SP_HIDDEN extern int sp__active;

/* Cleared by finalize while other threads record: read atomically (a
 * plain load on x86 and aarch64). */
#define SP__ACTIVE() __atomic_load_n(&sp__active, __ATOMIC_RELAXED)

SP_HIDDEN void sp__begin_slow(int32_t id);
SP_HIDDEN void sp__end_slow(sp__thread_t *t, int32_t id, uint64_t now);

/* Stores others may read while this thread records (finalize, a signal
 * handler): relaxed or release atomics, which are plain moves on x86 (on
 * aarch64 str and stlr) and keep those reads free of data races. */
#define SP__STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define SP__PUBLISH(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* Opens a call in slot p of b at stack depth d (both checked). */
static inline __attribute__((always_inline)) void
sp__open_call(sp__thread_t *t, sp__buf_t *b, sp__pair_t *p, uint32_t d,
              int32_t id) {
  t->stack[d].region = id;
  t->stack[d].slot = p;
  t->depth = d + 1;
  /* The call is published (cur) only once its start is stored, so a
   * reader never takes a recycled chunk's old stamp for it. */
  SP__STORE(&p->end, 0);
  SP__STORE(&p->start, sp__now());
  SP__PUBLISH(&b->cur, p + 1);
}

static inline __attribute__((always_inline)) void sp__begin_fast(int32_t id) {
  sp__thread_t *t = sp__tls;
  int a = SP__ACTIVE();
  if (SP_UNLIKELY(a != 1 || !t || (uint32_t)id >= SP__MAX_REGIONS)) {
    if (a == SP__ACTIVE_PROFILE)
      sp__prof_begin(id);
    else
      sp__begin_slow(id);
    return;
  }
  sp__buf_t *page = t->pages[(uint32_t)id >> SP__PAGE_BITS];
  if (SP_UNLIKELY(!page)) {
    sp__begin_slow(id);
    return;
  }
  sp__buf_t *b = &page[(uint32_t)id & (SP__PAGE_SIZE - 1)];
  sp__pair_t *p = b->cur;
  uint32_t d = t->depth;
  if (SP_UNLIKELY(p == b->end || d >= t->stack_cap)) {
    /* An excluded region never gets a chunk, so its calls end here. */
    if (!sp__filter_out(id))
      sp__begin_slow(id);
    return;
  }
  sp__open_call(t, b, p, d, id);
}

/* The clock is read once the call is known to be recorded (the reads
 * before it are L1 hits, which the unserialised clock read overlaps), so
 * an excluded region's end costs no clock read. */
static inline __attribute__((always_inline)) void sp__end_fast(int32_t id) {
  sp__thread_t *t = sp__tls;
  int a = SP__ACTIVE();
  if (SP_UNLIKELY(a != 1 || !t)) {
    if (a == SP__ACTIVE_PROFILE)
      sp__prof_end_now(id);
    else if (a >= SP__ACTIVE_COUNTERS)
      sp__cnt_end(id);
    return; /* recording stopped, or this thread never began a call */
  }
  uint32_t d = t->depth;
  if (SP_LIKELY(d && t->stack[d - 1].region == id && !t->overflow)) {
    uint64_t now = sp__now();
    t->depth = d - 1;
    SP__STORE(&t->stack[d - 1].slot->end, now);
    return;
  }
  if (!sp__filter_out(id)) /* its begin pushed nothing */
    sp__end_slow(t, id, sp__now());
}

#endif /* SP_HOTPATH_H */
