/* test_abort.c - MPI_Abort asks the job's other processes on the node to
 * save their calls (runtime/src/abort.c), shown without MPI: processes of a
 * pretended job (abort_peer.c) record known counts, one aborts, and the
 * others are then killed with SIGKILL at once, the harshest ending a
 * launcher gives; every call of every process must be in its stream. */
#include "sp_format.h"
#include "sp_stream.h"

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
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define NPEERS 3
static char dir[512];
/* Every process a test started and has not reaped: teardown kills them, so
 * that a failed test leaves none behind. */
static pid_t live[8];
static int nlive;

static void reaped(pid_t pid) {
  for (int i = 0; i < nlive; i++)
    if (live[i] == pid)
      live[i] = live[--nlive];
}

static int setup(void **state) {
  (void)state;
  FMT(dir, "%s/abort_XXXXXX", SP_TEST_BINARY_DIR);
  assert_non_null(mkdtemp(dir));
  return 0;
}

static int teardown(void **state) {
  (void)state;
  for (int i = 0; i < nlive; i++) {
    kill(live[i], SIGKILL);
    waitpid(live[i], NULL, 0);
  }
  nlive = 0;
  char cmd[700];
  FMT(cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* The calls rank r records. */
static long calls_of(int rank) { return 1000L * (rank + 1) + 7; }

typedef struct proc {
  pid_t pid;
  int in, out; /* its stdin (ours to write), its stdout (ours to read) */
} proc;

/* Starts abort_peer as rank `rank` of job `job` with extra (or NULL) in its
 * environment, its stdin and stdout on pipes. */
static proc start(const char *role, int rank, const char *job,
                  const char *extra) {
  static char vars[4][600];
  char *envp[512];
  int n = 0;
  for (char **e = environ; *e && n < 480; e++)
    if (strncmp(*e, "SP_", 3) && strncmp(*e, "OMPI_", 5) &&
        strncmp(*e, "PMI", 3) && strncmp(*e, "SLURM_", 6))
      envp[n++] = *e;
  FMT(vars[0], "SP_OUTPUT=%s/p", dir);
  FMT(vars[1], "SP_RANK=%d", rank);
  FMT(vars[2], "PMIX_NAMESPACE=%s", job);
  FMT(vars[3], "%s", extra ? extra : "SP_SIGNALS=1");
  for (int i = 0; i < 4; i++)
    envp[n++] = vars[i];
  envp[n] = NULL;
  int in[2], out[2];
  assert_int_equal(pipe(in), 0);
  assert_int_equal(pipe(out), 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addclose(&fa, in[1]);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  char path[600], count[32], err[600];
  FMT(err, "%s/stderr.%d.txt", dir, rank);
  posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_APPEND,
                                   0644);
  FMT(path, "%s/rt_abort_peer", SP_TEST_BINARY_DIR);
  FMT(count, "%ld", calls_of(rank));
  char *argv[] = {path, (char *)role, count, NULL};
  proc p;
  assert_int_equal(posix_spawn(&p.pid, path, &fa, NULL, argv, envp), 0);
  live[nlive++] = p.pid;
  posix_spawn_file_actions_destroy(&fa);
  close(in[0]);
  close(out[1]);
  p.in = in[1];
  p.out = out[0];
  return p;
}

/* Everything p writes on stdout until it closes it. */
static void read_all(proc *p, char *buf, size_t size) {
  size_t got = 0;
  ssize_t r;
  while (got + 1 < size && (r = read(p->out, buf + got, size - 1 - got)) > 0)
    got += (size_t)r;
  buf[got] = 0;
}

/* One line from p (a peer's "ready"). */
static void read_line(proc *p, char *buf, size_t size) {
  size_t got = 0;
  char c;
  while (got + 1 < size && read(p->out, &c, 1) == 1 && c != '\n')
    buf[got++] = c;
  buf[got] = 0;
}

/* The path of rank's stream into path ("" when it left none). */
static void stream_path(int rank, char *path, size_t size) {
  char want[32];
  FMT(want, "p_rank%05d.", rank);
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *e;
  path[0] = 0;
  while ((e = readdir(d)))
    if (!strncmp(e->d_name, want, strlen(want)) && strstr(e->d_name, ".spts"))
      sp_test_fmt(path, size, "%s/%s", dir, e->d_name);
  closedir(d);
}

/* The cause its last STOP record gives, of rank's stream. */
static int stop_cause(int rank) {
  char path[900];
  stream_path(rank, path, sizeof path);
  assert_true(path[0] != 0);
  sp_fmt_stream *st = NULL;
  sp_fmt_err err = {{0}};
  if (sp_fmt_stream_open(path, 0, &st, &err) != 0)
    fail_msg("%s", err.msg);
  sp_fmt_stream_info info;
  sp_fmt_stream_get_info(st, &info);
  sp_fmt_stream_close(st);
  assert_true(info.stopped);
  return info.stop_cause;
}

/* The calls of region name in rank's stream; -1 when it left no stream. */
static long stream_calls(int rank, const char *name) {
  char path[900];
  stream_path(rank, path, sizeof path);
  if (!path[0])
    return -1;
  sp_fmt_rank r = {0};
  sp_fmt_err err = {{0}};
  if (sp_fmt_stream_read(path, &r, &err) != 0)
    fail_msg("%s", err.msg);
  long n = 0;
  for (int64_t i = 0; i < r.nblocks; i++)
    if (!strcmp(r.regions[r.blocks[i].region].name, name))
      n += (long)r.blocks[i].count;
  sp_fmt_rank_free(&r);
  return n;
}

/* Ranks 0, 2 and 3 start and record; rank 1 aborts; the others are then
 * killed (rank `stopped`, if >= 0, was stopped with SIGSTOP before the
 * abort: it cannot answer). extra goes into every environment. */
static void job(const char *extra, int stopped) {
  char name[64];
  FMT(name, "sp-test-abort-%ld-%d", (long)getpid(), stopped);
  proc peers[NPEERS];
  const int ranks[NPEERS] = {0, 2, 3};
  char line[64];
  for (int i = 0; i < NPEERS; i++) {
    peers[i] = start("peer", ranks[i], name, extra);
    read_line(&peers[i], line, sizeof line);
    assert_string_equal(line, "ready");
  }
  for (int i = 0; i < NPEERS; i++)
    if (ranks[i] == stopped)
      assert_int_equal(kill(peers[i].pid, SIGSTOP), 0);
  proc a = start("abort", 1, name, extra);
  read_all(&a, line, sizeof line);
  int st;
  assert_int_equal(waitpid(a.pid, &st, 0), a.pid);
  reaped(a.pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
  assert_string_equal(line, "16\n"); /* PMPI_Abort's absence, passed on */
  close(a.in);
  close(a.out);
  for (int i = 0; i < NPEERS; i++) {
    assert_int_equal(kill(peers[i].pid, SIGKILL), 0);
    assert_int_equal(waitpid(peers[i].pid, &st, 0), peers[i].pid);
    reaped(peers[i].pid);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGKILL);
    close(peers[i].in);
    close(peers[i].out);
  }
  /* The aborting process saved its own calls in every case. */
  assert_int_equal(stream_calls(1, "work"), calls_of(1));
  assert_int_equal(stop_cause(1), SP_STREAM_STOP_MPI_ABORT);
}

/* Asked, every process saved every call, and the call it had open. */
static void test_peers_saved(void **s) {
  (void)s;
  job(NULL, -1);
  for (int r = 0; r < 4; r++)
    if (r != 1) {
      assert_int_equal(stream_calls(r, "work"), calls_of(r));
      assert_int_equal(stream_calls(r, "wait"), 1);
      assert_int_equal(stop_cause(r), SP_STREAM_STOP_MPI_ABORT);
    }
}

/* SP_ABORT_WAIT=0: nobody is asked, and SIGKILL takes what the peers held
 * in memory (their last chunk at least): what the asking is for. */
static void test_not_asked(void **s) {
  (void)s;
  job("SP_ABORT_WAIT=0", -1);
  for (int r = 0; r < 4; r++)
    if (r != 1) {
      assert_true(stream_calls(r, "work") < calls_of(r));
      assert_true(stream_calls(r, "wait") <= 0);
    }
}

/* A process that cannot answer (stopped) is waited for SP_ABORT_WAIT
 * only: the abort goes on, the others are saved, and it keeps what its
 * writer had written. */
static void test_peer_stopped(void **s) {
  (void)s;
  job("SP_ABORT_WAIT=200", 2);
  assert_int_equal(stream_calls(0, "work"), calls_of(0));
  assert_int_equal(stream_calls(3, "work"), calls_of(3));
  assert_true(stream_calls(2, "work") < calls_of(2));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_peers_saved, setup, teardown),
      cmocka_unit_test_setup_teardown(test_not_asked, setup, teardown),
      cmocka_unit_test_setup_teardown(test_peer_stopped, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
