/* mpi_hooks.c - what the runtime knows of MPI: only what libscopeprof_mpi.so
 * registers (sp_mpi_hooks.h). Without the layer the rank comes from the
 * launcher's variables, and nothing here runs. */
#include "internal.h"
#include "sp_mpi_hooks.h"

#include <stdio.h>

static const sp__mpi_ops *_Atomic mpi_ops;

SP_API void sp__mpi_register(const sp__mpi_ops *ops) {
  if (ops && ops->version == SP_MPI_HOOKS_VERSION)
    atomic_store(&mpi_ops, ops);
}

const sp__mpi_ops *sp__mpi_get(void) { return atomic_load(&mpi_ops); }

int sp__mpi_query(int *rank, int *size) {
  const sp__mpi_ops *m = sp__mpi_get();
  return m ? m->query(rank, size) : -1;
}

int sp__mpi_rank(int *rank, int *size) {
  const sp__mpi_ops *m = sp__mpi_get();
  return m ? m->rank(rank, size) : -1;
}

/* The rank this process reports, decided at finalize: the environment's,
 * else MPI's (which also gives the job's size), else 0. */
int sp__final_rank(void) {
  int rank = sp__rank_from_env(), mrank = -1, msize = -1;
  if (rank < 0 && sp__mpi_rank(&mrank, &msize) == 0) {
    rank = mrank;
    sp__mpi_size = msize;
  }
  return rank < 0 ? 0 : rank;
}

SP_API int sp__mpi_recording(void) {
  return atomic_load(&sp__state) == SP__RUNNING;
}

SP_API int64_t sp__mpi_now_ns(void) { return sp__mono_ns(); }

SP_API uint64_t sp__mpi_clock_id(void) { return sp__clock_id(); }

SP_API int64_t sp__mpi_merge_wait_ns(void) {
  return sp__cfg.merge ? (int64_t)sp__cfg.merge_timeout * 1000000000 : 0;
}

/* The measurement into the stream as META records, so that a stream
 * recovered after a crash carries it too; the stream's reader maps the
 * stamps with it (format/stream_read.c). */
SP_API void sp__mpi_clock_measured(const char *phase, const char *method,
                                   int rank, int ok, int64_t offset,
                                   int64_t rtt, int64_t at, int64_t wait_ns) {
  if (atomic_load(&sp__state) == SP__RUNNING && sp__stream_acquire(2000)) {
    if (sp__stream_open(1) == 0) {
      char key[64];
      if (sp__rank_from_env() < 0)
        sp__stream_meta_int("rank", rank);
      sp__stream_meta_str("clock_sync_method", method);
      if (ok) {
        snprintf(key, sizeof key, "clock_offset_%s_ns", phase);
        sp__stream_meta_int(key, offset);
        snprintf(key, sizeof key, "clock_rtt_%s_ns", phase);
        sp__stream_meta_int(key, rtt);
        snprintf(key, sizeof key, "clock_sync_%s_ns", phase);
        sp__stream_meta_int(key, at);
      } else {
        snprintf(key, sizeof key, "clock_sync_%s_failed", phase);
        sp__stream_meta_int(key, 1);
      }
    }
    sp__token_give();
  }
  const char *call = phase[0] == 'i' ? "MPI_Init" : "MPI_Finalize";
  if (ok)
    sp__debug("rank %d: clock offset to rank 0 at %s: %lld ns (round trip "
              "%lld ns)",
              rank, call, (long long)offset, (long long)rtt);
  else
    sp__debug("rank %d: no answer from rank 0 at %s in %d s: no clock offset",
              rank, call, (int)(wait_ns / 1000000000));
}

/* The job's one file needs MPI: written now, not at exit. */
SP_API void sp__mpi_finalizing(void) {
  if (sp__cfg.merge)
    sp__merge_at_finalize();
}

/* MPI_Abort ends this process without exit handlers and the launcher kills
 * the others: what this rank recorded goes to its stream first (as before
 * an exec), and the job's other ranks on this node save theirs before the
 * launcher hears of the abort (abort.c). */
SP_API void sp__mpi_aborting(void) {
  int64_t t0 = sp__mono_ns();
  sp__flush_to_stream(SP_STREAM_STOP_MPI_ABORT);
  sp__debug("MPI_Abort: this rank's calls saved to the stream in %.3f ms",
            (double)(sp__mono_ns() - t0) / 1e6);
  sp__abort_others();
}
