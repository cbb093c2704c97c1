/* signals.c - endings by signal: what is still in memory goes to the stream
 * with async-signal-safe code only, then the signal takes the effect it
 * would have had without ScopeProf (the program's own handler, or the
 * default action with its exit status and core dump). */
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

/* Signals batch systems send before a kill, and those of a crash. The
 * table is the one place that lists them. */
static const int handled[] = {SIGTERM, SIGINT,  SIGHUP,  SIGQUIT, SIGXCPU,
                              SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGSEGV,
                              SIGBUS,  SIGFPE,  SIGILL,  SIGABRT, SIGSYS};
#define NHANDLED (sizeof handled / sizeof handled[0])
static _Atomic int flushed;

/* What the program sees as each signal's action: what it set last through
 * sigaction or signal (or what was there before ScopeProf started), while
 * the kernel keeps calling on_signal, which runs it. A handler installed
 * later (libgfortran's backtrace handler is, from main) is thus chained
 * behind the flush instead of replacing it. Written under view_lock with
 * every signal blocked; on_signal reads it under the sequence count (odd
 * while a write is in progress), so it never takes a lock. */
static struct {
  _Atomic unsigned seq;
  struct sigaction act;
} view[NHANDLED];
static atomic_flag view_lock = ATOMIC_FLAG_INIT;
static _Atomic int managing; /* set once the handlers are in */

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
static _Atomic(sigaction_fn) real_sa;

/* The C library's sigaction, found before any handler can need it. */
SP_PRESANITIZER static sigaction_fn real_sigaction(void) {
  sigaction_fn f = atomic_load(&real_sa);
  if (!f) {
    f = (sigaction_fn)(uintptr_t)dlsym(RTLD_NEXT, "sigaction");
    if (!f)
      f = (sigaction_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "__sigaction");
    atomic_store(&real_sa, f);
  }
  return f;
}

SP_PRESANITIZER static int slot_of(int sig) {
  for (unsigned i = 0; i < NHANDLED; i++)
    if (handled[i] == sig)
      return (int)i;
  return -1;
}

static void view_read(int k, struct sigaction *out) {
  for (;;) {
    unsigned s = atomic_load(&view[k].seq);
    if (s & 1)
      continue;
    memcpy(out, &view[k].act, sizeof *out);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load(&view[k].seq) == s)
      return;
  }
}

/* The caller holds view_lock. */
static void view_write(int k, const struct sigaction *act) {
  atomic_fetch_add(&view[k].seq, 1);
  atomic_thread_fence(memory_order_release);
  memcpy(&view[k].act, act, sizeof *act);
  atomic_fetch_add(&view[k].seq, 1);
}

static void lock_views(sigset_t *saved) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, saved);
  while (atomic_flag_test_and_set(&view_lock))
    ;
}

static void unlock_views(const sigset_t *saved) {
  atomic_flag_clear(&view_lock);
  pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static int ignores(const struct sigaction *a) {
  return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_IGN;
}

static int is_crash(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
         sig == SIGABRT || sig == SIGSYS;
}

/* The final write's temporaries: a signal that ends the process while
 * they are written removes them (the stream keeps the calls), so nothing
 * half-written stays beside the profile. */
static char pending[2][PATH_MAX + 64];
static _Atomic int pending_set[2];

void sp__pending_tmp(int slot, const char *path) {
  atomic_store(&pending_set[slot], 0);
  if (!path || snprintf(pending[slot], sizeof pending[slot], "%s", path) >=
                   (int)sizeof pending[slot])
    return;
  atomic_store(&pending_set[slot], 1);
}

void sp__test_raise(void) {
  if (SP__TEST_CFG(test_raise, 0) > 0)
    raise(SP__TEST_CFG(test_raise, 0));
}

/* Everything in memory to the stream, once; then the stream belongs to
 * this handler for good (the process is about to end). */
static void flush(int sig) {
  if (atomic_exchange(&flushed, 1))
    return;
  for (int i = 0; i < 2; i++)
    if (atomic_load(&pending_set[i]))
      unlink(pending[i]);
  int st = atomic_load(&sp__state);
  if (st != SP__RUNNING && st != SP__FINALIZING)
    return;
  /* Finalize has put everything in the stream already and is writing the
   * final file: the stream stays whole if that is cut short; a second
   * stream would only claim the rank twice. */
  if (atomic_load(&sp__stream_complete))
    return;
  /* A crash inside the writer itself: it holds the token, take it over. */
  if (!sp__token_take(SP__TOKEN_HANDLER, sp__writer_is_me() ? 0 : 2000))
    return;
  sp__stream_flush(sig, 0);
}

static void on_signal(int sig, siginfo_t *info, void *uc) {
  int saved = errno;
  int k = slot_of(sig);
  if (k < 0)
    return;
  struct sigaction old;
  view_read(k, &old);
  /* Set to be ignored while ours was still in place: it is ignored. */
  if (ignores(&old)) {
    errno = saved;
    return;
  }
  int own = (old.sa_flags & SA_SIGINFO) ? old.sa_sigaction != NULL
                                        : old.sa_handler != SIG_DFL;
  /* A program that handles a termination signal itself decides what
   * happens: it may well go on, and a normal exit writes the profile; if
   * its handler puts the default back and raises the signal again, that
   * comes back here and is flushed then. A crash is flushed first
   * whatever its handler does next. */
  if (!own || is_crash(sig))
    flush(sig);
  if (own) {
    /* The mask the kernel would have set for the program's handler. */
    sigset_t mask = ((ucontext_t *)uc)->uc_sigmask;
    for (int s = 1; s < NSIG; s++)
      if (sigismember(&old.sa_mask, s) == 1)
        sigaddset(&mask, s);
    if (!(old.sa_flags & SA_NODEFER))
      sigaddset(&mask, sig);
    if (old.sa_flags & SA_RESETHAND) { /* the kernel's one-shot, done here */
      struct sigaction dfl;
      sigset_t m;
      memset(&dfl, 0, sizeof dfl);
      dfl.sa_handler = SIG_DFL;
      lock_views(&m);
      view_write(k, &dfl);
      unlock_views(&m);
    }
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    if (old.sa_flags & SA_SIGINFO)
      old.sa_sigaction(sig, info, uc);
    else
      old.sa_handler(sig);
    errno = saved;
    return;
  }
  /* The default action: put it back and raise again; the signal is
   * blocked here, so it is delivered as this handler returns. A fault
   * re-raised this way still dumps core where it would have. */
  real_sigaction()(sig, &old, NULL);
  raise(sig);
  errno = saved;
}

/* on_signal as the kernel's action for signal k, standing for the
 * program's act: interrupted calls restart as act asks. */
static int install(int k, const struct sigaction *act) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  /* A crash may be a stack overflow: handled on the alternate stack. */
  sa.sa_flags = SA_SIGINFO | (act->sa_flags & (SA_RESTART | SA_ONSTACK)) |
                (is_crash(handled[k]) ? SA_ONSTACK : 0);
  sigfillset(&sa.sa_mask);
  return real_sigaction()(handled[k], &sa, NULL);
}

void sp__signals_install(void) {
  sigaction_fn real = real_sigaction();
  if (!real)
    return;
  sigset_t m;
  lock_views(&m);
  for (unsigned i = 0; i < NHANDLED; i++) {
    struct sigaction old;
    if (real(handled[i], NULL, &old) != 0)
      continue;
    view_write((int)i, &old);
    /* An ignored signal stays ignored: it cannot end the process. Ours
     * starts only when the program sets another action (sigaction). */
    if (!ignores(&old)) {
      /* What is there before us restarted calls, or it is the default
       * (which never returns to a call): SA_RESTART either way. */
      if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
        old.sa_flags |= SA_RESTART;
      install((int)i, &old);
    }
  }
  atomic_store(&managing, 1);
  unlock_views(&m);
  sp__altstack_thread();
}

/* ---- the program's calls that set a signal's action ----
 * The library defines them (as it does exec): for a signal ScopeProf
 * handles, the program's action becomes the one on_signal runs, and what
 * the program reads back is what it set, as without ScopeProf. SIG_IGN
 * goes to the kernel as it is: an ignored signal is never delivered. */
SP_API SP_PRESANITIZER int sigaction(int sig, const struct sigaction *act,
                     struct sigaction *old) {
  sigaction_fn real = real_sigaction();
  if (!real)
    return errno = ENOSYS, -1;
  int k = slot_of(sig);
  if (k < 0 || !atomic_load(&managing))
    return real(sig, act, old);
  sigset_t m;
  struct sigaction prev;
  int rc = 0;
  lock_views(&m);
  view_read(k, &prev);
  if (act) {
    rc = ignores(act) ? real(sig, act, NULL) : install(k, act);
    if (rc == 0)
      view_write(k, act);
  }
  int e = errno;
  unlock_views(&m);
  if (rc != 0)
    return errno = e, -1;
  if (old)
    *old = prev;
  return 0;
}

/* signal and its variants as the C library sets them up, over the
 * sigaction above. */
static sighandler_t set_handler(int sig, sighandler_t h, int flags) {
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = h;
  sa.sa_flags = flags;
  if (!(flags & SA_NODEFER))
    sigaddset(&sa.sa_mask, sig);
  if (sig <= 0 || sig >= NSIG || sigaction(sig, &sa, &old) != 0)
    return errno = EINVAL, SIG_ERR;
  return old.sa_handler;
}

/* BSD semantics: glibc's signal() and bsd_signal(). */
SP_API sighandler_t signal(int sig, sighandler_t h) {
  return set_handler(sig, h, SA_RESTART);
}
SP_API sighandler_t bsd_signal(int sig, sighandler_t h) {
  return set_handler(sig, h, SA_RESTART);
}
/* System V semantics: sysv_signal(), and signal() in a program compiled as
 * strict ISO C, which glibc's header turns into a call of __sysv_signal
 * (glibc's name, defined here because that is the symbol such a program
 * calls). */
SP_API sighandler_t sysv_signal(int sig, sighandler_t h) {
  return set_handler(sig, h, SA_RESETHAND | SA_NODEFER);
}
SP_API sighandler_t __sysv_signal(int sig, sighandler_t h) {
  return set_handler(sig, h, SA_RESETHAND | SA_NODEFER);
}

/* ---- an alternate signal stack per recording thread ----
 * A stack overflow's SIGSEGV can only be handled on another stack. Each
 * thread the runtime sees gets one, mapped once (with a guard page below,
 * so that a handler overflowing it faults instead of writing over other
 * memory) and recycled when the thread exits; a thread that has a
 * sigaltstack of its own keeps it. */
#define ALT_SIZE ((size_t)128 << 10)
typedef struct alt {
  struct alt *next;
  void *base; /* the mapping: guard page, stack, then this */
  size_t size;
} alt_t;
#define ALT_STACK (ALT_SIZE - 64) /* the top 64 bytes hold the alt_t */
static pthread_mutex_t alt_lock = PTHREAD_MUTEX_INITIALIZER;
static alt_t *alt_free;
static pthread_key_t alt_key;
static pthread_once_t alt_once = PTHREAD_ONCE_INIT;
static __thread int alt_done;

static void *alt_stack(const alt_t *a) {
  return (char *)a->base + a->size - ALT_SIZE;
}

static void alt_exit(void *arg) {
  alt_t *a = arg;
  stack_t cur;
  if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE) &&
      cur.ss_sp == alt_stack(a)) {
    stack_t off;
    memset(&off, 0, sizeof off);
    off.ss_flags = SS_DISABLE;
    if (sigaltstack(&off, NULL) != 0)
      return; /* still in use: leaked rather than shared */
  }
  pthread_mutex_lock(&alt_lock);
  a->next = alt_free;
  alt_free = a;
  pthread_mutex_unlock(&alt_lock);
}

static void alt_key_make(void) { pthread_key_create(&alt_key, alt_exit); }

void sp__altstack_thread(void) {
  if (alt_done || !atomic_load(&managing))
    return;
  alt_done = 1;
  stack_t cur;
  if (sigaltstack(NULL, &cur) != 0 || !(cur.ss_flags & SS_DISABLE))
    return; /* the program's own */
  pthread_once(&alt_once, alt_key_make);
  pthread_mutex_lock(&alt_lock);
  alt_t *a = alt_free;
  if (a)
    alt_free = a->next;
  pthread_mutex_unlock(&alt_lock);
  if (!a) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = page + ALT_SIZE;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      return;
    mprotect(p, page, PROT_NONE);
    a = (alt_t *)(void *)((char *)p + size - 64);
    a->base = p;
    a->size = size;
  }
  stack_t ss;
  memset(&ss, 0, sizeof ss);
  ss.ss_sp = alt_stack(a);
  ss.ss_size = ALT_STACK;
  if (sigaltstack(&ss, NULL) != 0) {
    alt_exit(a);
    return;
  }
  pthread_setspecific(alt_key, a);
}

void sp__signals_after_fork(void) {
  atomic_store(&flushed, 0);
  sp__pending_tmp(0, NULL); /* the parent's, not the child's */
  sp__pending_tmp(1, NULL);
}
