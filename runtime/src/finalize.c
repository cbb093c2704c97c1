/* finalize.c - sp_finalize: stops recording, lets the writer drain, appends
 * what is still in memory to the stream, then writes the rank's .spt (or
 * .h5) from the stream and removes it. Memory stays bounded by the stream's
 * index, whatever the number of calls. */
#include "counters.h"
#include "internal.h"
#include "profile.h"
#include "sp_format.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Waits for slow paths that began before recording stopped; bounded, since
 * an exit() from a signal handler may interrupt one on this very thread. */
static void quiesce(void) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  while (atomic_load(&sp__in_slow) > 0) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (t.tv_sec - t0.tv_sec > 1)
      break;
    sched_yield();
  }
}

/* One line for a stream that could not be written whole: the calls lost,
 * and where what was written is kept (sp-import reads it). */
static void stream_failed(const char *path) {
  uint64_t lost = atomic_load(&sp__lost_calls);
  char what[64] = "";
  if (lost)
    snprintf(what, sizeof what, "; %llu call(s) lost",
             (unsigned long long)lost);
  int kept = sp__stream_fd >= 0;
  const char *name = kept || sp__stream_blame ? sp__stream_path : path;
  sp__warn("error: %s: %s%s%s%s", name,
           strerror(sp__stream_errno ? sp__stream_errno : EIO),
           !kept && sp__stream_blame == 2 ? " (and the 99 names after it)" : "",
           what, kept ? " (the rest is kept there; sp-import reads it)" : "");
}

static void add_calls(sp__chunk_t *c, void *arg) {
  int64_t n = c->kind == SP__CH_CALLS ? sp__chunk_count(c) : 0;
  if (n > 0)
    *(uint64_t *)arg += (uint64_t)n;
}

/* The stream cannot take what is still in memory: those calls are lost
 * too (a chunk the writer failed to write was counted by it and is free). */
static void lose_in_memory(void) {
  uint64_t n = 0;
  sp__pool_walk(add_calls, &n);
  atomic_fetch_add(&sp__lost_calls, n);
}

static void counters_to_stream(const uint64_t c[5]) {
  sp__stream_meta_int("rank", sp__rank_guess);
  /* Known only once the program ran OpenMP: after the stream's start. */
  sp__stream_meta_int("omp_num_threads", sp__omp_num_threads());
  sp__stream_meta_int("memory_budget", (int64_t)sp__budget);
  sp__stream_meta_int("recording_wait_ns", (int64_t)atomic_load(&sp__wait_ns));
  sp__stream_meta_int("memory_overrun_bytes",
                      (int64_t)atomic_load(&sp__overrun_bytes));
  sp__stream_meta_int("calls_dropped",
                      (int64_t)(c[3] + atomic_load(&sp__signal_drops)));
  sp__stream_meta_int("ends_mismatched", (int64_t)c[0]);
  sp__stream_meta_int("ends_unmatched", (int64_t)c[2]);
  if (sp__cfg.mode) {
    uint64_t p[5];
    sp__prof_counters(p);
    sp__stream_meta_int("profile_calls_folded", (int64_t)p[0]);
  }
}

/* Everything still in memory, the counters and a STOP record appended to
 * the stream (token held): from then on the stream holds every call,
 * whatever happens to the final file. */
static int append_rest(const uint64_t cnt[5]) {
  if (sp__stream_open(1) != 0) {
    lose_in_memory();
    return -1;
  }
  counters_to_stream(cnt);
  if (sp__stream_regions() != 0) {
    lose_in_memory();
    return -1;
  }
  sp__cnt_close_all();
  if (sp__stream_flush(0, 1) != 0)
    return -1;
  atomic_store(&sp__stream_complete, 1);
  sp__pool_release_unused();
  return 0;
}

static void unlink_side(const char *spt) {
  char side[PATH_MAX + 80];
  if (sp_fmt_spt_mpi_path(spt, side, sizeof side) == 0)
    unlink(side);
}

/* The .spt's messages (convert.c) after it to its final name; none: a
 * sidecar of an earlier run of that name is removed, as it is not this
 * .spt's. */
static void place_side(const char *tmp, const char *placed) {
  char from[PATH_MAX + 80], to[PATH_MAX + 80];
  if (sp__cfg.format_h5 || sp__cfg.mode ||
      sp_fmt_spt_mpi_path(tmp, from, sizeof from) != 0 ||
      sp_fmt_spt_mpi_path(placed, to, sizeof to) != 0)
    return;
  if (rename(from, to) == 0)
    return;
  if (errno == ENOENT)
    unlink(to);
  else
    sp__warn("error: %s: %s (the .spt's MPI messages are lost)", to,
             strerror(errno));
}

/* at_exit: 1 when the exit handler runs it, 0 for the program's own call;
 * merge: 1 at MPI_Finalize under SP_MERGE. */
int sp__finalize_as(int at_exit, int merge) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  static int result;
  /* At exit, the OpenMP runtime ends first (its workers report their last
   * region's end as they stop), then the profile is written. */
  if (at_exit && atomic_load(&sp__state) == SP__RUNNING)
    sp__ompt_exit();
  pthread_mutex_lock(&lock);
  int st = atomic_load(&sp__state);
  if (st == SP__UNINIT) {
    sp__ensure_init();
    st = atomic_load(&sp__state);
  }
  if (st != SP__RUNNING) { /* done before, disabled, or a forked child */
    pthread_mutex_unlock(&lock);
    return st == SP__FINALIZED ? result : SP_OK;
  }
  sp__pause_finalizing(); /* the flag, then the state */
  quiesce();
  sp__writer_stop();

  uint64_t cnt[5];
  sp__thread_counters(cnt);
  if (sp__cfg.mode) { /* profile mode's tables count the same mistakes */
    uint64_t p[5];
    sp__prof_counters(p);
    cnt[0] += p[1], cnt[2] += p[2], cnt[3] += p[4], cnt[4] += p[3];
  }
  int rank = sp__final_rank();
  sp__rank_guess = rank;
  char path[PATH_MAX + 32], tmp[PATH_MAX + 64], placed[PATH_MAX + 64];
  sp_fmt_err err = {{0}};
  sp_fmt_stream_info info;
  memset(&info, 0, sizeof info);
  result = SP_EIO;
  int named =
      sp__output_path(sp__cfg.prefix, rank,
                      sp__cfg.format_h5 || sp__cfg.mode ? ".h5" : ".spt", path,
                      sizeof path) == 0;
  if (!sp__stream_acquire(0)) {
    /* a signal handler owns the stream: the process is ending */
  } else if (!merge && sp__stream_fd < 0 && atomic_load(&sp__nregions) == 0) {
    /* Nothing was ever recorded (a shell or a tool under LD_PRELOAD, a
     * program that never reached instrumented code): no file, so that a
     * directory holds only the processes that recorded something. */
    result = SP_OK;
    sp__debug("nothing recorded: no file written");
  } else if (append_rest(cnt) != 0 || atomic_load(&sp__lost_calls)) {
    /* a write failed, now or earlier in the writer: no partial profile */
    stream_failed(named ? path : sp__cfg.prefix);
  } else if (merge &&
             (sp__cfg.mode ? sp__merge_profile(rank) : sp__merge(rank)) == 0 &&
             !SP__TEST_CFG(merge_keep, 0)) {
    /* in the job's file: this rank writes none of its own */
    unlink(sp__stream_path);
    result = SP_OK;
  } else if (!named) {
    sp__warn("error: output name from prefix '%s' is too long (the calls "
             "are kept in %s)",
             sp__cfg.prefix, sp__stream_path);
  } else if (sp__private_name(path, tmp, sizeof tmp) != 0 ||
             (sp__pending_tmp(0, tmp), sp__convert(tmp, rank, &info, &err)) !=
                 0) {
    unlink(tmp);
    unlink_side(tmp);
    sp__rename_in_msg(err.msg, sizeof err.msg, tmp, path);
    sp__warn("error: %s (the calls are kept in %s)",
             err.msg[0] ? err.msg : path, sp__stream_path);
  } else if (sp__test_raise(),
             sp__place(tmp, path, rank, placed, sizeof placed) != 0) {
    unlink(tmp);
    unlink_side(tmp);
  } else {
    place_side(tmp, placed);
    unlink(sp__stream_path);
    result = SP_OK;
    if (sp__cfg.mode)
      sp__debug("wrote %s (profile, %d threads)", path, info.threads);
    else
      sp__debug("wrote %s (%lld calls, %d threads)", path,
                (long long)info.calls, info.threads);
  }
  sp__pending_tmp(0, NULL); /* renamed into place, or removed */
  sp__pending_tmp(1, NULL);
  if (sp__stream_fd >= 0) {
    close(sp__stream_fd);
    sp__stream_fd = -1;
  }
  atomic_store(&sp__state, SP__FINALIZED);

  /* Calls still open (the frames exit() was called from, threads still
   * running) are closed at this time, silently: expected at any exit. */
  if (info.open_calls)
    sp__debug("%lld call(s) still open at finalize (closed then)",
              (long long)info.open_calls);
  /* A .spt has no metadata to keep the wait in; a short wait is normal
   * (a busy disk), so it is a verbose line, not a warning. */
  uint64_t waited = atomic_load(&sp__wait_ns);
  if (waited)
    sp__debug("recording waited %.3f s for the disk in all (SP_MEMORY %lld "
              "bytes)",
              (double)waited * 1e-9, (long long)sp__budget);
  if (cnt[0])
    sp__warn("%llu sp_end call(s) did not match the innermost open region "
             "(%llu region(s) opened above them were closed with them)",
             (unsigned long long)cnt[0], (unsigned long long)cnt[1]);
  uint64_t hidden = sp__pause_hidden_calls();
  if (hidden)
    sp__warn("%llu call(s) open when a pause began ended during it: closed "
             "at the pause's start (call sp_resume at the call depth of its "
             "sp_pause)",
             (unsigned long long)hidden);
  if (cnt[2])
    sp__warn("%llu sp_end call(s) with no matching open region were ignored",
             (unsigned long long)cnt[2]);
  if (cnt[3])
    sp__warn("%llu call(s) not recorded (out of memory or nesting deeper "
             "than %u)",
             (unsigned long long)cnt[3], SP__STACK_MAX);
  if (cnt[4])
    sp__warn("%llu call(s) with an invalid region id were ignored",
             (unsigned long long)cnt[4]);
  uint64_t in_handlers = atomic_load(&sp__signal_drops);
  if (in_handlers)
    sp__warn("%llu call(s) not recorded (made in a signal handler that "
             "interrupted the runtime on its thread)",
             (unsigned long long)in_handlers);
  uint64_t refused = atomic_load(&sp__names_refused);
  if (refused)
    sp__warn("%llu region name(s) or file name(s) longer than %u bytes "
             "refused (sp_region returned SP_ELIMIT)",
             (unsigned long long)refused, SP__NAME_MAX);
  pthread_mutex_unlock(&lock);
  return result;
}

int sp__finalize(int at_exit) { return sp__finalize_as(at_exit, 0); }

SP_API int sp_finalize(void) { return sp__finalize(0); }
