/* omp_teams.c - an OpenMP program for test_report_omp: one parallel region
 * run twice from main, another from solve; each thread's work differs. */
#include <omp.h>
#include <stdio.h>

__attribute__((annotate("sp_region"))) static double work(int n) {
  volatile double s = 0;
  for (int i = 0; i < n; i++)
    s += i * 0.5;
  return s;
}

__attribute__((annotate("sp_region"))) static double solve(void) {
  double t = 0;
#pragma omp parallel reduction(+ : t) /* team B */
  t += work(200000 * (omp_get_thread_num() + 1));
  return t;
}

int main(void) {
  double t = 0;
  for (int r = 0; r < 2; r++) {
#pragma omp parallel reduction(+ : t) /* team A */
    t += work(100000 * (omp_get_thread_num() + 1));
  }
  t += solve();
  printf("%g\n", t);
  return 0;
}
