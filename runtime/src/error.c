/* error.c - the name and text of each SP_E* code, both from SP_ERRNO_MAP
 * (scope_profiler.h). */
#include "internal.h"

SP_API const char *sp_strerror(int code) {
  switch (code) {
#define SP_XX(name, value, text)                                               \
  case SP_##name:                                                              \
    return text;
    SP_ERRNO_MAP(SP_XX)
#undef SP_XX
  default:
    return "unknown error";
  }
}

SP_API const char *sp_err_name(int code) {
  switch (code) {
#define SP_XX(name, value, text)                                               \
  case SP_##name:                                                              \
    return "SP_" #name;
    SP_ERRNO_MAP(SP_XX)
#undef SP_XX
  default:
    return "unknown";
  }
}
