/* scenario.c - small programs using the runtime the way users do, one per
 * argv[1]; test_runtime.c runs them in child processes and checks files. */
#include "scope_profiler.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(int argc, char **argv) {
  const char *s = argc > 1 ? argv[1] : "";
  if (argc > 2 && sp_init(argv[2]) != 0)
    return 4;
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
  if (!strcmp(s, "unwritable")) {
    nest();
    return 3;
  }
  return 1;
}
