/* requests.c - the nonblocking calls' requests in flight, from their start
 * to the call that completes them, on the thread that began them or on
 * another: the completion's message (its origin, a receive's source and
 * bytes from the status). */
#include "comm.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Each thread's table is its own: only its thread puts entries in. Open
 * addressing over the request's value, deleted entries left as
 * tombstones, so that another thread that misses in its own table can
 * look here without a lock: it claims an entry by swapping its key for
 * CLAIMED (a CAS), copies it, and leaves a tombstone. The owner takes its
 * entries by a CAS too when MPI runs threads at once (MPI_THREAD_MULTIPLE),
 * by a plain store otherwise. Arrays a table outgrew are never freed:
 * another thread may still be reading one. */
enum { EMPTY = 0, TOMB = 1, CLAIMED = 2, FIRST_KEY = 3 };

typedef struct entry {
  uint64_t start;
  int32_t region;
  int32_t send;      /* 1: a send's, with its partner (world rank) and tag */
  int32_t peer, tag; /* (a receive's come from its status) */
  const sp_mpi__comm_info *ci;
} entry;

typedef struct pending {
  _Atomic uint64_t key;
  entry e;
} pending;

typedef struct parray {
  uint64_t cap; /* a power of two */
  pending slot[];
} parray;

typedef struct ptable {
  _Atomic(parray *) a;
  uint64_t live, used; /* entries; entries and tombstones */
  struct ptable *next; /* every table, newest first */
} ptable;

static _Atomic(ptable *) tables;
static _Atomic int ntables;
static int concurrent = -1; /* MPI_THREAD_MULTIPLE (-1: not asked yet) */

static __thread __attribute__((tls_model("initial-exec"))) struct {
  ptable *own;
  MPI_Request *reqs;
  MPI_Status *sts;
  uint64_t scratch; /* entries of reqs and sts */
} pt;

static uint64_t req_key(MPI_Request q) {
  uint64_t k = 0;
  memcpy(&k, &q, sizeof q < sizeof k ? sizeof q : sizeof k);
  return k && k < FIRST_KEY ? k | 1ull << 63 : k; /* 0: none */
}

static uint64_t hash_key(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return k;
}

static ptable *own_table(void) {
  if (pt.own)
    return pt.own;
  if (__atomic_load_n(&concurrent, __ATOMIC_RELAXED) < 0) {
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    __atomic_store_n(&concurrent, level == MPI_THREAD_MULTIPLE,
                     __ATOMIC_RELAXED);
  }
  ptable *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->next = atomic_load(&tables);
  while (!atomic_compare_exchange_weak(&tables, &t->next, t))
    ;
  atomic_fetch_add(&ntables, 1);
  return pt.own = t;
}

/* key's slot taken from old (its value now new): by a CAS when another
 * thread may claim it at the same time. */
static int claim(pending *p, uint64_t key, uint64_t new) {
  if (__atomic_load_n(&concurrent, __ATOMIC_RELAXED) > 0)
    return atomic_compare_exchange_strong(&p->key, &key, new);
  if (atomic_load_explicit(&p->key, memory_order_relaxed) != key)
    return 0;
  atomic_store_explicit(&p->key, new, memory_order_release);
  return 1;
}

/* t's array with room for one more entry, its tombstones dropped. */
static parray *grow(ptable *t) {
  parray *a = atomic_load_explicit(&t->a, memory_order_relaxed);
  if (a && (t->used + 1) * 2 <= a->cap)
    return a;
  uint64_t cap = 256;
  while (cap < (t->live + 1) * 4)
    cap *= 2;
  parray *b = calloc(1, sizeof *b + cap * sizeof(pending));
  if (!b)
    return NULL;
  b->cap = cap;
  uint64_t live = 0;
  for (uint64_t i = 0; a && i < a->cap; i++) {
    pending *p = &a->slot[i];
    uint64_t k = atomic_load_explicit(&p->key, memory_order_acquire);
    if (k < FIRST_KEY)
      continue;
    entry copy = p->e;
    if (!claim(p, k, TOMB)) /* another thread took it meanwhile */
      continue;
    uint64_t j = hash_key(k) & (cap - 1);
    while (atomic_load_explicit(&b->slot[j].key, memory_order_relaxed))
      j = (j + 1) & (cap - 1);
    b->slot[j].e = copy;
    atomic_store_explicit(&b->slot[j].key, k, memory_order_relaxed);
    live++;
  }
  t->live = t->used = live;
  atomic_store_explicit(&t->a, b, memory_order_release);
  return b;
}

void sp_mpi__req_begun(uint64_t start, int r, const sp_mpi__comm_info *ci,
                       int send, int32_t peer, int32_t tag, MPI_Request req) {
  uint64_t key = req_key(req);
  ptable *t;
  parray *a;
  if (!start || !key || !(t = own_table()) || !(a = grow(t)))
    return;
  uint64_t mask = a->cap - 1, j = hash_key(key) & mask, free_at = UINT64_MAX;
  /* A receive's request replaces a stale one of the same value; sends may
   * share one (OpenMPI hands every send it completed at once the same
   * empty request), each an entry of its own. */
  for (uint64_t k; (k = atomic_load_explicit(&a->slot[j].key,
                                             memory_order_relaxed)) != EMPTY;
       j = (j + 1) & mask) {
    if (k == TOMB && free_at == UINT64_MAX)
      free_at = j;
    if (k == key && !send && !a->slot[j].e.send &&
        claim(&a->slot[j], k, TOMB)) {
      t->live--;
      free_at = j;
      break;
    }
  }
  if (free_at == UINT64_MAX) {
    free_at = j;
    t->used++;
  }
  a->slot[free_at].e = (entry){start, r, send, peer, tag, ci};
  atomic_store_explicit(&a->slot[free_at].key, key, memory_order_release);
  t->live++;
}

/* key's entry out of t into *out, the earliest begun of several when t is
 * this thread's (another's: the first found); 0 if none. */
static int take(ptable *t, uint64_t key, entry *out, int mine) {
  parray *a = atomic_load_explicit(&t->a, memory_order_acquire);
  if (!a)
    return 0;
  uint64_t mask = a->cap - 1;
  for (;;) {
    uint64_t j = UINT64_MAX;
    for (uint64_t k = hash_key(key) & mask;
         atomic_load_explicit(&a->slot[k].key, memory_order_acquire) != EMPTY;
         k = (k + 1) & mask)
      if (atomic_load_explicit(&a->slot[k].key, memory_order_relaxed) == key &&
          (j == UINT64_MAX || a->slot[k].e.start < a->slot[j].e.start)) {
        j = k;
        if (!mine)
          break;
      }
    if (j == UINT64_MAX)
      return 0;
    pending *p = &a->slot[j];
    if (mine) {
      *out = p->e;
      if (!claim(p, key, TOMB))
        continue; /* another thread took it: look again */
      t->live--;
      return 1;
    }
    uint64_t k = key;
    if (!atomic_compare_exchange_strong(&p->key, &k, CLAIMED))
      continue;
    *out = p->e;
    atomic_store_explicit(&p->key, TOMB, memory_order_release);
    return 1;
  }
}

/* key's entry: this thread's, else (the rare miss) another thread's. */
static int find(uint64_t key, entry *out) {
  if (pt.own && pt.own->live && take(pt.own, key, out, 1))
    return 1;
  if (atomic_load_explicit(&ntables, memory_order_relaxed) < 1 + !!pt.own)
    return 0;
  for (ptable *t = atomic_load(&tables); t; t = t->next) {
    if (t == pt.own)
      continue;
    parray *a = atomic_load_explicit(&t->a, memory_order_acquire);
    if (take(t, key, out, 0))
      return 1;
    /* the owner moved its entries to a new array meanwhile: again */
    if (a != atomic_load_explicit(&t->a, memory_order_acquire) &&
        take(t, key, out, 0))
      return 1;
  }
  return 0;
}

int sp_mpi__reqs_any(void) {
  return (pt.own && pt.own->live) ||
         atomic_load_explicit(&ntables, memory_order_relaxed) > !!pt.own;
}

static int cancelled(const MPI_Status *st) {
#if defined(OPEN_MPI)
  return st->_cancelled != 0;
#elif defined(MPICH_VERSION)
  return st->count_hi_and_cancelled & 1;
#else
  int c = 0;
  return PMPI_Test_cancelled(st, &c) == MPI_SUCCESS && c;
#endif
}

void sp_mpi__req_done(int r, MPI_Request req, const MPI_Status *st) {
  entry p;
  uint64_t key = req_key(req);
  if (!key || !find(key, &p) || cancelled(st))
    return; /* a cancelled request moved nothing */
  sp__mpi_msg m = {0};
  m.origin = p.start;
  m.region = r;
  m.origin_region = p.region;
  m.kind = p.send ? SP_MPI_K_WAITSEND : SP_MPI_K_WAITRECV;
  m.peer = p.send ? p.peer : sp_mpi__world_of(p.ci, st->MPI_SOURCE);
  m.tag = p.send ? p.tag : st->MPI_TAG;
  m.comm = p.ci->id;
  m.root = -1;
  m.recvd = p.send ? 0 : sp_mpi__status_bytes(st);
  sp__mpi_note(r, &m, 1);
}

void sp_mpi__req_forget(MPI_Request req) {
  entry p;
  uint64_t key = req_key(req);
  if (key && sp_mpi__reqs_any())
    find(key, &p);
}

MPI_Request *sp_mpi__req_scratch(int n, MPI_Status **sts) {
  if ((uint64_t)n > pt.scratch) {
    uint64_t cap = (uint64_t)n < 64 ? 64 : (uint64_t)n;
    MPI_Request *q = malloc(cap * sizeof *q);
    MPI_Status *s = malloc(cap * sizeof *s);
    if (!q || !s) {
      free(q);
      free(s);
      return NULL;
    }
    free(pt.reqs);
    free(pt.sts);
    pt.reqs = q, pt.sts = s, pt.scratch = cap;
  }
  *sts = pt.sts;
  return pt.reqs;
}
