/* guard.c - a crash inside libhdf5 while it reads a tool's input becomes the
 * tool's one-line error for that file (sp_guard.h). */
#include "sp_guard.h"
#include "sp_tmp.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static __thread const char *reading;
static __thread int depth;

static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
#define NSIGS (sizeof sigs / sizeof *sigs)
static struct sigaction before[NSIGS];

void sp_fmt_guard_enter(const char *path) {
  if (depth++ == 0)
    reading = path;
}

void sp_fmt_guard_leave(void) {
  if (depth > 0 && --depth == 0)
    reading = NULL;
}

static void put(const char *s) {
  size_t n = strlen(s);
  while (n > 0) {
    ssize_t w = write(2, s, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return;
    s += w;
    n -= (size_t)w;
  }
}

static void on_crash(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  size_t i = 0;
  while (i < NSIGS - 1 && sigs[i] != sig)
    i++;
  const char *path = reading;
  if (!path) {
    /* Not in a read: the handler before ours takes it (a fault is raised
     * again when the instruction runs again; a sent signal is resent). */
    sigaction(sig, &before[i], NULL);
    if (si->si_code <= 0)
      raise(sig);
    return;
  }
  static const char *const names[] = {"SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL"};
  put(program_invocation_short_name);
  put(": ");
  put(path);
  put(": the HDF5 library crashed reading it (");
  put(names[i]);
  put("): the file is damaged\n");
  sp_fmt_tmp_remove_pending();
  _exit(1);
}

void sp_fmt_crash_guard(void) {
  /* A crash by stack overflow needs a stack of its own to be handled. */
  static char alt[65536] __attribute__((aligned(16)));
  stack_t ss;
  memset(&ss, 0, sizeof ss);
  ss.ss_sp = alt;
  ss.ss_size = sizeof alt;
  sigaltstack(&ss, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_crash;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < NSIGS; i++)
    sigaction(sigs[i], &sa, &before[i]);
}
