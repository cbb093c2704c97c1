/* test_robust.c - the runtime under what once crashed, hung or misreported:
 * many threads over a tight budget, a signal handler recording while the
 * runtime is busy, long names, lost calls and their messages; and a
 * randomised stress over threads, regions and budgets (seed printed). */
#include "sp_format.h"
#include "sp_sanitizer.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
/* cmocka.h needs the three above first */
#include <cmocka.h>

#include "test_fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static char dir[PATH_MAX];
static char errtext[16384], outtext[4096];

/* Runs prog arg under timeout(1) (a hang fails instead of stalling the
 * suite), with extra environment entries; stderr in errtext, stdout in
 * outtext. The exit status, 124 for a hang. */
static int run(const char *prog, const char *arg, const char *const *env) {
  char *envp[512];
  int n = 0;
  for (char **e = environ; *e && n < 480; e++)
    if (strncmp(*e, "SP_", 3) != 0)
      envp[n++] = *e;
  for (; env && *env; env++)
    envp[n++] = (char *)*env;
  envp[n] = NULL;
  char errfile[PATH_MAX], outfile[PATH_MAX], path[PATH_MAX];
  FMT(errfile, "%s/stderr.txt", dir);
  FMT(outfile, "%s/stdout.txt", dir);
  FMT(path, "%s/%s", SP_TEST_BINARY_DIR, prog);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, errfile,
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 1, outfile,
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  char *argv[] = {"timeout", "-s", "KILL", "240", path, (char *)arg, NULL};
  pid_t pid;
  int rc = posix_spawnp(&pid, "timeout", &fa, NULL, argv, envp);
  posix_spawn_file_actions_destroy(&fa);
  assert_int_equal(rc, 0);
  int st;
  waitpid(pid, &st, 0);
  FILE *f = fopen(errfile, "r");
  size_t got = f ? fread(errtext, 1, sizeof errtext - 1, f) : 0;
  errtext[got] = 0;
  if (f)
    fclose(f);
  f = fopen(outfile, "r");
  got = f ? fread(outtext, 1, sizeof outtext - 1, f) : 0;
  outtext[got] = 0;
  if (f)
    fclose(f);
  unlink(errfile);
  unlink(outfile);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int setup(void **state) {
  (void)state;
  FMT(dir, "%s/rb_XXXXXX", SP_TEST_BINARY_DIR);
  assert_non_null(mkdtemp(dir));
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[PATH_MAX + 16];
  FMT(cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void read_spt(sp_fmt_rank *r) {
  char path[PATH_MAX];
  sp_fmt_err err = {{0}};
  FMT(path, "%s/p_rank00000.spt", dir);
  if (sp_fmt_spt_read(path, r, &err) != 0)
    fail_msg("%s", err.msg);
}

/* Calls of region name over every thread. */
static int64_t calls_of(const sp_fmt_rank *r, const char *name) {
  int64_t n = 0;
  for (int64_t i = 0; i < r->nblocks; i++)
    if (strcmp(r->regions[r->blocks[i].region].name, name) == 0)
      n += r->blocks[i].count;
  return n;
}

/* The number before the first occurrence of what in errtext, or 0. */
static uint64_t count_before(const char *what) {
  const char *at = strstr(errtext, what);
  if (!at)
    return 0;
  while (at > errtext && at[-1] >= '0' && at[-1] <= '9')
    at--;
  return strtoull(at, NULL, 10);
}

#define ENV_OUT(buf) FMT(buf, "SP_OUTPUT=%s/p", dir)

/* T threads x R regions x N rounds: every call in the file, or counted as
 * not recorded; no crash. */
static void check_threads(int t, int regions, long rounds, const char *mem) {
  char out[PATH_MAX], arg[64], memv[64];
  const char *env[] = {ENV_OUT(out), FMT(memv, "SP_MEMORY=%s", mem), NULL};
  FMT(arg, "threads:%d:%d:%ld", t, regions, rounds);
  int rc = run("rt_robust", arg, env);
  if (rc != 0)
    fail_msg("%s %s: exit %d; stderr: %s", arg, memv, rc, errtext);
  sp_fmt_rank r = {0};
  read_spt(&r);
  uint64_t dropped = count_before(" call(s) not recorded");
  assert_int_equal(count_before(" call(s) lost"), 0);
  int64_t total = 0;
  for (int i = 0; i < regions; i++) {
    char name[32];
    int64_t c = calls_of(&r, FMT(name, "r%03d", i));
    if (!dropped && c != (int64_t)t * rounds)
      fail_msg("%s %s: %s has %lld calls, not %lld", arg, memv, name,
               (long long)c, (long long)t * rounds);
    total += c;
  }
  assert_int_equal(total + (int64_t)dropped, (int64_t)t * regions * rounds);
  sp_fmt_rank_free(&r);
}

/* The pool carved past its soft limit and then, its difference to the
 * limit wrapping, past the reservation: SIGSEGV within 0.3 s. */
static void test_threads48_tight(void **state) {
  (void)state;
  for (int i = 0; i < 3; i++)
    check_threads(48, 64, SP_SANITIZED ? 200 : 2000, "2M");
}

/* A 5 kHz timer handler runs instrumented code while the main thread is
 * in the runtime's slow paths: it never waits; every call of the handler
 * is in the file or counted as not recorded. */
static void test_signal_handler_records(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), NULL};
  int rc = run("rt_sig", SP_SANITIZED ? "300" : "2000", env);
  if (rc != 0)
    fail_msg("exit %d (124: hung); stderr: %s", rc, errtext);
  long names, ticks;
  assert_int_equal(sscanf(outtext, "%ld %ld", &names, &ticks), 2);
  sp_fmt_rank r = {0};
  read_spt(&r);
  assert_int_equal(calls_of(&r, "main"), 1);
  assert_int_equal(calls_of(&r, "work"), names);
  int64_t handler = calls_of(&r, "tick") + calls_of(&r, "handler");
  int64_t fake = 0, named = 0;
  for (int64_t i = 0; i < r.nblocks; i++) {
    const char *nm = r.regions[r.blocks[i].region].name;
    if (strlen(nm) == 1023)
      named += r.blocks[i].count;
    else if (strcmp(nm, "tick") && strcmp(nm, "handler") &&
             strcmp(nm, "main") && strcmp(nm, "work"))
      fake += r.blocks[i].count;
  }
  assert_int_equal(named, names);
  uint64_t dropped = count_before(" call(s) not recorded (made in a signal");
  assert_int_equal(handler + fake + (int64_t)dropped, 3 * ticks);
  sp_fmt_rank_free(&r);
}

/* Names longer than the stream's record buffer (32,744 bytes) were cut, so
 * two names differing at their end merged (1,500 calls under one). */
static void test_long_names_whole(void **state) {
  (void)state;
  static const long lens[] = {32744, 32745, 40000, 200000};
  for (unsigned k = 0; k < sizeof lens / sizeof lens[0]; k++) {
    char out[PATH_MAX], arg[64];
    const char *env[] = {ENV_OUT(out), NULL};
    assert_int_equal(run("rt_robust", FMT(arg, "longname:%ld", lens[k]), env),
                     0);
    assert_string_equal(errtext, "");
    sp_fmt_rank r = {0};
    read_spt(&r);
    assert_int_equal(r.nregions, 2);
    assert_int_equal(r.nblocks, 2);
    for (int64_t i = 0; i < r.nblocks; i++) {
      const sp_fmt_region *g = &r.regions[r.blocks[i].region];
      size_t len = strlen(g->name);
      assert_int_equal(len, lens[k]);
      assert_int_equal(g->name[lens[k] - 2], 'a' + (lens[k] - 2) % 26);
      if (g->name[len - 1] == 'A') {
        assert_int_equal(r.blocks[i].count, 1000);
        assert_string_equal(g->file, "long.c");
        assert_int_equal(g->line, 7);
      } else {
        assert_int_equal(g->name[len - 1], 'B');
        assert_int_equal(r.blocks[i].count, 500);
      }
    }
    sp_fmt_rank_free(&r);
  }
}

/* No stream can be made (a file is in the way of its directory): every
 * call is lost, and the line says how many, all of them. */
static void test_lost_count_exact(void **state) {
  (void)state;
  char out[PATH_MAX], file[PATH_MAX];
  FMT(file, "%s/file", dir);
  close(open(file, O_WRONLY | O_CREAT, 0644));
  FMT(out, "SP_OUTPUT=%s/file/p", dir);
  const char *env[] = {out, NULL};
  assert_int_equal(run("rt_robust", "calls:100000", env), 0);
  assert_int_equal(count_before(" call(s) lost"), 100000);
  assert_ptr_equal(strchr(errtext, '\n'), errtext + strlen(errtext) - 1);
}

/* A directory mkdir refuses (sysfs, or a read-only one): the line names it
 * and mkdir's reason, not "No such file or directory". */
static void test_mkdir_reason(void **state) {
  (void)state;
  const char *probe = "/sys/sp_test_robust_probe";
  if (mkdir(probe, 0777) == 0) {
    rmdir(probe);
    skip();
  }
  int e = errno;
  if (e == ENOENT)
    skip();
  char out[PATH_MAX], want[PATH_MAX + 128];
  FMT(out, "SP_OUTPUT=%s/sub/p", probe);
  const char *env[] = {out, NULL};
  assert_int_equal(run("rt_robust", "calls:10", env), 0);
  FMT(want, "scopeprof: error: %s: %s; 10 call(s) lost\n", probe, strerror(e));
  assert_string_equal(errtext, want);
}

/* SP_OUTPUT=/dev/null (or sp_init("/dev/null")) writes nothing at all. */
static void test_dev_null(void **state) {
  (void)state;
  struct stat before;
  int had = stat("/dev/null_rank00000.spt", &before) == 0;
  const char *env[] = {"SP_OUTPUT=/dev/null", NULL};
  assert_int_equal(run("rt_robust", "calls:1000", env), 0);
  assert_string_equal(errtext, "");
  if (!had) {
    struct stat st;
    assert_int_not_equal(stat("/dev/null_rank00000.spt", &st), 0);
  }
  char out[PATH_MAX];
  const char *env2[] = {ENV_OUT(out), NULL};
  assert_int_equal(run("rt_robust", "init:/dev/null", env2), 0);
  assert_string_equal(outtext, "SP_EDISABLED\n");
  assert_string_equal(errtext, "");
  char spt[PATH_MAX];
  struct stat st;
  assert_int_not_equal(stat(FMT(spt, "%s/p_rank00000.spt", dir), &st), 0);
}

/* SP_TEST_CLOCK_DRIFT_PPM and SP_CLOCK warn with the prefix every other
 * warning has. */
static void test_warning_prefixes(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_TEST_CLOCK_DRIFT_PPM=lots", NULL};
  assert_int_equal(run("rt_robust", "calls:10", env), 0);
  assert_string_equal(errtext,
                      "scopeprof: warning: SP_TEST_CLOCK_DRIFT_PPM=lots is "
                      "not an integer from -1000000 to 1000000; using 0\n");
  const char *env2[] = {ENV_OUT(out), "SP_CLOCK=sundial", NULL};
  assert_int_equal(run("rt_robust", "calls:10", env2), 0);
  assert_int_equal(strncmp(errtext, "scopeprof: warning: SP_CLOCK=sundial", 36),
                   0);
}

/* Under SP_MERGE the verbose line names the job's merged file, not
 * per-rank files. */
static void test_verbose_merge(void **state) {
  (void)state;
  char out[PATH_MAX], want[PATH_MAX + 64];
  const char *env[] = {ENV_OUT(out), "SP_MERGE=1", "SP_VERBOSE=1", NULL};
  assert_int_equal(run("rt_robust", "calls:10", env), 0);
  assert_non_null(strstr(errtext, FMT(want,
                                      "scopeprof: recording for %s/p.h5 "
                                      "(SP_MERGE: written by the job",
                                      dir)));
  assert_null(strstr(errtext, "_rank*"));
}

/* Randomised: threads x regions x budgets from a seed that is printed
 * (SP_STRESS_SEED repeats a run). Every call is in the file or counted. */
static void test_stress(void **state) {
  (void)state;
  const char *s = getenv("SP_STRESS_SEED");
  unsigned seed = s ? (unsigned)strtoul(s, NULL, 10)
                    : (unsigned)time(NULL) ^ (unsigned)getpid();
  printf("test_stress: seed %u (SP_STRESS_SEED=%u repeats it)\n", seed, seed);
  fflush(stdout);
  srand(seed);
  static const char *const mems[] = {"2M", "3M", "8M", "32M"};
  int runs = SP_SANITIZED ? 4 : 12;
  for (int i = 0; i < runs; i++) {
    int t = 1 + rand() % 64, regions = 1 + rand() % 300;
    long rounds = 1 + rand() % (SP_SANITIZED ? 200 : 3000);
    while ((long)t * regions * rounds > (SP_SANITIZED ? 2000000L : 20000000L))
      rounds = rounds / 2 + 1;
    const char *mem = mems[rand() % 4];
    printf("test_stress: %d threads x %d regions x %ld rounds, SP_MEMORY=%s\n",
           t, regions, rounds, mem);
    fflush(stdout);
    check_threads(t, regions, rounds, mem);
    teardown(NULL);
    setup(NULL);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_threads48_tight, setup, teardown),
      cmocka_unit_test_setup_teardown(test_signal_handler_records, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_long_names_whole, setup, teardown),
      cmocka_unit_test_setup_teardown(test_lost_count_exact, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mkdir_reason, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dev_null, setup, teardown),
      cmocka_unit_test_setup_teardown(test_warning_prefixes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_verbose_merge, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stress, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
