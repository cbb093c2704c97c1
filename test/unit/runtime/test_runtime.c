/* test_runtime.c - runs scenario programs against libscopeprof in child
 * processes and checks what they wrote, value by value. */
#include "sp_format.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
/* cmocka.h needs the three above first */
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char dir[PATH_MAX];
static char errtext[8192];

/* snprintf into the array buf; a result that does not fit fails the test
 * instead of running on with a truncated path. Returns buf. */
#define FMT(buf, ...) fmt_into(buf, sizeof buf, __VA_ARGS__)
__attribute__((format(printf, 3, 4))) static char *
fmt_into(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= size)
    fail_msg("'%s' needs %d bytes, has %zu", fmt, n, size);
  return buf;
}

/* Runs prog with extra environment entries; stderr lands in errtext. */
static int run(const char *prog, const char *arg, const char *const *env) {
  char *envp[512];
  int n = 0;
  for (char **e = environ; *e && n < 480; e++) {
    if (!strncmp(*e, "SP_", 3) || !strncmp(*e, "OMPI_", 5) ||
        !strncmp(*e, "PMI", 3) || !strncmp(*e, "SLURM_", 6) ||
        !strncmp(*e, "MV2_", 4))
      continue; /* the test decides these */
    envp[n++] = *e;
  }
  for (; env && *env; env++)
    envp[n++] = (char *)*env;
  envp[n] = NULL;
  char errfile[PATH_MAX];
  FMT(errfile, "%s/stderr.txt", dir);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, errfile,
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  char path[PATH_MAX];
  FMT(path, "%s/%s", SP_TEST_BINARY_DIR, prog);
  char *argv[] = {path, (char *)arg, NULL};
  pid_t pid;
  int rc = posix_spawn(&pid, path, &fa, NULL, argv, envp);
  posix_spawn_file_actions_destroy(&fa);
  assert_int_equal(rc, 0);
  int st;
  waitpid(pid, &st, 0);
  FILE *f = fopen(errfile, "r");
  size_t got = f ? fread(errtext, 1, sizeof errtext - 1, f) : 0;
  errtext[got] = 0;
  if (f)
    fclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int setup(void **state) {
  (void)state;
  FMT(dir, "%s/rt_XXXXXX", SP_TEST_BINARY_DIR);
  assert_non_null(mkdtemp(dir));
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[PATH_MAX + 16];
  FMT(cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static int count_files(void) {
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.' && strcmp(e->d_name, "stderr.txt") != 0)
      n++;
  closedir(d);
  return n;
}

static const sp_fmt_block *find_block(const sp_fmt_rank *r, int thread,
                                      const char *name) {
  for (int64_t i = 0; i < r->nblocks; i++)
    if (r->blocks[i].thread == thread &&
        strcmp(r->regions[r->blocks[i].region].name, name) == 0)
      return &r->blocks[i];
  return NULL;
}

static const sp_fmt_region *region_of(const sp_fmt_rank *r,
                                      const sp_fmt_block *b) {
  return &r->regions[b->region];
}

static void read_spt(const char *name, sp_fmt_rank *r) {
  char path[PATH_MAX];
  sp_fmt_err err = {{0}};
  FMT(path, "%s/%s", dir, name);
  int rc = sp_fmt_spt_read(path, r, &err);
  if (rc != 0)
    fail_msg("%s", err.msg);
}

#define ENV_OUT(buf) FMT(buf, "SP_OUTPUT=%s/p", dir)

static void assert_ordered(const sp_fmt_block *b) {
  for (int64_t i = 0; i < b->count; i++) {
    assert_true(b->starts[i] <= b->ends[i]);
    if (i)
      assert_true(b->starts[i - 1] <= b->starts[i]);
  }
}

static void test_nest_roundtrip(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "nest", env), 0);
  assert_string_equal(errtext, "");
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  assert_int_equal(r.version, 2);
  assert_int_equal(r.rank, 0);
  assert_int_equal(r.nblocks, 4);
  const sp_fmt_block *a = find_block(&r, 0, "a"), *b = find_block(&r, 0, "b"),
                     *c = find_block(&r, 0, "c"),
                     *rec = find_block(&r, 0, "rec");
  assert_non_null(a), assert_non_null(b), assert_non_null(c),
      assert_non_null(rec);
  assert_int_equal(a->count, 1);
  assert_int_equal(b->count, 2);
  assert_int_equal(c->count, 1);
  assert_int_equal(rec->count, 5);
  assert_string_equal(region_of(&r, a)->file, "nest.c");
  assert_int_equal(region_of(&r, a)->line, 10); /* first location kept */
  assert_int_equal(region_of(&r, b)->line, 20);
  assert_null(region_of(&r, c)->file);
  assert_int_equal(region_of(&r, c)->line, -1);
  assert_ordered(a), assert_ordered(b), assert_ordered(c), assert_ordered(rec);
  /* nesting: c inside the first b, both b inside a, b's in order */
  assert_true(a->starts[0] <= b->starts[0] && b->ends[1] <= a->ends[0]);
  assert_true(b->starts[0] <= c->starts[0] && c->ends[0] <= b->ends[0]);
  assert_true(b->ends[0] <= b->starts[1]);
  /* recursion: each call strictly inside the previous one */
  for (int i = 1; i < 5; i++)
    assert_true(rec->starts[i - 1] <= rec->starts[i] &&
                rec->ends[i] <= rec->ends[i - 1]);
  assert_true(a->ends[0] <= rec->starts[0]);
  sp_fmt_rank_free(&r);
}

static void test_threads16_v3(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "threads16", env), 0);
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  assert_int_equal(r.version, 3);
  assert_int_equal(r.nregions, 2);
  assert_int_equal(r.nblocks, 32);
  for (int t = 0; t < 16; t++) {
    const sp_fmt_block *w = find_block(&r, t, "work"),
                       *in = find_block(&r, t, "inner");
    assert_non_null(w);
    assert_non_null(in);
    assert_int_equal(w->count, 100000); /* none lost */
    assert_int_equal(in->count, 10000);
    assert_ordered(w);
    assert_ordered(in);
    /* every inner call sits inside the work call that opened it */
    for (int64_t i = 0; i < in->count; i++)
      assert_true(w->starts[i * 10] <= in->starts[i] &&
                  in->ends[i] <= w->ends[i * 10]);
  }
  sp_fmt_rank_free(&r);
}

static void test_one_thread_v2(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "threads1", env), 0);
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  /* the main thread recorded nothing, so one thread: version 2 */
  assert_int_equal(r.version, 2);
  assert_int_equal(find_block(&r, 0, "work")->count, 100000);
  sp_fmt_rank_free(&r);
}

static void test_many_regions(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "many_regions", env), 0);
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  assert_int_equal(r.nregions, 100000);
  assert_int_equal(r.nblocks, 100000);
  assert_non_null(find_block(&r, 0, "region_000000"));
  const sp_fmt_block *last = find_block(&r, 0, "region_099999");
  assert_non_null(last);
  assert_int_equal(last->count, 1);
  sp_fmt_rank_free(&r);
}

static void test_mismatched_ends(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "mismatch", env), 0);
  assert_non_null(strstr(errtext, "1 sp_end call(s) did not match the "
                                  "innermost open region (2 region(s)"));
  assert_non_null(strstr(errtext, "2 sp_end call(s) with no matching open "
                                  "region were ignored"));
  assert_non_null(strstr(errtext, "1 call(s) with an invalid region id"));
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  const sp_fmt_block *a = find_block(&r, 0, "a"), *b = find_block(&r, 0, "b"),
                     *c = find_block(&r, 0, "c");
  assert_int_equal(a->count, 1);
  assert_int_equal(b->count, 2);
  assert_int_equal(c->count, 1);
  /* b and c were closed at the instant a closed: still properly nested */
  assert_int_equal(c->ends[0], a->ends[0]);
  assert_int_equal(b->ends[0], a->ends[0]);
  assert_true(a->ends[0] <= b->starts[1]);
  sp_fmt_rank_free(&r);
}

static void test_open_at_exit(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "open_at_exit", env), 0);
  assert_non_null(strstr(errtext, "scopeprof: 1 region(s) still open at "
                                  "finalize"));
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  const sp_fmt_block *a = find_block(&r, 0, "left_open"),
                     *b = find_block(&r, 0, "closed");
  assert_int_equal(a->count, 1);
  assert_true(a->ends[0] >= b->ends[0]); /* closed at finalize time */
  sp_fmt_rank_free(&r);
}

static void test_finalize_twice(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "finalize_twice", env), 0);
  assert_string_equal(errtext, "");
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  assert_int_equal(find_block(&r, 0, "a")->count, 1);
  sp_fmt_rank_free(&r);
  assert_int_equal(count_files(), 1);
}

static void test_enable_0(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", "SP_ENABLE=0", NULL};
  assert_int_equal(run("rt_scenario", "nest", env), 0);
  assert_int_equal(count_files(), 0);
  assert_string_equal(errtext, "");
}

static void test_fork(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "fork", env), 0);
  assert_int_equal(count_files(), 1); /* no %p: the child writes nothing */
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  assert_int_equal(find_block(&r, 0, "parent_work")->count, 2);
  assert_null(find_block(&r, 0, "child_work"));
  sp_fmt_rank_free(&r);
}

static void test_fork_with_pid(void **state) {
  (void)state;
  char out[PATH_MAX];
  FMT(out, "SP_OUTPUT=%s/p%%p", dir);
  const char *env[] = {out, "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "fork", env), 0);
  assert_int_equal(count_files(), 2); /* parent and child, one each */
  DIR *d = opendir(dir);
  struct dirent *e;
  int parents = 0, children = 0;
  while ((e = readdir(d))) {
    if (!strstr(e->d_name, ".spt"))
      continue;
    sp_fmt_rank r = {0};
    read_spt(e->d_name, &r);
    const sp_fmt_block *p = find_block(&r, 0, "parent_work"),
                       *c = find_block(&r, 0, "child_work");
    if (c) { /* the child holds only its own calls */
      assert_null(p);
      assert_int_equal(c->count, 3);
      children++;
    } else {
      assert_int_equal(p->count, 2);
      parents++;
    }
    sp_fmt_rank_free(&r);
  }
  closedir(d);
  assert_int_equal(parents, 1);
  assert_int_equal(children, 1);
}

static void test_unwritable_dir(void **state) {
  (void)state;
  char out[PATH_MAX];
  FMT(out, "SP_OUTPUT=%s/missing/p", dir);
  const char *env[] = {out, "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "unwritable", env), 3);
  /* one line naming the path and the reason */
  assert_non_null(strstr(errtext, "missing/p_rank00000.spt"));
  assert_non_null(strstr(errtext, "No such file or directory"));
  assert_non_null(strstr(errtext, "scopeprof: error: "));
  assert_ptr_equal(strchr(errtext, '\n'), errtext + strlen(errtext) - 1);
  assert_int_equal(count_files(), 0);
}

static void test_write_fails_midway(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "fsize_limit", env), 3);
  assert_non_null(strstr(errtext, "p_rank00000.spt"));
  assert_non_null(strstr(errtext, "File too large"));
  assert_int_equal(count_files(), 0); /* no truncated file, no temp */
}

static void test_rank_from_env(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *e1[] = {ENV_OUT(out), "SP_FORMAT=spt", "SP_RANK=3",
                      "OMPI_COMM_WORLD_RANK=7", NULL};
  assert_int_equal(run("rt_scenario", "nest", e1), 0);
  const char *e2[] = {ENV_OUT(out), "SP_FORMAT=spt", "PMI_RANK=12", NULL};
  assert_int_equal(run("rt_scenario", "nest", e2), 0);
  const char *e3[] = {ENV_OUT(out), "SP_FORMAT=spt", "SLURM_PROCID=5", NULL};
  assert_int_equal(run("rt_scenario", "nest", e3), 0);
  const char *e4[] = {ENV_OUT(out), "SP_FORMAT=spt", "OMPI_COMM_WORLD_RANK=7",
                      NULL};
  assert_int_equal(run("rt_scenario", "nest", e4), 0);
  const char *names[] = {"p_rank00003.spt", "p_rank00012.spt",
                         "p_rank00005.spt", "p_rank00007.spt"};
  int ranks[] = {3, 12, 5, 7};
  for (int i = 0; i < 4; i++) {
    sp_fmt_rank r = {0};
    read_spt(names[i], &r);
    assert_int_equal(r.rank, ranks[i]);
    sp_fmt_rank_free(&r);
  }
  assert_int_equal(count_files(), 4);
}

static void test_prefix_expansion(void **state) {
  (void)state;
  char out[PATH_MAX], host[256], want[PATH_MAX];
  FMT(out, "SP_OUTPUT=%s/run_%%h_100%%%%", dir);
  const char *env[] = {out, "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "nest", env), 0);
  gethostname(host, sizeof host);
  FMT(want, "%s/run_%s_100%%_rank00000.spt", dir, host);
  struct stat st;
  assert_int_equal(stat(want, &st), 0);
}

static void test_init_prefix_argument(void **state) {
  (void)state;
  /* scenario's argv[2] goes to sp_init(), which wins over SP_OUTPUT */
  char cmd[3 * PATH_MAX], want[PATH_MAX];
  FMT(cmd,
      "env -u SP_RANK SP_FORMAT=spt SP_OUTPUT=/nonexistent/x "
      "'%s/rt_scenario' nest '%s/fromapi'",
      SP_TEST_BINARY_DIR, dir);
  assert_int_equal(system(cmd), 0);
  FMT(want, "%s/fromapi_rank00000.spt", dir);
  struct stat st;
  assert_int_equal(stat(want, &st), 0);
}

static void test_cyg_names(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_cyg_prog", NULL, env), 0);
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  assert_int_equal(r.nblocks, 3);
  assert_int_equal(find_block(&r, 0, "main")->count, 1);
  assert_int_equal(find_block(&r, 0, "work")->count, 2);
  assert_int_equal(find_block(&r, 0, "helper")->count, 8); /* static */
  sp_fmt_rank_free(&r);
}

static void test_cyg_cxx_names(void **state) {
  (void)state;
  char out[PATH_MAX], path[PATH_MAX];
  FMT(path, "%s/rt_cyg_cxx", SP_TEST_BINARY_DIR);
  if (access(path, X_OK) != 0)
    skip();
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_cyg_cxx", NULL, env), 0);
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  assert_non_null(find_block(&r, 0, "int ns::twice<int>(int)"));
  assert_non_null(find_block(&r, 0, "double ns::twice<double>(double)"));
  assert_non_null(find_block(&r, 0, "over(int)"));
  assert_non_null(find_block(&r, 0, "over(double)"));
  assert_int_equal(find_block(&r, 0, "main")->count, 1);
  sp_fmt_rank_free(&r);
}

static void test_cyg_fortran_names(void **state) {
  (void)state;
  char out[PATH_MAX], path[PATH_MAX];
  FMT(path, "%s/rt_cyg_f90", SP_TEST_BINARY_DIR);
  if (access(path, X_OK) != 0)
    skip();
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_cyg_f90", NULL, env), 0);
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  assert_int_equal(find_block(&r, 0, "heat::fact")->count, 5); /* recursive */
  assert_int_equal(find_block(&r, 0, "heat::step")->count, 3);
  assert_int_equal(find_block(&r, 0, "MAIN__")->count, 1);
  const sp_fmt_block *f = find_block(&r, 0, "heat::fact");
  for (int i = 1; i < 5; i++)
    assert_true(f->starts[i - 1] <= f->starts[i] &&
                f->ends[i] <= f->ends[i - 1]);
  sp_fmt_rank_free(&r);
}

static void test_fortran_module_api(void **state) {
  (void)state;
  char out[PATH_MAX], path[PATH_MAX];
  FMT(path, "%s/rt_f90_api", SP_TEST_BINARY_DIR);
  if (access(path, X_OK) != 0)
    skip();
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_f90_api", NULL, env), 0);
  /* sp_finalize ran inside MAIN__ and main, which the hooks had opened:
   * expected there, so not a warning */
  assert_string_equal(errtext, "");
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  const sp_fmt_block *outer = find_block(&r, 0, "outer"),
                     *inner = find_block(&r, 0, "inner"),
                     *fact = find_block(&r, 0, "fact");
  assert_non_null(outer); /* trailing blanks are not part of names */
  assert_non_null(inner);
  assert_non_null(fact);
  assert_int_equal(outer->count, 1);
  assert_int_equal(inner->count, 3);
  assert_int_equal(fact->count, 4);
  assert_string_equal(region_of(&r, outer)->file, "api_prog.f90");
  assert_int_equal(region_of(&r, outer)->line, 10);
  assert_null(region_of(&r, inner)->file);
  assert_int_equal(region_of(&r, fact)->line, 30);
  for (int i = 0; i < 3; i++)
    assert_true(outer->starts[0] <= inner->starts[i] &&
                inner->ends[i] <= outer->ends[0]);
  for (int i = 1; i < 4; i++)
    assert_true(fact->starts[i - 1] <= fact->starts[i] &&
                fact->ends[i] <= fact->ends[i - 1]);
  /* the hooks saw the program and its internal function too */
  assert_int_equal(find_block(&r, 0, "MAIN__")->count, 1);
  sp_fmt_rank_free(&r);
}

static void test_fortran_module_api_flang_plugin(void **state) {
  (void)state;
  char out[PATH_MAX], path[PATH_MAX];
  FMT(path, "%s/rt_f90_api_flang", SP_TEST_BINARY_DIR);
  if (access(path, X_OK) != 0)
    skip();
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_f90_api_flang", NULL, env), 0);
  assert_string_equal(errtext, "");
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  /* the API's regions */
  assert_int_equal(find_block(&r, 0, "outer")->count, 1);
  assert_int_equal(find_block(&r, 0, "inner")->count, 3);
  const sp_fmt_block *fact = find_block(&r, 0, "fact");
  assert_int_equal(fact->count, 4);
  assert_int_equal(region_of(&r, fact)->line, 30);
  /* the plugin's: the main program by its name, the recursive internal
   * function under it, with the definition's lines */
  const sp_fmt_block *prog = find_block(&r, 0, "api_demo"),
                     *pf = find_block(&r, 0, "api_demo::fact");
  assert_non_null(prog);
  assert_non_null(pf);
  assert_int_equal(prog->count, 1);
  assert_int_equal(pf->count, 4);
  assert_non_null(strstr(region_of(&r, prog)->file, "f90_api.f90"));
  assert_int_equal(region_of(&r, prog)->line, 3);
  assert_int_equal(region_of(&r, pf)->line, 26);
  for (int i = 1; i < 4; i++) /* recursion nests */
    assert_true(pf->starts[i - 1] <= pf->starts[i] &&
                pf->ends[i] <= pf->ends[i - 1]);
  /* each API call of fact sits inside the plugin's call of the function */
  for (int i = 0; i < 4; i++)
    assert_true(pf->starts[i] <= fact->starts[i] &&
                fact->ends[i] <= pf->ends[i]);
  sp_fmt_rank_free(&r);
}

#ifdef SP_USE_HDF5
static void test_h5_output(void **state) {
  (void)state;
  char out[PATH_MAX], path[PATH_MAX];
  const char *env[] = {
      ENV_OUT(out), "SP_FORMAT=h5",           "SP_LABEL=nightly",
      "SP_RANK=2",  "OMPI_COMM_WORLD_SIZE=4", "LOADEDMODULES=gcc/12:hdf5/1.10",
      NULL};
  assert_int_equal(run("rt_scenario", "nest", env), 0);
  assert_string_equal(errtext, "");
  FMT(path, "%s/p_rank00002.h5", dir);
  sp_fmt_rank *ranks = NULL;
  int64_t n = 0;
  sp_fmt_err err = {{0}};
  if (sp_fmt_h5_read(path, &ranks, &n, &err) != 0)
    fail_msg("%s", err.msg);
  assert_int_equal(n, 1);
  sp_fmt_rank *r = &ranks[0];
  assert_int_equal(r->rank, 2);
  assert_int_equal(r->nblocks, 4);
  const sp_fmt_block *a = find_block(r, 0, "a"), *b = find_block(r, 0, "b"),
                     *rec = find_block(r, 0, "rec");
  assert_int_equal(a->count, 1);
  assert_int_equal(b->count, 2);
  assert_int_equal(rec->count, 5);
  assert_string_equal(region_of(r, a)->file, "nest.c");
  assert_int_equal(region_of(r, a)->line, 10);
  assert_true(a->starts[0] <= b->starts[0] && b->ends[1] <= a->ends[0]);

  /* metadata: every key of the seed a native run can fill, typed */
  const char *strs[] = {"timestamp",
                        "user",
                        "hostname",
                        "platform",
                        "uname",
                        "chip_information",
                        "scope_profiler_version",
                        "working_directory",
                        "clock_source",
                        "label",
                        "LOADEDMODULES"};
  for (size_t i = 0; i < sizeof strs / sizeof *strs; i++) {
    const sp_fmt_meta_item *m = sp_fmt_meta_get(&r->meta, strs[i]);
    if (!m)
      fail_msg("metadata %s missing", strs[i]);
    assert_int_equal(m->type, SP_FMT_META_STR);
  }
  assert_string_equal(sp_fmt_meta_get(&r->meta, "label")->str, "nightly");
  const char *ints[] = {"start_time_ns", "omp_num_threads", "mpi_size",
                        "total_cores"};
  for (size_t i = 0; i < 4; i++) {
    const sp_fmt_meta_item *m = sp_fmt_meta_get(&r->meta, ints[i]);
    if (!m)
      fail_msg("metadata %s missing", ints[i]);
    assert_int_equal(m->type, SP_FMT_META_INT);
  }
  assert_int_equal(sp_fmt_meta_get(&r->meta, "mpi_size")->i64, 4);
  assert_true(sp_fmt_meta_get(&r->meta, "start_time_ns")->i64 <= a->starts[0]);
  const sp_fmt_meta_item *mods = sp_fmt_meta_get(&r->meta, "modules");
  assert_non_null(mods);
  assert_int_equal(mods->type, SP_FMT_META_STRLIST);
  assert_int_equal(mods->nstrs, 2);
  assert_string_equal(mods->strs[0], "gcc/12");
  assert_string_equal(mods->strs[1], "hdf5/1.10");
  for (int64_t i = 0; i < n; i++)
    sp_fmt_rank_free(&ranks[i]);
  free(ranks);

  /* summary statistics: exclusive time reconstructed from nesting */
  sp_fmt_h5_summary sum = {0};
  if (sp_fmt_h5_read_summary(path, &sum, &err) != 0)
    fail_msg("%s", err.msg);
  assert_int_equal(sum.nrows, 4);
  for (int64_t i = 0; i < sum.nrows; i++) {
    const sp_fmt_h5_row *row = &sum.rows[i];
    const char *name = sum.names[row->region];
    assert_int_equal(row->rank, 2);
    assert_int_equal(row->thread, 0);
    assert_true(row->stats.min_ns <= row->stats.max_ns);
    assert_true(row->stats.exclusive_ns <= row->stats.total_ns);
    if (!strcmp(name, "c")) /* a leaf: all its time is its own */
      assert_int_equal(row->stats.exclusive_ns, row->stats.total_ns);
    if (!strcmp(name, "b"))
      assert_int_equal(row->stats.calls, 2);
  }
  sp_fmt_h5_summary_free(&sum);
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_nest_roundtrip, setup, teardown),
      cmocka_unit_test_setup_teardown(test_threads16_v3, setup, teardown),
      cmocka_unit_test_setup_teardown(test_one_thread_v2, setup, teardown),
      cmocka_unit_test_setup_teardown(test_many_regions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mismatched_ends, setup, teardown),
      cmocka_unit_test_setup_teardown(test_open_at_exit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_finalize_twice, setup, teardown),
      cmocka_unit_test_setup_teardown(test_enable_0, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fork, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fork_with_pid, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unwritable_dir, setup, teardown),
      cmocka_unit_test_setup_teardown(test_write_fails_midway, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rank_from_env, setup, teardown),
      cmocka_unit_test_setup_teardown(test_prefix_expansion, setup, teardown),
      cmocka_unit_test_setup_teardown(test_init_prefix_argument, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_cyg_names, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cyg_cxx_names, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cyg_fortran_names, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fortran_module_api, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fortran_module_api_flang_plugin,
                                      setup, teardown),
#ifdef SP_USE_HDF5
      cmocka_unit_test_setup_teardown(test_h5_output, setup, teardown),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
