/* signals.c - endings by signal: what is still in memory goes to the stream
 * with async-signal-safe code only, then the signal takes the effect it
 * would have had without ScopeProf (the program's own handler, or the
 * default action with its exit status and core dump). */
#include "internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

/* Signals batch systems send before a kill, and those of a crash. The
 * table is the one place that lists them. */
static const int handled[] = {SIGTERM, SIGINT,  SIGHUP,  SIGQUIT, SIGXCPU,
                              SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGSEGV,
                              SIGBUS,  SIGFPE,  SIGILL,  SIGABRT, SIGSYS};
#define NHANDLED (sizeof handled / sizeof handled[0])
static struct sigaction previous[NHANDLED];
static _Atomic int flushed;

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
  if (sp__cfg.test_raise > 0)
    raise(sp__cfg.test_raise);
}

static int slot_of(int sig) {
  for (unsigned i = 0; i < NHANDLED; i++)
    if (handled[i] == sig)
      return (int)i;
  return -1;
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

static int is_crash(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
         sig == SIGABRT || sig == SIGSYS;
}

static void on_signal(int sig, siginfo_t *info, void *uc) {
  int saved = errno;
  int k = slot_of(sig);
  if (k < 0)
    return;
  struct sigaction *old = &previous[k];
  int own = (old->sa_flags & SA_SIGINFO)
                ? old->sa_sigaction != NULL
                : (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN);
  /* A program that handles a termination signal itself decides what
   * happens: it may well go on, and a normal exit writes the profile. A
   * crash is flushed first whatever its handler does next. */
  if (!own || is_crash(sig))
    flush(sig);
  if (own) {
    /* The mask the kernel would have set for the program's handler. */
    sigset_t mask = ((ucontext_t *)uc)->uc_sigmask;
    for (int s = 1; s < NSIG; s++)
      if (sigismember(&old->sa_mask, s) == 1)
        sigaddset(&mask, s);
    if (!(old->sa_flags & SA_NODEFER))
      sigaddset(&mask, sig);
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    if (old->sa_flags & SA_SIGINFO)
      old->sa_sigaction(sig, info, uc);
    else
      old->sa_handler(sig);
    errno = saved;
    return;
  }
  /* The default action: put it back and raise again; the signal is
   * blocked here, so it is delivered as this handler returns. A fault
   * re-raised this way still dumps core where it would have. */
  sigaction(sig, old, NULL);
  raise(sig);
  errno = saved;
}

void sp__signals_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigfillset(&sa.sa_mask);
  for (unsigned i = 0; i < NHANDLED; i++) {
    struct sigaction old;
    if (sigaction(handled[i], NULL, &old) != 0)
      continue;
    /* An ignored signal stays ignored: it cannot end the process. */
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN)
      continue;
    previous[i] = old;
    sigaction(handled[i], &sa, NULL);
  }
}

void sp__signals_after_fork(void) {
  atomic_store(&flushed, 0);
  sp__pending_tmp(0, NULL); /* the parent's, not the child's */
  sp__pending_tmp(1, NULL);
}
