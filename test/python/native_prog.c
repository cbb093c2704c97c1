/* native_prog.c - built by test_native_trace.py from the package's one-file
 * runtime (scopeprof.native_trace.c_source_path()): nested regions, one
 * without a location, and a second thread. */
#include "scope_profiler.h"

#include <pthread.h>
#include <stdlib.h>

static int work_id;

static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < 5; i++) {
    sp_begin(work_id);
    sp_end(work_id);
  }
  return NULL;
}

int main(void) {
  int step = sp_region_at("step", "native_prog.c", 20);
  int inner = sp_region("inner");
  work_id = sp_region_at("work", "native_prog.c", 11);
  pthread_t t;
  if (pthread_create(&t, NULL, worker, NULL) != 0)
    return 1;
  pthread_join(t, NULL);
  for (int i = 0; i < 3; i++) {
    sp_begin(step);
    for (int j = 0; j < 4; j++) {
      sp_begin(inner);
      sp_end(inner);
    }
    sp_end(step);
  }
  return sp_finalize() == 0 ? 0 : 1;
}
