// header_cxx.cpp - scope_profiler.h compiles on its own as C++ (C linkage,
// no C-only constructs in its macros). Built, never run.
#include "scope_profiler.h"

int sp_header_check_cxx();
int sp_header_check_cxx() {
  int id = sp_region("y");
  sp_begin(id);
  sp_end(id);
  return sp_init(nullptr) + sp_finalize();
}
