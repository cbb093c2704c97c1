/* hotpath.h - the inline per-event code shared by sp_begin/sp_end, the
 * plugin's hooks and the __cyg_profile hooks. */
#ifndef SP_HOTPATH_H
#define SP_HOTPATH_H

#include "internal.h"

SP_HIDDEN sp__buf_t *sp__buf_slow(sp__thread_t *t, int32_t id);
SP_HIDDEN int sp__buf_grow(sp__thread_t *t, sp__buf_t *b);
SP_HIDDEN void sp__end_slow(sp__thread_t *t, int32_t id, uint64_t now);

static inline __attribute__((always_inline)) void
begin_fast(sp__thread_t *t, int32_t id) {
  if ((uint32_t)id >= SP__MAX_REGIONS) {
    t->n_invalid++;
    return;
  }
  sp__buf_t *b = sp__buf_peek(t, id);
  if (SP_UNLIKELY(!b)) {
    b = sp__buf_slow(t, id);
    if (!b)
      return;
  }
  if (SP_UNLIKELY(b->cur == b->end) && sp__buf_grow(t, b) != 0) {
    t->n_dropped++;
    return;
  }
  if (SP_UNLIKELY(t->depth >= SP__STACK_MAX)) {
    t->overflow++;
    t->n_dropped++;
    return;
  }
  sp__pair_t *p = b->cur++;
  sp__frame_t *f = &t->stack[t->depth++];
  f->region = id;
  f->slot = p;
  p->end = 0;
  p->start = sp__now();
}

static inline __attribute__((always_inline)) void
end_fast(sp__thread_t *t, int32_t id) {
  uint64_t now = sp__now();
  uint32_t d = t->depth;
  if (SP_LIKELY(d && !t->overflow && t->stack[d - 1].region == id)) {
    sp__frame_t *f = &t->stack[d - 1];
    t->depth = d - 1;
    if (SP_LIKELY(f->slot != NULL))
      f->slot->end = now;
    return;
  }
  sp__end_slow(t, id, now);
}

#endif /* SP_HOTPATH_H */
