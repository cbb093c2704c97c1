/* header_c.c - scope_profiler.h compiles on its own as strict C11 and its
 * macros expand to valid expressions. Built, never run. */
#include "scope_profiler.h"

int sp_header_check_c(void);
int sp_header_check_c(void) {
  int id = sp_region_at("x", __FILE__, __LINE__);
  sp_begin(id);
  sp_end(id);
  void (*by_address)(int) = &sp_begin; /* still a real function */
  by_address(id);
  (sp_end)(id);
  return sp_init(0) + sp_finalize() + (sp_strerror(SP_EIO) != 0);
}
