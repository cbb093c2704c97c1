/* sp_import.h - the parts of sp-import (rank scan, rows, merge) and
 * what they pass between them. Internal to the tool. */
#ifndef SP_IMPORT_H
#define SP_IMPORT_H

#include "sp_common.h"
#include "sp_h5.h"
#include "sp_inputs.h"
#include "sp_progress.h"
#include "sp_rank.h"
#include "sp_spt.h"
#include "sp_stats.h"
#include "sp_stream.h"

#include <pthread.h>

/* One rank, the input that holds it and its number of calls; with
 * --merge-processes, where its threads start in the merged rank. */
typedef struct sp_imp_claim {
  int32_t rank;
  int64_t input;
  int64_t events;
  int32_t threads;     /* its highest thread + 1 (at least 1) */
  int32_t thread_base; /* added to its threads in the output */
} sp_imp_claim;

/* Learns each input's ranks and call counts without reading calls (a .spt's
 * headers, validated whole; an .h5's index; a stream's index, for which it
 * prints the one warning line of sp_fmt_stream_describe) and returns the
 * claims sorted by rank; two inputs claiming one rank is an error naming
 * both, unless processes is set: then they are processes of that rank and
 * each input's threads follow the previous one's (thread_base). */
/* How sp-import opens a stream: regions the process left as addresses
 * named from the object files (C++ names demangled through libstdc++). */
#define SP__IMP_STREAM (SP_FMT_STREAM_SYMBOLS | SP_FMT_STREAM_SYMBOLS_LOAD)

int sp__imp_scan(const sp_fmt_inputs *in, int processes, sp_imp_claim **claims,
                 int64_t *nclaims, sp_fmt_err *err);

/* One row to write: a block of a rank (src, read from its arrays; its ctx
 * is the block) and its statistics. */
typedef struct sp_imp_row {
  sp_fmt_source src;
  sp_fmt_stats st;
  int64_t first; /* start of its first call: the order key */
  int64_t at;    /* index of its first call in the output */
} sp_imp_row;

/* Rank r's rows in schema-2 order (thread, then the start of each row's
 * first call) into *rows (malloc'd, r->nblocks entries), each with the
 * place of its calls in the output (`at`, from base on), statistics not
 * yet made. srcs, if given, are r's sources (a stream's: r->blocks only
 * count them) and first starts are read through them; else fd >= 0: r is
 * an index (sp_fmt_spt_index of that open file) and first starts are read
 * from the file; else r has its arrays. */
int sp__imp_place(const sp_fmt_rank *r, const sp_fmt_source *srcs,
                  const char *path, int fd, int64_t base, sp_imp_row **rows,
                  sp_fmt_err *err);

/* The rows' statistics, their calls streamed in batches from fd (fd >= 0)
 * or through the rows' own read() (a stream's sources; stream given to
 * learn of read failures), each batch the statistics hand back also
 * written to the reserved writer w at its row's place, in whole aligned
 * pieces; or read from r's arrays (then sp__imp_copy writes them). Improper
 * nesting is not an error: sp__imp_nesting_report() warns about it once. Any
 * thread. */
int sp__imp_stats(const sp_fmt_rank *r, const char *path, int fd,
                  const sp_fmt_stream *stream, const sp_fmt_h5w *w,
                  sp_imp_row *rows, sp_fmt_err *err);

/* Taken around every write of calls to the output (rows.c says why). */
extern pthread_mutex_t sp__imp_put_mu;

/* The progress line: calls written of the total (main.c starts it). */
extern sp_fmt_progress sp__imp_progress;

/* For tests: if set, called by a thread of sp__imp_stats just before it
 * waits for sp__imp_put_mu, with the number of batches its rank holds
 * back at that moment. NULL in the tool. */
extern void (*sp__imp_put_wait_hook)(int64_t kept);

/* The rows' calls from r's arrays (a rank of an .h5) into the reserved
 * writer w at their places. No HDF5 call: any thread. */
int sp__imp_copy(sp_fmt_h5w *w, const sp_fmt_rank *r, const sp_imp_row *rows,
                 sp_fmt_err *err);
void sp__imp_nesting_report(void);

/* Profiles (SP_MODE=profile) among the inputs merged into out: 1 when
 * every input is one and out is written, 0 when none is (the usual merge
 * follows), -1 with err set (a profile beside a trace, two inputs of one
 * rank unless processes says they are processes of it, a failed read or
 * write). */
int sp__imp_profiles(const sp_fmt_inputs *in, const char *out,
                     const char *label, int processes, sp_fmt_err *err);

/* Counters per region (SP_COUNTERS) of the claims' inputs into w: one
 * rank<N>/likwid group per rank that has any, the threads of processes of
 * one rank moved as their claims say. 0, or -1 with err set. */
int sp__imp_counters(const sp_fmt_inputs *in, const sp_imp_claim *claims,
                     int64_t nclaims, sp_fmt_h5w *w, sp_fmt_err *err);

/* src's rows into dst (one rank's table), their threads moved by base;
 * counters that differ from dst's are an error naming path. */
int sp__imp_ctr_append(sp_fmt_ctr *dst, const sp_fmt_ctr *src, int32_t base,
                       const char *path, sp_fmt_err *err);

/* How to merge: --threads and --times. */
typedef struct sp_imp_opts {
  int threads; /* 0 one, 1 two, -1 two when ranks are large (merge.c) */
  int times;   /* print each step's seconds on stderr */
} sp_imp_opts;

/* Streams the claims rank by rank into the schema-2 file out. */
int sp__imp_merge(const sp_fmt_inputs *in, const sp_imp_claim *claims,
                  int64_t nclaims, const char *out, const char *label,
                  const sp_imp_opts *o, sp_fmt_err *err);

#endif /* SP_IMPORT_H */
