/* ompt_abi.h - the part of the OMPT interface (OpenMP 5.x "Tool
 * Interfaces", omp-tools.h) that ompt.c uses, under names of our own: the
 * runtime builds with any C compiler and no OpenMP headers. The values are
 * the specification's; test/unit/omp/ompt_abi.c compares them with LLVM's
 * omp-tools.h. */
#ifndef SP_OMPT_ABI_H
#define SP_OMPT_ABI_H

#include <stdint.h>

typedef union sp__ompt_data { /* ompt_data_t */
  uint64_t value;
  void *ptr;
} sp__ompt_data_t;
typedef void (*sp__ompt_cb_t)(void); /* ompt_callback_t */
typedef sp__ompt_cb_t (*sp__ompt_lookup_t)(const char *name);
typedef int (*sp__ompt_set_cb_t)(int event, sp__ompt_cb_t cb);
typedef struct sp__ompt_start { /* ompt_start_tool_result_t */
  int (*initialize)(sp__ompt_lookup_t lookup, int device,
                    sp__ompt_data_t *tool_data);
  void (*finalize)(sp__ompt_data_t *tool_data);
  sp__ompt_data_t tool_data;
} sp__ompt_start_t;

/* X(our name, omp-tools.h name, value) */
#define SP_OMPT_VALUES(X)                                                      \
  X(SP__CB_PARALLEL_BEGIN, ompt_callback_parallel_begin, 3)                    \
  X(SP__CB_PARALLEL_END, ompt_callback_parallel_end, 4)                        \
  X(SP__CB_TASK_CREATE, ompt_callback_task_create, 5)                          \
  X(SP__CB_TASK_SCHEDULE, ompt_callback_task_schedule, 6)                      \
  X(SP__CB_IMPLICIT_TASK, ompt_callback_implicit_task, 7)                      \
  X(SP__CB_WORK, ompt_callback_work, 20)                                       \
  X(SP__CB_MASKED, ompt_callback_masked, 21)                                   \
  X(SP__CB_SYNC_REGION, ompt_callback_sync_region, 23)                         \
  X(SP__CB_MUTEX_ACQUIRE, ompt_callback_mutex_acquire, 26)                     \
  X(SP__CB_MUTEX_ACQUIRED, ompt_callback_mutex_acquired, 27)                   \
  X(SP__CB_NEST_LOCK, ompt_callback_nest_lock, 28)                             \
  X(SP__SCOPE_BEGIN, ompt_scope_begin, 1)                                      \
  X(SP__SCOPE_END, ompt_scope_end, 2)                                          \
  X(SP__TASK_INITIAL, ompt_task_initial, 1)                                    \
  X(SP__TASK_EXPLICIT, ompt_task_explicit, 4)                                  \
  X(SP__TASK_COMPLETE, ompt_task_complete, 1)                                  \
  X(SP__TASK_CANCEL, ompt_task_cancel, 3)                                      \
  X(SP__TASK_DETACH, ompt_task_detach, 4)                                      \
  X(SP__WORK_LOOP, ompt_work_loop, 1)                                          \
  X(SP__WORK_SECTIONS, ompt_work_sections, 2)                                  \
  X(SP__WORK_SINGLE_EXECUTOR, ompt_work_single_executor, 3)                    \
  X(SP__WORK_SINGLE_OTHER, ompt_work_single_other, 4)                          \
  X(SP__WORK_WORKSHARE, ompt_work_workshare, 5)                                \
  X(SP__WORK_DISTRIBUTE, ompt_work_distribute, 6)                              \
  X(SP__WORK_TASKLOOP, ompt_work_taskloop, 7)                                  \
  X(SP__WORK_SCOPE, ompt_work_scope, 8)                                        \
  X(SP__WORK_LOOP_STATIC, ompt_work_loop_static, 10)                           \
  X(SP__WORK_LOOP_DYNAMIC, ompt_work_loop_dynamic, 11)                         \
  X(SP__WORK_LOOP_GUIDED, ompt_work_loop_guided, 12)                           \
  X(SP__WORK_LOOP_OTHER, ompt_work_loop_other, 13)                             \
  X(SP__SYNC_BARRIER, ompt_sync_region_barrier, 1)                             \
  X(SP__SYNC_BARRIER_IMPLICIT, ompt_sync_region_barrier_implicit, 2)           \
  X(SP__SYNC_BARRIER_EXPLICIT, ompt_sync_region_barrier_explicit, 3)           \
  X(SP__SYNC_BARRIER_IMPLEMENTATION, ompt_sync_region_barrier_implementation,  \
    4)                                                                         \
  X(SP__SYNC_TASKWAIT, ompt_sync_region_taskwait, 5)                           \
  X(SP__SYNC_TASKGROUP, ompt_sync_region_taskgroup, 6)                         \
  X(SP__SYNC_REDUCTION, ompt_sync_region_reduction, 7)                         \
  X(SP__SYNC_BARRIER_IMPLICIT_WORKSHARE,                                       \
    ompt_sync_region_barrier_implicit_workshare, 8)                            \
  X(SP__SYNC_BARRIER_IMPLICIT_PARALLEL,                                        \
    ompt_sync_region_barrier_implicit_parallel, 9)                             \
  X(SP__SYNC_BARRIER_TEAMS, ompt_sync_region_barrier_teams, 10)                \
  X(SP__MUTEX_LOCK, ompt_mutex_lock, 1)                                        \
  X(SP__MUTEX_TEST_LOCK, ompt_mutex_test_lock, 2)                              \
  X(SP__MUTEX_NEST_LOCK, ompt_mutex_nest_lock, 3)                              \
  X(SP__MUTEX_TEST_NEST_LOCK, ompt_mutex_test_nest_lock, 4)                    \
  X(SP__MUTEX_CRITICAL, ompt_mutex_critical, 5)                                \
  X(SP__MUTEX_ATOMIC, ompt_mutex_atomic, 6)                                    \
  X(SP__MUTEX_ORDERED, ompt_mutex_ordered, 7)

#define SP__OMPT_ENUM(ours, theirs, value) ours = value,
enum { SP_OMPT_VALUES(SP__OMPT_ENUM) };
#undef SP__OMPT_ENUM

#endif /* SP_OMPT_ABI_H */
