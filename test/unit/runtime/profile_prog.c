/* profile_prog.c - deterministic programs for SP_MODE=profile's tests
 * (test_profile.py): threads, nesting, recursion; long loops; endings by
 * signal with calls open; more paths than the bound; SIGKILL and _exit
 * after a known number of calls, in a forked child too; threads busy while
 * snapshots are read. */
#include "scope_profiler.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int *volatile bad; /* NULL: writing it faults */
static int r_main, r_work, r_leaf, r_rec, r_ping, r_pong;

static void rec(int n) {
  sp_begin(r_rec);
  if (n > 0)
    rec(n - 1);
  sp_end(r_rec);
}

/* ping -> pong -> ping -> pong ...: indirect recursion. */
static void pong(int n);
static void ping(int n) {
  sp_begin(r_ping);
  if (n > 0)
    pong(n - 1);
  sp_end(r_ping);
}
static void pong(int n) {
  sp_begin(r_pong);
  if (n > 0)
    ping(n - 1);
  sp_end(r_pong);
}

/* work { leaf; leaf; rec(2) } three times. */
static void *work(void *arg) {
  (void)arg;
  for (int i = 0; i < 3; i++) {
    sp_begin(r_work);
    sp_begin(r_leaf);
    sp_end(r_leaf);
    sp_begin(r_leaf);
    sp_end(r_leaf);
    rec(2);
    sp_end(r_work);
  }
  return NULL;
}

static atomic_int stop_busy;

/* work { leaf } until told to stop; the count through arg. */
static void *busy(void *arg) {
  long n = 0;
  while (!atomic_load_explicit(&stop_busy, memory_order_relaxed)) {
    sp_begin(r_work);
    sp_begin(r_leaf);
    sp_end(r_leaf);
    sp_end(r_work);
    n++;
  }
  *(long *)arg = n;
  return NULL;
}

static void regions(void) {
  r_main = sp_region("main_region");
  r_work = sp_region("work");
  r_leaf = sp_region("leaf");
  r_rec = sp_region("rec");
  r_ping = sp_region("ping");
  r_pong = sp_region("pong");
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "threads";
  long n = argc > 2 ? atol(argv[2]) : 0;
  regions();
  if (!strcmp(mode, "threads")) {
    /* Two workers, one after the other (so thread numbers are fixed),
     * then main itself: main_region { work x3; ping(3) }. */
    for (int k = 0; k < 2; k++) {
      pthread_t t;
      if (pthread_create(&t, NULL, work, NULL) != 0)
        return 1;
      pthread_join(t, NULL);
    }
    sp_begin(r_main);
    work(NULL);
    ping(3);
    sp_end(r_main);
  } else if (!strcmp(mode, "loop")) { /* main_region { leaf x n } */
    sp_begin(r_main);
    for (long i = 0; i < n; i++) {
      sp_begin(r_leaf);
      sp_end(r_leaf);
    }
    sp_end(r_main);
  } else if (!strcmp(mode, "deep")) {
    /* n calls of rec deep, as rec(n - 1) makes them, without n stack
     * frames: a sanitizer's shadow call stack (TSan's holds 64Ki frames)
     * would overflow first. */
    for (long i = 0; i < n; i++)
      sp_begin(r_rec);
    for (long i = 0; i < n; i++)
      sp_end(r_rec);
  } else if (!strcmp(mode, "paths")) {
    /* n regions under main_region, each a path of its own. */
    sp_begin(r_main);
    for (long i = 0; i < n; i++) {
      char name[32];
      snprintf(name, sizeof name, "p%ld", i);
      int r = sp_region(name);
      sp_begin(r);
      sp_begin(r_leaf);
      sp_end(r_leaf);
      sp_end(r);
    }
    sp_end(r_main);
  } else if (!strcmp(mode, "term") || !strcmp(mode, "segv")) {
    /* n finished work calls, then the signal with main_region and work
     * still open. */
    sp_begin(r_main);
    for (long i = 0; i < n; i++) {
      sp_begin(r_leaf);
      sp_end(r_leaf);
    }
    sp_begin(r_work);
    sp_begin(r_leaf);
    sp_end(r_leaf);
    fflush(stdout);
    if (!strcmp(mode, "term"))
      raise(SIGTERM);
    else
      *bad = 1; /* SIGSEGV */
    return 3;   /* not reached */
  } else if (!strcmp(mode, "kill") || !strcmp(mode, "_exit")) {
    /* n leaf calls in main_region, "ready" on stdout, then wait for a
     * line on stdin (the test's SIGKILL, or _exit when the line comes). */
    sp_begin(r_main);
    for (long i = 0; i < n; i++) {
      sp_begin(r_leaf);
      sp_end(r_leaf);
    }
    sp_begin(r_work);
    printf("ready\n");
    fflush(stdout);
    char line[16];
    if (fgets(line, sizeof line, stdin) && !strcmp(mode, "_exit"))
      _exit(5);
    return 4;
  } else if (!strcmp(mode, "mpi")) {
    /* Regions named as MPI calls (no MPI: sp-report --mpi goes by names),
     * shaped by $SP_RANK: main_region { compute x rank; MPI_Send x (rank
     * + 1); MPI_Allreduce { MPI_Send } x 2; compute { MPI_Allreduce } }. */
    const char *rs = getenv("SP_RANK");
    int rank = rs ? atoi(rs) : 0;
    int send = sp_region("MPI_Send"), all = sp_region("MPI_Allreduce");
    int comp = sp_region("compute");
    sp_begin(r_main);
    for (int i = 0; i < rank; i++) {
      sp_begin(comp);
      sp_end(comp);
    }
    for (int i = 0; i <= rank; i++) {
      sp_begin(send);
      sp_end(send);
    }
    for (int i = 0; i < 2; i++) {
      sp_begin(all);
      sp_begin(send);
      sp_end(send);
      sp_end(all);
    }
    sp_begin(comp);
    sp_begin(all);
    sp_end(all);
    sp_end(comp);
    sp_end(r_main);
  } else if (!strcmp(mode, "fork")) {
    /* main_region { leaf x n; fork }: the child, its snapshots' bytes
     * moved from $SP_TEST_SNAPSHOT_FD to descriptor argv[3], makes 2n leaf
     * calls, says "ready <pid>" and waits to be killed; the parent ends
     * main_region once the child is gone and writes its file. */
    sp_begin(r_main);
    for (long i = 0; i < n; i++) {
      sp_begin(r_leaf);
      sp_end(r_leaf);
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      const char *fd = getenv("SP_TEST_SNAPSHOT_FD");
      if (!fd || argc < 4 || dup2(atoi(argv[3]), atoi(fd)) < 0)
        _exit(7);
      for (long i = 0; i < 2 * n; i++) {
        sp_begin(r_leaf);
        sp_end(r_leaf);
      }
      printf("ready %d\n", (int)getpid());
      fflush(stdout);
      char line[16];
      if (fgets(line, sizeof line, stdin))
        _exit(8);
      _exit(9);
    }
    if (argc > 3) /* the child's alone: its end is the pipe's */
      close(atoi(argv[3]));
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
      return 1;
    sp_end(r_main);
  } else if (!strcmp(mode, "busy")) {
    /* Two threads record until a line comes on stdin, while snapshots
     * are read: their counts on stdout, exact in the file (no race under
     * TSan). */
    pthread_t t[2];
    long c[2];
    for (int k = 0; k < 2; k++)
      if (pthread_create(&t[k], NULL, busy, &c[k]) != 0)
        return 1;
    printf("ready\n");
    fflush(stdout);
    char line[16];
    if (!fgets(line, sizeof line, stdin))
      return 6;
    atomic_store(&stop_busy, 1);
    for (int k = 0; k < 2; k++)
      pthread_join(t[k], NULL);
    printf("%ld %ld\n", c[0], c[1]);
  } else {
    return 2;
  }
  return sp_finalize() == 0 ? 0 : 1;
}
