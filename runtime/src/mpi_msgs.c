/* mpi_msgs.c - what the MPI layer's calls sent and received (sp__mpi_note):
 * per-thread chunks of message records, handed to the writer thread when
 * full and written with everything else at a flush; communicators'
 * members as COMM records. */
#include "hotpath.h"
#include "internal.h"
#include "sp_mpi_hooks.h"

#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

_Static_assert(sizeof(sp_stream_mpislot) == 32 &&
                   sizeof(sp_stream_mpiext) == 32 &&
                   offsetof(sp_stream_mpiext, kind) ==
                       offsetof(sp_stream_mpislot, kind),
               "a message is one or two 32-byte slots");

/* One thread's records, 64 KiB, laid out so that from rec on it is the
 * stream record as written (when written from its first record). The
 * owner appends at n (published with a release store); whoever holds the
 * stream's token writes [done, n). */
#define SP__MSG_CAP ((65536 - 96) / sizeof(sp_stream_mpislot))
typedef struct sp__msgs {
  struct sp__msgs *next;  /* every chunk ever made, newest first */
  struct sp__msgs *queue; /* the full list or the free list */
  int64_t n, done;        /* atomic */
  int32_t thread;
  uint32_t pad_[3];
  sp_stream_rec rec;
  sp_stream_mpi head;
  sp_stream_mpislot m[SP__MSG_CAP];
} sp__msgs_t;
_Static_assert(offsetof(sp__msgs_t, head) ==
                       offsetof(sp__msgs_t, rec) + sizeof(sp_stream_rec) &&
                   offsetof(sp__msgs_t, m) ==
                       offsetof(sp__msgs_t, head) + sizeof(sp_stream_mpi),
               "a chunk is its record");

static _Atomic(sp__msgs_t *) all_msgs;
/* Full chunks for the writer thread (a stack: the order of records does
 * not matter, each says its thread and stamps), and written ones to reuse. */
static _Atomic(sp__msgs_t *) full;
static pthread_mutex_t free_lock = PTHREAD_MUTEX_INITIALIZER;
static sp__msgs_t *free_list;
static __thread sp__msgs_t *my_msgs;
static _Atomic uint64_t msgs_lost;

/* The records [done, n) of c as one MPI record (token held). */
static int put_msgs(sp__msgs_t *c) {
  int64_t n = __atomic_load_n(&c->n, __ATOMIC_ACQUIRE);
  int64_t done = __atomic_load_n(&c->done, __ATOMIC_RELAXED);
  if (n <= done)
    return 0;
  uint32_t size = (uint32_t)(sizeof(sp_stream_rec) + sizeof(sp_stream_mpi) +
                             (size_t)(n - done) * sizeof(sp_stream_mpislot));
  sp_stream_rec *rec = &c->rec;
  if (done) { /* a flush wrote the first ones: the rest through a copy */
    static _Alignas(8) unsigned char
        whole[sizeof(sp_stream_rec) + sizeof(sp_stream_mpi) + sizeof c->m];
    memcpy(whole + sizeof *rec + sizeof c->head, &c->m[done],
           (size_t)(n - done) * sizeof(sp_stream_mpislot));
    rec = (sp_stream_rec *)(void *)whole;
  }
  sp_stream_mpi *head = (sp_stream_mpi *)(void *)(rec + 1);
  *head = (sp_stream_mpi){c->thread, 0, n - done};
  rec->type = SP_STREAM_MPI;
  rec->size = size;
  rec->check = sp_stream_check(rec->type, size, head);
  struct iovec one = {rec, size};
  if (sp__stream_put(&one, 1) != 0)
    return -1;
  __atomic_store_n(&c->done, n, __ATOMIC_RELAXED);
  return 0;
}

/* The full chunks (token held), then back to the free list. */
int sp__mpi_msgs_full(void) {
  sp__msgs_t *c = atomic_exchange(&full, NULL);
  int rc = 0;
  while (c) {
    sp__msgs_t *next = c->queue;
    if (put_msgs(c) != 0) {
      atomic_fetch_add(&msgs_lost,
                       (uint64_t)(__atomic_load_n(&c->n, __ATOMIC_RELAXED) -
                                  __atomic_load_n(&c->done, __ATOMIC_RELAXED)));
      __atomic_store_n(&c->done, c->n, __ATOMIC_RELAXED);
      rc = -1;
    }
    pthread_mutex_lock(&free_lock);
    c->queue = free_list;
    free_list = c;
    pthread_mutex_unlock(&free_lock);
    c = next;
  }
  return rc;
}

int sp__mpi_msgs_stream(void) {
  int rc = 0;
  for (sp__msgs_t *c = atomic_load(&all_msgs); c; c = c->next)
    if (put_msgs(c) != 0)
      rc = -1;
  return rc;
}

/* A chunk for thread: a written one, else a new one. */
static sp__msgs_t *get_msgs(int32_t thread) {
  pthread_mutex_lock(&free_lock);
  sp__msgs_t *c = free_list;
  if (c)
    free_list = c->queue;
  pthread_mutex_unlock(&free_lock);
  if (c) {
    /* done == n: nothing of it is pending, whoever looks now */
    __atomic_store_n(&c->n, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&c->done, 0, __ATOMIC_RELEASE);
    c->thread = thread;
    return c;
  }
  void *m = mmap(NULL, sizeof(sp__msgs_t), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return NULL;
  c = m;
  c->thread = thread;
  c->next = atomic_load(&all_msgs);
  while (!atomic_compare_exchange_weak(&all_msgs, &c->next, c))
    ;
  return c;
}

/* The start stamp of the call of region open on t, or 0. */
static inline __attribute__((always_inline)) uint64_t
open_start(const sp__thread_t *t, int region) {
  uint32_t d = t->depth;
  if (!d || (t->stack[d - 1].region & ~SP__DETACHED) != (uint32_t)region)
    return 0;
  const sp__frame_t *f = &t->stack[d - 1];
  /* flags mean something only on a detached frame (record.c) */
  if ((f->region & SP__DETACHED) && (f->flags & SP__F_DROPPED))
    return 0;
  return (f->region & SP__DETACHED) ? f->start : f->slot->start;
}

/* Room for k slots in this thread's chunk, a full one handed to the
 * writer thread; NULL when no chunk can be had (n messages lost). */
static __attribute__((noinline)) sp__msgs_t *room_slow(const sp__thread_t *t,
                                                       int64_t k, int n) {
  sp__msgs_t *c = my_msgs;
  if (c && c->thread == t->index &&
      __atomic_load_n(&c->n, __ATOMIC_RELAXED) + k <= (int64_t)SP__MSG_CAP)
    return c;
  if (c && c->n) { /* full: to the writer thread */
    c->queue = atomic_load(&full);
    while (!atomic_compare_exchange_weak(&full, &c->queue, c))
      ;
  }
  if (!(c = my_msgs = get_msgs(t->index)))
    atomic_fetch_add(&msgs_lost, (uint64_t)n);
  return c;
}

static inline sp__msgs_t *room(const sp__thread_t *t, int64_t k, int n) {
  sp__msgs_t *c = my_msgs;
  if (SP_LIKELY(c && c->thread == t->index && c->n + k <= (int64_t)SP__MSG_CAP))
    return c;
  return room_slow(t, k, n);
}

/* The call of region open on this thread, or 0 if none is recorded. */
static inline uint64_t call_start(sp__thread_t **tp, int region) {
  sp__thread_t *t = sp__tls;
  *tp = t;
  if (SP_UNLIKELY(!t || atomic_load_explicit(
                            &sp__state, memory_order_relaxed) != SP__RUNNING))
    return 0;
  return open_start(t, region);
}

/* m's slots at s: 2 if it needs an ext slot, else 1. */
static int put_slots(sp_stream_mpislot *s, const sp__mpi_msg *m,
                     uint64_t start) {
  int in = m->kind == SP_MPI_K_RECV || m->kind == SP_MPI_K_IRECV ||
           m->kind == SP_MPI_K_WAITRECV;
  int64_t bytes = in ? m->recvd : m->sent, other = in ? m->sent : m->recvd;
  int ext = m->origin || m->origin_region >= 0 || m->root >= 0 || other ||
            (uint32_t)m->comm >= SP_MPI_SLOT_COMMS;
  *s = (sp_stream_mpislot){start,
                           bytes,
                           m->region,
                           m->peer,
                           m->tag,
                           ((uint32_t)m->kind & 0x7fu) |
                               (ext ? SP_MPI_SLOT_EXT : 0) |
                               (ext ? 0 : (uint32_t)m->comm << 8)};
  if (!ext)
    return 1;
  sp_stream_mpiext *e = (sp_stream_mpiext *)(void *)(s + 1);
  *e = (sp_stream_mpiext){m->origin, other,   m->origin_region,
                          m->root,   m->comm, 0};
  return 2;
}

/* note1's message through sp__mpi_note (a communicator a slot cannot
 * name) or into a new chunk: out of line, so that the common path keeps
 * its arguments in registers. */
static __attribute__((noinline)) void
note1_slow(const sp__thread_t *t, uint64_t start, int32_t region, int32_t kind,
           int32_t comm, int32_t peer, int32_t tag, int64_t bytes) {
  int in = kind == SP_MPI_K_RECV || kind == SP_MPI_K_IRECV ||
           kind == SP_MPI_K_WAITRECV;
  sp__mpi_msg m = {.region = region,
                   .origin_region = -1,
                   .kind = kind,
                   .peer = peer,
                   .tag = tag,
                   .comm = comm,
                   .root = -1,
                   .sent = in ? 0 : bytes,
                   .recvd = in ? bytes : 0};
  sp__msgs_t *c = room(t, 2, 1);
  if (!c)
    return;
  int64_t at = c->n;
  at += put_slots(&c->m[at], &m, start);
  __atomic_store_n(&c->n, at, __ATOMIC_RELEASE);
}

/* One slot at the end of c (room checked), published. */
static inline __attribute__((always_inline)) void
put1(sp__msgs_t *c, uint64_t start, int32_t region, int32_t kind, int32_t comm,
     int32_t peer, int32_t tag, int64_t bytes) {
  int64_t at = c->n;
  sp_stream_mpislot *s = &c->m[at];
  s->start = start;
  s->bytes = bytes;
  s->region = region;
  s->peer = peer;
  s->tag = tag;
  s->kind = (uint32_t)kind | (uint32_t)comm << 8;
  __atomic_store_n(&c->n, at + 1, __ATOMIC_RELEASE);
}

static inline __attribute__((always_inline)) uint64_t
note1(int32_t region, int32_t kind, int32_t comm, int32_t peer, int32_t tag,
      int64_t bytes) {
  sp__thread_t *t = sp__tls;
  if (SP_UNLIKELY(!t || atomic_load_explicit(
                            &sp__state, memory_order_relaxed) != SP__RUNNING))
    return 0;
  uint64_t start = open_start(t, region);
  if (!start)
    return 0;
  sp__msgs_t *c = my_msgs;
  if (SP_UNLIKELY(!c || c->thread != t->index || c->n >= (int64_t)SP__MSG_CAP ||
                  (uint32_t)comm >= SP_MPI_SLOT_COMMS)) {
    note1_slow(t, start, region, kind, comm, peer, tag, bytes);
    return start;
  }
  put1(c, start, region, kind, comm, peer, tag, bytes);
  return start;
}

SP_API uint64_t sp__mpi_note1(int32_t region, int32_t kind, int32_t comm,
                              int32_t peer, int32_t tag, int64_t bytes) {
  return note1(region, kind, comm, peer, tag, bytes);
}

/* The common case in one pass over the thread's state: the call open in
 * an attached frame on top of its stack (as sp_end's fast path wants it),
 * room in the chunk; the message, then the call's end. */
SP_API void sp__mpi_note1_end(int32_t region, int32_t kind, int32_t comm,
                              int32_t peer, int32_t tag, int64_t bytes) {
  sp__thread_t *t = sp__tls;
  sp__msgs_t *c = my_msgs;
  uint32_t d;
  if (SP_LIKELY(t && SP__ACTIVE() == 1 && (d = t->depth) && !t->overflow &&
                t->stack[d - 1].region == region && c &&
                c->thread == t->index && c->n < (int64_t)SP__MSG_CAP &&
                (uint32_t)comm < SP_MPI_SLOT_COMMS &&
                atomic_load_explicit(&sp__state, memory_order_relaxed) ==
                    SP__RUNNING)) {
    sp__pair_t *p = t->stack[d - 1].slot;
    put1(c, p->start, region, kind, comm, peer, tag, bytes);
    uint64_t now = sp__now();
    t->depth = d - 1;
    SP__STORE(&p->end, now);
    return;
  }
  note1(region, kind, comm, peer, tag, bytes);
  sp__end_fast(region);
}

SP_API uint64_t sp__mpi_note(int region, const sp__mpi_msg *m, int n) {
  sp__thread_t *t;
  if (n <= 0 || n > 2)
    return 0;
  uint64_t start = call_start(&t, region);
  if (!start)
    return 0;
  sp__msgs_t *c = room(t, 2 * n, n);
  if (SP_UNLIKELY(!c))
    return start;
  int64_t at = c->n;
  for (int i = 0; i < n; i++)
    at += put_slots(&c->m[at], &m[i], start);
  __atomic_store_n(&c->n, at, __ATOMIC_RELEASE);
  return start;
}

SP_API void sp__mpi_comm(int32_t id, int32_t size, const int32_t *world) {
  if (size < 0 || size > (1 << 24) || atomic_load(&sp__state) != SP__RUNNING)
    return;
  size_t len = sizeof(sp_stream_rec) + sizeof(sp_stream_comm) +
               ((size_t)size * 4 + 7) / 8 * 8;
  unsigned char *b = mmap(NULL, len, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (b == MAP_FAILED)
    return;
  sp_stream_rec *rec = (sp_stream_rec *)(void *)b;
  sp_stream_comm *h = (sp_stream_comm *)(void *)(rec + 1);
  *h = (sp_stream_comm){id, size};
  memcpy(h + 1, world, (size_t)size * 4); /* the padding: mmap's zeros */
  rec->type = SP_STREAM_COMM;
  rec->size = (uint32_t)len;
  rec->check = sp_stream_check(rec->type, rec->size, h);
  if (sp__stream_acquire(2000)) {
    if (sp__stream_open(1) == 0) {
      struct iovec one = {b, len};
      sp__stream_put(&one, 1);
    }
    sp__token_give();
  }
  munmap(b, len);
}

uint64_t sp__mpi_msgs_lost(void) { return atomic_load(&msgs_lost); }

/* The forking thread alone runs in the child: every chunk counts as
 * written, and the free list's lock starts free. */
void sp__mpi_msgs_after_fork(void) {
  for (sp__msgs_t *c = atomic_load(&all_msgs); c; c = c->next)
    __atomic_store_n(&c->done, __atomic_load_n(&c->n, __ATOMIC_RELAXED),
                     __ATOMIC_RELAXED);
  pthread_mutex_init(&free_lock, NULL);
}
