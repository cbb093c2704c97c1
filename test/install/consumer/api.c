/* api.c - the C API by hand, linked through ScopeProf::runtime. */
#include <scope_profiler.h>

int main(void) {
  int r = sp_region_at("by_hand", "api.c", 5);
  for (int i = 0; i < 2; i++) {
    sp_begin(r);
    sp_end(r);
  }
  return sp_finalize();
}
