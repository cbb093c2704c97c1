/* mpi_msgs.c - what the MPI layer's calls sent and received (sp__mpi_note):
 * per-thread chunks of message records that go to the stream as MPI
 * records when full and with everything else at a flush; communicators'
 * members as COMM records. */
#include "internal.h"
#include "sp_mpi_hooks.h"

#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

_Static_assert(sizeof(sp__mpi_msg) == sizeof(sp_stream_mpimsg) &&
                   offsetof(sp__mpi_msg, sent) ==
                       offsetof(sp_stream_mpimsg, sent) &&
                   offsetof(sp__mpi_msg, kind) ==
                       offsetof(sp_stream_mpimsg, kind),
               "sp__mpi_msg is the stream's sp_stream_mpimsg");

/* One thread's records, 64 KiB. The owner appends at n (published with a
 * release store); whoever holds the stream's token writes [done, n). */
#define SP__MSG_CAP ((65536 - 64) / sizeof(sp_stream_mpimsg))
typedef struct sp__msgs {
  struct sp__msgs *next; /* every chunk ever made, newest first */
  int64_t n, done;       /* n: atomic */
  int32_t thread;
  uint32_t pad_[9];
  sp_stream_mpimsg m[SP__MSG_CAP];
} sp__msgs_t;

static _Atomic(sp__msgs_t *) all_msgs;
static __thread sp__msgs_t *my_msgs;
static _Atomic uint64_t msgs_lost;

/* The records [done, n) of c as one MPI record (token held). */
static int put_msgs(sp__msgs_t *c) {
  int64_t n = __atomic_load_n(&c->n, __ATOMIC_ACQUIRE);
  if (n <= c->done)
    return 0;
  /* Built whole in one buffer (token held, so one buffer serves every
   * thread): one record, one write, one hint. */
  static _Alignas(8) unsigned char
      whole[sizeof(sp_stream_rec) + sizeof(sp_stream_mpi) + sizeof c->m];
  sp_stream_rec rec;
  sp_stream_mpi head = {c->thread, 0, n - c->done};
  rec.type = SP_STREAM_MPI;
  rec.size = (uint32_t)(sizeof rec + sizeof head +
                        (size_t)(n - c->done) * sizeof(sp_stream_mpimsg));
  memcpy(whole + sizeof rec, &head, sizeof head);
  memcpy(whole + sizeof rec + sizeof head, &c->m[c->done],
         (size_t)(n - c->done) * sizeof(sp_stream_mpimsg));
  rec.check = sp_stream_check(rec.type, rec.size, whole + sizeof rec);
  memcpy(whole, &rec, sizeof rec);
  struct iovec one = {whole, rec.size};
  if (sp__stream_put(&one, 1) != 0)
    return -1;
  c->done = n;
  return 0;
}

int sp__mpi_msgs_stream(void) {
  int rc = 0;
  for (sp__msgs_t *c = atomic_load(&all_msgs); c; c = c->next)
    if (put_msgs(c) != 0)
      rc = -1;
  return rc;
}

/* A full chunk to the stream, then reused. */
static int drain(sp__msgs_t *c) {
  if (!sp__stream_acquire(2000))
    return -1;
  int ok =
      sp__stream_open(1) == 0 && sp__stream_regions() == 0 && put_msgs(c) == 0;
  if (ok) {
    c->done = 0;
    __atomic_store_n(&c->n, 0, __ATOMIC_RELEASE);
  }
  sp__token_give();
  return ok ? 0 : -1;
}

static sp__msgs_t *new_msgs(int32_t thread) {
  void *m = mmap(NULL, sizeof(sp__msgs_t), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return NULL;
  sp__msgs_t *c = m;
  c->thread = thread;
  c->next = atomic_load(&all_msgs);
  while (!atomic_compare_exchange_weak(&all_msgs, &c->next, c))
    ;
  return c;
}

/* The start stamp of the call of region open on t, or 0. */
static uint64_t open_start(const sp__thread_t *t, int region) {
  uint32_t d = t->depth;
  if (!d || (t->stack[d - 1].region & ~SP__DETACHED) != (uint32_t)region)
    return 0;
  const sp__frame_t *f = &t->stack[d - 1];
  if (f->flags & (SP__F_DROPPED | SP__F_PAUSED))
    return 0;
  return (f->region & SP__DETACHED) ? f->start : f->slot->start;
}

SP_API uint64_t sp__mpi_note(int region, sp__mpi_msg *m, int n) {
  sp__thread_t *t = sp__tls;
  if (!t || n <= 0 || atomic_load(&sp__state) != SP__RUNNING)
    return 0;
  uint64_t start = open_start(t, region);
  if (!start)
    return 0;
  sp__msgs_t *c = my_msgs;
  if (SP_UNLIKELY(!c || c->thread != t->index)) {
    if (!(c = my_msgs = new_msgs(t->index))) {
      atomic_fetch_add(&msgs_lost, (uint64_t)n);
      return 0;
    }
  }
  int64_t at = c->n;
  if (SP_UNLIKELY(at + n > (int64_t)SP__MSG_CAP)) {
    if (drain(c) != 0) {
      atomic_fetch_add(&msgs_lost, (uint64_t)n);
      return start;
    }
    at = 0;
  }
  for (int i = 0; i < n; i++) {
    m[i].start = start;
    memcpy(&c->m[at + i], &m[i], sizeof m[i]);
  }
  __atomic_store_n(&c->n, at + n, __ATOMIC_RELEASE);
  return start;
}

SP_API void sp__mpi_comm(int32_t id, int32_t size, const int32_t *world) {
  if (size < 0 || size > (1 << 24) || atomic_load(&sp__state) != SP__RUNNING ||
      !sp__stream_acquire(2000))
    return;
  if (sp__stream_open(1) == 0) {
    sp_stream_comm h = {id, size};
    size_t len = sizeof h + (size_t)size * 4, pad = (8 - len % 8) % 8;
    sp_stream_rec rec = {SP_STREAM_COMM, (uint32_t)(sizeof rec + len + pad), 0};
    size_t blen = len + pad;
    unsigned char *b = mmap(NULL, blen, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b != MAP_FAILED) {
      memcpy(b, &h, sizeof h);
      memcpy(b + sizeof h, world, (size_t)size * 4);
      rec.check = sp_stream_check(rec.type, rec.size, b);
      unsigned char *whole = mmap(NULL, rec.size, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (whole != MAP_FAILED) {
        memcpy(whole, &rec, sizeof rec);
        memcpy(whole + sizeof rec, b, blen);
        struct iovec one = {whole, rec.size};
        sp__stream_put(&one, 1);
        munmap(whole, rec.size);
      }
      munmap(b, blen);
    }
  }
  sp__token_give();
}

uint64_t sp__mpi_msgs_lost(void) { return atomic_load(&msgs_lost); }
