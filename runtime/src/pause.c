/* pause.c - sp_pause()/sp_resume(): recording off for the whole process,
 * nested. Paused, every route skips its calls as SP_ENABLE=0 does. */
#include "hotpath.h"

#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int depth; /* sp_pause calls not yet resumed, under lock */
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
/* The clock when the latest pause began (0: none yet); read by the slow
 * paths that close calls whose end a pause hid. */
static uint64_t pause_start;

/* A fork must not copy the lock held: the child inherits depth as is. */
static void fork_prepare(void) { pthread_mutex_lock(&lock); }
static void fork_after(void) { pthread_mutex_unlock(&lock); }
static _Atomic uint64_t hidden_calls; /* sp__pause_hidden */
static void fork_child(void) {
  atomic_store(&hidden_calls, 0); /* the parent reports its own */
  pthread_mutex_unlock(&lock);
}
static void fork_register(void) {
  pthread_atfork(fork_prepare, fork_after, fork_child);
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
  if (r == SP_OK && depth++ == 0) {
    /* The flag the header, the plugin's guard and the hooks test, so a
     * paused call costs what a disabled one does; the clock after it, so
     * that no call recorded before the flag cleared ends after it. */
    sp__set_active(0);
    __atomic_store_n(&pause_start, sp__now(), __ATOMIC_RELAXED);
  }
  pthread_mutex_unlock(&lock);
  return r;
}

SP_API int sp_resume(void) {
  sp__ensure_init();
  pthread_mutex_lock(&lock);
  int r = state_error();
  if (r == SP_OK && depth == 0)
    r = SP_EINVAL; /* no pause to end */
  /* finalize changes the state under this lock (sp__pause_finalizing), so
   * a resume cannot switch recording back on behind it */
  if (r == SP_OK && --depth == 0)
    sp__set_active(sp__active_value());
  pthread_mutex_unlock(&lock);
  return r;
}

SP_API int sp_paused(void) {
  pthread_mutex_lock(&lock);
  int d = depth;
  pthread_mutex_unlock(&lock);
  return d;
}

void sp__pause_finalizing(void) {
  pthread_mutex_lock(&lock);
  /* The flag first: a thread that finds the state changed must also find
   * the flag clear, or its end would look for a begin that never was. */
  sp__set_active(0);
  atomic_store(&sp__state, SP__FINALIZING);
  pthread_mutex_unlock(&lock);
}

/* The end of a call found open above the one an end closes: a call begun
 * before the latest pause (which began before this end) ended unseen
 * during a pause, most likely that one, so it ends where recording
 * stopped; any other (a longjmp) at this end. Never before the end of the
 * call it held (above), so the output stays nested. */
uint64_t sp__pause_cut(uint64_t start, uint64_t above, uint64_t now,
                       int *hidden) {
  uint64_t p = __atomic_load_n(&pause_start, __ATOMIC_RELAXED);
  uint64_t e = now;
  *hidden = 0;
  if (p && start < p && p < now) {
    e = p;
    *hidden = 1;
  }
  return e < above ? above : e;
}

void sp__pause_hidden(uint64_t n) { atomic_fetch_add(&hidden_calls, n); }
uint64_t sp__pause_hidden_calls(void) { return atomic_load(&hidden_calls); }
