/* profile.c - SP_MODE=profile's slow paths: a thread's table made, a call
 * path found or added (recursion folded, the bound kept), ends that do not
 * match, thread exit and fork; and the tables written into the stream. */
#include "filter.h"
#include "hotpath.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

__thread sp__ptable_t *sp__ptls;
static _Atomic(sp__ptable_t *) tables; /* newest first */
static _Atomic int32_t n_threads;
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
/* A forked child's snapshots start at its first begin (always a slow one:
 * its table starts afresh), not in the fork handler. */
static _Atomic int ticks_due;

#define FIRST_STACK 256u /* frames */

#define BUMP(x) SP__PSTORE(&(x), (x) + 1)

/* The table of every thread whose own could not be mapped (ulimit -v, no
 * memory): its calls fail the fast path's checks and are counted here,
 * not recorded, with no new attempt per call. */
static sp__pnode_t dead_node = {.c_region = -1};
static sp__pframe_t dead_frame = {&dead_node, 0, 0, -1, 0};
static sp__ptable_t dead = {.stack = &dead_frame, .cap = 1};
static _Atomic uint64_t dead_calls;

/* The whole bound is reserved at once and the kernel gives pages as they
 * are first touched, so a node never moves (frames point at nodes) and
 * the table never grows by copying. */
static void *map(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static void node_init(sp__pnode_t *n, int32_t parent, int32_t region) {
  n->parent = parent;
  n->region = region;
  n->min = UINT64_MAX;
  n->first = UINT64_MAX;
  n->c_region = -1;
}

static void thread_exit(void *arg);
static void make_key(void) { pthread_key_create(&exit_key, thread_exit); }

static sp__ptable_t *table_new(void) {
  if (atomic_load_explicit(&sp__state, memory_order_acquire) == SP__UNINIT)
    sp__ensure_init();
  if (atomic_load_explicit(&sp__state, memory_order_acquire) != SP__RUNNING)
    return NULL;
  pthread_once(&key_once, make_key);
  uint32_t max = (uint32_t)sp__cfg.profile_paths + 1;
  uint32_t hcap = 1;
  while (hcap < 2 * max)
    hcap <<= 1;
  sp__ptable_t *p = map(sizeof *p);
  if (!p)
    return sp__ptls = &dead;
  p->nodes = map((size_t)max * sizeof(sp__pnode_t));
  p->hash = map((size_t)hcap * sizeof(int32_t));
  p->stack = map(FIRST_STACK * sizeof(sp__pframe_t));
  if (!p->nodes || !p->hash || !p->stack) {
    if (p->nodes)
      munmap(p->nodes, (size_t)max * sizeof(sp__pnode_t));
    if (p->hash)
      munmap(p->hash, (size_t)hcap * sizeof(int32_t));
    if (p->stack)
      munmap(p->stack, FIRST_STACK * sizeof(sp__pframe_t));
    munmap(p, sizeof *p);
    return sp__ptls = &dead;
  }
  p->max = max;
  p->hmask = hcap - 1;
  p->cap = FIRST_STACK;
  node_init(&p->nodes[0], -1, -1);
  p->nnodes = 1;
  p->stack[0].node = &p->nodes[0];
  p->stack[0].region = -1;
  p->thread = atomic_fetch_add(&n_threads, 1);
  sp__ptable_t *head = atomic_load(&tables);
  do
    p->next = head;
  while (!atomic_compare_exchange_weak(&tables, &head, p));
  sp__ptls = p;
  pthread_setspecific(exit_key, p);
  sp__writer_ticks();
  return p;
}

static uint32_t hash_of(int32_t parent, int32_t region) {
  uint64_t k = ((uint64_t)(uint32_t)parent << 32) | (uint32_t)region;
  k *= 0x9E3779B97F4A7C15ull;
  return (uint32_t)(k >> 32);
}

/* The node of a call of region under node parent: an existing path, the
 * node of region already on the path (recursion, direct or not, folds
 * into it), a new path, or -1 past the bound. */
static int32_t find(sp__ptable_t *p, int32_t parent, int32_t region) {
  uint32_t h = hash_of(parent, region) & p->hmask;
  for (;; h = (h + 1) & p->hmask) {
    int32_t i = p->hash[h];
    if (!i)
      break;
    if (p->nodes[i].parent == parent && p->nodes[i].region == region)
      return i;
  }
  for (int32_t a = parent; a > 0; a = p->nodes[a].parent)
    if (p->nodes[a].region == region)
      return a;
  uint32_t n = p->nnodes;
  if (n >= p->max)
    return -1;
  node_init(&p->nodes[n], parent, region);
  p->hash[h] = (int32_t)n;
  /* Published once complete: a signal handler reads [0, nnodes). */
  __atomic_store_n(&p->nnodes, n + 1, __ATOMIC_RELEASE);
  return (int32_t)n;
}

/* Old stacks stay mapped: a signal handler on another thread may still be
 * reading one. The waste is at most the size of the current stack. */
static int grow_stack(sp__ptable_t *p) {
  uint32_t cap = p->cap * 2;
  if (cap > SP__STACK_MAX)
    cap = SP__STACK_MAX;
  if (cap <= p->cap)
    return -1;
  sp__pframe_t *s = map((size_t)cap * sizeof *s);
  if (!s)
    return -1;
  memcpy(s, p->stack, (size_t)(p->depth + 1) * sizeof *s);
  __atomic_store_n(&p->stack, s, __ATOMIC_RELEASE);
  p->cap = cap;
  return 0;
}

static void push(sp__ptable_t *p, sp__pnode_t *n, int32_t id, uint32_t flags) {
  uint32_t d = p->depth + 1;
  sp__pframe_t *f = &p->stack[d];
  if (!flags)
    SP__PSTORE(&n->open, n->open + 1);
  SP__PSTORE(&f->node, n);
  SP__PSTORE(&f->region, id);
  SP__PSTORE(&f->flags, flags);
  SP__PSTORE(&f->child, 0);
  SP__PSTORE(&f->start, sp__now());
  __atomic_store_n(&p->depth, d, __ATOMIC_RELEASE);
}

/* Every rare case of a begin: the thread's first call, a child not in the
 * one-entry cache of its caller's node, a stack to grow, the bound. A
 * region a filter excludes would be refused here, before any node. */
void sp__prof_ready(void) {
  if (!sp__ptls)
    table_new();
}

__attribute__((noinline)) void sp__prof_begin_slow(int32_t id) {
  /* An excluded region is never a node's cached child: its calls all come
   * here, and push nothing, so its callees count in its caller's path. */
  int a = SP__ACTIVE();
  if (!SP__PROF_ON(a) || sp__filter_drops(id))
    return;
  sp__ptable_t *p = sp__ptls;
  if (!p && !(p = table_new()))
    return;
  if (SP_UNLIKELY(atomic_load_explicit(&ticks_due, memory_order_relaxed)) &&
      atomic_exchange(&ticks_due, 0))
    sp__writer_ticks();
  if (p == &dead) {
    atomic_fetch_add(&dead_calls, 1);
    return;
  }
  if ((uint32_t)id >=
      (uint32_t)atomic_load_explicit(&sp__nregions, memory_order_acquire)) {
    BUMP(p->n_invalid);
    return;
  }
  sp__pframe_t *top = &p->stack[p->depth];
  if (top->flags & SP__PF_OVERFLOW) {
    p->overflow++;
    return;
  }
  if (p->depth + 2 >= p->cap && grow_stack(p) != 0) {
    /* The last frame stands for every call deeper than the stack: they
     * are counted, not timed, and their time stays in their caller. */
    push(p, top->node, -2, SP__PF_OVERFLOW);
    p->overflow = 1;
    return;
  }
  sp__pnode_t *parent = top->node;
  int32_t i = find(p, (int32_t)(parent - p->nodes), id);
  if (i < 0) {
    BUMP(p->n_folded);
    push(p, parent, id, SP__PF_FOLDED);
    return;
  }
  parent->c_region = id;
  parent->c_node = i;
  push(p, &p->nodes[i], id, 0);
}

/* Pops the innermost frame, counting it as its flags say. */
static void pop(sp__ptable_t *p, uint64_t now) {
  sp__pframe_t *f = &p->stack[p->depth];
  if (!f->flags)
    sp__prof_close(f, now);
  else if (f->flags & SP__PF_FOLDED) /* transparent: its callees' time */
    SP__PSTORE(&f[-1].child, f[-1].child + f->child); /* goes up */
  __atomic_store_n(&p->depth, p->depth - 1, __ATOMIC_RELEASE);
}

/* An end that is not the innermost open call's plain end. */
__attribute__((noinline)) void sp__prof_end_slow(sp__ptable_t *p, int32_t id,
                                                 uint64_t now) {
  if (!SP__PROF_ON(SP__ACTIVE()) || p == &dead || sp__filter_drops(id))
    return;
  sp__pframe_t *top = &p->stack[p->depth];
  if (top->flags & SP__PF_OVERFLOW) {
    if (--p->overflow == 0)
      pop(p, now);
    return;
  }
  uint32_t i = p->depth;
  while (i > 0 && p->stack[i].region != id)
    i--;
  if (i == 0) {
    BUMP(p->n_unmatched);
    return;
  }
  /* Calls opened above the matching one end with it, innermost first: at
   * its time, or at the latest pause's start for a call whose end that
   * pause hid (counted apart: a pause, not a missing end, explains it). */
  uint64_t e = 0;
  int hidden = 0, missing = 0;
  while (p->depth > i) {
    int h = 0;
    if (!p->stack[p->depth].flags) /* a frame that counts its time */
      e = sp__pause_cut(p->stack[p->depth].start, e, now, &h);
    pop(p, e ? e : now);
    hidden += h;
    missing += !h;
  }
  if (missing)
    BUMP(p->n_mismatch);
  if (hidden)
    sp__pause_hidden((uint64_t)hidden);
  pop(p, e > now ? e : now);
}

/* A thread's end: its open calls end; its table stays for the output. */
static void thread_exit(void *arg) {
  sp__ptable_t *p = arg;
  /* paused, its open calls still end (recording or paused: running) */
  if (!p || atomic_load(&sp__state) != SP__RUNNING)
    return;
  /* Its open calls end now, or where a pause hid their end. */
  uint64_t now = sp__now(), e = 0;
  int hidden = 0;
  while (p->depth > 0) {
    int h = 0;
    if (!p->stack[p->depth].flags)
      e = sp__pause_cut(p->stack[p->depth].start, e, now, &h);
    pop(p, e ? e : now);
    hidden += h;
  }
  if (hidden)
    sp__pause_hidden((uint64_t)hidden);
  p->overflow = 0;
  sp__ptls = NULL;
}

void sp__prof_counters(uint64_t out[5]) {
  memset(out, 0, 5 * sizeof *out);
  out[4] = atomic_load(&dead_calls);
  for (sp__ptable_t *p = atomic_load(&tables); p; p = p->next) {
    out[0] += __atomic_load_n(&p->n_folded, __ATOMIC_RELAXED);
    out[1] += __atomic_load_n(&p->n_mismatch, __ATOMIC_RELAXED);
    out[2] += __atomic_load_n(&p->n_unmatched, __ATOMIC_RELAXED);
    out[3] += __atomic_load_n(&p->n_invalid, __ATOMIC_RELAXED);
  }
}

/* ---- into the stream: PATHS and FRAMES records of at most 64 KiB, each
 * copied out field by field with atomic loads (the thread may still be
 * counting), so the record checked is the record written. */
static uint64_t rec[(1 << 16) / 8];
static uint64_t n_snapshots; /* PSNAP records written (token held) */

/* A path's numbers from one moment (between two of its calls' ends): 0,
 * or -1 when its thread kept ending calls of it (or was stopped in the
 * middle of one: a signal handler on that thread) for every try; out then
 * holds a copy that may mix two moments. The cache words are the owner's
 * and are not read. */
static int node_copy(const sp__pnode_t *n, sp__pnode_t *out) {
  int rc = -1;
  for (int tries = 0; tries < 256 && rc; tries++) {
    uint32_t s1 = __atomic_load_n(&n->seq, __ATOMIC_ACQUIRE);
#define LD(f) out->f = __atomic_load_n(&n->f, __ATOMIC_RELAXED)
    LD(parent), LD(region), LD(calls), LD(total), LD(excl), LD(min), LD(max);
    LD(sq_lo), LD(sq_hi), LD(first), LD(last), LD(outer), LD(open);
#undef LD
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (!(s1 & 1) && __atomic_load_n(&n->seq, __ATOMIC_RELAXED) == s1)
      rc = 0;
  }
  out->c_region = out->c_node = 0;
  out->seq = 0;
  return rc;
}
#define PER_REC                                                                \
  ((sizeof rec - sizeof(sp_stream_rec) - sizeof(sp_stream_profile)) /          \
   sizeof(sp_stream_pnode))

static int put_rec(uint32_t type, size_t payload) {
  sp_stream_rec *r = (sp_stream_rec *)(void *)rec;
  r->type = type;
  r->size = (uint32_t)(sizeof *r + payload);
  r->check = sp_stream_check(type, r->size, r + 1);
  struct iovec iov = {rec, r->size};
  return sp__stream_put(&iov, 1);
}

static sp_stream_profile *rec_head(void) {
  return (sp_stream_profile *)(void *)(rec + 2);
}

/* The k nodes in rec's body, [first, first + k) of n, as one record. */
static int paths_out(sp__ptable_t *p, uint32_t first, uint32_t k, uint32_t n) {
  sp_stream_profile *h = rec_head();
  memset(h, 0, sizeof *h);
  h->thread = p->thread;
  h->first = first;
  h->count = k;
  h->total = n;
  return put_rec(SP_STREAM_PATHS, sizeof *h + (size_t)k * sizeof(sp__pnode_t));
}

/* The table's open calls, outermost first, read after its paths: a call
 * that ends in between is in neither (the next snapshot has it), never in
 * both. A reader ends them at the stream's last stamp. */
static int frames_out(sp__ptable_t *p);

/* The whole table (a signal handler, finalize). */
static int table_out(sp__ptable_t *p) {
  _Static_assert(sizeof(sp__pnode_t) == sizeof(sp_stream_pnode),
                 "a node is written as it stands");
  sp__pnode_t *body = (sp__pnode_t *)(void *)(rec_head() + 1);
  uint32_t n = __atomic_load_n(&p->nnodes, __ATOMIC_ACQUIRE);
  for (uint32_t first = 0; first < n; first += (uint32_t)PER_REC) {
    uint32_t k = n - first < PER_REC ? n - first : (uint32_t)PER_REC;
    for (uint32_t i = 0; i < k; i++)
      node_copy(&p->nodes[first + i], &body[i]);
    if (paths_out(p, first, k, n) != 0)
      return -1;
  }
  return frames_out(p);
}

/* The nodes whose calls changed since the last snapshot, and those made
 * since, in runs of neighbours (a record each), then every open call. */
static int table_delta(sp__ptable_t *p) {
  if (!p->seen)
    p->seen = map((size_t)p->max * sizeof *p->seen);
  if (!p->seen)
    return table_out(p);
  sp__pnode_t *body = (sp__pnode_t *)(void *)(rec_head() + 1);
  uint32_t n = __atomic_load_n(&p->nnodes, __ATOMIC_ACQUIRE);
  uint32_t first = 0, k = 0;
  for (uint32_t i = 0; i <= n; i++) {
    int take = 0;
    if (i < n &&
        (i >= p->seen_n ||
         __atomic_load_n(&p->nodes[i].calls, __ATOMIC_RELAXED) != p->seen[i])) {
      sp__pnode_t *b = &body[k];
      if (node_copy(&p->nodes[i], b) == 0) {
        take = 1;
      } else if (i >= p->seen_n) {
        /* A new path whose calls kept ending: its place now (parent and
         * region never change), its numbers next time. */
        int32_t parent = b->parent, region = b->region;
        memset(b, 0, sizeof *b);
        b->parent = parent;
        b->region = region;
        b->min = b->first = UINT64_MAX;
        take = 1;
      }
    }
    if (k && !take) {
      if (paths_out(p, first, k, n) != 0)
        return -1;
      k = 0;
    }
    if (!take)
      continue;
    if (!k)
      first = i;
    p->seen[i] = body[k++].calls;
    if (k == PER_REC) {
      if (paths_out(p, first, k, n) != 0)
        return -1;
      k = 0;
    }
  }
  p->seen_n = n;
  return frames_out(p);
}

static int frames_out(sp__ptable_t *p) {
  sp_stream_profile *h = rec_head();
  /* The depth first: a stack grown to hold it was published before it. */
  uint32_t depth = __atomic_load_n(&p->depth, __ATOMIC_ACQUIRE);
  const sp__pframe_t *st = __atomic_load_n(&p->stack, __ATOMIC_ACQUIRE);
  sp_stream_pframe *fr = (sp_stream_pframe *)(void *)(h + 1);
  uint32_t first = 0;
  do {
    uint32_t k = 0;
    for (; first + k < depth && k < PER_REC; k++) {
      const sp__pframe_t *f = &st[first + k + 1];
      const sp__pnode_t *node = __atomic_load_n(&f->node, __ATOMIC_RELAXED);
      memset(&fr[k], 0, sizeof fr[k]);
      fr[k].node = (int32_t)(node - p->nodes);
      fr[k].region = __atomic_load_n(&f->region, __ATOMIC_RELAXED);
      fr[k].flags = __atomic_load_n(&f->flags, __ATOMIC_RELAXED);
      fr[k].start = __atomic_load_n(&f->start, __ATOMIC_RELAXED);
      fr[k].child = __atomic_load_n(&f->child, __ATOMIC_RELAXED);
    }
    memset(h, 0, sizeof *h);
    h->thread = p->thread;
    h->first = first;
    h->count = k;
    h->total = depth;
    if (put_rec(SP_STREAM_FRAMES, sizeof *h + (size_t)k * sizeof *fr) != 0)
      return -1;
    first += k;
  } while (first < depth);
  return 0;
}

/* The end of a snapshot: its records count from here on. */
static int psnap_out(void) {
  sp_stream_psnap *z = (sp_stream_psnap *)(void *)(rec + 2);
  z->stamp = sp__now();
  z->seq = n_snapshots;
  if (put_rec(SP_STREAM_PSNAP, sizeof *z) != 0)
    return -1;
  n_snapshots++;
  return 0;
}

int sp__prof_stream(void) {
  if (sp__cfg.mode != 1)
    return 0;
  int rc = 0;
  for (sp__ptable_t *p = atomic_load(&tables); p; p = p->next)
    if (table_out(p) != 0)
      rc = -1;
  return rc || psnap_out() != 0 ? -1 : 0;
}

/* The paths that changed in every table, the open calls, a PSNAP. */
static int snapshot_out(void) {
  int rc = 0;
  for (sp__ptable_t *p = atomic_load(&tables); p && !rc; p = p->next)
    rc = table_delta(p) != 0;
  /* Regions made while the tables were read (before the PSNAP, so that
   * the snapshot never names a region its stream lacks). */
  if (!rc)
    rc = sp__stream_regions() != 0 || sp__stream_clock() != 0 ||
         psnap_out() != 0;
  if (rc) /* the next snapshot writes every path again */
    for (sp__ptable_t *p = atomic_load(&tables); p; p = p->next)
      p->seen_n = 0;
  return rc ? -1 : 0;
}

static int full_snapshot(void) {
  for (sp__ptable_t *p = atomic_load(&tables); p; p = p->next)
    p->seen_n = 0;
  return snapshot_out();
}

/* The stream's size at which it is rewritten with one whole snapshot:
 * twice its size after the last rewrite, plus 1 MiB (none in tests), so
 * a long run's stream stays within that whatever its length, and the
 * rewrites cost no more than the snapshots' writes (each copies what the
 * snapshots since the last appended, at most). */
static int64_t compact_at;
#define COMPACT_SLACK ((int64_t)1 << 20)

void sp__prof_snapshot(void) {
  if (sp__cfg.mode != 1 || !sp__stream_acquire(60000))
    return;
  int64_t slack = SP__TEST_CFG(test_snapshot_fd, -1) >= 0 ? 0 : COMPACT_SLACK;
  int rc = sp__stream_open(1) != 0 || sp__stream_regions() != 0;
  if (!rc) {
    if (!compact_at)
      compact_at = 2 * sp__stream_size() + slack;
    rc = snapshot_out() != 0;
  }
  if (!rc && sp__stream_size() > compact_at) {
    int64_t before = sp__stream_size();
    if (sp__stream_compact(full_snapshot) == 0)
      compact_at = 2 * sp__stream_size() + slack;
    else { /* not before the stream doubles again; and what the failed
            * rewrite wrote is not in the stream: every path next time */
      compact_at = 2 * before + slack;
      for (sp__ptable_t *p = atomic_load(&tables); p; p = p->next)
        p->seen_n = 0;
    }
    /* either way the last snapshot in the stream is whole */
  }
  sp__token_give();
  if (SP__TEST_CFG(test_snapshot_fd, -1) >= 0) {
    char c = rc ? 'f' : 's';
    ssize_t w = write(SP__TEST_CFG(test_snapshot_fd, -1), &c, 1);
    (void)w;
  }
}

/* In a forked child only the forking thread exists: the other tables are
 * the parent's, and this thread starts afresh, its open calls (the
 * parent's) ending silently. */
void sp__prof_after_fork(void) {
  sp__ptable_t *self = sp__ptls;
  atomic_store(&tables, NULL);
  atomic_store(&n_threads, 0);
  if (!self || self == &dead)
    return;
  uint32_t depth = self->depth;
  memset(self->hash, 0, ((size_t)self->hmask + 1) * sizeof(int32_t));
  memset(self->nodes, 0, (size_t)self->nnodes * sizeof(sp__pnode_t));
  node_init(&self->nodes[0], -1, -1);
  self->nnodes = 1;
  for (uint32_t i = 1; i <= depth; i++) {
    self->stack[i].node = &self->nodes[0];
    self->stack[i].flags = SP__PF_INHERITED;
  }
  self->stack[0].child = 0;
  self->overflow = 0;
  self->n_folded = self->n_mismatch = self->n_unmatched = self->n_invalid = 0;
  self->seen_n = 0; /* the child's stream has no snapshot yet */
  n_snapshots = 0;
  compact_at = 0;
  atomic_store(&ticks_due, 1);
  self->thread = atomic_fetch_add(&n_threads, 1);
  self->next = NULL;
  atomic_store(&tables, self);
}
