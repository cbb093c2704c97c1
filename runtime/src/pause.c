/* pause.c - sp_pause()/sp_resume(): recording off for the whole process,
 * nested; the end of a call that runs while paused (hotpath.h). */
#include "hotpath.h"

#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int depth; /* sp_pause calls not yet resumed, under lock */
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

/* A fork must not copy the lock held: the child inherits depth as is. */
static void fork_prepare(void) { pthread_mutex_lock(&lock); }
static void fork_after(void) { pthread_mutex_unlock(&lock); }
static void fork_register(void) {
  pthread_atfork(fork_prepare, fork_after, fork_after);
}

static int recording_value(void) { return sp__active_value(); }

/* Moves the flag from from to to unless finalize cleared it meanwhile;
 * sp_active_ (the header's copy) follows. */
static int switch_active(int from, int to) {
  int f = from;
  if (!__atomic_compare_exchange_n(&sp__active, &f, to, 0, __ATOMIC_RELAXED,
                                   __ATOMIC_RELAXED))
    return -1;
  sp__set_active(to);
  /* finalize cleared it between the two stores: keep it clear */
  if (__atomic_load_n(&sp__active, __ATOMIC_RELAXED) != to)
    sp__set_active(0);
  return 0;
}

static int state_error(void) {
  int st = atomic_load(&sp__state);
  if (st == SP__FINALIZING || st == SP__FINALIZED)
    return SP_EFINALIZED;
  if (st == SP__DISABLED)
    return SP_EDISABLED;
  return SP_OK;
}

SP_API int sp_pause(void) {
  sp__ensure_init();
  pthread_once(&fork_once, fork_register);
  pthread_mutex_lock(&lock);
  int r = state_error();
  if (r == SP_OK && depth == 0 &&
      switch_active(recording_value(), SP__ACTIVE_PAUSED) != 0)
    r = state_error() != SP_OK ? state_error() : SP_EFINALIZED;
  if (r == SP_OK)
    depth++;
  pthread_mutex_unlock(&lock);
  return r;
}

SP_API int sp_resume(void) {
  sp__ensure_init();
  pthread_mutex_lock(&lock);
  int r = state_error();
  if (r == SP_OK && depth == 0)
    r = SP_EINVAL; /* no pause to end */
  if (r == SP_OK && --depth == 0 &&
      switch_active(SP__ACTIVE_PAUSED, recording_value()) != 0)
    r = SP_EFINALIZED;
  pthread_mutex_unlock(&lock);
  return r;
}

SP_API int sp_paused(void) {
  pthread_mutex_lock(&lock);
  int d = depth;
  pthread_mutex_unlock(&lock);
  return d;
}

/* A begin while paused: a frame that records nothing keeps its end from
 * closing a recorded call. The common case needs no guard (the end fast
 * path stores no more than this); the rest takes the full slow path. */
__attribute__((noinline)) int sp__pause_begin(int32_t id) {
  if (sp__filter_drops(id))
    return 1; /* excluded: nothing to record, paused or not */
  if (sp__cfg.mode) {
    sp__prof_begin_slow(id);
    return 1;
  }
  sp__thread_t *t = sp__self;
  if (!t || t->overflow || t->depth >= t->stack_cap ||
      (uint32_t)id >= SP__MAX_REGIONS)
    return 0;
  sp__frame_t *f = &t->stack[t->depth];
  f->region = (int32_t)((uint32_t)id | SP__DETACHED);
  f->flags = SP__F_PAUSED;
  f->slot = NULL;
  f->start = UINT64_MAX; /* no clock read: detach() scans past it */
  SP__STORE(&t->depth, t->depth + 1);
  return 1;
}

/* Calls open when the pause began keep their true end; ends of calls
 * begun during it pop the frames that record nothing. */
__attribute__((noinline)) void sp__pause_end(int32_t id) {
  if (sp__filter_out(id))
    return; /* its begin pushed nothing */
  if (sp__cfg.mode) {
    sp__prof_end(id, sp__now());
    return;
  }
  sp__thread_t *t = sp__self;
  if (!t)
    return;
  uint32_t d = t->depth;
  if (d && !t->overflow &&
      t->stack[d - 1].region == (int32_t)((uint32_t)id | SP__DETACHED) &&
      (t->stack[d - 1].flags & SP__F_PAUSED)) {
    SP__STORE(&t->depth, d - 1);
    return;
  }
  sp__end_slow(t, id, sp__now());
}
