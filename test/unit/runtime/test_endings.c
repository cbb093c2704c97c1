/* test_endings.c - programs that record N calls and then end every way a
 * job ends (signals, crashes, abort, exit, _exit, SIGKILL): the profile,
 * final or recovered from the stream, holds the calls, and the exit status
 * is the one the ending gives without ScopeProf. */
#include "sp_format.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
/* cmocka.h needs the three above first */
#include <cmocka.h>

#include "test_fmt.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define N 300000L         /* calls: more than the budget holds */
#define BUDGET (2L << 20) /* SP_MEMORY=2M */
#define PAIR 16L

static char dir[512];
/* 1 in a cross build whose tests run under an emulator (qemu-user): the
 * process the kernel sees is the emulator's. */
#ifndef SP_TEST_EMULATED
#define SP_TEST_EMULATED 0
#endif

static char errtext[8192], outtext[1024];

static void slurp(const char *path, char *buf, size_t size) {
  FILE *f = fopen(path, "r");
  size_t got = f ? fread(buf, 1, size - 1, f) : 0;
  buf[got] = 0;
  if (f)
    fclose(f);
}

/* Runs prog arg with the test's environment; returns the exit status as a
 * shell reports it (128 + signal for a signal). */
static int run(const char *prog, const char *arg, const char *const *env) {
  char *envp[512];
  int n = 0;
  for (char **e = environ; *e && n < 480; e++)
    if (strncmp(*e, "SP_", 3) && strncmp(*e, "OMPI_", 5) &&
        strncmp(*e, "PMI", 3) && strncmp(*e, "SLURM_", 6))
      envp[n++] = *e;
  for (; env && *env; env++)
    envp[n++] = (char *)*env;
  envp[n] = NULL;
  char errfile[600], outfile[600], path[600];
  FMT(errfile, "%s/stderr.txt", dir);
  FMT(outfile, "%s/stdout.txt", dir);
  FMT(path, "%s/%s", SP_TEST_BINARY_DIR, prog);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, errfile,
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 1, outfile,
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  char *argv[] = {path, (char *)arg, NULL};
  pid_t pid;
  assert_int_equal(posix_spawn(&pid, path, &fa, NULL, argv, envp), 0);
  posix_spawn_file_actions_destroy(&fa);
  int st;
  waitpid(pid, &st, 0);
  slurp(errfile, errtext, sizeof errtext);
  slurp(outfile, outtext, sizeof outtext);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int setup(void **state) {
  (void)state;
  FMT(dir, "%s/end_XXXXXX", SP_TEST_BINARY_DIR);
  assert_non_null(mkdtemp(dir));
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[700];
  FMT(cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* What the run left: exactly one final .spt or one .spts stream (and
 * nothing else: no temporary), read into r. Returns 1 for a stream. */
static int load(sp_fmt_rank *r) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *e;
  char found[300] = "";
  int files = 0, stream = 0;
  while ((e = readdir(d))) {
    const char *n = e->d_name;
    size_t len = strlen(n);
    if (n[0] == '.' || !strcmp(n, "stderr.txt") || !strcmp(n, "stdout.txt") ||
        (len > 6 && !strcmp(n + len - 6, ".depth")))
      continue;
    files++;
    FMT(found, "%s", n);
    stream = len > 5 && !strcmp(n + len - 5, ".spts");
  }
  closedir(d);
  if (files != 1)
    fail_msg("expected one profile file in %s, found %d", dir, files);
  char path[900];
  FMT(path, "%s/%s", dir, found);
  sp_fmt_err err = {{0}};
  int rc = stream ? sp_fmt_stream_read(path, r, &err)
                  : sp_fmt_spt_read(path, r, &err);
  if (rc != 0)
    fail_msg("%s", err.msg);
  return stream;
}

/* The block of region name, or NULL. */
static const sp_fmt_block *lookup_block(const sp_fmt_rank *r,
                                        const char *name) {
  for (int64_t i = 0; i < r->nblocks; i++)
    if (!strcmp(r->regions[r->blocks[i].region].name, name))
      return &r->blocks[i];
  return NULL;
}

/* As lookup_block, but a missing block fails the test, saying which. */
static const sp_fmt_block *block(const sp_fmt_rank *r, const char *name) {
  const sp_fmt_block *b = lookup_block(r, name);
  if (!b)
    fail_msg("no block of region \"%s\"", name);
  return b;
}

/* Every work call complete, in order, inside the one outer call. */
static void check_calls(const sp_fmt_rank *r, long min_calls) {
  const sp_fmt_block *w = block(r, "work"), *o = lookup_block(r, "outer");
  assert_true(w->count >= min_calls);
  assert_true(w->count <= N);
  for (int64_t i = 0; i < w->count; i++) {
    assert_true(w->starts[i] <= w->ends[i]);
    if (i)
      assert_true(w->ends[i - 1] <= w->starts[i]);
  }
  if (min_calls == N) {
    assert_non_null(o);
    assert_int_equal(o->count, 1);
    /* outer was still open: closed when the process stopped */
    assert_true(o->starts[0] <= w->starts[0]);
    assert_true(o->ends[0] >= w->ends[w->count - 1]);
  }
}

/* One more variable for end_run's next runs (NULL: none). */
static const char *also;

/* Runs prog (rt_scenario end:<mode>:N, or rt_throw N) with SP_MEMORY=2M,
 * extra (may be NULL) and also; checks its exit status, an empty stderr if
 * quiet, that it left a stream (want_stream) or a final file, and at least
 * min_calls whole calls in it. r keeps the profile. */
static void end_run(const char *prog, const char *mode, const char *extra,
                    int status, int quiet, int want_stream, long min_calls,
                    sp_fmt_rank *r) {
  char out[600], arg[64];
  FMT(out, "SP_OUTPUT=%s/p", dir);
  if (mode)
    FMT(arg, "end:%s:%ld", mode, N);
  else
    FMT(arg, "%ld", N);
  const char *env[] = {out, "SP_MEMORY=2M", extra ? extra : also,
                       extra ? also : NULL, NULL};
  assert_int_equal(run(prog, arg, env), status);
  /* qemu-user says so when a signal ends the program, on its stderr */
  char *q =
      SP_TEST_EMULATED ? strstr(errtext, "qemu: uncaught target signal") : NULL;
  if (q) {
    char *nl = strchr(q, '\n');
    if (nl)
      memmove(q, nl + 1, strlen(nl + 1) + 1);
    else
      *q = 0;
  }
  if (quiet)
    assert_string_equal(errtext, "");
  assert_int_equal(load(r), want_stream);
  check_calls(r, min_calls);
}

/* Every call, in the stream or the final file. */
static void ending(const char *mode, int status, int want_stream) {
  sp_fmt_rank r = {0};
  end_run("rt_scenario", mode, NULL, status, 1, want_stream, N, &r);
  sp_fmt_rank_free(&r);
}

static void test_sigterm(void **s) {
  (void)s, ending("sigterm", 128 + SIGTERM, 1);
}
static void test_sigint(void **s) {
  (void)s, ending("sigint", 128 + SIGINT, 1);
}
static void test_sighup(void **s) {
  (void)s, ending("sighup", 128 + SIGHUP, 1);
}
static void test_sigxcpu(void **s) {
  (void)s, ending("sigxcpu", 128 + SIGXCPU, 1);
}
static void test_sigusr1(void **s) {
  (void)s, ending("sigusr1", 128 + SIGUSR1, 1);
}
static void test_sigusr2(void **s) {
  (void)s, ending("sigusr2", 128 + SIGUSR2, 1);
}
static void test_segv(void **s) { (void)s, ending("segv", 128 + SIGSEGV, 1); }
static void test_abort(void **s) { (void)s, ending("abort", 128 + SIGABRT, 1); }
/* exit() from six frames deep: the exit handler writes the final file. */
static void test_exit_deep(void **s) {
  (void)s;
  sp_fmt_rank r = {0};
  end_run("rt_scenario", "exit", NULL, 7, 1, 0, N, &r);
  assert_int_equal(block(&r, "deep")->count, 6);
  sp_fmt_rank_free(&r);
}

/* The calls exit() left open (outer and six deep ones) are counted: a
 * line with SP_VERBOSE=1, nothing without (above). */
static void test_exit_deep_verbose(void **s) {
  (void)s;
  sp_fmt_rank r = {0};
  end_run("rt_scenario", "exit", "SP_VERBOSE=1", 7, 0, 0, N, &r);
  assert_non_null(strstr(errtext,
                         "scopeprof: 7 call(s) still open at finalize (closed "
                         "then)\n"));
  sp_fmt_rank_free(&r);
}

/* _exit and SIGKILL run nothing of ours: what the writer had is there, at
 * most one budget's worth of calls is not. */
static void lossy(const char *mode, int status) {
  sp_fmt_rank r = {0};
  end_run("rt_scenario", mode, NULL, status, 1, 1, N - BUDGET / PAIR, &r);
  sp_fmt_rank_free(&r);
}

/* exec: the calls made before the new image starts are in the stream; an
 * exec that fails changes nothing (the final file has every call once). */
static void test_exec(void **s) { (void)s, ending("exec", 6, 1); }
static void test_exec_fails(void **s) {
  (void)s;
  sp_fmt_rank r = {0};
  end_run("rt_scenario", "exec_fails", NULL, 0, 1, 0, N, &r);
  assert_int_equal(block(&r, "work")->count, N);
  sp_fmt_rank_free(&r);
}

static void test__exit(void **s) { (void)s, lossy("_exit", 5); }
static void test_sigkill(void **s) { (void)s, lossy("sigkill", 128 + SIGKILL); }

/* The program's own SIGTERM handler runs (and its exit(3) writes the
 * profile as any exit does). */
static void test_own_handler(void **s) {
  (void)s;
  sp_fmt_rank r = {0};
  end_run("rt_scenario", "own_sigterm", NULL, 3, 1, 0, N, &r);
  assert_string_equal(outtext, "own handler\n");
  sp_fmt_rank_free(&r);
}

/* SP_SIGNALS=0: no handler, so SIGTERM loses what the writer did not have
 * yet, and the status is SIGTERM's. */
static void test_no_signals(void **s) {
  (void)s;
  sp_fmt_rank r = {0};
  end_run("rt_scenario", "sigterm", "SP_SIGNALS=0", 128 + SIGTERM, 0, 1,
          N - BUDGET / PAIR, &r);
  assert_true(block(&r, "work")->count <
              N); /* the last chunks were in memory */
  sp_fmt_rank_free(&r);
}

/* Entries of the run's directory besides stderr.txt and stdout.txt,
 * hidden ones too (the runtime's own temporaries are). */
static int entries(void) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
        strcmp(e->d_name, "stderr.txt") && strcmp(e->d_name, "stdout.txt"))
      n++;
  closedir(d);
  return n;
}

/* SIGTERM while the final file is being written (raised by the runtime
 * once its temporary is complete, SP_TEST_RAISE_IN_WRITE): the temporary
 * is removed, the stream keeps every call, the status is SIGTERM's. */
static void term_in_write(const char *format) {
  sp_fmt_rank r = {0};
  end_run("rt_scenario", "exit", format, 128 + SIGTERM, 1, 1, N, &r);
  assert_int_equal(entries(), 1);
  sp_fmt_rank_free(&r);
}
static void test_sigterm_in_write(void **s) {
  (void)s;
  also = "SP_TEST_RAISE_IN_WRITE=15";
  term_in_write(NULL);
  also = NULL;
}
static void test_sigterm_in_write_h5(void **s) {
  (void)s;
#ifdef SP_USE_HDF5
  also = "SP_TEST_RAISE_IN_WRITE=15";
  term_in_write("SP_FORMAT=h5");
  also = NULL;
#else
  skip();
#endif
}

static void test_exception(void **s) {
  (void)s;
#ifdef SP_HAVE_CXX
  sp_fmt_rank r = {0};
  end_run("rt_throw", NULL, NULL, 128 + SIGABRT, 0, 1, N, &r);
  sp_fmt_rank_free(&r);
#else
  skip();
#endif
}

/* The info of the one stream the run left. */
static void stream_info(sp_fmt_stream_info *info) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *e;
  char path[900] = "";
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len > 5 && !strcmp(e->d_name + len - 5, ".spts"))
      FMT(path, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  assert_true(path[0] != 0);
  sp_fmt_stream *st = NULL;
  sp_fmt_err err = {{0}};
  if (sp_fmt_stream_open(path, 0, &st, &err) != 0)
    fail_msg("%s", err.msg);
  sp_fmt_stream_get_info(st, info);
  sp_fmt_stream_close(st);
}

/* A stack overflow by recursion, in the main thread or in a second one:
 * the crash handler runs on the runtime's alternate signal stack, so the
 * stream has every call, the open ones of the recursion closed at its STOP
 * record, and the status is SIGSEGV's. The program maps the depth it
 * reached (calls begun and returned from sp_begin) into p.depth; the call
 * whose sp_begin the overflow hit may be there or not. */
static void overflow(const char *mode) {
  sp_fmt_rank r = {0};
  end_run("rt_scenario", mode, NULL, 128 + SIGSEGV, 1, 1, N, &r);
  char path[600];
  FMT(path, "%s/p.depth", dir);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  long depth = 0;
  assert_int_equal(fread(&depth, sizeof depth, 1, f), 1);
  fclose(f);
  assert_true(depth > 1000);
  const sp_fmt_block *b = block(&r, "overflow");
  if (b->count != depth && b->count != depth + 1)
    fail_msg("%lld calls of overflow, %ld begun", (long long)b->count, depth);
  sp_fmt_stream_info info;
  stream_info(&info);
  assert_int_equal(info.stopped, 1);
  assert_int_equal(info.stop_cause, SIGSEGV);
  sp_fmt_rank_free(&r);
}
static void test_overflow_main(void **s) { (void)s, overflow("overflow"); }
static void test_overflow_thread(void **s) {
  (void)s, overflow("overflow_thread");
}

/* gfortran's runtime installs its backtrace handler for these from main,
 * after the runtime's: the program's handler still runs (its message on
 * stderr), every call reaches the stream, and the status is the
 * signal's. */
static void test_gfortran_signals(void **s) {
  (void)s;
#ifdef SP_HAVE_GFORTRAN
  static const int sigs[] = {SIGSEGV, SIGBUS,  SIGILL, SIGFPE,
                             SIGQUIT, SIGXCPU, SIGABRT};
  for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    char out[600], arg[64];
    FMT(out, "SP_OUTPUT=%s/p", dir);
    FMT(arg, "%d,%ld", sigs[i], N);
    const char *env[] = {out, "SP_MEMORY=2M", NULL};
    assert_int_equal(run("rt_gf_endings", arg, env), 128 + sigs[i]);
    if (!strstr(errtext, "Program received signal"))
      fail_msg("signal %d: no backtrace message: %s", sigs[i], errtext);
    sp_fmt_rank r = {0};
    assert_int_equal(load(&r), 1);
    assert_int_equal(block(&r, "ends::work")->count, N);
    assert_int_equal(block(&r, "ends::outer")->count, 1);
    sp_fmt_stream_info info;
    stream_info(&info);
    assert_int_equal(info.stop_cause, sigs[i]);
    sp_fmt_rank_free(&r);
    teardown(NULL);
    setup(NULL);
  }
#else
  skip();
#endif
}

int main(void) {
  struct rlimit nocore = {0, 0}; /* the crashes here are on purpose */
  setrlimit(RLIMIT_CORE, &nocore);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_sigterm, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sigint, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sighup, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sigxcpu, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sigusr1, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sigusr2, setup, teardown),
      cmocka_unit_test_setup_teardown(test_segv, setup, teardown),
      cmocka_unit_test_setup_teardown(test_abort, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exit_deep, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exit_deep_verbose, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exec, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exec_fails, setup, teardown),
      cmocka_unit_test_setup_teardown(test__exit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sigkill, setup, teardown),
      cmocka_unit_test_setup_teardown(test_own_handler, setup, teardown),
      cmocka_unit_test_setup_teardown(test_no_signals, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exception, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sigterm_in_write, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sigterm_in_write_h5, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_overflow_main, setup, teardown),
      cmocka_unit_test_setup_teardown(test_overflow_thread, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gfortran_signals, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
