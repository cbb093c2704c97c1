/* scenario.c - small programs using the runtime the way users do, one per
 * argv[1]; test_runtime.c runs them in child processes and checks files. */
#include "scope_profiler.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int rec(int id, int depth) {
  sp_begin(id);
  int r = depth > 0 ? rec(id, depth - 1) + 1 : 0;
  sp_end(id);
  return r;
}

/* a{ b{ c } b } then rec x 5 deep */
static int nest(void) {
  int a = sp_region_at("a", "nest.c", 10), b = sp_region_at("b", "nest.c", 20);
  int c = sp_region("c"), r = sp_region_at("rec", "nest.c", 30);
  if (sp_region_at("a", "other.c", 99) != a) /* first location kept */
    return 2;
  sp_begin(a);
  sp_begin(b);
  sp_begin(c);
  sp_end(c);
  sp_end(b);
  sp_begin(b);
  sp_end(b);
  sp_end(a);
  rec(r, 4);
  return 0;
}

#define NCALLS 100000
static void *thread_main(void *arg) {
  int id = sp_region("work"), inner = sp_region("inner");
  (void)arg;
  for (int i = 0; i < NCALLS; i++) {
    sp_begin(id);
    if (i % 10 == 0) {
      sp_begin(inner);
      sp_end(inner);
    }
    sp_end(id);
  }
  return NULL;
}

static int threads(int n) {
  pthread_t t[64];
  for (int i = 0; i < n; i++)
    pthread_create(&t[i], NULL, thread_main, NULL);
  for (int i = 0; i < n; i++)
    pthread_join(t[i], NULL);
  return 0;
}

static int many_regions(void) {
  char name[32];
  for (int i = 0; i < 100000; i++) {
    snprintf(name, sizeof name, "region_%06d", i);
    int id = sp_region(name);
    if (id != i)
      return 2;
    sp_begin(id);
    sp_end(id);
  }
  return 0;
}

static int mismatch(void) {
  int a = sp_region("a"), b = sp_region("b"), c = sp_region("c");
  sp_end(a); /* nothing open: counted, ignored */
  sp_begin(a);
  sp_begin(b);
  sp_begin(c);
  sp_end(a); /* closes c and b with a */
  sp_end(c); /* not open any more: counted, ignored */
  sp_begin(b);
  sp_end(b);
  sp_begin(9999); /* invalid id: ignored */
  sp_end(9999);
  return 0;
}

static int open_at_exit(void) {
  int a = sp_region("left_open"), b = sp_region("closed");
  sp_begin(a);
  sp_begin(b);
  sp_end(b);
  return 0; /* no sp_end(a), no sp_finalize: the exit handler writes */
}

static int fork_child(void) {
  int p = sp_region("parent_work"), c = sp_region("child_work");
  sp_begin(p);
  sp_end(p);
  pid_t pid = fork();
  if (pid == 0) {
    for (int i = 0; i < 3; i++) {
      sp_begin(c);
      sp_end(c);
    }
    exit(0); /* runs the child's exit handlers */
  }
  int st;
  waitpid(pid, &st, 0);
  sp_begin(p);
  sp_end(p);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 2;
}

static int finalize_twice(void) {
  int a = sp_region("a");
  sp_begin(a);
  sp_end(a);
  int r1 = sp_finalize(), r2 = sp_finalize();
  sp_begin(a); /* after finalize: ignored */
  sp_end(a);
  printf("%d %d\n", r1, r2);
  return r1 == 0 && r2 == 0 ? 0 : 2;
}

static int fsize_limit(void) {
  /* A write that fails part way, as on a full disk. */
  struct rlimit rl = {4096, 4096};
  signal(SIGXFSZ, SIG_IGN);
  setrlimit(RLIMIT_FSIZE, &rl);
  int a = sp_region("a");
  for (int i = 0; i < 10000; i++) {
    sp_begin(a);
    sp_end(a);
  }
  return 3; /* the exit status must survive the failed write */
}

/* ---- endings: N calls of "work" inside one open "outer", then the end
 * named by mode; the test checks every call is in the profile. ---- */
static volatile int *volatile nowhere;
static volatile sig_atomic_t own_handler_ran;

static void own_term(int sig) {
  (void)sig;
  own_handler_ran = 1;
  const char msg[] = "own handler\n";
  if (write(1, msg, sizeof msg - 1) < 0)
    _exit(9);
  exit(3);
}

static int end_deep(const char *mode, int depth) {
  int d = sp_region("deep");
  sp_begin(d);
  if (depth > 0)
    end_deep(mode, depth - 1);
  else if (!strcmp(mode, "exit"))
    exit(7);
  sp_end(d);
  return 0;
}

/* A stack overflow by recursion: each level is one call of "overflow",
 * open when the stack runs out; the depth reached is written to the file
 * SP_OUTPUT.depth (mapped: no call per level) for the test to compare. */
static volatile long *depth_seen;

static long overflow(int id, long depth) {
  volatile char pad[192];
  if (*depth_seen < 0) /* never: the stack runs out first */
    return 0;
  sp_begin(id);
  pad[0] = (char)depth;
  *depth_seen = depth + 1;
  long r = overflow(id, depth + 1) + pad[0];
  sp_end(id);
  return r;
}

static void *overflow_thread(void *arg) {
  overflow(sp_region("overflow"), 0);
  return arg;
}

static int overflow_run(int in_thread) {
  char path[4200];
  const char *out = getenv("SP_OUTPUT");
  snprintf(path, sizeof path, "%s.depth", out ? out : "scope_profiler");
  FILE *f = fopen(path, "w+");
  if (!f || ftruncate(fileno(f), 4096) != 0)
    return 2;
  depth_seen =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(f), 0);
  if (depth_seen == MAP_FAILED)
    return 2;
  if (!in_thread)
    return (int)overflow(sp_region("overflow"), 0);
  pthread_attr_t a;
  pthread_t t;
  pthread_attr_init(&a);
  pthread_attr_setstacksize(&a, 1 << 20);
  pthread_attr_setguardsize(&a, 64 << 10);
  if (pthread_create(&t, &a, overflow_thread, NULL) != 0)
    return 2;
  pthread_join(t, NULL);
  return 3;
}

static int endings(const char *mode, long n) {
  int outer = sp_region("outer"), work = sp_region("work");
  if (!strcmp(mode, "own_sigterm"))
    signal(SIGTERM, own_term);
  sp_begin(outer);
  for (long i = 0; i < n; i++) {
    sp_begin(work);
    sp_end(work);
  }
  if (!strcmp(mode, "overflow") || !strcmp(mode, "overflow_thread")) {
    sp_end(outer);
    return overflow_run(mode[8] == '_');
  }
  static const struct {
    const char *name;
    int sig;
  } sigs[] = {{"sigterm", SIGTERM}, {"sigint", SIGINT},
              {"sighup", SIGHUP},   {"sigxcpu", SIGXCPU},
              {"sigusr1", SIGUSR1}, {"sigusr2", SIGUSR2},
              {"sigkill", SIGKILL}, {"own_sigterm", SIGTERM}};
  for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
    if (!strcmp(mode, sigs[i].name)) {
      kill(getpid(), sigs[i].sig);
      for (;;) /* the signal is delivered before kill returns */
        pause();
    }
  if (!strcmp(mode, "segv"))
    *nowhere = 1;
  if (!strcmp(mode, "abort"))
    abort();
  if (!strcmp(mode, "exit"))
    return end_deep(mode, 5);
  if (!strcmp(mode, "_exit"))
    _exit(5);
  if (!strcmp(mode, "exec")) { /* a new image: /bin/sh exits 6 */
    execl("/bin/sh", "sh", "-c", "exit 6", (char *)NULL);
    return 2;
  }
  if (!strcmp(mode, "exec_fails")) { /* exec fails: recording goes on */
    execl("/nonexistent/program", "program", (char *)NULL);
    sp_end(outer);
    return 0;
  }
  sp_end(outer);
  return 0;
}

/* ---- threads that come and go, and finalize while threads record ---- */
static void *one_call(void *arg) {
  int id = sp_region("short_lived");
  (void)arg;
  sp_begin(id);
  sp_end(id);
  return NULL;
}

static long peak_rss_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmHWM: %ld", &kib) == 1)
      break;
  if (f)
    fclose(f);
  return kib;
}

/* n threads, one after another; prints the peak resident KiB. With
 * as_kib > 0, the address space is capped at that first. */
static int seq_threads(long n, long as_kib) {
  if (as_kib > 0) {
    struct rlimit rl = {(rlim_t)as_kib * 1024, (rlim_t)as_kib * 1024};
    if (setrlimit(RLIMIT_AS, &rl) != 0)
      return 2;
  }
  for (long i = 0; i < n; i++) {
    pthread_t t;
    if (pthread_create(&t, NULL, one_call, NULL) != 0)
      return 3;
    pthread_join(t, NULL);
  }
  printf("%ld\n", peak_rss_kib());
  return 0;
}

/* n threads at once, each making calls calls of "wide" (the first chunk
 * handed to the writer comes from one of them); prints the peak address
 * space (VmPeak) in KiB. */
static pthread_barrier_t wide_go;
static long wide_calls;

static void *wide_thread(void *arg) {
  int id = sp_region("wide");
  (void)arg;
  pthread_barrier_wait(&wide_go);
  for (long i = 0; i < wide_calls; i++) {
    sp_begin(id);
    sp_end(id);
  }
  return NULL;
}

static long status_kib(const char *key);

static int wide_threads(int n, long calls) {
  pthread_t t[64];
  if (n < 1 || n > 64 || pthread_barrier_init(&wide_go, NULL, (unsigned)n))
    return 2;
  wide_calls = calls;
  for (int i = 0; i < n; i++)
    if (pthread_create(&t[i], NULL, wide_thread, NULL) != 0)
      return 3;
  for (int i = 0; i < n; i++)
    pthread_join(t[i], NULL);
  printf("%ld\n", status_kib("VmPeak:"));
  return 0;
}

/* The address space capped at as_kib, then this program again with arg:
 * the runtime starts under the limit, as under ulimit -v. */
static int as_exec(long as_kib, const char *arg) {
  struct rlimit rl = {(rlim_t)as_kib * 1024, (rlim_t)as_kib * 1024};
  if (setrlimit(RLIMIT_AS, &rl) != 0)
    return 2;
  execl("/proc/self/exe", "rt_scenario", arg, (char *)NULL);
  return 2;
}

static atomic_long recorded[8];
static atomic_int stop_recording;

static void *record_until_stopped(void *arg) {
  int id = sp_region("racing"), inner = sp_region("racing_inner");
  atomic_long *n = arg;
  while (!atomic_load_explicit(&stop_recording, memory_order_relaxed)) {
    sp_begin(id);
    sp_begin(inner);
    sp_end(inner);
    sp_end(id);
    atomic_fetch_add_explicit(n, 1, memory_order_relaxed);
  }
  return NULL;
}

static void wait_all(long at_least) {
  for (int i = 0; i < 8; i++)
    while (atomic_load(&recorded[i]) < at_least)
      sched_yield();
}

/* sp_finalize from main while 8 threads record at full speed. */
static int finalize_race(void) {
  pthread_t t[8];
  for (int i = 0; i < 8; i++)
    pthread_create(&t[i], NULL, record_until_stopped, &recorded[i]);
  wait_all(20000);
  int rc = sp_finalize();
  long after = 0;
  for (int i = 0; i < 8; i++)
    if (atomic_load(&recorded[i]) > after)
      after = atomic_load(&recorded[i]);
  wait_all(after + 10000); /* every thread still recording after it */
  atomic_store(&stop_recording, 1);
  for (int i = 0; i < 8; i++)
    pthread_join(t[i], NULL);
  return rc == 0 ? 0 : 2;
}

/* ---- long runs and lack of memory ---- */
static long status_kib(const char *key) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long v = -1;
  size_t n = strlen(key);
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, key, n)) {
      v = strtol(line + n + 1, NULL, 10);
      break;
    }
  if (f)
    fclose(f);
  return v;
}

/* n calls of "work" inside one "outer"; prints the peak resident KiB. */
static int many_calls(long n) {
  int outer = sp_region("outer"), work = sp_region("work");
  sp_begin(outer);
  for (long i = 0; i < n; i++) {
    sp_begin(work);
    sp_end(work);
  }
  sp_end(outer);
  printf("%ld\n", status_kib("VmHWM:"));
  return 0;
}

static void deep(int id, int depth) {
  sp_begin(id);
  if (depth > 0)
    deep(id, depth - 1);
  sp_end(id);
}

/* n calls, then the address space capped a little above what is in use:
 * new regions' pages and a deep recursion's stack cannot all be had. */
static int tight_memory(long n) {
  int work = sp_region("work");
  for (long i = 0; i < n; i++) {
    sp_begin(work);
    sp_end(work);
  }
  int ids[64];
  char name[32];
  for (int i = 0; i < 64; i++) { /* one per 4096-region page */
    for (int k = 0; k < 4095; k++) {
      snprintf(name, sizeof name, "filler_%d_%d", i, k);
      sp_region(name);
    }
    snprintf(name, sizeof name, "paged_%d", i);
    ids[i] = sp_region(name);
  }
  long vm = status_kib("VmSize:");
  struct rlimit rl = {(rlim_t)(vm + 4096) * 1024, (rlim_t)(vm + 4096) * 1024};
  if (vm < 0 || setrlimit(RLIMIT_AS, &rl) != 0)
    return 2;
  for (int i = 0; i < 64; i++) {
    sp_begin(ids[i]);
    sp_end(ids[i]);
  }
  deep(sp_region("deep"), 1000);
  return 0;
}

/* 5 if HDF5 or the runtime's HDF5 module is mapped into this process after
 * sp_finalize() wrote its file, else 0. */
static int hdf5_maps(void) {
  nest();
  if (sp_finalize() != 0)
    return 2;
  FILE *f = fopen("/proc/self/maps", "r");
  char line[4096];
  int found = 0;
  if (!f)
    return 2;
  while (fgets(line, sizeof line, f))
    if (strstr(line, "libhdf5") || strstr(line, "libscopeprof_h5"))
      found = 1;
  fclose(f);
  return found ? 5 : 0;
}

/* The code of each failure of the API, one line each, for the test to
 * compare: then the table of codes, names and texts. */
static int codes(void) {
  printf("sp_init(\"\") %s\n", sp_err_name(sp_init("")));
  printf("sp_region(NULL) %s\n", sp_err_name(sp_region(NULL)));
  printf("sp_region(\"\") %s\n", sp_err_name(sp_region("")));
  printf("sp_region_at(NULL) %s\n",
         sp_err_name(sp_region_at(NULL, "codes.c", 1)));
  printf("sp_region_at(\"\") %s\n", sp_err_name(sp_region_at("", NULL, 1)));
  printf("sp_region(\"a\") %d\n", sp_region("a"));
  int f = sp_finalize();
  printf("sp_finalize() %s\n", sp_err_name(f));
  printf("sp_finalize() %s\n", sp_err_name(sp_finalize()));
  printf("sp_init(NULL) %s\n", sp_err_name(sp_init(NULL)));
  printf("sp_region(\"b\") %d\n", sp_region("b"));
  static const int all[] = {
#define SP_XX(name, value, text) SP_##name,
      SP_ERRNO_MAP(SP_XX)
#undef SP_XX
  };
  for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++)
    printf("%d %s: %s\n", all[i], sp_err_name(all[i]), sp_strerror(all[i]));
  printf("7 %s: %s\n", sp_err_name(7), sp_strerror(7));
  return 0;
}

/* Regions registered under an address-space limit until one fails: its
 * code, then the limit lifted and a normal end. */
static int region_nomem(void) {
  struct rlimit old, lim;
  long pages = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f || fscanf(f, "%ld", &pages) != 1)
    return 2;
  fclose(f);
  if (getrlimit(RLIMIT_AS, &old) != 0)
    return 2;
  lim = old;
  lim.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (8u << 20);
  if (setrlimit(RLIMIT_AS, &lim) != 0)
    return 2;
  char name[256];
  int id = 0;
  for (long i = 0; id >= 0 && i < 1000000; i++) {
    snprintf(name, sizeof name, "%0200ld", i);
    id = sp_region(name);
  }
  setrlimit(RLIMIT_AS, &old);
  printf("%s\n", sp_err_name(id));
  return sp_finalize();
}

/* sp_pause: a{ pause b resume c }, recursion inside a pause, nested
 * pauses, the codes, each resumed at the depth of its pause; then d, open
 * when a pause begins and ended during it, closed at the pause's start by
 * a's end. test_runtime.c and test_profile.py check the counts. */
static int pause_nest(void) {
  int a = sp_region("a"), b = sp_region("b"), c = sp_region("c");
  int r = sp_region("rec"), x = sp_region("x"), d = sp_region("d");
  if (sp_resume() != SP_EINVAL || sp_paused() != 0)
    return 2;
  sp_begin(a);
  if (sp_pause() != 0)
    return 3;
  sp_begin(b); /* not recorded */
  sp_end(b);
  if (sp_resume() != 0)
    return 4;
  sp_begin(c);
  sp_end(c);
  /* rec open across a pause that calls rec: the paused one is nowhere,
   * the one after the resume nests in the outer one */
  sp_begin(r);
  sp_pause();
  sp_begin(r);
  sp_end(r);
  sp_resume();
  sp_begin(r);
  sp_end(r);
  sp_end(r);
  /* two pauses need two resumes */
  sp_pause();
  sp_pause();
  sp_resume();
  if (sp_paused() != 1)
    return 5;
  sp_begin(x); /* not recorded */
  sp_end(x);
  sp_resume();
  sp_begin(x);
  sp_end(x);
  /* d ends while paused: resumed one level out */
  sp_begin(d);
  sp_pause();
  sp_end(d);
  sp_resume();
  sp_end(a);
  return 0;
}

static pthread_barrier_t pause_bar;
static int pause_w, pause_v;
static void *pause_worker(void *arg) {
  (void)arg;
  sp_begin(pause_v);
  pthread_barrier_wait(&pause_bar); /* v begun */
  pthread_barrier_wait(&pause_bar); /* main paused */
  sp_end(pause_v); /* hidden: closed at the pause's start at thread exit */
  for (int i = 0; i < 5; i++) {
    sp_begin(pause_w);
    sp_end(pause_w);
  }
  pthread_barrier_wait(&pause_bar);
  pthread_barrier_wait(&pause_bar); /* main resumed */
  for (int i = 0; i < 2; i++) {
    sp_begin(pause_w);
    sp_end(pause_w);
  }
  return NULL;
}

/* main pauses the whole process while 3 threads call w; each thread's v,
 * open when the pause begins, ends during it */
static int pause_threads(void) {
  pthread_t th[3];
  pause_w = sp_region("w");
  pause_v = sp_region("v");
  pthread_barrier_init(&pause_bar, NULL, 4);
  for (int i = 0; i < 3; i++)
    pthread_create(&th[i], NULL, pause_worker, NULL);
  pthread_barrier_wait(&pause_bar);
  int rc = sp_pause();
  pthread_barrier_wait(&pause_bar);
  pthread_barrier_wait(&pause_bar);
  rc |= sp_resume();
  pthread_barrier_wait(&pause_bar);
  for (int i = 0; i < 3; i++)
    pthread_join(th[i], NULL);
  pthread_barrier_destroy(&pause_bar);
  return rc ? 2 : 0;
}

/* a paused parent forks a paused child; the child's resume is its own */
static int pause_fork(void) {
  if (sp_pause() != 0)
    return 2;
  pid_t pid = fork();
  if (pid == 0)
    _exit(sp_paused() == 1 && sp_resume() == 0 && sp_paused() == 0 ? 0 : 3);
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) != pid)
    return 4;
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 && sp_paused() == 1 ? 0 : 5;
}

/* paused at exit with a call open: the file is written, a closed */
static int pause_exit(void) {
  int a = sp_region("a");
  sp_begin(a);
  sp_pause();
  sp_begin(a);
  return 0;
}

int main(int argc, char **argv) {
  const char *s = argc > 1 ? argv[1] : "";
  if (argc > 2 && sp_init(argv[2]) != 0)
    return 4;
  if (!strcmp(s, "pause"))
    return pause_nest();
  if (!strcmp(s, "pause_threads"))
    return pause_threads();
  if (!strcmp(s, "pause_fork"))
    return pause_fork();
  if (!strcmp(s, "pause_exit"))
    return pause_exit();
  if (!strcmp(s, "pause_disabled")) /* SP_ENABLE=0 */
    return sp_pause() == SP_EDISABLED && sp_resume() == SP_EDISABLED ? 0 : 2;
  /* The runtime loaded, no region ever made: exit, exec, SIGTERM. */
  if (!strcmp(s, "idle"))
    return 0;
  if (!strcmp(s, "idle_exec")) {
    execl("/bin/sh", "sh", "-c", "exit 6", (char *)NULL);
    return 2;
  }
  if (!strcmp(s, "idle_term"))
    return raise(SIGTERM) == 0 ? 0 : 2;
  if (!strcmp(s, "nest"))
    return nest();
  if (!strcmp(s, "threads16"))
    return threads(16);
  if (!strcmp(s, "threads16_rc3")) /* the exit status must survive */
    return threads(16) == 0 ? 3 : 2;
  if (!strcmp(s, "hdf5_maps"))
    return hdf5_maps();
  if (!strcmp(s, "threads1"))
    return threads(1);
  if (!strcmp(s, "many_regions"))
    return many_regions();
  if (!strcmp(s, "mismatch"))
    return mismatch();
  if (!strcmp(s, "open_at_exit"))
    return open_at_exit();
  if (!strcmp(s, "fork"))
    return fork_child();
  if (!strcmp(s, "finalize_twice"))
    return finalize_twice();
  if (!strcmp(s, "fsize_limit"))
    return fsize_limit();
  if (!strncmp(s, "seq_threads:", 12)) { /* seq_threads:<n>[:<as KiB>] */
    long n = 0, as = 0;
    if (sscanf(s + 12, "%ld:%ld", &n, &as) < 1)
      return 1;
    return seq_threads(n, as);
  }
  if (!strncmp(s, "wide_threads:", 13)) { /* wide_threads:<n>:<calls> */
    int n = 0;
    long calls = 0;
    if (sscanf(s + 13, "%d:%ld", &n, &calls) != 2)
      return 1;
    return wide_threads(n, calls);
  }
  if (!strncmp(s, "as_exec:", 8)) { /* as_exec:<as KiB>:<scenario> */
    long as = 0;
    int at = 0;
    if (sscanf(s + 8, "%ld:%n", &as, &at) != 1 || !at)
      return 1;
    return as_exec(as, s + 8 + at);
  }
  if (!strncmp(s, "calls:", 6))
    return many_calls(atol(s + 6));
  if (!strncmp(s, "tight:", 6))
    return tight_memory(atol(s + 6));
  if (!strcmp(s, "clash")) { /* another process writes our name meanwhile */
    char path[4200];
    snprintf(path, sizeof path, "%s_rank00000.spt", getenv("SP_OUTPUT"));
    FILE *f = fopen(path, "w");
    if (!f || fputs("theirs", f) < 0 || fclose(f) != 0)
      return 2;
    return nest();
  }
  if (!strcmp(s, "finalize_race"))
    return finalize_race();
  if (!strcmp(s, "codes"))
    return codes();
  if (!strcmp(s, "region_nomem"))
    return region_nomem();
  if (!strncmp(s, "end:", 4)) { /* end:<mode>:<calls> */
    char mode[32];
    long n = 0;
    if (sscanf(s + 4, "%31[^:]:%ld", mode, &n) != 2)
      return 1;
    return endings(mode, n);
  }
  if (!strcmp(s, "unwritable")) {
    nest();
    return 3;
  }
  return 1;
}
