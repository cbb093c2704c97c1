/* test_guard.c - the tools' crash guard (format/sp_guard.h): a real fault
 * inside a guarded read becomes one line naming the file, exit status 1 and
 * the pending temporary removed; outside a read the fault stays a crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sp_common.h"
#include "sp_guard.h"
#include "sp_tmp.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/sp_guard_XXXXXX";

/* A write to a page without access: the fault a bad pointer in a library
 * makes, without undefined behaviour a sanitizer would report first. */
static void fault(void) {
  volatile char *p =
      mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED)
    p[0] = 1;
}

/* Runs body in a child with the tools' guards, its stderr into err (at
 * most size bytes); the child's wait status. */
static int in_child(void (*body)(const char *tmpdir), char *err, size_t size) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    /* cmocka's handlers (and a sanitizer's) out of the way: the handler
     * before the guard's is the default */
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
      signal(sigs[i], SIG_DFL);
    sp_fmt_tmp_guard();
    sp_fmt_crash_guard();
    body(dir);
    _exit(0);
  }
  close(fds[1]);
  size_t got = 0;
  ssize_t n;
  while (got + 1 < size && (n = read(fds[0], err + got, size - 1 - got)) != 0) {
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      break;
    got += (size_t)n;
  }
  err[got] = 0;
  close(fds[0]);
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  return st;
}

static char tmp_name[4200];

static void guarded_fault(const char *d) {
  char out[4096];
  sp_fmt_err e = {""};
  snprintf(out, sizeof out, "%s/out.h5", d);
  int fd = sp_fmt_tmp_create(out, tmp_name, sizeof tmp_name, &e);
  if (fd < 0)
    _exit(3);
  sp_fmt_guard_enter("run/damaged.h5");
  sp_fmt_guard_enter("run/inner.h5"); /* nested: the outer file is named */
  sp_fmt_guard_leave();
  fault();
  _exit(4); /* not reached */
}

static void test_guarded(void **state) {
  (void)state;
  char err[1024];
  int st = in_child(guarded_fault, err, sizeof err);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 1);
  char want[256];
  snprintf(want, sizeof want,
           "%s: run/damaged.h5: the HDF5 library crashed reading it "
           "(SIGSEGV): the file is damaged\n",
           program_invocation_short_name);
  assert_string_equal(err, want);
  /* the temporary the crash cut short is gone, and nothing else is there */
  char out[4096];
  snprintf(out, sizeof out, "%s/out.h5", dir);
  int n = 0;
  FILE *ls = NULL;
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "ls -A '%s'", dir);
  ls = popen(cmd, "r");
  assert_non_null(ls);
  char line[512];
  while (fgets(line, sizeof line, ls))
    n++;
  pclose(ls);
  assert_int_equal(n, 0);
  assert_int_equal(access(out, F_OK), -1);
}

static void unguarded_fault(const char *d) {
  (void)d;
  sp_fmt_guard_enter("run/read.h5");
  sp_fmt_guard_leave();
  fault();
  _exit(4);
}

static void test_unguarded(void **state) {
  (void)state;
  char err[8192];
  int st = in_child(unguarded_fault, err, sizeof err);
  assert_null(strstr(err, "crashed reading"));
  /* the handler before the guard's (the default) ends it by the signal */
  assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
}

static void sent_signal(const char *d) {
  (void)d;
  raise(SIGBUS); /* sent, not a fault: resent to the handler before */
  _exit(4);
}

static void test_sent(void **state) {
  (void)state;
  char err[8192];
  int st = in_child(sent_signal, err, sizeof err);
  assert_null(strstr(err, "crashed reading"));
  assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS);
}

int main(void) {
  if (!mkdtemp(dir))
    return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_guarded),
      cmocka_unit_test(test_unguarded),
      cmocka_unit_test(test_sent),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  rmdir(dir);
  return rc;
}
