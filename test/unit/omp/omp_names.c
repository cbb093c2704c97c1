/* omp_names.c - OpenMP constructs whose names are checked at -O0 and -O2:
 * two parallel regions (the first in a loop, run twice), a parallel
 * worksharing loop, a single that creates tasks (its end barrier is the
 * single's last call, which -O2 makes a tail call) and a parallel region
 * nested as the last statement of another. check_names.py finds each construct's line by its
 * marker comment. Exits 1 if a result is wrong. */
#include <omp.h>
#include <stdio.h>

static double a[1 << 14];

int main(int argc, char **argv) {
  (void)argv;
  double s1 = 0, s2 = 0;
  long tasks = 0, inner = 0;
  int n = (int)(sizeof a / sizeof a[0]) - argc + 1;
  for (int rep = 0; rep < argc + 1; rep++) { /* twice: the call in a loop */
#pragma omp parallel /* PAR1 */
    {
      int t = omp_get_thread_num();
#pragma omp atomic
      s1 += t + 1;
    }
  }
  for (int i = 0; i < n; i++)
    a[i] = i * 0.5;
#pragma omp parallel /* PAR2 */
  {
    double mine = 0;
#pragma omp for /* FOR */
    for (int i = 0; i < n; i++)
      mine += a[i];
#pragma omp atomic
    s2 += mine;
  }
#pragma omp parallel /* PAR3 */
  {
#pragma omp single /* SINGLE */
    {
      for (int t = 0; t < 8; t++) {
#pragma omp task /* TASK */
        {
#pragma omp atomic
          tasks++;
        }
      }
    }
  }
  /* a parallel region as the last statement of another's body: at -O2 its
   * call is a tail call, whose return address is the OpenMP runtime's */
#pragma omp parallel num_threads(2) /* OUTER */
  {
#pragma omp parallel num_threads(2) /* INNER */
    {
#pragma omp atomic
      inner++;
    }
  }
  int nt = omp_get_max_threads();
  if (s1 != nt * (nt + 1) || s2 != 0.5 * n * (n - 1) / 2.0 || tasks != 8 ||
      inner != (omp_get_max_active_levels() > 1 ? 4 : 2)) {
    printf("wrong: %g %g %ld %ld\n", s1, s2, tasks, inner);
    return 1;
  }
  return 0;
}
