/* ompt_abi.c - the OMPT values and layouts runtime/src/ompt_abi.h declares
 * by hand agree with LLVM's omp-tools.h (compiled, never run). */
#include "ompt_abi.h"

#include <omp-tools.h>
#include <stddef.h>

#define SAME(ours, theirs, value)                                              \
  _Static_assert((int)(ours) == (int)(theirs), #ours " != " #theirs);
SP_OMPT_VALUES(SAME)

_Static_assert(sizeof(sp__ompt_data_t) == sizeof(ompt_data_t), "data");
_Static_assert(sizeof(sp__ompt_start_t) == sizeof(ompt_start_tool_result_t),
               "start_tool_result");
_Static_assert(offsetof(sp__ompt_start_t, finalize) ==
                   offsetof(ompt_start_tool_result_t, finalize),
               "finalize");
_Static_assert(offsetof(sp__ompt_start_t, tool_data) ==
                   offsetof(ompt_start_tool_result_t, tool_data),
               "tool_data");
