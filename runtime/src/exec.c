/* exec.c - the exec family: a new image replaces this one without running
 * exit handlers, so before it starts, everything recorded so far goes to
 * the stream (sp-import reads it; the new image, if profiled, writes a
 * stream and a file of its own). If exec fails, recording goes on. */
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The stream made whole, with the writer paused while it is done. */
void sp__flush_to_stream(int cause) {
  if (atomic_load(&sp__state) != SP__RUNNING || !sp__stream_acquire(2000))
    return;
  sp__stream_flush(cause, 1);
  sp__token_give();
}

static void before_exec(void) { sp__flush_to_stream(0); }

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);

static void *next(const char *name) { return dlsym(RTLD_NEXT, name); }

SP_API int execve(const char *path, char *const argv[], char *const envp[]) {
  execve_fn f = (execve_fn)(uintptr_t)next("execve");
  if (!f)
    return errno = ENOSYS, -1;
  before_exec();
  return f(path, argv, envp);
}

SP_API int execv(const char *path, char *const argv[]) {
  execv_fn f = (execv_fn)(uintptr_t)next("execv");
  if (!f)
    return errno = ENOSYS, -1;
  before_exec();
  return f(path, argv);
}

SP_API int execvp(const char *file, char *const argv[]) {
  execv_fn f = (execv_fn)(uintptr_t)next("execvp");
  if (!f)
    return errno = ENOSYS, -1;
  before_exec();
  return f(file, argv);
}

SP_API int execvpe(const char *file, char *const argv[], char *const envp[]) {
  execve_fn f = (execve_fn)(uintptr_t)next("execvpe");
  if (!f)
    return errno = ENOSYS, -1;
  before_exec();
  return f(file, argv, envp);
}

/* The variadic ones: the arguments into an array, then the v forms. */
#define ARGS_MAX 4096
static int collect(const char *arg0, va_list ap, char **argv, char ***envp) {
  int n = 0;
  argv[n++] = (char *)arg0;
  while (arg0 && n < ARGS_MAX) {
    char *a = va_arg(ap, char *);
    argv[n++] = a;
    if (!a)
      break;
  }
  if (n == ARGS_MAX)
    return errno = E2BIG, -1;
  if (envp)
    *envp = va_arg(ap, char **);
  return 0;
}

SP_API int execl(const char *path, const char *arg, ...) {
  char *argv[ARGS_MAX];
  va_list ap;
  va_start(ap, arg);
  int rc = collect(arg, ap, argv, NULL);
  va_end(ap);
  return rc ? rc : execv(path, argv);
}

SP_API int execlp(const char *file, const char *arg, ...) {
  char *argv[ARGS_MAX];
  va_list ap;
  va_start(ap, arg);
  int rc = collect(arg, ap, argv, NULL);
  va_end(ap);
  return rc ? rc : execvp(file, argv);
}

SP_API int execle(const char *path, const char *arg, ...) {
  char *argv[ARGS_MAX];
  char **envp = NULL;
  va_list ap;
  va_start(ap, arg);
  int rc = collect(arg, ap, argv, &envp);
  va_end(ap);
  return rc ? rc : execve(path, argv, envp);
}
