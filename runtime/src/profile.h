/* profile.h - SP_MODE=profile: each thread aggregates its calls by call
 * path in a table of its own; the inline per-call code and what the rest
 * of the runtime calls (profile.c has the slow paths and the output). */
#ifndef SP_PROFILE_H
#define SP_PROFILE_H

#include "filter.h"
#include "internal.h"

/* sp__active's value in profile mode (trace mode: 1). */
#define SP__ACTIVE_PROFILE 2
/* Its values with SP_COUNTERS: trace and profile mode; every begin takes
 * the slow path, every end sp__cnt_end (counters.c). */
#define SP__ACTIVE_COUNTERS 4
#define SP__ACTIVE_PROF_COUNTERS 5
/* The slow paths of profile mode run only while it records. */
#define SP__PROF_ON(a)                                                         \
  ((a) == SP__ACTIVE_PROFILE || (a) == SP__ACTIVE_PROF_COUNTERS)

/* One call path of one thread: the layout of sp_stream_pnode, so the table
 * goes to the stream as it stands. Stamps and sums are raw clock units;
 * the sum of squared durations is 128 bits (sq_hi:sq_lo), so every sum is
 * exact. Fields others read (the snapshot writer, a signal handler) are
 * stored with SP__PSTORE; a call's end changes them between two steps of
 * seq (odd while it does), so a reader on another thread copies a path's
 * numbers from one moment without a lock (sp__prof_node_copy). */
typedef struct sp__pnode {
  int32_t parent; /* node index, -1 for the thread's root */
  int32_t region; /* region id; -1 for the root */
  uint64_t calls, total, excl, min, max, sq_lo, sq_hi, first, last;
  int32_t c_region; /* the last child looked up (owner only): its region */
  int32_t c_node;   /* and its node */
  uint64_t outer;   /* total of the calls not inside another of its region */
  uint32_t open;    /* its calls open now: a call begun at 0 is outermost */
  uint32_t seq;     /* odd while a call's end updates the fields above */
} sp__pnode_t;

enum {
  SP__PF_FOLDED = 1,    /* past the path bound: counts in its caller */
  SP__PF_OVERFLOW = 2,  /* nesting deeper than SP__STACK_MAX */
  SP__PF_INHERITED = 4, /* open at fork, in the parent */
};

/* An open call. stack[0] of a table is the root's frame (region -1). */
typedef struct sp__pframe {
  sp__pnode_t *node; /* where the call counts */
  uint64_t start;
  uint64_t child; /* time of the calls directly inside it, so far */
  int32_t region;
  uint32_t flags; /* SP__PF_* */
} sp__pframe_t;

typedef struct sp__ptable {
  sp__pframe_t *stack;
  uint32_t depth; /* open calls: the innermost is stack[depth] */
  uint32_t cap;   /* frames of stack */
  sp__pnode_t *nodes;
  uint32_t nnodes; /* atomic: nodes [0, nnodes) are complete */
  uint32_t max;    /* SP_PROFILE_PATHS + 1 (the root) */
  int32_t *hash;   /* node indices by (parent, region); 0 = empty */
  uint32_t hmask;
  int32_t thread;    /* thread number in the stream */
  uint64_t overflow; /* calls open above SP__STACK_MAX */
  /* counters, reported at finalize */
  uint64_t n_folded, n_mismatch, n_unmatched, n_invalid;
  /* the snapshot writer's own: each node's calls when last written (NULL
   * until mapped), and how many nodes were */
  uint64_t *seen;
  uint32_t seen_n;
  struct sp__ptable *next; /* every table, newest first */
} sp__ptable_t;

SP_HIDDEN extern __thread sp__ptable_t *sp__ptls;

#define SP__PSTORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

SP_HIDDEN void sp__prof_begin_slow(int32_t id);
/* With counters, before they are read: the thread's table made if it has
 * none, so that the begin read next does not count its making. */
SP_HIDDEN void sp__prof_ready(void);
SP_HIDDEN void sp__prof_end_slow(sp__ptable_t *p, int32_t id, uint64_t now);

/* Counts call f, ending at now, in its node and in its caller's frame. */
static inline __attribute__((always_inline)) void
sp__prof_close(sp__pframe_t *f, uint64_t now) {
  sp__pnode_t *n = f->node;
  uint64_t d = now - f->start;
  uint32_t seq = n->seq;
  SP__PSTORE(&n->seq, seq + 1);
  /* The odd step is seen before any field changes (on x86 an ordering of
   * the compiler's only: stores are not reordered with stores). */
  __atomic_thread_fence(__ATOMIC_RELEASE);
  /* The last of its node's open calls to end encloses the others: every
   * call of its region inside it folded into this node. */
  uint32_t open = n->open - 1;
  SP__PSTORE(&n->open, open);
  SP__PSTORE(&n->outer, n->outer + (open ? 0 : d));
  unsigned __int128 q = (unsigned __int128)d * d;
  uint64_t qlo = (uint64_t)q, lo = n->sq_lo + qlo;
  SP__PSTORE(&n->sq_hi, n->sq_hi + (uint64_t)(q >> 64) + (lo < qlo));
  SP__PSTORE(&n->sq_lo, lo);
  SP__PSTORE(&n->total, n->total + d);
  SP__PSTORE(&n->excl, n->excl + d - f->child);
  SP__PSTORE(&n->min, d < n->min ? d : n->min);
  SP__PSTORE(&n->max, d > n->max ? d : n->max);
  SP__PSTORE(&n->first, f->start < n->first ? f->start : n->first);
  SP__PSTORE(&n->last, now);
  SP__PSTORE(&n->calls, n->calls + 1);
  __atomic_store_n(&n->seq, seq + 2, __ATOMIC_RELEASE);
  SP__PSTORE(&f[-1].child, f[-1].child + d);
}

static inline __attribute__((always_inline)) void sp__prof_begin(int32_t id) {
  sp__ptable_t *p = sp__ptls;
  if (SP_UNLIKELY(!p)) {
    sp__prof_begin_slow(id);
    return;
  }
  uint32_t d = p->depth + 1;
  sp__pnode_t *n = p->stack[d - 1].node;
  if (SP_UNLIKELY(n->c_region != id || d >= p->cap)) {
    /* An excluded region is never a node's cached child: it ends here. */
    if (!sp__filter_out(id))
      sp__prof_begin_slow(id);
    return;
  }
  sp__pframe_t *f = &p->stack[d];
  sp__pnode_t *c = p->nodes + n->c_node;
  SP__PSTORE(&c->open, c->open + 1);
  SP__PSTORE(&f->node, c);
  SP__PSTORE(&f->region, id);
  SP__PSTORE(&f->flags, 0u);
  SP__PSTORE(&f->child, 0);
  SP__PSTORE(&f->start, sp__now());
  __atomic_store_n(&p->depth, d, __ATOMIC_RELEASE);
}

static inline __attribute__((always_inline)) void sp__prof_end(int32_t id,
                                                               uint64_t now) {
  sp__ptable_t *p = sp__ptls;
  if (SP_UNLIKELY(!p))
    return; /* this thread never began a call */
  uint32_t d = p->depth;
  sp__pframe_t *f = &p->stack[d];
  /* The root frame's region is -1: an end with nothing open fails here. */
  if (SP_UNLIKELY(f->region != id || f->flags)) {
    sp__prof_end_slow(p, id, now);
    return;
  }
  sp__prof_close(f, now);
  __atomic_store_n(&p->depth, d - 1, __ATOMIC_RELEASE);
}

/* sp__prof_end with the clock read once the call is known to be recorded:
 * an excluded region's end costs no clock read. */
static inline __attribute__((always_inline)) void sp__prof_end_now(int32_t id) {
  sp__ptable_t *p = sp__ptls;
  if (SP_UNLIKELY(!p))
    return;
  uint32_t d = p->depth;
  sp__pframe_t *f = &p->stack[d];
  if (SP_UNLIKELY(f->region != id || f->flags)) {
    if (!sp__filter_out(id))
      sp__prof_end_slow(p, id, sp__now());
    return;
  }
  sp__prof_close(f, sp__now());
  __atomic_store_n(&p->depth, d - 1, __ATOMIC_RELEASE);
}

/* Every thread's table into the stream (token held); async-signal-safe:
 * calls still open go as frames, closed by the reader at the stream's
 * last stamp. */
SP_HIDDEN int sp__prof_stream(void);
/* Writes what changed in every thread's table since the last snapshot,
 * then a PSNAP record (SP_PROFILE_SNAPSHOT; the writer thread, every
 * interval). Takes the token itself; not in a signal handler. */
SP_HIDDEN void sp__prof_snapshot(void);
/* Counters of every table: folded, mismatched, unmatched, invalid, and
 * calls not recorded for want of memory for a table. */
SP_HIDDEN void sp__prof_counters(uint64_t out[5]);
SP_HIDDEN void sp__prof_after_fork(void);

#endif /* SP_PROFILE_H */
