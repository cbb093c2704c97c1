/* init.c - life cycle of the runtime: configuration from the environment,
 * the exit handler, fork handling, and the registration API. */
#include "counters.h"
#include "filter.h"
#include "internal.h"
#include "profile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

SP_API int sp_active_ = 1;
/* The runtime's own reads go through this hidden alias (no GOT load). A
 * program that reads sp_active_ from the header may hold a copy-relocated
 * copy of it, so both are always written together, by sp__set_active. */
extern int sp__active
    __attribute__((alias("sp_active_"), visibility("hidden")));

void sp__set_active(int on) {
  __atomic_store_n(&sp_active_, on, __ATOMIC_RELAXED);
  __atomic_store_n(&sp__active, on, __ATOMIC_RELAXED);
}
_Atomic int sp__state = SP__UNINIT;
sp__config_t sp__cfg;
int64_t sp__start_mono;
struct timespec sp__start_real; /* for "written while we ran" at finalize */
char sp__start_timestamp[64];

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *init_prefix; /* from sp_init(), before the first init */

static void vwarn(const char *fmt, va_list ap) {
  char line[1024];
  vsnprintf(line, sizeof line, fmt, ap);
  fprintf(stderr, "scopeprof: %s\n", line);
}

void sp__warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vwarn(fmt, ap);
  va_end(ap);
}

void sp__debug(const char *fmt, ...) {
  if (!sp__cfg.verbose)
    return;
  va_list ap;
  va_start(ap, fmt);
  vwarn(fmt, ap);
  va_end(ap);
}

static void at_exit(void) { sp__finalize(1); }

/* SP_OUTPUT=/dev/null asks for no output (as LLVM_PROFILE_FILE=/dev/null
 * does), never for files named /dev/null_rank00000.spt. */
int sp__discard(const char *prefix) { return strcmp(prefix, "/dev/null") == 0; }

/* The locks a fork must not copy half-held: the pool's before the
 * writer's (the order every thread takes them in). */
static int fork_locked, fork_guard;
static void fork_prepare(void) {
  /* A signal handler that records while the fork holds the locks below
   * is dropped at the guard instead of waiting for them. */
  fork_guard = sp__guard_enter(0);
  sp__symbols_lock();
  sp__objects_lock();
  sp__meta_lock();
  sp__registry_lock();
  fork_locked = atomic_load(&sp__state) == SP__RUNNING;
  if (fork_locked) {
    sp__pool_lock();
    sp__writer_lock();
    sp__states_lock();
  }
}

static void fork_parent(void) {
  if (fork_locked) {
    sp__states_unlock();
    sp__writer_unlock();
    sp__pool_unlock();
  }
  sp__registry_unlock();
  sp__meta_unlock();
  sp__objects_unlock();
  sp__symbols_unlock();
  if (fork_guard)
    sp__guard_leave(fork_guard);
}

/* A child must never write the parent's file: with %p in the prefix it
 * gets a stream and a file of its own (holding only its own calls), else
 * it records nothing. */
static void fork_child(void) {
  sp__abort_after_fork();
  sp__registry_unlock();
  sp__meta_unlock();
  sp__objects_unlock();
  sp__symbols_unlock();
  if (fork_guard)
    sp__guard_leave(fork_guard);
  if (!fork_locked)
    return;
  if (atomic_load(&sp__state) != SP__RUNNING) { /* finalized meanwhile */
    sp__states_unlock();
    sp__writer_unlock();
    sp__pool_unlock();
    return;
  }
  sp__record_after_fork();
  sp__prof_after_fork();
  sp__cnt_after_fork();
  sp__states_unlock();
  sp__writer_after_fork();
  sp__pool_after_fork();
  sp__stream_after_fork();
  sp__mpi_msgs_after_fork();
  sp__signals_after_fork();
  if (!strstr(sp__cfg.prefix, "%p") || sp__stream_set_path(sp__rank_guess)) {
    sp__set_active(0);
    atomic_store(&sp__state, SP__FINALIZED);
  }
}

/* The default SP_MEMORY under a finite address-space limit (ulimit -v):
 * the pool reserves twice its budget, and what the runtime reserves the
 * program cannot have, so the default budget shrinks to a 16th of the
 * limit (the reservation to an 8th). A budget the user set is kept. */
static uint64_t budget_for_limit(uint64_t budget) {
  struct rlimit rl;
  const char *set = getenv("SP_MEMORY");
  if ((set && *set) || getrlimit(RLIMIT_AS, &rl) != 0 ||
      rl.rlim_cur == RLIM_INFINITY)
    return budget;
  uint64_t cap = ((uint64_t)rl.rlim_cur / 16) & ~(((uint64_t)2 << 20) - 1);
  if (cap < ((uint64_t)2 << 20))
    cap = (uint64_t)2 << 20;
  if (cap < budget) {
    sp__debug("address space limited to %llu bytes (ulimit -v): SP_MEMORY "
              "%llu instead of %llu",
              (unsigned long long)rl.rlim_cur, (unsigned long long)cap,
              (unsigned long long)budget);
    budget = cap;
  }
  return budget;
}

static void do_init(void) {
  sp__env_read(&sp__cfg);
  if (init_prefix && *init_prefix)
    snprintf(sp__cfg.prefix, sizeof sp__cfg.prefix, "%s", init_prefix);
    /* .spt unless asked: .h5 loads HDF5 into the program (docs/runtime.md). */
#ifndef SP_USE_HDF5
  if (sp__cfg.format_h5) {
    sp__warn("warning: SP_FORMAT=h5 but this libscopeprof was built "
             "without HDF5; writing spt");
    sp__cfg.format_h5 = 0;
  }
#endif
  if (!sp__cfg.enable || sp__discard(sp__cfg.prefix)) {
    sp__set_active(0);
    atomic_store(&sp__state, SP__DISABLED);
    return;
  }
  if (sp__cfg.filter[0])
    sp__filter_load(sp__cfg.filter);
  sp__cnt_init();
  sp__clock_init();
  sp__start_mono = sp__mono_ns();
  clock_gettime(CLOCK_REALTIME, &sp__start_real);
  {
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(sp__start_timestamp, sizeof sp__start_timestamp,
             "%Y-%m-%dT%H:%M:%S%z", &tm);
  }
  if (sp__pool_init(budget_for_limit(sp__cfg.memory)) != 0) {
    sp__warn("error: cannot reserve %llu bytes (SP_MEMORY); recording nothing",
             (unsigned long long)sp__cfg.memory);
    sp__set_active(0);
    atomic_store(&sp__state, SP__DISABLED);
    return;
  }
  int rank = sp__rank_from_env();
  sp__stream_set_path(rank < 0 ? 0 : rank);
  pthread_atfork(fork_prepare, fork_parent, fork_child);
  atexit(at_exit);
  if (sp__cfg.signals)
    sp__signals_install();
  atomic_store(&sp__state, SP__RUNNING);
  /* Instrumented objects carry a weak sp_active_ of 0 (so that they link
   * without the runtime): where the program's copy is the one in use, it
   * is switched on here. */
  sp__set_active(sp__active_value());
  sp__abort_listen();
  /* The stream's metadata and the writer thread now, on the thread that
   * initializes (the program's main thread, from the constructor): what
   * they allocate then comes from that thread's malloc arena. Later, on a
   * worker thread that never called malloc, glibc would make that thread
   * an arena of its own (64 MiB of address space, 128 MiB while it is
   * made), which a program under ulimit -v may need for its threads. */
  sp__stream_meta_prepare();
  sp__writer_start();
  if (sp__cfg.merge)
    sp__debug("recording for %s.h5 (SP_MERGE: written by the job at "
              "MPI_Finalize) with %s, %llu bytes of memory",
              sp__cfg.prefix, sp__clock_name(), (unsigned long long)sp__budget);
  else
    sp__debug("recording to %s_rank*.%s with %s, %llu bytes of memory",
              sp__cfg.prefix, sp__cfg.format_h5 || sp__cfg.mode ? "h5" : "spt",
              sp__clock_name(), (unsigned long long)sp__budget);
}

/* Guarded (unless a slow path already is): a signal handler that records
 * while this thread initializes must not wait for the initialization. */
void sp__ensure_init(void) {
  if (sp__guard) {
    pthread_once(&once, do_init);
    return;
  }
  int g = sp__guard_enter(0);
  pthread_once(&once, do_init);
  sp__guard_leave(g);
}

int64_t sp__start_time_ns(void) { return sp__start_mono; }

/* Early, so that SP_ENABLE=0 is seen before the first inline check and
 * the exit handler runs after those the program registers later. */
__attribute__((constructor(101))) static void sp__ctor(void) {
  sp__ensure_init();
}

SP_API int sp_init(const char *prefix) {
  int st = atomic_load(&sp__state);
  if (st == SP__UNINIT) {
    init_prefix = prefix;
    sp__ensure_init();
    init_prefix = NULL;
  } else if (st == SP__RUNNING && prefix && *prefix && sp__discard(prefix)) {
    /* Nothing to write: recording stops as under SP_ENABLE=0. */
    sp__set_active(0);
    atomic_store(&sp__state, SP__DISABLED);
  } else if (st == SP__RUNNING && prefix && *prefix) {
    /* The constructor ran first; a prefix given here still wins. */
    snprintf(sp__cfg.prefix, sizeof sp__cfg.prefix, "%s", prefix);
  }
  switch (atomic_load(&sp__state)) {
  case SP__DISABLED:
    return SP_EDISABLED;
  case SP__FINALIZED:
    return SP_EFINALIZED;
  default:
    return SP_OK;
  }
}

SP_API int sp_region_at(const char *name, const char *file, int line) {
  if (!name || !*name)
    return SP_EINVAL;
  int g = sp__guard_enter(0);
  if (!g) /* a handler that interrupted the runtime: known names only */
    return sp__region_find(name);
  if (atomic_load_explicit(&sp__state, memory_order_relaxed) == SP__UNINIT)
    sp__ensure_init();
  int id = sp__register(name, file, file && *file ? line : -1);
  sp__guard_leave(g);
  /* Decided here rather than at the first call: the header's inline check
   * then skips the region's calls without entering the runtime. */
  if (id >= 0 && sp__filter_drops(id))
    return SP_REGION_EXCLUDED;
  return id;
}

SP_API int sp_region(const char *name) { return sp_region_at(name, NULL, -1); }
