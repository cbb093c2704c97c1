/* test_counters.c - SP_COUNTERS end to end: counters_prog run in a child
 * under chosen counters, its .h5's rank0/likwid group checked value by
 * value. "hw" and "refused" as argument: the tests that need a PMU, or
 * its absence (exit 77, skipped, otherwise). */
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
#include <linux/perf_event.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char dir[PATH_MAX];
static char errtext[8192];
static sp_fmt_ctr *tabs;
static int64_t ntabs;

/* counters_prog with args, the test's SP_* variables and env; stderr in
 * errtext; the exit status. */
static int run4(const char *const *env, const char *pages, const char *naps,
                const char *wpages, const char *end) {
  char *envp[512];
  int n = 0;
  for (char **e = environ; *e && n < 480; e++)
    if (strncmp(*e, "SP_", 3) && strncmp(*e, "OMPI_", 5) &&
        strncmp(*e, "PMI", 3) && strncmp(*e, "SLURM_", 6))
      envp[n++] = *e;
  static char out[PATH_MAX + 16], mod[PATH_MAX + 16];
  FMT(out, "SP_OUTPUT=%s/c", dir);
  envp[n++] = out;
#ifdef SP_TEST_H5_MODULE
  FMT(mod, "SP_H5_MODULE=%s", SP_TEST_H5_MODULE);
  envp[n++] = mod;
#endif
  for (; env && *env; env++)
    envp[n++] = (char *)*env;
  envp[n] = NULL;
  char errfile[PATH_MAX], path[PATH_MAX];
  FMT(errfile, "%s/stderr.txt", dir);
  FMT(path, "%s/counters_prog", SP_TEST_BINARY_DIR);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, errfile,
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  char *argv[] = {path,           (char *)pages, (char *)naps,
                  (char *)wpages, (char *)end,   NULL};
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

static int run(const char *const *env, const char *pages, const char *naps,
               const char *wpages) {
  return run4(env, pages, naps, wpages, NULL);
}

/* sp-import -o dir/m.h5 dir/c*: its exit status. */
static int import(void) {
  char cmd[3 * PATH_MAX];
  FMT(cmd, "'%s' -o '%s/m.h5' '%s' 2>'%s/import.txt'", SP_TEST_IMPORT, dir, dir,
      dir);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int lines(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

static void load_from(const char *name, int64_t want) {
  char path[PATH_MAX];
  FMT(path, "%s/%s", dir, name);
  sp_fmt_err err = {0};
  if (sp_fmt_h5_read_counters(path, &tabs, &ntabs, &err) != 0)
    fail_msg("%s", err.msg);
  assert_int_equal(ntabs, want);
  for (int64_t i = 0; i < ntabs; i++)
    assert_int_equal(tabs[i].rank, i);
}

static void load(void) { load_from("c_rank00000.h5", 1); }

static int64_t row(int thread, const char *region) {
  const sp_fmt_ctr *c = &tabs[0];
  for (int64_t i = 0; i < c->nrows; i++)
    if (c->thread[i] == thread && strcmp(c->region[i], region) == 0)
      return i;
  fail_msg("no row for thread %d, region %s", thread, region);
  return -1;
}

/* Inclusive (excl 0) or exclusive count of counter name in a row of
 * table t. */
static int64_t val_of(int t, int thread, const char *region, const char *name,
                      int excl) {
  const sp_fmt_ctr *c = &tabs[t];
  int j = sp_fmt_ctr_find(c, name);
  if (j < 0)
    fail_msg("no counter %s", name);
  int64_t i = -1;
  for (int64_t r = 0; r < c->nrows && i < 0; r++)
    if (c->thread[r] == thread && strcmp(c->region[r], region) == 0)
      i = r;
  if (i < 0)
    fail_msg("rank %d: no row for thread %d, region %s", c->rank, thread,
             region);
  return (excl ? c->excl : c->incl)[i * c->n + j];
}

static int64_t val(int thread, const char *region, const char *name, int excl) {
  return val_of(0, thread, region, name, excl);
}

static void assert_between(int64_t v, int64_t lo, int64_t hi) {
  if (v < lo || v > hi)
    fail_msg("%lld not in [%lld, %lld]", (long long)v, (long long)lo,
             (long long)hi);
}

/* outer's inclusive count is its exclusive one plus its children's
 * inclusive ones, exactly, for every counter. */
static void assert_nesting(void) {
  const sp_fmt_ctr *c = &tabs[0];
  int64_t o = row(0, "outer"), t = row(0, "touch"), n = row(0, "nap"),
          s = row(0, "spin");
  for (int j = 0; j < c->n; j++) {
    int k = c->n;
    assert_int_equal(c->incl[o * k + j],
                     c->excl[o * k + j] + c->incl[t * k + j] +
                         c->incl[n * k + j] + c->incl[s * k + j]);
    /* leaves: nothing inside them */
    assert_int_equal(c->incl[t * k + j], c->excl[t * k + j]);
  }
}

static int setup(void **state) {
  (void)state;
  FMT(dir, "/tmp/sp_counters_XXXXXX");
  if (!mkdtemp(dir))
    return -1;
  tabs = NULL;
  ntabs = 0;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  for (int64_t i = 0; i < ntabs; i++)
    sp_fmt_ctr_free(&tabs[i]);
  free(tabs);
  char cmd[PATH_MAX + 16];
  FMT(cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void check_software(const char *mode) {
  char m[64];
  FMT(m, "SP_MODE=%s", mode);
  const char *env[] = {"SP_COUNTERS=page-faults,context-switches,task-clock", m,
                       NULL};
  assert_int_equal(run(env, "64", "3", "32"), 0);
  assert_string_equal(errtext, "");
  load();
  const sp_fmt_ctr *c = &tabs[0];
  assert_int_equal(c->n, 3);
  assert_string_equal(c->names[0], "page-faults");
  assert_string_equal(c->names[1], "context-switches");
  assert_string_equal(c->names[2], "task-clock");
  /* one fault a fresh page, a few more at most for the runtime's own */
  assert_between(val(0, "touch", "page-faults", 0), 64, 72);
  assert_int_equal(c->calls[row(0, "touch")], 1);
  assert_int_equal(c->calls[row(0, "nap")], 3);
  assert_int_equal(c->calls[row(0, "outer")], 1);
  assert_int_equal(c->calls[row(0, "warm")], 1);
  assert_true(val(0, "nap", "context-switches", 0) >= 3);
  assert_int_equal(val(0, "touch", "context-switches", 0) <=
                       val(0, "outer", "context-switches", 0) - 3,
                   1);
  assert_true(val(0, "spin", "task-clock", 0) > 0);
  assert_nesting();
  /* the second thread: thread 1, its fresh pages */
  assert_between(val(1, "worker_touch", "page-faults", 0), 32, 40);
  assert_int_equal(c->calls[row(1, "worker_touch")], 1);
  assert_int_equal(c->calls[row(1, "warm")], 1);
}

static void test_software_trace(void **state) {
  (void)state;
  check_software("trace");
  /* the times are there as without counters */
  char path[PATH_MAX];
  FMT(path, "%s/c_rank00000.h5", dir);
  sp_fmt_h5_summary s;
  sp_fmt_err err = {0};
  if (sp_fmt_h5_read_summary(path, &s, &err) != 0)
    fail_msg("%s", err.msg);
  int found = 0;
  for (int64_t i = 0; i < s.nrows; i++)
    if (!strcmp(s.names[s.rows[i].region], "nap")) {
      assert_int_equal(s.rows[i].stats.calls, 3);
      assert_true(s.rows[i].stats.total_ns >= 3000000);
      found = 1;
    }
  assert_true(found);
  sp_fmt_h5_summary_free(&s);
}

static void test_software_profile(void **state) {
  (void)state;
  check_software("profile");
}

/* An unknown name: one line naming it; the others still counted. */
static void test_unknown_name(void **state) {
  (void)state;
  const char *env[] = {"SP_COUNTERS=page-faults, bogus", NULL};
  assert_int_equal(run(env, "16", "0", "0"), 0);
  assert_int_equal(lines(errtext), 1);
  assert_non_null(strstr(errtext, "unknown counter bogus"));
  load();
  assert_int_equal(tabs[0].n, 1);
  assert_between(val(0, "touch", "page-faults", 0), 16, 24);
}

/* SP_FORMAT=spt asked for: one line says the counters are not kept; the
 * .spt is written as without them. */
static void test_spt_keeps_none(void **state) {
  (void)state;
  const char *env[] = {"SP_COUNTERS=page-faults", "SP_FORMAT=spt", NULL};
  assert_int_equal(run(env, "4", "0", "0"), 0);
  assert_int_equal(lines(errtext), 1);
  assert_non_null(strstr(errtext, "no place for counters"));
  char path[PATH_MAX];
  FMT(path, "%s/c_rank00000.spt", dir);
  assert_int_equal(access(path, F_OK), 0);
  FMT(path, "%s/c_rank00000.h5", dir);
  assert_int_equal(access(path, F_OK), -1);
}

/* Two ranks' .h5 files merged: a group per rank, each with its rank's
 * counts (rank 1 touched twice the pages). */
static void check_import(const char *mode) {
  char m[64];
  FMT(m, "SP_MODE=%s", mode);
  for (int r = 0; r < 2; r++) {
    char rank[32];
    FMT(rank, "SP_RANK=%d", r);
    const char *env[] = {"SP_COUNTERS=page-faults,context-switches", m, rank,
                         NULL};
    assert_int_equal(run(env, r ? "48" : "24", "2", "8"), 0);
  }
  assert_int_equal(import(), 0);
  load_from("m.h5", 2);
  assert_between(val_of(0, 0, "touch", "page-faults", 0), 24, 32);
  assert_between(val_of(1, 0, "touch", "page-faults", 0), 48, 56);
  assert_between(val_of(1, 1, "worker_touch", "page-faults", 0), 8, 16);
  assert_true(val_of(1, 0, "nap", "context-switches", 0) >= 2);
}

static void test_import_trace(void **state) {
  (void)state;
  check_import("trace");
}

static char report_out[8192];

/* sp-report with args on dir/m.h5: its exit status, stdout in report_out,
 * stderr in errtext. */
static int report(const char *args) {
  char cmd[3 * PATH_MAX], out[PATH_MAX], errf[PATH_MAX];
  FMT(out, "%s/report.txt", dir);
  FMT(errf, "%s/report_err.txt", dir);
  FMT(cmd, "'%s' %s '%s/m.h5' >'%s' 2>'%s'", SP_TEST_REPORT, args, dir, out,
      errf);
  int st = system(cmd);
  FILE *f = fopen(out, "r");
  size_t got = f ? fread(report_out, 1, sizeof report_out - 1, f) : 0;
  report_out[got] = 0;
  if (f)
    fclose(f);
  f = fopen(errf, "r");
  got = f ? fread(errtext, 1, sizeof errtext - 1, f) : 0;
  errtext[got] = 0;
  if (f)
    fclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* --counters on two ranks: a row per rank with the file's numbers and the
 * faults per call derived from them; a column that cannot be derived or
 * does not exist is one line and exit status 1. */
static void test_report(void **state) {
  (void)state;
  check_import("trace");
  assert_int_equal(report("--counters=page-faults,page-faults:excl,"
                          "faults/call,context-switches --by-rank "
                          "--include '^(touch|outer)$'"),
                   0);
  assert_string_equal(errtext, "");
  assert_non_null(strstr(report_out, "counters per region"));
  assert_non_null(strstr(report_out, "page-faults page-faults:excl"));
  int seen = 0;
  for (char *l = strtok(report_out, "\n"); l; l = strtok(NULL, "\n")) {
    char name[64], total[32], unit[8];
    int rank;
    long long calls, pf, pfx, cs;
    double fpc;
    if (sscanf(l, "%63s %d %lld %31s %7s %lld %lld %lf %lld", name, &rank,
               &calls, total, unit, &pf, &pfx, &fpc, &cs) != 9)
      continue;
    int t = rank; /* tables are ranks 0 and 1, in order */
    assert_int_equal(calls, 1);
    assert_int_equal(pf, val_of(t, 0, name, "page-faults", 0));
    assert_int_equal(pfx, val_of(t, 0, name, "page-faults", 1));
    assert_int_equal(cs, val_of(t, 0, name, "context-switches", 0));
    assert_true(fpc == (double)pf); /* one call */
    seen++;
  }
  assert_int_equal(seen, 4);
  assert_int_equal(report("--counters=ipc"), 1);
  assert_int_equal(lines(errtext), 1);
  assert_non_null(
      strstr(errtext, "ipc needs the counters instructions and cycles"));
  assert_int_equal(report("--counters=bogus"), 1);
  assert_non_null(strstr(errtext, "no column 'bogus'"));
}

/* The calls counter table t counted of region on thread. */
static int64_t calls_of(int t, int thread, const char *region) {
  const sp_fmt_ctr *c = &tabs[t];
  for (int64_t r = 0; r < c->nrows; r++)
    if (c->thread[r] == thread && strcmp(c->region[r], region) == 0)
      return c->calls[r];
  fail_msg("rank %d: no row for thread %d, region %s", c->rank, thread, region);
  return -1;
}

/* counters_prog paths on two ranks (8 and 16 pages), imported. */
static void run_paths(const char *mode, int counters) {
  char m[64];
  FMT(m, "SP_MODE=%s", mode);
  for (int r = 0; r < 2; r++) {
    char rank[32];
    FMT(rank, "SP_RANK=%d", r);
    const char *env[] = {
        m, rank, counters ? "SP_COUNTERS=page-faults,context-switches" : NULL,
        NULL};
    assert_int_equal(run4(env, "paths", r ? "16" : "8", NULL, NULL), 0);
  }
  assert_int_equal(import(), 0);
  if (counters)
    load_from("m.h5", 2);
}

/* The columns the tree and region tests ask for, and what a node or row
 * of region on (rank, thread) adds to them; -1: any. */
#define PATH_COLS "--counters=page-faults,page-faults:excl,faults/call"
typedef struct want {
  int64_t pf, pfx, calls;
} want;

static void add_want(want *w, const char *region, int rank, int thread) {
  for (int t = 0; t < 2; t++)
    for (int th = 0; th < 2; th++)
      if ((rank < 0 || rank == t) && (thread < 0 || thread == th)) {
        w->pf += val_of(t, th, region, "page-faults", 0);
        w->pfx += val_of(t, th, region, "page-faults", 1);
        w->calls += calls_of(t, th, region);
      }
}

static void assert_cols(const char *pf, const char *pfx, const char *fpc,
                        const want *w) {
  char b[3][32];
  FMT(b[0], "%lld", (long long)w->pf);
  FMT(b[1], "%lld", (long long)w->pfx);
  FMT(b[2], "%.3f", (double)w->pf / (double)w->calls);
  assert_string_equal(pf, b[0]);
  assert_string_equal(pfx, b[1]);
  assert_string_equal(fpc, b[2]);
}

/* --tree with counters on the paths: each region at one call path on
 * every thread reaching its node has the sums of its rows over ranks and
 * threads, exactly; the others '-'. */
static void check_tree(const char *mode) {
  run_paths(mode, 1);
  assert_int_equal(report("--tree " PATH_COLS), 0);
  assert_string_equal(errtext, "");
  /* calls, total, excl, % (39 columns), the counters (1 + 12, 1 + 16,
   * 1 + 12), then two blanks and the name indented two a level */
  const char *head = strstr(report_out, "\n     calls");
  assert_non_null(head);
  assert_non_null(strstr(head, "page-faults page-faults:excl  faults/call  "
                               "region\n"));
  static const char *const order[] = {"mixed",    "pa",  "pa/leaf",
                                      "pa/once",  "pb",  "pb/leaf",
                                      "pb/mixed", "rec", "warm"};
  int seen = 0;
  char top[64] = "";
  for (char *l = strtok(strchr(head + 1, '\n'), "\n"); l;
       l = strtok(NULL, "\n")) {
    assert_true(strlen(l) > 84);
    char pf[32], pfx[32], fpc[32], path[160];
    assert_int_equal(sscanf(l + 39, "%31s %31s %31s", pf, pfx, fpc), 3);
    const char *name = l + 84;
    int depth = 0;
    for (; *name == ' '; name++)
      depth++;
    char nm[64];
    assert_int_equal(sscanf(name, "%63s", nm), 1);
    if (depth == 0)
      FMT(top, "%s", nm);
    if (depth == 0)
      FMT(path, "%s", nm);
    else
      FMT(path, "%s/%s", top, nm);
    assert_true(seen < 9);
    assert_string_equal(path, order[seen++]);
    want w = {0, 0, 0};
    if (!strcmp(path, "pa/once")) { /* under pa on every thread */
      add_want(&w, "once", -1, -1);
      assert_cols(pf, pfx, fpc, &w);
      /* 8 + 10 + 16 + 18 pages and the faults the runtime takes */
      assert_true(w.pf >= 52 && w.calls == 4);
    } else if (!strcmp(path, "pa") || !strcmp(path, "pb") ||
               !strcmp(path, "warm")) {
      add_want(&w, path, -1, -1);
      assert_cols(pf, pfx, fpc, &w);
      assert_int_equal(w.calls, 4);
    } else {
      /* leaf: under pa and pb; mixed: a root, and under pb on thread 1
       * (the root known on thread 0, not on 1: not known); rec: inside
       * itself */
      assert_string_equal(pf, "-");
      assert_string_equal(pfx, "-");
      assert_string_equal(fpc, "-");
    }
  }
  assert_int_equal(seen, 9);
  /* a column no counter or metric answers: one line, nothing written */
  assert_int_equal(report("--tree --counters=bogus"), 1);
  assert_int_equal(lines(errtext), 1);
  assert_non_null(strstr(errtext, "m.h5: --counters: no column 'bogus'"));
  assert_string_equal(report_out, "");
  assert_int_equal(report("--tree --counters=page-faults,,cycles"), 1);
  assert_int_equal(lines(errtext), 1);
  assert_non_null(strstr(errtext, "m.h5: --counters: empty or long column"));
}

static void test_tree_trace(void **state) {
  (void)state;
  check_tree("trace");
}

static void test_tree_profile(void **state) {
  (void)state;
  check_tree("profile");
}

/* --region with counters: a row per rank and thread with that table's
 * sums, and "all" their sums; the default columns without --counters. */
static void test_region(void **state) {
  (void)state;
  run_paths("trace", 1);
  static const char *const regions[] = {"once", "leaf"};
  for (int k = 0; k < 2; k++) {
    char args[128];
    FMT(args, "--region %s " PATH_COLS, regions[k]);
    assert_int_equal(report(args), 0);
    assert_string_equal(errtext, "");
    char *at = strstr(report_out, "\ncounters of the region");
    assert_non_null(at);
    /* the times come first, as without counters */
    assert_non_null(strstr(report_out, "call durations"));
    assert_true(strstr(report_out, "call durations") < at);
    int rows = 0, all = 0;
    for (char *l = strtok(at, "\n"); l; l = strtok(NULL, "\n")) {
      int rank, thread;
      long long calls;
      char pf[32], pfx[32], fpc[32];
      want w = {0, 0, 0};
      if (sscanf(l, "%d %d %lld %31s %31s %31s", &rank, &thread, &calls, pf,
                 pfx, fpc) == 6) {
        assert_int_equal(rank, rows / 2); /* ranks, then threads, in order */
        assert_int_equal(thread, rows % 2);
        add_want(&w, regions[k], rank, thread);
        rows++;
      } else if (sscanf(l, "all %lld %31s %31s %31s", &calls, pf, pfx, fpc) ==
                 4) {
        add_want(&w, regions[k], -1, -1);
        all++;
      } else {
        continue;
      }
      assert_int_equal(calls, w.calls);
      assert_cols(pf, pfx, fpc, &w);
    }
    assert_int_equal(rows, 4);
    assert_int_equal(all, 1);
  }
  /* leaf: 1 + 2 times the pages on each thread, two calls */
  assert_int_equal(calls_of(1, 1, "leaf"), 2);
  assert_true(val_of(1, 1, "leaf", "page-faults", 0) >= 48);
  assert_int_equal(report("--region once"), 0);
  assert_non_null(strstr(report_out, " rank thread      calls  page-faults "
                                     "context-switches  faults/call\n"));
  assert_non_null(strstr(report_out, "\nall   "));
  assert_int_equal(report("--region once --counters=ipc"), 1);
  assert_int_equal(lines(errtext), 1);
  assert_non_null(
      strstr(errtext, "ipc needs the counters instructions and cycles"));
  assert_string_equal(report_out, "");
}

/* No counters recorded: --region as always, without error; asked for
 * with --counters, one line. */
static void test_region_none(void **state) {
  (void)state;
  run_paths("trace", 0);
  assert_int_equal(report("--region once"), 0);
  assert_string_equal(errtext, "");
  assert_non_null(strstr(report_out, "region once, 4 calls on 2 ranks, 4 "
                                     "threads\n"));
  assert_non_null(strstr(report_out, "call durations"));
  assert_null(strstr(report_out, "counters of the region"));
  assert_null(strstr(report_out, "page-faults"));
  assert_int_equal(report("--region once --counters"), 1);
  assert_int_equal(lines(errtext), 1);
  assert_non_null(strstr(errtext, "m.h5: no counters in the profile"));
  assert_string_equal(report_out, "");
  assert_int_equal(report("--tree --counters=page-faults"), 1);
  assert_int_equal(lines(errtext), 1);
  assert_non_null(strstr(errtext, "m.h5: no counters in the profile"));
}

static void test_import_profile(void **state) {
  (void)state;
  check_import("profile");
}

/* A run ended by SIGTERM: the signal handler writes the counters to the
 * stream, which sp-import reads; the call open at the signal is not
 * counted. */
static void test_import_stream(void **state) {
  (void)state;
  const char *env[] = {"SP_COUNTERS=page-faults", NULL};
  assert_int_equal(run4(env, "40", "0", "0", "term"), 128 + 15);
  assert_int_equal(import(), 0);
  load_from("m.h5", 1);
  assert_between(val(0, "touch", "page-faults", 0), 40, 48);
  assert_int_equal(tabs[0].calls[row(0, "outer")], 1);
  for (int64_t i = 0; i < tabs[0].nrows; i++)
    assert_string_not_equal(tabs[0].region[i], "open_at_term");
}

/* An end closing the call above it: both counted at that end's reading,
 * the nesting exact; a call another thread holds open at finalize: ended
 * then, read from the finalizing thread, with its pages. */
static void test_odd_endings(void **state) {
  (void)state;
  const char *env[] = {"SP_COUNTERS=page-faults,context-switches", NULL};
  /* argv ends at the first NULL: counters_prog odd 24 */
  assert_int_equal(run4(env, "odd", "24", NULL, NULL), 0);
  /* the times' own report of the mismatched end, and nothing else */
  assert_int_equal(lines(errtext), 1);
  assert_non_null(strstr(errtext, "1 sp_end call(s) did not match"));
  load();
  const sp_fmt_ctr *c = &tabs[0];
  assert_int_equal(c->calls[row(0, "mm_a")], 1);
  assert_int_equal(c->calls[row(0, "mm_b")], 1);
  for (int j = 0; j < c->n; j++) {
    int k = c->n;
    int64_t a = row(0, "mm_a"), b = row(0, "mm_b"), l = row(0, "mm_leaf");
    /* mm_b ended at mm_a's reading, inside it */
    assert_int_equal(c->incl[a * k + j],
                     c->excl[a * k + j] + c->incl[b * k + j]);
    assert_int_equal(c->incl[b * k + j],
                     c->excl[b * k + j] + c->incl[l * k + j]);
  }
  assert_between(val(0, "mm_leaf", "page-faults", 0), 24, 32);
  assert_int_equal(c->calls[row(1, "held")], 1);
  assert_between(val(1, "held", "page-faults", 0), 24, 32);
}

/* The first call of the process and of a new thread: the runtime makes
 * the thread's state before reading the counters, so the call counts its
 * own pages and, at most, the few of its frame and buffer (1 in trace, 2
 * in profile mode here; making the thread's state faults about 5 more). */
static void check_fresh(const char *mode) {
  char m[64];
  FMT(m, "SP_MODE=%s", mode);
  const char *env[] = {"SP_COUNTERS=page-faults", m, NULL};
  assert_int_equal(run4(env, "fresh", "32", NULL, NULL), 0);
  assert_string_equal(errtext, "");
  load();
  assert_int_equal(tabs[0].calls[row(0, "fresh_main")], 1);
  assert_int_equal(tabs[0].calls[row(1, "fresh_worker")], 1);
  /* ASan also faults in the shadow of the 32 pages (4 pages) and of what
   * it allocates beside them */
  int most = SP_SANITIZED ? 41 : 35;
  assert_between(val(0, "fresh_main", "page-faults", 0), 32, most);
  assert_between(val(1, "fresh_worker", "page-faults", 0), 32, most);
}

static void test_fresh_trace(void **state) {
  (void)state;
  check_fresh("trace");
}

static void test_fresh_profile(void **state) {
  (void)state;
  check_fresh("profile");
}

/* Software counters are read with read(), whatever else is read how. */
static void test_sources_software(void **state) {
  (void)state;
  const char *env[] = {"SP_COUNTERS=page-faults,context-switches,task-clock",
                       "SP_TEST_COUNTER_SOURCES=1", NULL};
  assert_int_equal(run(env, "16", "1", "16"), 0);
  assert_string_equal(errtext, "scopeprof: test: counter sources: "
                               "page-faults=read context-switches=read "
                               "task-clock=read\n");
  load();
  assert_between(val(0, "touch", "page-faults", 0), 16, 24);
}

/* Every counter through the rdpmc path, from pages in memory whose count
 * is one more at each read: a call counts the reads inside it, plus one,
 * exactly (outer: its own 2 and 2 for each of its 5 calls inside, less
 * one), in each thread. */
static void test_rdpmc_fake(void **state) {
  (void)state;
  const char *env[] = {"SP_COUNTERS=page-faults,task-clock", "SP_TEST_RDPMC=1",
                       "SP_TEST_COUNTER_SOURCES=1", NULL};
  assert_int_equal(run(env, "16", "3", "16"), 0);
  assert_string_equal(
      errtext,
      "scopeprof: test: counter sources: page-faults=rdpmc task-clock=rdpmc\n");
  load();
  for (int j = 0; j < 2; j++) {
    const char *n = tabs[0].names[j];
    assert_int_equal(val(0, "touch", n, 0), 1);
    assert_int_equal(val(0, "nap", n, 0), 3);
    assert_int_equal(val(0, "spin", n, 0), 1);
    assert_int_equal(val(0, "outer", n, 0), 11);
    assert_int_equal(val(0, "outer", n, 1), 6);
    assert_int_equal(val(1, "warm", n, 0), 1);
    assert_int_equal(val(1, "worker_touch", n, 0), 1);
  }
  assert_nesting();
}

/* A page with index 0, or without cap_user_rdpmc: read() instead, the
 * kernel's counts. */
static void test_rdpmc_fallback(void **state) {
  (void)state;
  for (int how = 2; how <= 3; how++) {
    char t[32];
    FMT(t, "SP_TEST_RDPMC=%d", how);
    const char *env[] = {"SP_COUNTERS=page-faults", t,
                         "SP_TEST_COUNTER_SOURCES=1", NULL};
    assert_int_equal(run(env, "16", "0", "0"), 0);
    assert_string_equal(errtext,
                        "scopeprof: test: counter sources: page-faults=read\n");
    load();
    assert_between(val(0, "touch", "page-faults", 0), 16, 24);
    sp_fmt_ctr_free(&tabs[0]);
    free(tabs);
    tabs = NULL;
    ntabs = 0;
  }
}

/* 1 if this process may open the hardware counter config; why in *why. */
static int have_hw(uint64_t config, const char **why) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_HARDWARE;
  a.config = config;
  a.exclude_hv = 1;
  int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
  if (fd < 0 && (errno == EACCES || errno == EPERM)) {
    a.exclude_kernel = 1;
    fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
  }
  if (fd < 0) {
    *why = strerror(errno);
    return 0;
  }
  close(fd);
  return 1;
}

/* No PMU: the hardware counter is refused in one line, the run goes on,
 * and the file has the software counter. */
static void test_refused(void **state) {
  (void)state;
  const char *env[] = {"SP_COUNTERS=cycles,page-faults", NULL};
  assert_int_equal(run(env, "16", "0", "0"), 0);
  assert_int_equal(lines(errtext), 1);
  assert_non_null(strstr(errtext, "not available here: cycles ("));
  assert_non_null(strstr(errtext, "recording goes on without it"));
  load();
  assert_int_equal(tabs[0].n, 1);
  assert_string_equal(tabs[0].names[0], "page-faults");
  assert_between(val(0, "touch", "page-faults", 0), 16, 24);
}

/* A PMU: instructions of a loop of a million iterations, nesting exact;
 * read with rdpmc where the kernel allows it (or read()), page-faults
 * with read(). */
static void test_hardware(void **state) {
  (void)state;
  const char *env[] = {"SP_COUNTERS=instructions,page-faults",
                       "SP_TEST_COUNTER_SOURCES=1", NULL};
  assert_int_equal(run(env, "16", "1", "0"), 0);
  assert_non_null(strstr(errtext, "scopeprof: test: counter sources: "
                                  "instructions="));
  assert_non_null(strstr(errtext, " page-faults=read\n"));
  assert_int_equal(lines(errtext), 1);
  load();
  assert_int_equal(tabs[0].n, 2);
  assert_true(val(0, "spin", "instructions", 0) >= 2000000);
  assert_nesting();
}

int main(int argc, char **argv) {
  const char *why = "";
  int hw = have_hw(PERF_COUNT_HW_INSTRUCTIONS, &why);
  if (argc > 1 && !strcmp(argv[1], "hw")) {
    if (!hw) {
      printf("skipped: no hardware counter here (instructions: %s)\n", why);
      return 77;
    }
    const struct CMUnitTest t[] = {
        cmocka_unit_test_setup_teardown(test_hardware, setup, teardown)};
    return cmocka_run_group_tests(t, NULL, NULL);
  }
  if (argc > 1 && !strcmp(argv[1], "refused")) {
    if (have_hw(PERF_COUNT_HW_CPU_CYCLES, &why)) {
      printf("skipped: this machine counts cycles, nothing is refused\n");
      return 77;
    }
    const struct CMUnitTest t[] = {
        cmocka_unit_test_setup_teardown(test_refused, setup, teardown)};
    return cmocka_run_group_tests(t, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_software_trace, setup, teardown),
      cmocka_unit_test_setup_teardown(test_software_profile, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unknown_name, setup, teardown),
      cmocka_unit_test_setup_teardown(test_spt_keeps_none, setup, teardown),
      cmocka_unit_test_setup_teardown(test_import_trace, setup, teardown),
      cmocka_unit_test_setup_teardown(test_import_profile, setup, teardown),
      cmocka_unit_test_setup_teardown(test_import_stream, setup, teardown),
      cmocka_unit_test_setup_teardown(test_report, setup, teardown),
      cmocka_unit_test_setup_teardown(test_odd_endings, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tree_trace, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tree_profile, setup, teardown),
      cmocka_unit_test_setup_teardown(test_region, setup, teardown),
      cmocka_unit_test_setup_teardown(test_region_none, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fresh_trace, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fresh_profile, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sources_software, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rdpmc_fake, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rdpmc_fallback, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
