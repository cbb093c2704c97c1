/* ompt.c - OpenMP constructs as regions, through OMPT: libscopeprof defines
 * ompt_start_tool, which an OMPT-capable OpenMP runtime (LLVM's libomp)
 * calls when it starts; a program without one never calls it. */
#include "hotpath.h"
#include "ompt_abi.h"
#include "sp_sym.h"

#include <dlfcn.h>
#include <link.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- constructs: the kind of a region (sp__region_t.kind) ---- */
enum {
  K_NONE = 0,
  K_PARALLEL,
  K_IMPLICIT_TASK,
  K_FOR,
  K_SECTIONS,
  K_SINGLE,
  K_WORKSHARE,
  K_DISTRIBUTE,
  K_TASKLOOP,
  K_SCOPE,
  K_MASKED,
  K_BARRIER,
  K_BARRIER_IMPLICIT,
  K_BARRIER_IMPL,
  K_BARRIER_TEAMS,
  K_TASKWAIT,
  K_TASKGROUP,
  K_TASK,
  K_CRITICAL,
  K_LOCK,
  K_ORDERED,
  K_BARRIER_PAR, /* a parallel region's end barrier: at its call, as it */
  K_COUNT,
  /* or'ed to a kind, for a construct whose call has no code pointer of
   * the user's (see owner): K_AT_FORK named after the parallel region
   * whose call is the code pointer, K_IN after the file of the construct
   * the code pointer is of (the line unknown) */
  K_AT_FORK = 32,
  K_IN = 64
};
/* The names of the constructs are the format library's (sp_sym.h), which
 * the tools use for what a stream left as an address: the kinds agree. */
_Static_assert((int)K_PARALLEL == (int)SP_FMT_OMP_PARALLEL &&
                   (int)K_IMPLICIT_TASK == (int)SP_FMT_OMP_IMPLICIT_TASK &&
                   (int)K_BARRIER_PAR == (int)SP_FMT_OMP_BARRIER_PAR &&
                   (int)K_COUNT == (int)SP_FMT_OMP_COUNT &&
                   (int)K_AT_FORK == (int)SP_FMT_OMP_AT_FORK &&
                   (int)K_IN == (int)SP_FMT_OMP_IN,
               "ompt.c's construct kinds are sp_sym.h's");

/* ---- (construct, code pointer) -> region id: a fixed table in front of
 * the registry, written once per construct, read without a lock ---- */
#define CACHE_BITS 12
#define CACHE_PROBES 8
#define CACHE_BUSY UINT64_MAX
static struct {
  _Atomic uint64_t key;
  _Atomic int32_t id;
} cache[1u << CACHE_BITS];

static inline uint64_t cache_key(int kind, const void *cp) {
  return ((uint64_t)(uintptr_t)cp << 8) | (uint64_t)kind;
}
static inline uint32_t cache_slot(uint64_t key) {
  return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - CACHE_BITS));
}

static __attribute__((noinline)) int32_t region_slow(int kind, const void *cp) {
  int32_t id = sp__register_addr_kind(cp, kind);
  if (id < 0)
    return -1;
  sp__obj_note(id);
  uint64_t key = cache_key(kind, cp);
  uint32_t h = cache_slot(key);
  for (unsigned i = 0; i < CACHE_PROBES; i++) {
    uint32_t s = (h + i) & ((1u << CACHE_BITS) - 1);
    uint64_t k = 0;
    if (atomic_compare_exchange_strong(&cache[s].key, &k, CACHE_BUSY)) {
      atomic_store_explicit(&cache[s].id, id, memory_order_relaxed);
      atomic_store_explicit(&cache[s].key, key, memory_order_release);
      break;
    }
    if (k == key)
      break;
  }
  return id; /* no room near its slot: the registry answers each time */
}

static inline int32_t region_of(int kind, const void *cp) {
  uint64_t key = cache_key(kind, cp);
  uint32_t h = cache_slot(key);
  for (unsigned i = 0; i < CACHE_PROBES; i++) {
    uint32_t s = (h + i) & ((1u << CACHE_BITS) - 1);
    uint64_t k = atomic_load_explicit(&cache[s].key, memory_order_acquire);
    if (SP_LIKELY(k == key))
      return atomic_load_explicit(&cache[s].id, memory_order_relaxed);
    if (k == 0)
      break;
  }
  return region_slow(kind, cp);
}

/* ---- per thread: the OpenMP regions this layer opened, innermost last.
 * Ends are matched here, not by code pointer: a loop's end is reported
 * from another call site than its begin. ---- */
#define OSTACK 256
typedef struct open_rec {
  int32_t id; /* -1: not recorded (inactive, or no id) */
  int32_t kind;
  const void *tag; /* explicit task: its task data */
} open_t;
typedef struct othr {
  uint32_t depth, lost; /* lost: opened beyond OSTACK, not recorded */
  /* the worksharing construct this thread closed last, at depth
   * ws_depth, if nothing was opened since (else ws_id -1) */
  int32_t ws_id;
  uint32_t ws_depth;
  struct par *free_pars;
  uint32_t nfree;
  open_t e[OSTACK];
} othr_t;

static __thread othr_t *othr;
static pthread_key_t othr_key;

/* A parallel region, shared by the encountering thread and the team's
 * implicit tasks; the last of them to finish gives it back. */
typedef struct par {
  int32_t task_id;       /* omp implicit task @ LOC */
  int32_t barrier_id;    /* omp barrier (implicit) @ LOC: the region's end */
  const othr_t *master;  /* the encountering thread */
  _Atomic uint64_t join; /* stamp: the encountering thread left that barrier */
  _Atomic int refs;
  struct par *next;
} par_t;

/* At the thread's exit (its key's destructor, on the thread itself). */
static void othr_free(void *p) {
  othr_t *o = p;
  othr = NULL;
  while (o->free_pars) {
    par_t *n = o->free_pars->next;
    free(o->free_pars);
    o->free_pars = n;
  }
  free(o);
}

static __attribute__((noinline)) othr_t *othr_slow(void) {
  othr_t *o = calloc(1, sizeof *o);
  if (!o)
    return NULL;
  o->ws_id = -1;
  othr = o;
  pthread_setspecific(othr_key, o);
  return o;
}

static inline othr_t *me(void) {
  othr_t *o = othr;
  return SP_LIKELY(o != NULL) ? o : othr_slow();
}

static inline void push(othr_t *o, int32_t id, int kind, const void *tag) {
  if (SP_UNLIKELY(o->depth >= OSTACK)) {
    o->lost++;
    return;
  }
  o->ws_id = -1;
  o->e[o->depth++] = (open_t){id, kind, tag};
}

/* sp__end_fast with the end stamp given. */
static inline void end_at(int32_t id, uint64_t stamp) {
  if (SP_UNLIKELY(SP__ACTIVE() >= SP__ACTIVE_COUNTERS)) {
    sp__cnt_end_at(id, stamp);
    return;
  }
  if (SP__ACTIVE() == SP__ACTIVE_PROFILE) {
    sp__prof_end(id, stamp);
    return;
  }
  sp__thread_t *t = sp__tls;
  if (SP_UNLIKELY(!t || !SP__ACTIVE()))
    return;
  uint32_t d = t->depth;
  if (SP_LIKELY(d && t->stack[d - 1].region == id && !t->overflow)) {
    t->depth = d - 1;
    SP__STORE(&t->stack[d - 1].slot->end, stamp);
    return;
  }
  sp__end_slow(t, id, stamp);
}

/* Removes the innermost open entry of this kind (and tag) and gives its
 * id; 0 if there is none (its end is ignored). Entries above it are ended
 * first, innermost first: an untied task that finished on another thread
 * ends here with the construct around it. */
static inline int pop_at(othr_t *o, int kind, const void *tag, int32_t *id,
                         uint64_t stamp) {
  if (SP_UNLIKELY(o->lost)) {
    o->lost--;
    return 0;
  }
  uint32_t d = o->depth;
  while (d && (o->e[d - 1].kind != kind || (tag && o->e[d - 1].tag != tag)))
    d--;
  if (!d)
    return 0;
  while (o->depth > d) {
    int32_t above = o->e[--o->depth].id;
    if (above >= 0)
      end_at(above, stamp ? stamp : sp__now());
  }
  *id = o->e[--o->depth].id;
  return *id >= 0;
}

static inline int pop(othr_t *o, int kind, const void *tag, int32_t *id) {
  return pop_at(o, kind, tag, id, 0);
}

static inline void open_region(othr_t *o, int kind, const void *cp,
                               const void *tag) {
  int32_t id = SP__ACTIVE() ? region_of(kind, cp) : -1;
  push(o, id, kind, tag);
  if (id >= 0)
    sp__begin_fast(id);
}

static inline void close_region(othr_t *o, int kind, const void *tag) {
  int32_t id;
  if (pop(o, kind, tag, &id))
    sp__end_fast(id);
}

/* libomp reports a worker's end-of-region barrier and implicit task as
 * ending when the worker is released for the next parallel region (or at
 * exit); the region really ended when its encountering thread left that
 * barrier. Workers end both then, so each sits inside its parallel call. */
static inline uint64_t worker_end(const par_t *p) {
  uint64_t now = sp__now();
  uint64_t j = atomic_load_explicit(&p->join, memory_order_acquire);
  return j && j < now ? j : now;
}

static par_t *par_get(othr_t *o) {
  par_t *p = o->free_pars;
  if (p) {
    o->free_pars = p->next;
    o->nfree--;
  } else if (!(p = malloc(sizeof *p))) {
    return NULL;
  }
  return p;
}

static void par_put(othr_t *o, par_t *p) {
  if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) != 1)
    return;
  if (o->nfree < 64) {
    p->next = o->free_pars;
    o->free_pars = p;
    o->nfree++;
  } else {
    free(p);
  }
}

/* ---- sync regions without a code pointer of the user's ----
 * A barrier or taskwait that is the last call of an outlined body is a
 * tail call at -O2: libomp's return address is then its own (the caller
 * of the outlined function, __kmp_invoke_microtask), and a worker's
 * barriers may come with none. Such a region belongs to the construct it
 * ends: the worksharing construct the thread closed just before, else the
 * innermost open one. */
static uintptr_t omp_lo, omp_hi; /* libomp's code, set at its start */

static int find_code(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  uintptr_t a = *(uintptr_t *)data;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || a < lo ||
        a - lo >= ph->p_memsz)
      continue;
    /* libomp linked into the program: its code is not told apart */
    if (info->dlpi_name && *info->dlpi_name) {
      omp_lo = lo;
      omp_hi = lo + ph->p_memsz;
    }
    return 1;
  }
  return 0;
}

static inline int foreign(const void *cp) {
  return !cp || (uintptr_t)cp - omp_lo < omp_hi - omp_lo;
}

static const sp__region_t *owner(const othr_t *o) {
  const sp__region_t *r = NULL;
  if (o->ws_id >= 0 && o->ws_depth == o->depth)
    r = sp__region_get(o->ws_id);
  for (uint32_t d = o->depth; !r && d-- > 0;) {
    r = sp__region_get(o->e[d].id);
    if (r && foreign(r->addr))
      r = NULL;
  }
  return r;
}

static __attribute__((noinline)) int32_t owner_region(othr_t *o, int kind) {
  const sp__region_t *r = owner(o);
  if (!r)
    return -1;
  int rk = r->kind & ~(K_AT_FORK | K_IN);
  if (r->kind & K_IN)
    kind |= K_IN;
  else if (rk == K_PARALLEL || rk == K_IMPLICIT_TASK || rk == K_BARRIER_PAR)
    kind = kind == K_BARRIER_IMPLICIT ? K_BARRIER_PAR : kind | K_AT_FORK;
  return region_of(kind, r->addr);
}

/* A parallel region started by a tail call (the last statement of an
 * outlined body, at -O2): its own location is lost; it is named after the
 * file of the construct it is in. */
static __attribute__((noinline)) const void *fork_owner(const othr_t *o) {
  const sp__region_t *r = owner(o);
  return r ? r->addr : NULL;
}

/* ---- omp_num_threads ---- */
static int (*omp_max_threads_fn)(void);
static _Atomic int max_threads_seen; /* at the first parallel region */

/* ---- the callbacks ---- */
static void on_parallel_begin(sp__ompt_data_t *task, const void *frame,
                              sp__ompt_data_t *parallel, unsigned requested,
                              int flags, const void *cp) {
  (void)task, (void)frame, (void)requested, (void)flags;
  othr_t *o = me();
  parallel->ptr = NULL;
  if (!o || !SP__ACTIVE())
    return;
  if (SP_UNLIKELY(
          !atomic_load_explicit(&max_threads_seen, memory_order_relaxed)) &&
      omp_max_threads_fn)
    atomic_store(&max_threads_seen, omp_max_threads_fn());
  int in = 0;
  if (SP_UNLIKELY(foreign(cp))) {
    cp = fork_owner(o);
    in = K_IN;
  }
  par_t *p = par_get(o);
  if (p) {
    p->task_id = region_of(K_IMPLICIT_TASK | in, cp);
    p->barrier_id = region_of(K_BARRIER_PAR | in, cp);
    p->master = o;
    atomic_store_explicit(&p->join, 0, memory_order_relaxed);
    atomic_store_explicit(&p->refs, 1, memory_order_relaxed);
    parallel->ptr = p;
  }
  int32_t id = SP__ACTIVE() ? region_of(K_PARALLEL | in, cp) : -1;
  push(o, id, K_PARALLEL, NULL);
  if (id >= 0)
    sp__begin_fast(id);
}

static void on_parallel_end(sp__ompt_data_t *parallel, sp__ompt_data_t *task,
                            int flags, const void *cp) {
  (void)task, (void)flags, (void)cp;
  othr_t *o = me();
  if (!o)
    return;
  close_region(o, K_PARALLEL, NULL);
  if (parallel && parallel->ptr) {
    par_put(o, parallel->ptr);
    parallel->ptr = NULL;
  }
}

static void on_implicit_task(int endpoint, sp__ompt_data_t *parallel,
                             sp__ompt_data_t *task, unsigned actual,
                             unsigned index, int flags) {
  (void)actual, (void)index;
  if (flags & SP__TASK_INITIAL)
    return; /* the program's initial task: the whole run */
  othr_t *o = me();
  if (!o)
    return;
  if (endpoint == SP__SCOPE_BEGIN) {
    par_t *p = parallel ? parallel->ptr : NULL;
    task->ptr = p;
    if (!p) {
      push(o, -1, K_IMPLICIT_TASK, NULL);
      return;
    }
    atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
    int32_t id = SP__ACTIVE() ? p->task_id : -1;
    push(o, id, K_IMPLICIT_TASK, NULL);
    if (id >= 0)
      sp__begin_fast(id);
  } else if (endpoint == SP__SCOPE_END) {
    par_t *p = task->ptr;
    int32_t id;
    uint64_t stamp = p && p->master != o ? worker_end(p) : sp__now();
    if (pop_at(o, K_IMPLICIT_TASK, NULL, &id, stamp))
      end_at(id, stamp);
    if (p) {
      task->ptr = NULL;
      par_put(o, p);
    }
  }
}

static int work_kind(int w) {
  switch (w) {
  case SP__WORK_LOOP:
  case SP__WORK_LOOP_STATIC:
  case SP__WORK_LOOP_DYNAMIC:
  case SP__WORK_LOOP_GUIDED:
  case SP__WORK_LOOP_OTHER:
    return K_FOR;
  case SP__WORK_SECTIONS:
    return K_SECTIONS;
  case SP__WORK_SINGLE_EXECUTOR:
  case SP__WORK_SINGLE_OTHER:
    return K_SINGLE;
  case SP__WORK_WORKSHARE:
    return K_WORKSHARE;
  case SP__WORK_DISTRIBUTE:
    return K_DISTRIBUTE;
  case SP__WORK_TASKLOOP:
    return K_TASKLOOP;
  case SP__WORK_SCOPE:
    return K_SCOPE;
  default:
    return K_NONE;
  }
}

static void on_work(int wtype, int endpoint, sp__ompt_data_t *parallel,
                    sp__ompt_data_t *task, uint64_t count, const void *cp) {
  (void)parallel, (void)task, (void)count;
  int kind = work_kind(wtype);
  othr_t *o = me();
  if (!kind || !o)
    return;
  if (endpoint == SP__SCOPE_BEGIN) {
    open_region(o, kind, cp, NULL);
  } else if (endpoint == SP__SCOPE_END) {
    int32_t id;
    if (pop(o, kind, NULL, &id)) {
      sp__end_fast(id);
      o->ws_id = id;
      o->ws_depth = o->depth;
    }
  }
}

static void on_masked(int endpoint, sp__ompt_data_t *parallel,
                      sp__ompt_data_t *task, const void *cp) {
  (void)parallel, (void)task;
  othr_t *o = me();
  if (!o)
    return;
  if (endpoint == SP__SCOPE_BEGIN)
    open_region(o, K_MASKED, cp, NULL);
  else if (endpoint == SP__SCOPE_END)
    close_region(o, K_MASKED, NULL);
}

static void on_sync_region(int skind, int endpoint, sp__ompt_data_t *parallel,
                           sp__ompt_data_t *task, const void *cp) {
  (void)parallel;
  int kind;
  switch (skind) {
  case SP__SYNC_BARRIER: /* before OpenMP 5.1 */
  case SP__SYNC_BARRIER_EXPLICIT:
    kind = K_BARRIER;
    break;
  case SP__SYNC_BARRIER_IMPLICIT:
  case SP__SYNC_BARRIER_IMPLICIT_WORKSHARE:
  case SP__SYNC_BARRIER_IMPLICIT_PARALLEL:
    kind = K_BARRIER_IMPLICIT;
    break;
  case SP__SYNC_BARRIER_IMPLEMENTATION:
    kind = K_BARRIER_IMPL;
    break;
  case SP__SYNC_TASKWAIT:
    kind = K_TASKWAIT;
    break;
  case SP__SYNC_TASKGROUP:
    kind = K_TASKGROUP;
    break;
  case SP__SYNC_BARRIER_TEAMS:
    kind = K_BARRIER_TEAMS;
    break;
  default: /* reduction: reported through its own callback, not kept */
    return;
  }
  othr_t *o = me();
  if (!o)
    return;
  if (skind != SP__SYNC_BARRIER_IMPLICIT_PARALLEL) {
    if (endpoint == SP__SCOPE_BEGIN && SP_UNLIKELY(foreign(cp))) {
      int32_t id = SP__ACTIVE() ? owner_region(o, kind) : -1;
      push(o, id, kind, NULL);
      if (id >= 0)
        sp__begin_fast(id);
    } else if (endpoint == SP__SCOPE_BEGIN)
      open_region(o, kind, cp, NULL);
    else if (endpoint == SP__SCOPE_END)
      close_region(o, kind, NULL);
    return;
  }
  /* The parallel region's own end barrier: named after the region (a
   * worker's is reported with no code pointer), ended as worker_end says. */
  par_t *p = task ? task->ptr : NULL;
  if (p && ((uintptr_t)p & 1))
    p = NULL;
  if (endpoint == SP__SCOPE_BEGIN) {
    int32_t id = p ? p->barrier_id : region_of(K_BARRIER_PAR, cp);
    if (!SP__ACTIVE())
      id = -1;
    push(o, id, kind, NULL);
    if (id >= 0)
      sp__begin_fast(id);
  } else if (endpoint == SP__SCOPE_END) {
    int32_t id;
    if (!pop(o, kind, NULL, &id))
      return;
    if (p && p->master != o) {
      end_at(id, worker_end(p));
    } else {
      uint64_t now = sp__now();
      end_at(id, now);
      if (p)
        atomic_store_explicit(&p->join, now, memory_order_release);
    }
  }
}

/* An explicit task's data: (region id << 2) | started << 1 | 1. The low
 * bit tells it from an implicit task's (a pointer, or 0). */
static void on_task_create(sp__ompt_data_t *parent, const void *frame,
                           sp__ompt_data_t *task, int flags, int deps,
                           const void *cp) {
  (void)parent, (void)frame, (void)deps;
  task->value = 0;
  if (!(flags & SP__TASK_EXPLICIT) || !SP__ACTIVE())
    return;
  int32_t id = region_of(K_TASK, cp);
  if (id >= 0)
    task->value = ((uint64_t)(uint32_t)id << 2) | 1;
}

static void on_task_schedule(sp__ompt_data_t *prior, int status,
                             sp__ompt_data_t *next) {
  othr_t *o = me();
  if (!o)
    return;
  if (prior && (prior->value & 3) == 3 &&
      (status == SP__TASK_COMPLETE || status == SP__TASK_CANCEL ||
       status == SP__TASK_DETACH))
    close_region(o, K_TASK, prior); /* a task that moved threads: no pop */
  if (next && (next->value & 3) == 1) {
    next->value |= 2; /* started: a resumption opens nothing */
    int32_t id = SP__ACTIVE() ? (int32_t)(next->value >> 2) : -1;
    push(o, id, K_TASK, next);
    if (id >= 0)
      sp__begin_fast(id);
  }
}

static int mutex_kind(int m) {
  switch (m) {
  case SP__MUTEX_LOCK:
  case SP__MUTEX_NEST_LOCK:
    return K_LOCK;
  case SP__MUTEX_CRITICAL:
    return K_CRITICAL;
  case SP__MUTEX_ORDERED:
    return K_ORDERED;
  default: /* test locks do not wait; atomics are not regions */
    return K_NONE;
  }
}

static void on_mutex_acquire(int m, unsigned hint, unsigned impl,
                             uint64_t wait_id, const void *cp) {
  (void)hint, (void)impl, (void)wait_id;
  int kind = mutex_kind(m);
  othr_t *o;
  if (kind && (o = me()))
    open_region(o, kind, cp, NULL);
}

static void on_mutex_acquired(int m, uint64_t wait_id, const void *cp) {
  (void)wait_id, (void)cp;
  int kind = mutex_kind(m);
  othr_t *o;
  if (kind && (o = me()))
    close_region(o, kind, NULL);
}

/* A nest lock taken again by its owner ends the wait here, not in
 * mutex_acquired. */
static void on_nest_lock(int endpoint, uint64_t wait_id, const void *cp) {
  (void)wait_id, (void)cp;
  othr_t *o;
  if (endpoint == SP__SCOPE_BEGIN && (o = me()))
    close_region(o, K_LOCK, NULL);
}

/* ---- start ---- */
static _Atomic int ompt_started; /* an OpenMP runtime called us */
static sp__ompt_cb_t finalize_tool;

static int on_initialize(sp__ompt_lookup_t lookup, int device,
                         sp__ompt_data_t *tool_data) {
  (void)device, (void)tool_data;
  sp__ompt_set_cb_t set = (sp__ompt_set_cb_t)lookup("ompt_set_callback");
  if (!set || pthread_key_create(&othr_key, othr_free) != 0)
    return 0;
  finalize_tool = lookup("ompt_finalize_tool");
  uintptr_t in_omp = (uintptr_t)lookup;
  dl_iterate_phdr(find_code, &in_omp);
  omp_max_threads_fn =
      (int (*)(void))(uintptr_t)dlsym(RTLD_DEFAULT, "omp_get_max_threads");
  static const struct {
    int event;
    sp__ompt_cb_t cb;
  } cbs[] = {
      {SP__CB_PARALLEL_BEGIN, (sp__ompt_cb_t)on_parallel_begin},
      {SP__CB_PARALLEL_END, (sp__ompt_cb_t)on_parallel_end},
      {SP__CB_IMPLICIT_TASK, (sp__ompt_cb_t)on_implicit_task},
      {SP__CB_WORK, (sp__ompt_cb_t)on_work},
      {SP__CB_MASKED, (sp__ompt_cb_t)on_masked},
      {SP__CB_SYNC_REGION, (sp__ompt_cb_t)on_sync_region},
      {SP__CB_TASK_CREATE, (sp__ompt_cb_t)on_task_create},
      {SP__CB_TASK_SCHEDULE, (sp__ompt_cb_t)on_task_schedule},
      {SP__CB_MUTEX_ACQUIRE, (sp__ompt_cb_t)on_mutex_acquire},
      {SP__CB_MUTEX_ACQUIRED, (sp__ompt_cb_t)on_mutex_acquired},
      {SP__CB_NEST_LOCK, (sp__ompt_cb_t)on_nest_lock},
  };
  for (size_t i = 0; i < sizeof cbs / sizeof cbs[0]; i++)
    set(cbs[i].event, cbs[i].cb);
  sp__debug("OpenMP constructs recorded through OMPT");
  return 1;
}

static _Atomic int finalized;
static void on_finalize(sp__ompt_data_t *tool_data) {
  (void)tool_data;
  atomic_store(&finalized, 1);
}

/* libomp's workers report the end of their last parallel region only when
 * they stop; at exit the OpenMP runtime's own handler would stop them after
 * the profile is written (the runtime's handler was registered first), so
 * they are stopped here, as that handler would. Not from inside a parallel
 * region (exit() called there), where stopping the team would wait for
 * itself. */
void sp__ompt_exit(void) {
  othr_t *o = othr;
  if (finalize_tool && !atomic_load(&finalized) && (!o || o->depth == 0))
    finalize_tool();
}

SP_API sp__ompt_start_t *ompt_start_tool(unsigned int omp_version,
                                         const char *runtime_version) {
  (void)omp_version, (void)runtime_version;
  static sp__ompt_start_t result = {on_initialize, on_finalize, {0}};
  sp__ensure_init();
  atomic_store(&ompt_started, 1);
  if (atomic_load(&sp__state) != SP__RUNNING || !sp__cfg.ompt)
    return NULL;
  return &result;
}

/* ---- names, off the hot path (the writer thread) ---- */
void sp__ompt_name(sp__region_t *r) {
  char *name = NULL, *file = NULL;
  int line = -1;
  if (sp__symbol_omp(r->addr, r->kind, &name, &file, &line) != 0)
    return;
  if (file) {
    r->file = file; /* kept for good, as the name */
    r->line = line;
  }
  __atomic_store_n(&r->name, name, __ATOMIC_RELEASE);
}

/* The first number of OMP_NUM_THREADS, else the CPUs this process may run
 * on: what libomp starts with. */
static int64_t libomp_default(void) {
  const char *e = getenv("OMP_NUM_THREADS");
  long n = e ? strtol(e, NULL, 10) : 0;
  if (n > 0)
    return n;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
  long c = sysconf(_SC_NPROCESSORS_ONLN);
  return c > 0 ? c : 1;
}

int64_t sp__omp_num_threads(void) {
  int seen = atomic_load(&max_threads_seen);
  if (seen > 0)
    return seen;
  int (*fn)(void) =
      (int (*)(void))(uintptr_t)dlsym(RTLD_DEFAULT, "omp_get_max_threads");
  if (!fn)
    return 1; /* no OpenMP runtime in the process */
  /* libomp starts itself at the first call into it, on the calling thread
   * (here possibly the writer): it is not asked; libgomp starts when it is
   * loaded, so asking it starts nothing. */
  if (dlsym(RTLD_DEFAULT, "__kmpc_fork_call"))
    return libomp_default();
  int n = fn();
  return n > 0 ? n : 1;
}
