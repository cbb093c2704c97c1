/* counters.h - SP_COUNTERS: what the rest of the runtime calls of
 * counters.c (each thread's perf_event_open group read at a region's
 * begin and end, sums per thread and region). */
#ifndef SP_COUNTERS_H
#define SP_COUNTERS_H

#include "internal.h"
#include "profile.h"

/* Counters in use after sp__cnt_init (0: off, nothing below is reached). */
SP_HIDDEN extern int sp__cnt_n;
/* At start-up, after the settings: SP_COUNTERS parsed, each counter tried
 * once (one warning line names those the kernel refuses, and why). */
SP_HIDDEN void sp__cnt_init(void);
/* sp__active's value while recording: 1 trace, 2 profile, or the two
 * with counters. */
SP_HIDDEN int sp__active_value(void);
/* A begin (from sp__begin_slow) and an end (from sp__end_fast) with
 * counters on: the counters read around the trace's or profile's own. */
SP_HIDDEN void sp__cnt_begin(int32_t id);
SP_HIDDEN void sp__cnt_end(int32_t id);
/* sp__cnt_end with the end's stamp given (OpenMP constructs). */
SP_HIDDEN void sp__cnt_end_at(int32_t id, uint64_t stamp);
/* Finalize, every other thread stopped: the calls still open end now. */
SP_HIDDEN void sp__cnt_close_all(void);
/* Every thread's sums into the stream as COUNTERS records (token held);
 * async-signal-safe. */
SP_HIDDEN int sp__cnt_stream(void);
SP_HIDDEN void sp__cnt_after_fork(void);
/* record.c: a trace's begin and end as the fast paths make them, without
 * their check of sp__active (which counters set to other values); stamp 0:
 * the end reads the clock. */
SP_HIDDEN void sp__begin_trace(int32_t id);
SP_HIDDEN void sp__end_trace(int32_t id, uint64_t stamp);
/* record.c: what sp__begin_trace(id) needs made (thread, buffer, stack),
 * made before the counters are read. */
SP_HIDDEN void sp__trace_ready(int32_t id);

#endif /* SP_COUNTERS_H */
