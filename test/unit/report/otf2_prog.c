/* otf2_prog.c - a pthread program for test_report_otf2, built with sp-cc:
 * marked functions nest three deep on the main thread and two workers, with
 * call counts that depend on the thread and the rank. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((annotate("sp_region"))) static void leaf(int n) {
  for (int i = 0; i < n; i++)
    sink += i * 0.5;
}

__attribute__((annotate("sp_region"))) static void step(int k) {
  for (int i = 0; i < k; i++)
    leaf(500);
}

__attribute__((annotate("sp_region"))) static void *worker(void *arg) {
  int k = *(int *)arg;
  for (int i = 0; i < 3; i++)
    step(k);
  return NULL;
}

int main(void) {
  const char *r = getenv("SP_RANK");
  int rank = r ? atoi(r) : 0;
  /* Worker w runs 3 steps of 1 + w + rank leaves each. */
  int k[2] = {1 + rank, 2 + rank};
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    if (pthread_create(&t[i], NULL, worker, &k[i]) != 0)
      return 1;
  step(2);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  printf("%g\n", sink);
  return 0;
}
