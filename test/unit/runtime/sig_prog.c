/* sig_prog.c - a -finstrument-functions program whose timer handler runs
 * instrumented code while the main thread keeps the runtime's slow paths
 * busy (new regions, new functions): a handler that interrupts one must
 * never wait for the lock the interrupted code holds. */
#define _GNU_SOURCE
#include "scope_profiler.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

static volatile sig_atomic_t ticks;
static char fake_code[1 << 20]; /* addresses of "functions" never seen */
static int hid = -1;            /* the handler's own region */

__attribute__((noinline)) void tick(void) { __asm__ volatile("" ::: "memory"); }

__attribute__((noinline)) void work(int i) {
  __asm__ volatile("" : : "r"(i) : "memory");
}

/* Per tick: an instrumented function, a function address new to the
 * runtime (its registration takes the registry's lock), and the API on a
 * region registered before. Three calls. */
__attribute__((no_instrument_function)) static void on_timer(int sig) {
  (void)sig;
  long k = ticks;
  tick();
  void *fn = fake_code + (size_t)(k % (long)(sizeof fake_code / 16)) * 16;
  __cyg_profile_func_enter(fn, NULL);
  __cyg_profile_func_exit(fn, NULL);
  sp_begin(hid);
  sp_end(hid);
  ticks = k + 1;
}

/* main: regions with new names, one call each, until the handler ran at
 * least min_ticks times; prints the number of names and of ticks. */
int main(int argc, char **argv) {
  long min_ticks = argc > 1 ? atol(argv[1]) : 2000;
  hid = sp_region("handler");
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_timer;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGRTMIN, &sa, NULL);
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = SIGRTMIN;
  timer_t timer;
  if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0)
    return 2;
  struct itimerspec it = {{0, 200000}, {0, 200000}}; /* 5 kHz */
  timer_settime(timer, 0, &it, NULL);
  static char name[1024];
  memset(name, 'n', sizeof name - 1);
  long n = 0;
  while (ticks < min_ticks) {
    snprintf(name, 16, "%015ld", n);
    name[15] = 'n';
    int id = sp_region(name);
    sp_begin(id);
    work((int)n);
    sp_end(id);
    n++;
  }
  timer_delete(timer);
  printf("%ld %ld\n", n, (long)ticks);
  return 0;
}
