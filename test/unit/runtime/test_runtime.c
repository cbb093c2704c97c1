/* test_runtime.c - runs scenario programs against libscopeprof in child
 * processes and checks what they wrote, value by value. */
#include "sp_format.h"
#include "sp_sanitizer.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
/* cmocka.h needs the three above first */
#include <cmocka.h>

#include "test_fmt.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char dir[PATH_MAX];
/* 1 in a cross build whose tests run under an emulator (qemu-user): the
 * process the kernel sees is the emulator's. */
#ifndef SP_TEST_EMULATED
#define SP_TEST_EMULATED 0
#endif

static char errtext[8192];
static const char *stdout_to; /* NULL: /dev/null */

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
  posix_spawn_file_actions_addopen(&fa, 1, stdout_to ? stdout_to : "/dev/null",
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
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

static char outtext[4096];

/* As run, with the child's stdout in outtext. */
static int run_out(const char *prog, const char *arg, const char *const *env) {
  char outfile[600];
  FMT(outfile, "%s/stdout.txt", dir);
  stdout_to = outfile;
  int rc = run(prog, arg, env);
  stdout_to = NULL;
  FILE *f = fopen(outfile, "r");
  size_t got = f ? fread(outtext, 1, sizeof outtext - 1, f) : 0;
  outtext[got] = 0;
  if (f)
    fclose(f);
  unlink(outfile);
  return rc;
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

/* The block of region name on thread, or NULL. */
static const sp_fmt_block *lookup_block(const sp_fmt_rank *r, int thread,
                                        const char *name) {
  for (int64_t i = 0; i < r->nblocks; i++)
    if (r->blocks[i].thread == thread &&
        strcmp(r->regions[r->blocks[i].region].name, name) == 0)
      return &r->blocks[i];
  return NULL;
}

/* As lookup_block, but a missing block fails the test, saying which. */
static const sp_fmt_block *find_block(const sp_fmt_rank *r, int thread,
                                      const char *name) {
  const sp_fmt_block *b = lookup_block(r, thread, name);
  if (!b)
    fail_msg("no block of region \"%s\" on thread %d", name, thread);
  return b;
}

/* The number of calls of region name on thread (failing if it has none). */
static int64_t block_count(const sp_fmt_rank *r, int thread, const char *name) {
  return find_block(r, thread, name)->count;
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
  assert_int_equal(r.version, 4);
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

/* rt_scenario's scenario written as .spt, SP_SPT_VERSION=3 when v is 3. */
static void run_spt(const char *scenario, int v) {
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt",
                       v == 3 ? "SP_SPT_VERSION=3" : NULL, NULL};
  assert_int_equal(run("rt_scenario", scenario, env), 0);
}

static void threads16(int v) {
  run_spt("threads16", v);
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  assert_int_equal(r.version, v);
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

/* Version 4 by default; SP_SPT_VERSION=3 gives version 3 for threads. */
static void test_threads16_v3(void **state) {
  (void)state;
  for (int v = 3; v <= 4; v++)
    threads16(v);
}

static void test_one_thread_v2(void **state) {
  (void)state;
  for (int v = 3; v <= 4; v++) {
    run_spt("threads1", v);
    sp_fmt_rank r = {0};
    read_spt("p_rank00000.spt", &r);
    /* the main thread recorded nothing, so one thread: version 2 (with
     * SP_SPT_VERSION=3), else 4 */
    assert_int_equal(r.version, v == 3 ? 2 : 4);
    assert_int_equal(block_count(&r, 0, "work"), 100000);
    sp_fmt_rank_free(&r);
  }
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

/* Calls still open at exit end then, silently (SP_VERBOSE=1 says so). */
static void test_open_at_exit(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "open_at_exit", env), 0);
  assert_string_equal(errtext, "");
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  const sp_fmt_block *a = find_block(&r, 0, "left_open"),
                     *b = find_block(&r, 0, "closed");
  assert_int_equal(a->count, 1);
  assert_true(a->ends[0] >= b->ends[0]); /* closed at finalize time */
  sp_fmt_rank_free(&r);
  const char *verbose[] = {ENV_OUT(out), "SP_VERBOSE=1", NULL};
  assert_int_equal(run("rt_scenario", "open_at_exit", verbose), 0);
  assert_non_null(strstr(errtext, "scopeprof: 1 call(s) still open at "
                                  "finalize (closed then)"));
}

static void test_finalize_twice(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "finalize_twice", env), 0);
  assert_string_equal(errtext, "");
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  assert_int_equal(block_count(&r, 0, "a"), 1);
  sp_fmt_rank_free(&r);
  assert_int_equal(count_files(), 1);
}

static void test_pause(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "pause", env), 0);
  assert_string_equal(errtext,
                      "scopeprof: 1 call(s) open when a pause began ended "
                      "during it: closed at the pause's start (call "
                      "sp_resume at the call depth of its sp_pause)\n");
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  const sp_fmt_block *a = find_block(&r, 0, "a"), *c = find_block(&r, 0, "c"),
                     *rec = find_block(&r, 0, "rec"),
                     *x = find_block(&r, 0, "x"), *d = find_block(&r, 0, "d");
  assert_null(lookup_block(&r, 0, "b")); /* only ever called while paused */
  assert_int_equal(a->count, 1);
  assert_int_equal(c->count, 1);
  assert_int_equal(x->count, 1);   /* the one after the second resume */
  assert_int_equal(rec->count, 2); /* the one called while paused is not */
  assert_int_equal(d->count, 1);
  /* a, open across the pauses, keeps its true end: after everything */
  assert_true(a->starts[0] <= c->starts[0] && c->ends[0] <= a->ends[0]);
  /* the rec begun after the resume nests in the one open across it */
  assert_true(rec->starts[0] < rec->starts[1] && rec->ends[1] < rec->ends[0]);
  assert_true(rec->ends[0] < x->starts[0]);
  /* d's end came during the pause: it ends where the pause began, before
   * a's end, which found it open */
  assert_true(x->ends[0] < d->starts[0] && d->starts[0] <= d->ends[0]);
  assert_true(d->ends[0] < a->ends[0]);
  sp_fmt_rank_free(&r);
}

static void test_pause_threads(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "pause_threads", env), 0);
  /* each worker's v ended while paused, seen at the thread's exit */
  assert_string_equal(errtext,
                      "scopeprof: 3 call(s) open when a pause began ended "
                      "during it: closed at the pause's start (call "
                      "sp_resume at the call depth of its sp_pause)\n");
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  int nw = 0;
  for (int64_t i = 0; i < r.nblocks; i++)
    if (!strcmp(r.regions[r.blocks[i].region].name, "w")) {
      const sp_fmt_block *w = &r.blocks[i];
      assert_int_equal(w->count, 2); /* the 5 paused: none */
      const sp_fmt_block *v = find_block(&r, w->thread, "v");
      assert_int_equal(v->count, 1);
      /* closed at the pause's start, not at the thread's exit */
      assert_true(v->starts[0] <= v->ends[0] && v->ends[0] < w->starts[0]);
      nw++;
    }
  assert_int_equal(nw, 3);
  sp_fmt_rank_free(&r);
}

static void test_pause_exit(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "pause_exit", env), 0);
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  assert_int_equal(block_count(&r, 0, "a"), 1); /* closed at exit */
  sp_fmt_rank_free(&r);
  /* with %p the child of a paused parent records, and is paused (its
   * exit status checks it); without %p it records nothing at all */
  char pid_out[PATH_MAX];
  FMT(pid_out, "SP_OUTPUT=%s/f%%p", dir);
  const char *penv[] = {pid_out, "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "pause_fork", penv), 0);
  const char *off[] = {ENV_OUT(out), "SP_ENABLE=0", NULL};
  assert_int_equal(run("rt_scenario", "pause_disabled", off), 0);
  /* p_rank00000 only: the fork's parent made no region, so it leaves no
   * file, and the child _exits */
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

/* A process that recorded nothing (never made a region: a shell exec'ing
 * the program under LD_PRELOAD, a tool) leaves no file and no stream,
 * however it ends, so that it never claims a rank in sp-import. */
static void test_idle_leaves_nothing(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "idle", env), 0);
  assert_int_equal(count_files(), 0);
  assert_int_equal(run("rt_scenario", "idle_exec", env), 6);
  assert_int_equal(count_files(), 0);
  assert_int_equal(run("rt_scenario", "idle_term", env), 128 + SIGTERM);
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
  assert_int_equal(block_count(&r, 0, "parent_work"), 2);
  assert_null(lookup_block(&r, 0, "child_work"));
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
    const sp_fmt_block *p = lookup_block(&r, 0, "parent_work"),
                       *c = lookup_block(&r, 0, "child_work");
    if (c) { /* the child holds only its own calls */
      assert_null(p);
      assert_int_equal(c->count, 3);
      children++;
    } else {
      assert_non_null(p);
      assert_int_equal(p->count, 2);
      parents++;
    }
    sp_fmt_rank_free(&r);
  }
  closedir(d);
  assert_int_equal(parents, 1);
  assert_int_equal(children, 1);
}

/* A missing directory is created, as LLVM's profile runtime does. */
static void test_missing_dir_created(void **state) {
  (void)state;
  char out[PATH_MAX];
  FMT(out, "SP_OUTPUT=%s/a/b/p", dir);
  const char *env[] = {out, "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "unwritable", env), 3);
  assert_string_equal(errtext, "");
  sp_fmt_rank r = {0};
  read_spt("a/b/p_rank00000.spt", &r);
  assert_int_equal(block_count(&r, 0, "b"), 2);
  sp_fmt_rank_free(&r);
}

/* A directory that cannot be made (a file is in the way): one line naming
 * the path and the reason, the exit status untouched, nothing written. */
static void test_unwritable_dir(void **state) {
  (void)state;
  char out[600], file[600];
  FMT(file, "%s/file", dir);
  close(open(file, O_WRONLY | O_CREAT, 0644));
  FMT(out, "SP_OUTPUT=%s/file/p", dir);
  const char *env[] = {out, "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "unwritable", env), 3);
  assert_non_null(strstr(errtext, "scopeprof: error: "));
  assert_non_null(strstr(errtext, "file/p_rank00000.spt: Not a directory"));
  assert_ptr_equal(strchr(errtext, '\n'), errtext + strlen(errtext) - 1);
  assert_int_equal(count_files(), 1); /* the file in the way, nothing else */
}

/* A write refused part way (a full disk): one line naming the stream, the
 * calls it lost and that it keeps what was written; no final file, and the
 * stream stays readable, holding exactly the calls not counted lost (how
 * many fit in the 4096 bytes depends on the metadata before them). */
static void test_write_fails_midway(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run("rt_scenario", "fsize_limit", env), 3);
  assert_int_equal(strncmp(errtext, "scopeprof: error: ", 18), 0);
  const char *why = strstr(errtext, ".spts: File too large; ");
  assert_non_null(why);
  long lost = strtol(why + strlen(".spts: File too large; "), NULL, 10);
  assert_true(lost > 0 && lost <= 10000);
  char tail[200];
  assert_non_null(strstr(errtext, FMT(tail, " call(s) lost (the rest is kept "
                                            "there; sp-import reads it)\n")));
  assert_ptr_equal(strchr(errtext, '\n'), errtext + strlen(errtext) - 1);
  DIR *d = opendir(dir);
  struct dirent *e;
  int streams = 0;
  while ((e = readdir(d))) {
    assert_null(strstr(e->d_name, ".spt.tmp"));
    assert_false(strcmp(e->d_name, "p_rank00000.spt") == 0);
    if (strstr(e->d_name, ".spts")) {
      char path[1200];
      FMT(path, "%s/%s", dir, e->d_name);
      sp_fmt_rank r = {0};
      sp_fmt_err err = {{0}};
      assert_int_equal(sp_fmt_stream_read(path, &r, &err), 0);
      const sp_fmt_block *a = lookup_block(&r, 0, "a"); /* all may be lost */
      assert_int_equal(a ? a->count : 0, 10000 - lost);
      sp_fmt_rank_free(&r);
      streams++;
    }
  }
  closedir(d);
  assert_int_equal(streams, 1);
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
  assert_int_equal(block_count(&r, 0, "main"), 1);
  assert_int_equal(block_count(&r, 0, "work"), 2);
  assert_int_equal(block_count(&r, 0, "helper"), 8); /* static */
  sp_fmt_rank_free(&r);
}

/* A library closed, another loaded where it was, the first again, the
 * second again elsewhere and closed before the end: each call under its
 * own library's names, none left as an address. */
static void test_cyg_dlclose(void **state) {
  (void)state;
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=spt", NULL};
  assert_int_equal(run_out("rt_cyg_dl", SP_TEST_BINARY_DIR, env), 0);
  /* The case needs the second library where the first was. Native
   * loaders reuse the hole; qemu-user (the aarch64 CI run) places guest
   * mappings itself and may not, so there the names are still checked but
   * the address sharing cannot be required. */
  char a1[64], g[64], a2[64];
  assert_int_equal(sscanf(outtext,
                          "alpha_work %63s gamma_work %63s "
                          "alpha_work %63s",
                          a1, g, a2),
                   3);
#if defined(__x86_64__)
  assert_string_equal(a1, g);
#endif
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  for (int64_t i = 0; i < r.nregions; i++)
    assert_false(strncmp(r.regions[i].name, "0x", 2) == 0);
  assert_int_equal(block_count(&r, 0, "alpha_work"), 2);
  assert_int_equal(block_count(&r, 0, "alpha_helper"), 5);
  assert_int_equal(block_count(&r, 0, "gamma_work"), 2);
  assert_int_equal(block_count(&r, 0, "gamma_helper"), 6);
  assert_int_equal(block_count(&r, 0, "use"), 4);
  assert_int_equal(block_count(&r, 0, "main"), 1);
  assert_int_equal(r.nblocks, 6);
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
  assert_int_equal(block_count(&r, 0, "main"), 1);
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
  assert_int_equal(block_count(&r, 0, "heat::fact"), 5); /* recursive */
  assert_int_equal(block_count(&r, 0, "heat::step"), 3);
  assert_int_equal(block_count(&r, 0, "MAIN__"), 1);
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
  assert_int_equal(block_count(&r, 0, "MAIN__"), 1);
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
  assert_int_equal(block_count(&r, 0, "outer"), 1);
  assert_int_equal(block_count(&r, 0, "inner"), 3);
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
  assert_int_equal(region_of(&r, pf)->line, 37);
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

  /* metadata: every schema-2 key a native run can fill, typed */
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

/* Threads that come and go: their states and chunks are reused, so 1000 of
 * them one after another stay small, and all their calls are there. */
static void check_seq_threads(const char *arg, long n, long max_kib) {
  char out[600];
  const char *env[] = {ENV_OUT(out), NULL};
  assert_int_equal(run_out("rt_scenario", arg, env), 0);
  assert_string_equal(errtext, "");
  long kib = strtol(outtext, NULL, 10);
  assert_true(kib > 0);
  /* a sanitizer's or an emulator's own memory would be measured too */
  if (!SP_SANITIZED && !SP_TEST_EMULATED && kib >= max_kib)
    fail_msg("peak resident %ld KiB, limit %ld KiB", kib, max_kib);
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  assert_int_equal(r.nblocks, n);
  for (int64_t i = 0; i < r.nblocks; i++) {
    assert_int_equal(r.blocks[i].thread, i);
    assert_int_equal(r.blocks[i].count, 1);
    assert_string_equal(r.regions[r.blocks[i].region].name, "short_lived");
  }
  sp_fmt_rank_free(&r);
}

static void test_thread_churn(void **state) {
  (void)state;
  check_seq_threads("seq_threads:1000", 1000, 32 * 1024);
}

/* 3000 short threads under a 400 MB address-space limit: every call. */
static void test_thread_churn_ulimit(void **state) {
  (void)state;
  if (SP_SANITIZED) /* a sanitizer's shadow memory needs the address space */
    skip();
  if (SP_TEST_EMULATED) /* qemu-user keeps address-space limits to itself */
    skip();
  check_seq_threads("seq_threads:3000:400000", 3000, 64 * 1024);
}

/* The runtime's address space beside the program's (ulimit -v counts
 * both): 16 threads at once, the writer's first chunk handed over by one
 * of them. At most the pool's reservation (twice SP_MEMORY, and a 2 MiB
 * slab), the writer's 1 MiB stack, and 12 MiB for the threads' states,
 * region pages and the rest (6-8 MiB measured); never a malloc arena of glibc's (64 MiB,
 * 128 MiB while made) for a program thread that itself never allocates. */
static void test_threads_address_space(void **state) {
  (void)state;
  if (SP_SANITIZED) /* a sanitizer's shadow memory is address space too */
    skip();
  if (SP_TEST_EMULATED) /* qemu-user's address space is its own */
    skip();
  char out[600];
  const char *off[] = {ENV_OUT(out), "SP_ENABLE=0", NULL};
  const char *on[] = {ENV_OUT(out), "SP_MEMORY=8M", NULL};
  assert_int_equal(run_out("rt_scenario", "wide_threads:16:20000", off), 0);
  long base = strtol(outtext, NULL, 10);
  assert_int_equal(run_out("rt_scenario", "wide_threads:16:20000", on), 0);
  assert_string_equal(errtext, "");
  long with = strtol(outtext, NULL, 10);
  assert_true(base > 0 && with > base);
  if (with - base > (2 * 8 + 2 + 1 + 12) * 1024)
    fail_msg("the runtime took %ld KiB of address space (%ld KiB without "
             "it, %ld with)",
             with - base, base, with);
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  int threads = 0;
  for (int64_t i = 0; i < r.nblocks; i++) {
    assert_string_equal(r.regions[r.blocks[i].region].name, "wide");
    assert_int_equal(r.blocks[i].count, 20000);
    threads++;
  }
  assert_int_equal(threads, 16);
  sp_fmt_rank_free(&r);
}

/* Under an address-space limit (ulimit -v) the default SP_MEMORY shrinks
 * to a 16th of the limit, said with SP_VERBOSE; a budget the user set is
 * kept. Every call is recorded either way. */
static void test_budget_ulimit(void **state) {
  (void)state;
  if (SP_SANITIZED || SP_TEST_EMULATED)
    skip();
  char out[600];
  const char *dflt[] = {ENV_OUT(out), "SP_VERBOSE=1", NULL};
  assert_int_equal(run("rt_scenario", "as_exec:327680:nest", dflt), 0);
  assert_non_null(strstr(errtext, "address space limited to 335544320 bytes "
                                  "(ulimit -v): SP_MEMORY 20971520 instead "
                                  "of 33554432"));
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  const sp_fmt_block *b = find_block(&r, 0, "b");
  assert_non_null(b);
  assert_int_equal(b->count, 2);
  sp_fmt_rank_free(&r);
  const char *set[] = {ENV_OUT(out), "SP_VERBOSE=1", "SP_MEMORY=32M", NULL};
  assert_int_equal(run("rt_scenario", "as_exec:327680:nest", set), 0);
  assert_null(strstr(errtext, "instead of"));
  assert_non_null(strstr(errtext, "33554432 bytes of memory"));
}

/* sp_finalize while 8 threads record: every call in the file is whole
 * (start <= end, in order, inner inside outer); run under TSan in CI. */
static void test_finalize_race(void **state) {
  (void)state;
  char out[600];
  const char *env[] = {ENV_OUT(out), NULL};
  assert_int_equal(run("rt_scenario", "finalize_race", env), 0);
  assert_string_equal(errtext, "");
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  assert_int_equal(r.version, 4);
  int threads = 0;
  for (int t = 0; t < 8; t++) {
    const sp_fmt_block *o = find_block(&r, t, "racing"),
                       *in = find_block(&r, t, "racing_inner");
    if (!o)
      continue;
    threads++;
    assert_ordered(o);
    /* a thread may have been between its two begins when recording
     * stopped: one inner fewer */
    int64_t nin = in ? in->count : 0;
    assert_true(nin == o->count || nin == o->count - 1);
    if (!in)
      continue;
    assert_ordered(in);
    for (int64_t i = 0; i < nin; i++) /* each inner inside its outer */
      assert_true(o->starts[i] <= in->starts[i] && in->ends[i] <= o->ends[i]);
  }
  assert_int_equal(threads, 8);
  sp_fmt_rank_free(&r);
}

/* The address space capped part way: calls that cannot get memory are
 * counted in one line, everything recorded before is written. */
static void test_tight_memory(void **state) {
  (void)state;
  if (SP_SANITIZED) /* a sanitizer's shadow memory needs the address space */
    skip();
  if (SP_TEST_EMULATED) /* qemu-user keeps address-space limits to itself */
    skip();
  char out[600];
  const char *env[] = {ENV_OUT(out), NULL};
  assert_int_equal(run("rt_scenario", "tight:1000000", env), 0);
  assert_non_null(strstr(errtext, "call(s) not recorded (out of memory"));
  assert_ptr_equal(strchr(errtext, '\n'), errtext + strlen(errtext) - 1);
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  const sp_fmt_block *w = find_block(&r, 0, "work");
  assert_non_null(w);
  assert_int_equal(w->count, 1000000);
  assert_ordered(w);
  sp_fmt_rank_free(&r);
}

/* A long run in bounded memory: 200M calls through a 64 MiB budget, peak
 * resident memory under 80 MiB, every call in the file, in order. */
static void test_long_run_bounded(void **state) {
  (void)state;
  /* sanitizers and emulators: slower */
  const long n = SP_SANITIZED || SP_TEST_EMULATED ? 2000000 : 200000000;
  char out[600], arg[64];
  FMT(arg, "calls:%ld", n);
  const char *env[] = {ENV_OUT(out), "SP_MEMORY=64M", NULL};
  assert_int_equal(run_out("rt_scenario", arg, env), 0);
  assert_string_equal(errtext, "");
  long kib = strtol(outtext, NULL, 10);
  if (kib <= 0 || (!SP_SANITIZED && !SP_TEST_EMULATED && kib >= 80 * 1024))
    fail_msg("peak resident %ld KiB, limit 80 MiB", kib);
  char path[700];
  FMT(path, "%s/p_rank00000.spt", dir);
  sp_fmt_rank r = {0};
  sp_fmt_err err = {{0}};
  if (sp_fmt_spt_index(path, &r, &err) != 0)
    fail_msg("%s", err.msg);
  const sp_fmt_block *w = find_block(&r, 0, "work"),
                     *o = find_block(&r, 0, "outer");
  assert_non_null(w);
  assert_int_equal(w->count, n);
  assert_int_equal(o->count, 1);
  int fd = open(path, O_RDONLY), failed = 0;
  sp_fmt_spt_calls c;
  sp_fmt_spt_calls_init(&c, fd, &r, w, &failed);
  sp_fmt_source src = {
      .count = w->count, .read = sp_fmt_spt_calls_read, .ctx = &c};
  enum { B = 1 << 20 };
  int64_t *st = malloc(B * sizeof *st), *en = malloc(B * sizeof *en);
  int64_t prev_end = INT64_MIN;
  for (int64_t at = 0; at < n; at += B) {
    int64_t k = n - at < B ? n - at : B;
    sp_fmt_spt_calls_read(&src, at, k, st, en);
    for (int64_t i = 0; i < k; i++) {
      if (st[i] < prev_end || en[i] < st[i])
        fail_msg("call %lld out of order", (long long)(at + i));
      prev_end = en[i];
    }
  }
  assert_int_equal(failed, 0);
  free(st);
  free(en);
  close(fd);
  sp_fmt_rank_free(&r);
}

/* A prefix whose final name is 250 bytes long (the stream's and the
 * temporary's would not fit): the final file is written. One whose final
 * name cannot exist: the line names that name and the real reason. */
static void test_long_prefix(void **state) {
  (void)state;
  char out[900], name[300];
  memset(name, 'x', 236);
  name[236] = 0;
  FMT(out, "SP_OUTPUT=%s/%s", dir, name);
  const char *env[] = {out, NULL};
  assert_int_equal(run("rt_scenario", "nest", env), 0);
  assert_string_equal(errtext, "");
  char file[400];
  FMT(file, "%s_rank00000.spt", name);
  assert_int_equal(strlen(file), 250);
  sp_fmt_rank r = {0};
  read_spt(file, &r);
  assert_int_equal(block_count(&r, 0, "b"), 2);
  sp_fmt_rank_free(&r);
  assert_int_equal(count_files(), 1);

  memset(name, 'y', 245);
  name[245] = 0;
  FMT(out, "SP_OUTPUT=%s/%s", dir, name);
  assert_int_equal(run("rt_scenario", "nest", env), 0);
  assert_non_null(strstr(errtext, "yyyy_rank00000.spt: File name too long "
                                  "(the calls are kept in "));
  assert_ptr_equal(strchr(errtext, '\n'), errtext + strlen(errtext) - 1);
  assert_int_equal(count_files(), 2); /* and the stream, recoverable */
}

/* Another process wrote our final name while we ran (no %p): it is kept,
 * ours goes beside it with the pid in its name, and one line says so. */
static void test_no_silent_overwrite(void **state) {
  (void)state;
  char out[600];
  const char *env[] = {ENV_OUT(out), NULL};
  assert_int_equal(run("rt_scenario", "clash", env), 0);
  assert_non_null(strstr(errtext, "p_rank00000.spt was written by another "
                                  "process while this one ran; this profile "
                                  "is "));
  assert_ptr_equal(strchr(errtext, '\n'), errtext + strlen(errtext) - 1);
  char theirs[700], buf[16] = {0};
  FMT(theirs, "%s/p_rank00000.spt", dir);
  FILE *f = fopen(theirs, "r");
  assert_non_null(f);
  assert_int_equal(fread(buf, 1, sizeof buf - 1, f), 6);
  fclose(f);
  assert_string_equal(buf, "theirs");
  const char *ours = strstr(errtext, "this profile is ") + 16;
  const char *slash = strrchr(ours, '/');
  char name[300];
  FMT(name, "%.*s", (int)strcspn(slash + 1, " "), slash + 1);
  sp_fmt_rank r = {0};
  read_spt(name, &r);
  assert_int_equal(block_count(&r, 0, "b"), 2);
  sp_fmt_rank_free(&r);
  /* a file from before the run is the last run's: replaced, silently */
  assert_int_equal(run("rt_scenario", "nest", env), 0);
  assert_string_equal(errtext, "");
  sp_fmt_rank_free(&r);
  read_spt("p_rank00000.spt", &r);
  assert_int_equal(block_count(&r, 0, "b"), 2);
  sp_fmt_rank_free(&r);
}

static void test_default_format_is_spt(void **state) {
  (void)state;
  char out[600];
  const char *env[] = {ENV_OUT(out), NULL};
  assert_int_equal(run("rt_scenario", "nest", env), 0);
  assert_string_equal(errtext, "");
  sp_fmt_rank r = {0};
  read_spt("p_rank00000.spt", &r);
  assert_int_equal(block_count(&r, 0, "rec"), 5);
  sp_fmt_rank_free(&r);
  assert_int_equal(count_files(), 1);
}

/* HDF5 enters the process only to write .h5 (rt_scenario hdf5_maps looks
 * in /proc/self/maps after sp_finalize: 5 = mapped, 0 = not). */
static void test_hdf5_loaded_only_for_h5(void **state) {
  (void)state;
  char out[600];
  const char *dflt[] = {ENV_OUT(out), NULL};
  assert_int_equal(run("rt_scenario", "hdf5_maps", dflt), 0);
  assert_string_equal(errtext, "");
  const char *spt[] = {ENV_OUT(out), "SP_FORMAT=spt", "SP_RANK=1", NULL};
  assert_int_equal(run("rt_scenario", "hdf5_maps", spt), 0);
  assert_string_equal(errtext, "");
#ifdef SP_USE_HDF5
  const char *h5[] = {ENV_OUT(out), "SP_FORMAT=h5", "SP_RANK=2", NULL};
  assert_int_equal(run("rt_scenario", "hdf5_maps", h5), 5);
  assert_string_equal(errtext, "");
  assert_int_equal(count_files(), 3);
  char path[700];
  FMT(path, "%s/p_rank00002.h5", dir);
  assert_int_equal(sp_fmt_is_h5(path), 1);
#endif
}

#ifdef SP_USE_HDF5
/* One line, starting as want, ending with the stream that keeps the calls,
 * which is the one file left and is readable. */
static void assert_kept_in_stream(const char *want) {
  if (strncmp(errtext, want, strlen(want)) != 0)
    fail_msg("got %s, want %s...", errtext, want);
  const char *name = errtext + strlen(want);
  size_t n = strcspn(name, ")");
  assert_string_equal(name + n, ")\n");
  assert_true(n > 5 && !strncmp(name + n - 5, ".spts", 5));
  assert_int_equal(count_files(), 1);
  char stream[300];
  FMT(stream, "%.*s", (int)n, name);
  char path[1000];
  FMT(path, "%s/%s", dir, stream);
  sp_fmt_rank r = {0};
  sp_fmt_err err = {{0}};
  if (sp_fmt_stream_read(path, &r, &err) != 0)
    fail_msg("%s", err.msg);
  assert_int_equal(r.nregions, 4);
  sp_fmt_rank_free(&r);
}

static void test_h5_module_missing(void **state) {
  (void)state;
  char out[600], want[2000];
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=h5",
                       "SP_H5_MODULE=/nonexistent/libscopeprof_h5.so", NULL};
  assert_int_equal(run("rt_scenario", "unwritable", env), 3);
  FMT(want,
      "scopeprof: error: %s/p_rank00000.h5: cannot write .h5: the HDF5 "
      "writer libscopeprof_h5.so was not found (looked for "
      "/nonexistent/libscopeprof_h5.so) (the calls are kept in %s/",
      dir, dir);
  assert_kept_in_stream(want);
}

static void test_h5_module_not_loadable(void **state) {
  (void)state;
  char out[600], mod[700], env_mod[800], want[2000];
  FMT(mod, "%s/not_a_module.so", SP_TEST_BINARY_DIR);
  FILE *f = fopen(mod, "w");
  assert_non_null(f);
  for (int i = 0; i < 16; i++) /* longer than an ELF header */
    fputs("not an ELF file\n", f);
  fclose(f);
  FMT(env_mod, "SP_H5_MODULE=%s", mod);
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=h5", env_mod, NULL};
  assert_int_equal(run("rt_scenario", "unwritable", env), 3);
  FMT(want,
      "scopeprof: error: %s/p_rank00000.h5: cannot load the HDF5 "
      "writer: %s: invalid ELF header (the calls are kept in %s/",
      dir, mod, dir);
  assert_kept_in_stream(want);
  unlink(mod);
}

/* The static library finds the module at its install path, or where
 * SP_H5_MODULE says. */
static void test_h5_static_library(void **state) {
  (void)state;
  char out[600], env_mod[800], want[2000], path[700];
  FMT(env_mod, "SP_H5_MODULE=%s", SP_TEST_H5_MODULE);
  const char *env[] = {ENV_OUT(out), "SP_FORMAT=h5", env_mod, NULL};
  assert_int_equal(run("rt_scenario_static", "hdf5_maps", env), 5);
  assert_string_equal(errtext, "");
  FMT(path, "%s/p_rank00000.h5", dir);
  sp_fmt_h5_summary sum = {0};
  sp_fmt_err err = {{0}};
  if (sp_fmt_h5_read_summary(path, &sum, &err) != 0)
    fail_msg("%s", err.msg);
  assert_int_equal(sum.nrows, 4);
  sp_fmt_h5_summary_free(&sum);
  unlink(path);
  if (access(SP_TEST_H5_INSTALLED, F_OK) == 0)
    return; /* installed: the next case would find it */
  const char *env2[] = {ENV_OUT(out), "SP_FORMAT=h5", NULL};
  assert_int_equal(run("rt_scenario_static", "unwritable", env2), 3);
  FMT(want,
      "scopeprof: error: %s/p_rank00000.h5: cannot write .h5: the HDF5 "
      "writer libscopeprof_h5.so was not found (looked for %s) (the "
      "calls are kept in %s/",
      dir, SP_TEST_H5_INSTALLED, dir);
  assert_kept_in_stream(want);
}
#endif

/* A value a variable does not take: one line naming the variable and the
 * value used instead, and the run goes on with it. */
static void test_bad_settings(void **state) {
  (void)state;
  static const struct {
    const char *var, *line;
  } cases[] = {
      {"SP_RANK=abc", "scopeprof: warning: SP_RANK=abc is not a rank "
                      "(0-99999); using 0\n"},
      {"SP_RANK=100000", "scopeprof: warning: SP_RANK=100000 is not a rank "
                         "(0-99999); using 0\n"},
      {"SP_MEMORY=lots", "scopeprof: warning: SP_MEMORY=lots is not a size "
                         "(bytes, or a number with K, M or G); using 32M\n"},
      {"SP_MEMORY=17T", "scopeprof: warning: SP_MEMORY=17T is not a size "
                        "(bytes, or a number with K, M or G); using 32M\n"},
      {"SP_MEMORY=1K", "scopeprof: warning: SP_MEMORY=1K is below the "
                       "minimum; using 2M\n"},
      {"SP_ENABLE=maybe", "scopeprof: warning: SP_ENABLE=maybe is not 1/0, "
                          "true/false, on/off or yes/no; using 1\n"},
      {"SP_VERBOSE=loud", "scopeprof: warning: SP_VERBOSE=loud is not 1/0, "
                          "true/false, on/off or yes/no; using 0\n"},
      {"SP_SIGNALS=some", "scopeprof: warning: SP_SIGNALS=some is not 1/0, "
                          "true/false, on/off or yes/no; using 1\n"},
      {"SP_FORMAT=xml", "scopeprof: warning: SP_FORMAT=xml is not spt or "
                        "h5; using spt\n"},
      /* what no setting takes is no warning */
      {"SP_VERBOSE=false", ""},
      {"SP_VERBOSE=No", ""},
      {"SP_SIGNALS=off", ""},
      {"SP_MEMORY=3m", ""},
  };
  char out[PATH_MAX];
  for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *env[] = {ENV_OUT(out), cases[i].var, NULL};
    assert_int_equal(run("rt_scenario", "nest", env), 0);
    assert_string_equal(errtext, cases[i].line);
    sp_fmt_rank r = {0};
    read_spt("p_rank00000.spt", &r);
    assert_int_equal(block_count(&r, 0, "rec"), 5);
    sp_fmt_rank_free(&r);
  }
  /* SP_CLOCK: the message says which clock is used, which depends on the
   * machine */
  const char *env[] = {ENV_OUT(out), "SP_CLOCK=sundial", NULL};
  assert_int_equal(run("rt_scenario", "nest", env), 0);
  assert_true(!strcmp(errtext, "scopeprof: warning: SP_CLOCK=sundial is not "
                               "monotonic, tsc or auto; using tsc\n") ||
              !strcmp(errtext, "scopeprof: warning: SP_CLOCK=sundial is not "
                               "monotonic, tsc or auto; using monotonic\n"));
  /* every true spelling turns SP_VERBOSE on */
  static const char *const yes[] = {"SP_VERBOSE=1", "SP_VERBOSE=true",
                                    "SP_VERBOSE=ON", "SP_VERBOSE=yes"};
  for (unsigned i = 0; i < sizeof yes / sizeof yes[0]; i++) {
    const char *v[] = {ENV_OUT(out), yes[i], NULL};
    assert_int_equal(run("rt_scenario", "nest", v), 0);
    assert_non_null(strstr(errtext, "scopeprof: recording to "));
  }
  /* a run with SP_ENABLE off reads nothing after it: no warning */
  char old[PATH_MAX];
  unlink(FMT(old, "%s/p_rank00000.spt", dir));
  const char *off_bad[] = {ENV_OUT(out), "SP_ENABLE=false", "SP_MEMORY=lots",
                           NULL};
  assert_int_equal(run("rt_scenario", "nest", off_bad), 0);
  assert_string_equal(errtext, "");
  assert_int_equal(count_files(), 0);
  /* boolean spellings: SP_ENABLE=off records nothing, quietly */
  const char *off[] = {ENV_OUT(out), "SP_ENABLE=OFF", NULL};
  assert_int_equal(run("rt_scenario", "nest", off), 0);
  assert_string_equal(errtext, "");
  assert_int_equal(count_files(), 0);
}

/* What each API call returns in each state, and the table of codes. */
static void test_error_codes(void **state) {
  (void)state;
  char out[PATH_MAX];
  static const char table[] =
      "0 SP_OK: success\n"
      "-1 SP_EINVAL: invalid argument\n"
      "-2 SP_ENOMEM: out of memory\n"
      "-3 SP_EIO: the output file could not be written\n"
      "-4 SP_EDISABLED: profiling is disabled (SP_ENABLE=0)\n"
      "-5 SP_EFINALIZED: sp_finalize() already ran\n"
      "-6 SP_ELIMIT: a runtime limit was reached\n"
      "-7 SP_EBUSY: called from a signal handler that interrupted the "
      "runtime\n"
      "7 unknown: unknown error\n";
  char want[2048];
  const char *env[] = {ENV_OUT(out), NULL};
  assert_int_equal(run_out("rt_scenario", "codes", env), 0);
  FMT(want,
      "sp_init(\"\") SP_OK\n"
      "sp_region(NULL) SP_EINVAL\n"
      "sp_region(\"\") SP_EINVAL\n"
      "sp_region_at(NULL) SP_EINVAL\n"
      "sp_region_at(\"\") SP_EINVAL\n"
      "sp_region(\"a\") 0\n"
      "sp_finalize() SP_OK\n"
      "sp_finalize() SP_OK\n"
      "sp_init(NULL) SP_EFINALIZED\n"
      "sp_region(\"b\") 1\n%s",
      table);
  assert_string_equal(outtext, want);
  assert_string_equal(errtext, "");
  /* disabled: sp_init says so; regions still get ids (sp_begin ignores
   * them), so a program that checks them runs the same */
  const char *off[] = {ENV_OUT(out), "SP_ENABLE=0", NULL};
  assert_int_equal(run_out("rt_scenario", "codes", off), 0);
  FMT(want,
      "sp_init(\"\") SP_EDISABLED\n"
      "sp_region(NULL) SP_EINVAL\n"
      "sp_region(\"\") SP_EINVAL\n"
      "sp_region_at(NULL) SP_EINVAL\n"
      "sp_region_at(\"\") SP_EINVAL\n"
      "sp_region(\"a\") 0\n"
      "sp_finalize() SP_OK\n"
      "sp_finalize() SP_OK\n"
      "sp_init(NULL) SP_EDISABLED\n"
      "sp_region(\"b\") 1\n%s",
      table);
  assert_string_equal(outtext, want);
  /* a file that cannot be written: SP_EIO from sp_finalize */
  FMT(out, "SP_OUTPUT=/proc/no/such/dir/p");
  assert_int_equal(run_out("rt_scenario", "codes", env), 0);
  assert_non_null(strstr(outtext, "sp_finalize() SP_EIO\nsp_finalize() "
                                  "SP_EIO\nsp_init(NULL) SP_EFINALIZED\n"));
}

/* No memory for a new region: SP_ENOMEM, and the run ends normally. */
static void test_region_nomem(void **state) {
  (void)state;
  if (SP_SANITIZED) /* a sanitizer's shadow memory needs the address space */
    skip();
  if (SP_TEST_EMULATED) /* qemu-user keeps address-space limits to itself */
    skip();
  char out[PATH_MAX];
  const char *env[] = {ENV_OUT(out), NULL};
  assert_int_equal(run_out("rt_scenario", "region_nomem", env), 0);
  assert_string_equal(outtext, "SP_ENOMEM\n");
  assert_string_equal(errtext, "");
}

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
      cmocka_unit_test_setup_teardown(test_pause, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pause_threads, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pause_exit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_idle_leaves_nothing, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_fork, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fork_with_pid, setup, teardown),
      cmocka_unit_test_setup_teardown(test_thread_churn, setup, teardown),
      cmocka_unit_test_setup_teardown(test_threads_address_space, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_budget_ulimit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_thread_churn_ulimit, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_finalize_race, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tight_memory, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_settings, setup, teardown),
      cmocka_unit_test_setup_teardown(test_error_codes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_region_nomem, setup, teardown),
      cmocka_unit_test_setup_teardown(test_long_prefix, setup, teardown),
      cmocka_unit_test_setup_teardown(test_no_silent_overwrite, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_long_run_bounded, setup, teardown),
      cmocka_unit_test_setup_teardown(test_missing_dir_created, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_unwritable_dir, setup, teardown),
      cmocka_unit_test_setup_teardown(test_write_fails_midway, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rank_from_env, setup, teardown),
      cmocka_unit_test_setup_teardown(test_prefix_expansion, setup, teardown),
      cmocka_unit_test_setup_teardown(test_init_prefix_argument, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_cyg_names, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cyg_dlclose, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cyg_cxx_names, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cyg_fortran_names, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fortran_module_api, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fortran_module_api_flang_plugin,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_default_format_is_spt, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_hdf5_loaded_only_for_h5, setup,
                                      teardown),
#ifdef SP_USE_HDF5
      cmocka_unit_test_setup_teardown(test_h5_output, setup, teardown),
      cmocka_unit_test_setup_teardown(test_h5_module_missing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_h5_module_not_loadable, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_h5_static_library, setup, teardown),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
