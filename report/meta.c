/* meta.c - which metadata items the exports carry: a trace leaves the
 * machine, and the environment, the user, the hosts and the directories
 * are the run's own business unless asked for (--with-metadata). */
#include "report.h"

#include <string.h>

/* What a viewer needs to describe the run; everything else (PATH, user,
 * hostname, working_directory, uname, modules, new keys) is left out by
 * default. */
static const char *const SHARED[] = {"scope_profiler_version",
                                     "scope_profiler_schema",
                                     "mode",
                                     "label",
                                     "clock_source",
                                     "start_time_ns",
                                     "timestamp",
                                     "mpi_size",
                                     "omp_num_threads",
                                     "total_cores",
                                     "calls_open_at_exit",
                                     "calls_dropped",
                                     "ends_mismatched",
                                     "ends_unmatched",
                                     "memory_budget",
                                     "memory_overrun_bytes",
                                     "recording_wait_ns",
                                     "profile_calls_folded",
                                     "profile_paths_max",
                                     "rank_ids",
                                     NULL};

int rp_meta_exported(const rp_opts *o, const char *key) {
  if (o->with_metadata)
    return 1;
  for (const char *const *k = SHARED; *k; k++)
    if (!strcmp(*k, key))
      return 1;
  return 0;
}
