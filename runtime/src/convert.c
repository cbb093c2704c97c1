/* convert.c - the complete stream into the rank's final file, in the
 * format asked for: .spt here, .h5 through the HDF5 module. */
#include "internal.h"
#include "sp_format.h"
#include "sp_profile.h"
#include "sp_progress.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The clock alignment's keys (clock_sync_method, clock_offset_init_ns, ...)
 * exist only in the stream, where the MPI_Init and MPI_Finalize hooks put
 * them. */
static void copy_clock_keys(sp_fmt_meta *dst, const sp_fmt_meta *src) {
  for (int64_t i = 0; i < src->n; i++) {
    const sp_fmt_meta_item *it = &src->items[i];
    if (strncmp(it->key, "clock_", 6) != 0 ||
        strcmp(it->key, "clock_source") == 0)
      continue;
    /* out of memory: the file goes without them, as without any key */
    if (it->type == SP_FMT_META_INT)
      sp_fmt_meta_set_int(dst, it->key, it->i64);
    else if (it->type == SP_FMT_META_STR)
      sp_fmt_meta_set_str(dst, it->key, it->str);
  }
}

void sp__rank_meta(sp_fmt_meta *meta, const sp_fmt_meta *smeta,
                   int64_t open_calls) {
  sp__metadata_collect(meta);
  copy_clock_keys(meta, smeta);
  sp_fmt_meta_set_int(meta, "recording_wait_ns",
                      (int64_t)atomic_load(&sp__wait_ns));
  sp_fmt_meta_set_int(meta, "calls_open_at_exit", open_calls);
  sp_fmt_meta_set_int(meta, "memory_budget", (int64_t)sp__budget);
  sp_fmt_meta_set_int(meta, "memory_overrun_bytes",
                      (int64_t)atomic_load(&sp__overrun_bytes));
}

/* .h5 through the HDF5 module, loaded for this write only. */
static int write_h5(const char *path, int rank, sp_fmt_stream *s,
                    const sp_fmt_source *src, int64_t n, int64_t open_calls,
                    sp_fmt_err *err) {
  sp_fmt_meta meta = {0};
  sp_fmt_mpi mpi;
  /* the MPI layer's messages, when it recorded any */
  if (sp_fmt_stream_mpi(s, &mpi, err) != 0)
    return -1;
  sp__rank_meta(&meta, sp_fmt_stream_meta(s), open_calls);
  uint64_t lost = sp__mpi_msgs_lost();
  if (lost)
    sp_fmt_meta_set_int(&meta, "mpi_messages_lost", (int64_t)lost);
  int rc = sp__write_h5(path, rank, src, n, &meta, &mpi, err);
  sp_fmt_meta_free(&meta);
  sp_fmt_mpi_free(&mpi);
  return rc;
}

/* SP_MODE=profile: the stream's call paths into the rank's .h5. */
static int write_profile(const char *path, sp_fmt_stream *s,
                         sp_fmt_stream_info *info, sp_fmt_err *err) {
  sp_fmt_profile p;
  int got = sp_fmt_stream_profile(s, &p);
  if (got < 0) {
    sp_fmt_err_set(err, "%.900s: out of memory", path);
    return -1;
  }
  sp_fmt_stream_get_info(s, info);
  sp_fmt_meta meta = {0};
  sp__rank_meta(&meta, sp_fmt_stream_meta(s), p.open_calls);
  const sp_fmt_meta_item *it =
      sp_fmt_meta_get(sp_fmt_stream_meta(s), "profile_calls_folded");
  sp_fmt_meta_set_int(&meta, "profile_calls_folded", it ? it->i64 : 0);
  sp_fmt_meta_set_int(&meta, "profile_paths_max", sp__cfg.profile_paths);
  int rc = sp__write_h5_profile(path, &p, &meta, err);
  sp_fmt_meta_free(&meta);
  sp_fmt_profile_free(&p);
  return rc;
}

/* SP_COUNTERS: the stream's sums as the rank<N>/likwid group of the .h5
 * just written at path (nothing when the stream has none). */
static int add_counters(const char *path, int rank, sp_fmt_stream *s,
                        sp_fmt_err *err) {
  sp_fmt_ctr c;
  if (sp_fmt_stream_counters(s, &c) != 0) {
    sp_fmt_err_set(err, "%.900s: out of memory", path);
    return -1;
  }
  c.rank = rank;
  int rc = c.n ? sp__write_h5_counters(path, &c, err) : 0;
  sp_fmt_ctr_free(&c);
  if (rc != 0)
    unlink(path);
  return rc;
}

/* The MPI layer's messages beside the .spt at path (its own layout has no
 * room for them), in <path>.mpi (sp_fmt_spt_mpi_path): written whenever the
 * layer is loaded, empty if it recorded none, so that every rank of an MPI job
 * has one and a missing one means something to sp-import. */
static int add_sidecar(const char *path, int rank, sp_fmt_stream *s,
                       sp_fmt_err *err) {
  sp_fmt_mpi mpi;
  if (sp_fmt_stream_mpi(s, &mpi, err) != 0)
    return -1;
  int rc = 0;
  if (sp__mpi_get() || mpi.nmsgs || mpi.ncomms) {
    char side[PATH_MAX + 80];
    struct stat st;
    if (sp_fmt_spt_mpi_path(path, side, sizeof side) != 0) {
      sp_fmt_err_set(err, "%.900s.mpi: name too long", path);
      rc = -1;
    } else if (stat(path, &st) != 0) {
      sp_fmt_err_set(err, "%.900s: %s", path, strerror(errno));
      rc = -1;
    } else {
      sp__pending_tmp(1, side);
      rc = sp_fmt_spt_mpi_write(side, rank, (int64_t)st.st_size, &mpi,
                                (int64_t)sp__mpi_msgs_lost(), err);
    }
  }
  sp_fmt_mpi_free(&mpi);
  return rc;
}

/* Version 4 (varints) unless SP_SPT_VERSION=3 asks for the fixed-size
 * versions every reader of the earlier ones takes: 2, or 3 for threads. */
static int spt_version(const sp_fmt_stream_info *info) {
  return sp__cfg.spt_version == 3 ? (info->threads > 1 ? 3 : 2) : 4;
}

/* The stream, complete, into the final file. */
int sp__convert(const char *path, int rank, sp_fmt_stream_info *info,
                sp_fmt_err *err) {
  sp_fmt_stream *s = NULL;
  int64_t nhint;
  const sp_stream_hint *hint = sp__stream_hints(&nhint);
  /* Regions still addresses (a test's SP_TEST_NO_SYMBOLS) are named here
   * as the tools would; C++ names only if the program has a C++ runtime. */
  int symbols =
      SP__TEST_CFG(test_no_symbols, 0) == 2 ? 0 : SP_FMT_STREAM_SYMBOLS;
  if (sp_fmt_stream_open_hinted(sp__stream_path, SP_FMT_STREAM_TRUST | symbols,
                                hint, nhint, &s, err) != 0)
    return -1;
  sp_fmt_stream_get_info(s, info);
  if (sp__cfg.mode) {
    int rc = write_profile(path, s, info, err);
    if (rc == 0)
      rc = add_counters(path, rank, s, err);
    sp_fmt_stream_close(s);
    return rc;
  }
  const sp_fmt_source *src = sp_fmt_stream_sources(s);
  int64_t n = sp_fmt_stream_nsources(s);
  /* A long write on a terminal says how far it is (SP_PROGRESS). */
  static const int modes[] = {1, 0, 2};
  sp_fmt_progress prog;
  sp_fmt_progress_begin(&prog, "scopeprof", info->calls,
                        modes[sp__cfg.progress]);
  sp_fmt_source *counted =
      prog.mode ? sp_fmt_progress_sources(&prog, src, n) : NULL;
  if (counted)
    src = counted;
  int rc =
      sp__cfg.format_h5
          ? write_h5(path, rank, s, src, n, info->open_calls, err)
          : sp_fmt_spt_write(path, rank, spt_version(info), src, n, 0, err);
  sp_fmt_progress_end(&prog);
  free(counted);
  if (rc == 0 && sp_fmt_stream_failed(s)) {
    sp_fmt_err_set(err, "%s: %s", sp__stream_path,
                   strerror(sp_fmt_stream_failed(s)));
    unlink(path);
    rc = -1;
  }
  if (rc == 0 && sp__cfg.format_h5)
    rc = add_counters(path, rank, s, err);
  else if (rc == 0 && add_sidecar(path, rank, s, err) != 0) {
    unlink(path);
    rc = -1;
  }
  sp_fmt_stream_close(s);
  return rc;
}
