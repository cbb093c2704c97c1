/* writer.c - the writer thread: takes the chunks threads hand off, appends
 * them to the stream and gives their memory back to the pool, so recording
 * threads never write files. Started on the first hand-off. */
#include "internal.h"
#include "profile.h"

#include <signal.h>
#include <string.h>
#include <time.h>

#define WRITER_STACK ((size_t)1 << 20) /* its deepest path: the snapshot */

static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qcond = PTHREAD_COND_INITIALIZER;
static sp__chunk_t *q_head, *q_tail;
static int q_len, writing, stop_req, started;
static int64_t tick_ns; /* profile mode: between snapshots; 0 none */
static int tick_new;    /* tick_ns just set: the first interval from now */
static int tick_off;    /* the queue's wait cannot take CLOCK_MONOTONIC */
static pthread_t thread;
static __thread int i_am_writer;

int sp__writer_is_me(void) { return i_am_writer; }

int sp__writer_busy(void) {
  pthread_mutex_lock(&qlock);
  int busy = q_len > 0 || writing;
  pthread_mutex_unlock(&qlock);
  return busy;
}

#define BATCH 256

/* Writes a batch under the token; the chunks are free (state) before the
 * token goes back, so a signal handler that takes it next never writes
 * them twice. The token may be held a while by an exec or MPI_Abort
 * flushing the stream: wait for it (only a handler never gives it back). */
static void write_batch(sp__chunk_t **cs, int n, int64_t *last_clock) {
  if (!sp__stream_acquire(60000))
    return; /* a handler owns the stream now and writes what is queued */
  if (sp__stream_open(1) == 0 && sp__stream_regions() == 0) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    if (now - *last_clock > 1000000000) { /* keeps the mapping current */
      sp__stream_clock();
      *last_clock = now;
    }
    sp__stream_chunks(cs, n);
    sp__mpi_msgs_full(); /* the MPI layer's full chunks of messages */
  } else {
    for (int i = 0; i < n; i++)
      if (cs[i]->kind == SP__CH_CALLS)
        atomic_fetch_add(&sp__lost_calls, (uint64_t)SP__CALLS(cs[i])->count);
  }
  for (int i = 0; i < n; i++)
    __atomic_store_n(&cs[i]->state, SP__CH_FREE, __ATOMIC_RELEASE);
  sp__token_give();
  sp__chunks_put(cs, n);
}

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Waits for chunks or the stop (qlock held); in profile mode a snapshot
 * is written (qlock released) each time *next comes, and then every
 * tick_ns: an interval is never cut short by the chunks of a trace. */
static void wait_work(int64_t *next) {
  while (!q_head && !stop_req) {
    if (tick_new) {
      tick_new = 0;
      *next = mono_ns() + tick_ns;
    }
    if (!tick_ns) {
      pthread_cond_wait(&qcond, &qlock);
      continue;
    }
    int64_t now = mono_ns();
    if (now >= *next) {
      pthread_mutex_unlock(&qlock);
      sp__prof_snapshot();
      pthread_mutex_lock(&qlock);
      now = mono_ns();
      *next = now + tick_ns;
      continue;
    }
    struct timespec ts = {(time_t)(*next / 1000000000),
                          (long)(*next % 1000000000)};
    pthread_cond_timedwait(&qcond, &qlock, &ts);
  }
}

static void *writer_main(void *arg) {
  (void)arg;
  i_am_writer = 1;
  sp__chunk_t *batch[BATCH];
  int64_t last_clock = 0;
  pthread_mutex_lock(&qlock);
  int64_t next = mono_ns() + tick_ns;
  for (;;) {
    wait_work(&next);
    if (!q_head)
      break;
    sp__chunk_t *list = q_head;
    q_head = q_tail = NULL;
    writing = 1;
    pthread_mutex_unlock(&qlock);
    while (list) {
      int n = 0;
      while (list && n < BATCH) {
        batch[n++] = list;
        list = list->next;
      }
      pthread_mutex_lock(&qlock);
      q_len -= n;
      pthread_mutex_unlock(&qlock);
      write_batch(batch, n, &last_clock);
    }
    pthread_mutex_lock(&qlock);
    writing = 0;
  }
  pthread_mutex_unlock(&qlock);
  return NULL;
}

/* The writer takes no signal meant for the process: a handler must run on
 * a thread that is not the one holding the stream. */
static int start(void) {
  /* The snapshots' deadlines are on CLOCK_MONOTONIC (no waiter now: qlock
   * is held, and the thread is not started). */
  pthread_condattr_t ca;
  if (pthread_condattr_init(&ca) == 0) {
    if (pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0) {
      pthread_cond_destroy(&qcond);
      pthread_cond_init(&qcond, &ca);
    } else {
      tick_off = 1; /* a deadline on another clock: none rather than wrong */
      tick_ns = 0;
    }
    pthread_condattr_destroy(&ca);
  }
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  /* A stack of its own size, not the program's default (8 MiB, or what
   * RLIMIT_STACK says): under ulimit -v every byte of address space the
   * runtime takes is one the program cannot have. */
  pthread_attr_t attr;
  int have_attr = pthread_attr_init(&attr) == 0 &&
                  pthread_attr_setstacksize(&attr, WRITER_STACK) == 0;
  int rc = pthread_create(&thread, have_attr ? &attr : NULL, writer_main, NULL);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

void sp__writer_start(void) {
  pthread_mutex_lock(&qlock);
  if (!started && !stop_req)
    started = start() == 0 ? 1 : -1;
  pthread_mutex_unlock(&qlock);
}

void sp__writer_push(sp__chunk_t *c) {
  c->next = NULL;
  /* The stream's metadata (what allocates) gathered here, before the
   * writer exists: a thread that never calls malloc costs no arena of
   * glibc's (64 MiB of address space each). Not under qlock: fork takes
   * the metadata's lock first. */
  sp__stream_meta_prepare();
  pthread_mutex_lock(&qlock);
  if (!started && !stop_req)
    started = start() == 0 ? 1 : -1;
  if (started < 0) { /* no thread to be had: write it here */
    pthread_mutex_unlock(&qlock);
    int64_t last = 0;
    write_batch(&c, 1, &last);
    return;
  }
  if (q_tail)
    q_tail->next = c;
  else
    q_head = c;
  q_tail = c;
  q_len++;
  pthread_cond_signal(&qcond);
  pthread_mutex_unlock(&qlock);
}

void sp__writer_ticks(void) {
  pthread_mutex_lock(&qlock);
  if (!tick_ns && !stop_req && !tick_off) {
    if (SP__TEST_CFG(test_snapshot_fd, -1) >= 0)
      tick_ns = 10000000;
    else
      tick_ns = (int64_t)sp__cfg.profile_snapshot * 1000000000;
    /* A writer started before (at init) counts the first interval from
     * now, as one started now does. */
    tick_new = tick_ns != 0;
    if (tick_ns && !started)
      started = start() == 0 ? 1 : -1;
    else if (tick_ns)
      pthread_cond_signal(&qcond);
  }
  pthread_mutex_unlock(&qlock);
}

void sp__writer_stop(void) {
  pthread_mutex_lock(&qlock);
  stop_req = 1;
  int was = started;
  pthread_cond_signal(&qcond);
  pthread_mutex_unlock(&qlock);
  if (was > 0)
    pthread_join(thread, NULL);
  pthread_mutex_lock(&qlock);
  started = 0;
  pthread_mutex_unlock(&qlock);
}

void sp__writer_lock(void) { pthread_mutex_lock(&qlock); }
void sp__writer_unlock(void) { pthread_mutex_unlock(&qlock); }

/* A forked child has no writer thread and owns none of the queued chunks
 * (the pool takes them back). */
void sp__writer_after_fork(void) { /* qlock held since fork_prepare */
  q_head = q_tail = NULL;
  q_len = writing = stop_req = started = 0;
  tick_ns = 0; /* the child's first table starts them again */
  i_am_writer = 0;
  pthread_cond_init(&qcond, NULL);
  pthread_mutex_unlock(&qlock);
}
