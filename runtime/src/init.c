/* init.c - life cycle of the runtime: configuration from the environment,
 * the exit handler, fork handling, and the registration API. */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

SP_API int sp_active_ = 1;
/* The runtime's own reads go through this hidden alias (no GOT load). A
 * program that reads sp_active_ from the header may hold a copy-relocated
 * copy of it, so both are always written together, by sp__set_active. */
extern int sp__active
    __attribute__((alias("sp_active_"), visibility("hidden")));

void sp__set_active(int on) {
  sp_active_ = on;
  sp__active = on;
}
_Atomic int sp__state = SP__UNINIT;
sp__config_t sp__cfg;
int64_t sp__start_mono;
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

static void fork_prepare(void) { sp__registry_lock(); }
static void fork_parent(void) { sp__registry_unlock(); }

/* A child must never write the parent's file: with %p in the prefix it
 * gets a file of its own (holding only its own calls), else it records
 * nothing. */
static void fork_child(void) {
  sp__registry_unlock();
  if (atomic_load(&sp__state) != SP__RUNNING)
    return;
  sp__record_after_fork();
  if (!strstr(sp__cfg.prefix, "%p")) {
    sp__set_active(0);
    atomic_store(&sp__state, SP__FINALIZED);
  }
}

static void do_init(void) {
  const char *p = init_prefix;
  if (!p || !*p)
    p = getenv("SP_OUTPUT");
  if (!p || !*p)
    p = "scope_profiler";
  snprintf(sp__cfg.prefix, sizeof sp__cfg.prefix, "%s", p);
  /* .spt unless asked: .h5 loads HDF5 into the program (docs/runtime.md). */
  const char *fmt = getenv("SP_FORMAT");
#ifdef SP_USE_HDF5
  sp__cfg.format_h5 = fmt && strcmp(fmt, "h5") == 0;
#else
  sp__cfg.format_h5 = 0;
#endif
  if (fmt && strcmp(fmt, "spt") != 0 && strcmp(fmt, "h5") != 0)
    sp__warn("SP_FORMAT=%s is not spt or h5; writing %s", fmt,
             sp__cfg.format_h5 ? "h5" : "spt");
#ifndef SP_USE_HDF5
  if (fmt && strcmp(fmt, "h5") == 0)
    sp__warn("SP_FORMAT=h5 but this libscopeprof was built without HDF5; "
             "writing spt");
#endif
  const char *v = getenv("SP_VERBOSE");
  sp__cfg.verbose = v && *v && strcmp(v, "0") != 0;
  const char *label = getenv("SP_LABEL");
  snprintf(sp__cfg.label, sizeof sp__cfg.label, "%s", label ? label : "");

  const char *en = getenv("SP_ENABLE");
  if (en && (strcmp(en, "0") == 0 || strcmp(en, "false") == 0 ||
             strcmp(en, "off") == 0 || strcmp(en, "no") == 0)) {
    sp__set_active(0);
    atomic_store(&sp__state, SP__DISABLED);
    return;
  }
  sp__clock_init();
  sp__start_mono = sp__mono_ns();
  {
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(sp__start_timestamp, sizeof sp__start_timestamp,
             "%Y-%m-%dT%H:%M:%S%z", &tm);
  }
  pthread_atfork(fork_prepare, fork_parent, fork_child);
  atexit(at_exit);
  atomic_store(&sp__state, SP__RUNNING);
  sp__debug("recording to %s_rank*.%s with %s", sp__cfg.prefix,
            sp__cfg.format_h5 ? "h5" : "spt", sp__clock_name());
}

void sp__ensure_init(void) { pthread_once(&once, do_init); }

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
    return -1;
  if (atomic_load_explicit(&sp__state, memory_order_relaxed) == SP__UNINIT)
    sp__ensure_init();
  return sp__register(name, file, file && *file ? line : -1);
}

SP_API int sp_region(const char *name) { return sp_region_at(name, NULL, -1); }

SP_API const char *sp_strerror(int code) {
  switch (code) {
  case SP_OK:
    return "success";
  case SP_EINVAL:
    return "invalid argument";
  case SP_ENOMEM:
    return "out of memory";
  case SP_EIO:
    return "the output file could not be written";
  case SP_EDISABLED:
    return "profiling is disabled (SP_ENABLE=0)";
  case SP_EFINALIZED:
    return "sp_finalize() already ran";
  case SP_ELIMIT:
    return "a runtime limit was reached";
  default:
    return "unknown error";
  }
}
