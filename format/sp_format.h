/* sp_format.h - the one implementation of ScopeProf's file formats: the .spt
 * trace (v1/v2/v3) and the schema-2 HDF5 profile, shared by the runtime,
 * sp-import and sp-report. Internal: not installed, not a public API. */
#ifndef SP_FORMAT_H
#define SP_FORMAT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_FMT_MAGIC "SCOPEPRF"
#define SP_FMT_SPT_MAX_VERSION 3
#define SP_FMT_SCHEMA 2

/* One failure, as one line: "<file>: <what>" or
 * "<file>: offset <N>: <what>" for binary input. No trailing newline. */
typedef struct sp_fmt_err {
  char msg[1024];
} sp_fmt_err;

/* ---- in-memory profile of one rank (what readers return) ---------------- */

typedef struct sp_fmt_region {
  char *name;   /* UTF-8, never NULL */
  char *file;   /* NULL = unknown */
  int32_t line; /* -1 = unknown */
} sp_fmt_region;

/* The calls of one region on one thread, in the order they were recorded
 * (start order). */
typedef struct sp_fmt_block {
  int32_t thread; /* 0 = first thread that recorded */
  int32_t region; /* index into sp_fmt_rank.regions */
  int64_t count;
  int64_t *starts; /* ns, CLOCK_MONOTONIC */
  int64_t *ends;
  int64_t file_offset; /* .spt: byte offset of starts[] in the file */
} sp_fmt_block;

enum sp_fmt_meta_type { SP_FMT_META_STR, SP_FMT_META_INT, SP_FMT_META_STRLIST };

typedef struct sp_fmt_meta_item {
  char *key;
  int type;    /* enum sp_fmt_meta_type */
  char *str;   /* SP_FMT_META_STR */
  int64_t i64; /* SP_FMT_META_INT */
  char **strs; /* SP_FMT_META_STRLIST */
  int64_t nstrs;
} sp_fmt_meta_item;

typedef struct sp_fmt_meta {
  int64_t n;
  sp_fmt_meta_item *items;
} sp_fmt_meta;

typedef struct sp_fmt_rank {
  int32_t rank;
  int32_t version; /* .spt version it was read from (1..3); 0 for HDF5 */
  int64_t nregions;
  sp_fmt_region *regions; /* names unique within a rank */
  int64_t nblocks;
  sp_fmt_block *blocks;  /* at most one per (thread, region) */
  sp_fmt_meta meta;      /* empty for .spt */
  int32_t foreign_order; /* .spt: its byte order is not this machine's */
} sp_fmt_rank;

void sp_fmt_rank_free(sp_fmt_rank *r); /* frees contents, not r itself */

/* Metadata helpers (deep copies; NULL-safe free). Setting a key that exists
 * replaces its value in place; sp_fmt_meta_copy replaces dst, which must be
 * empty ({0, NULL}) or valid. Return 0, or -1 when out of memory. */
int sp_fmt_meta_set_str(sp_fmt_meta *m, const char *key, const char *value);
int sp_fmt_meta_set_int(sp_fmt_meta *m, const char *key, int64_t value);
int sp_fmt_meta_set_strlist(sp_fmt_meta *m, const char *key,
                            const char *const *values, int64_t n);
const sp_fmt_meta_item *sp_fmt_meta_get(const sp_fmt_meta *m, const char *key);
int sp_fmt_meta_copy(sp_fmt_meta *dst, const sp_fmt_meta *src);
void sp_fmt_meta_free(sp_fmt_meta *m);

/* Keys each rank's value of which a merged file keeps, as the string lists
 * rank_<key> (one entry per rank) beside rank_ids: the host a rank ran on
 * and its clock alignment, which the lowest rank's metadata alone would
 * lose. SP_FMT_PER_RANK of them. */
#define SP_FMT_PER_RANK 10
extern const char *const sp_fmt_per_rank_keys[SP_FMT_PER_RANK];

/* Rank rank's values of those keys as text into out[SP_FMT_PER_RANK]
 * (malloc'd; NULL where it has none): from m's lists when m is a merged
 * file's metadata holding that rank, else from m's own keys. Returns 0, or
 * -1 when out of memory (what was set stays in out: the caller frees). */
int sp_fmt_per_rank_values(const sp_fmt_meta *m, int32_t rank, char **out);

/* rank_ids and rank_<key> into m for the keys any entry has: per holds
 * SP_FMT_PER_RANK values for each of the n entries, whose ranks are
 * ranks[] (ascending; an entry with the rank of the one before is another
 * process of that rank: the first value found is kept). "" where a rank
 * has none. Returns 0, or -1 when out of memory. */
int sp_fmt_per_rank_meta(sp_fmt_meta *m, char *const *per, const int32_t *ranks,
                         int64_t n);

/* ---- sources: what writers and statistics pull calls from --------------- */

/* One (thread, region) block to write. Writers pull its calls in batches
 * through read(), so the runtime can stream from its own buffers and the
 * importer from arrays, with one writer for both. */
typedef struct sp_fmt_source sp_fmt_source;
struct sp_fmt_source {
  int32_t thread;
  const char *name;
  const char *file; /* NULL or "" = unknown */
  int32_t line;     /* -1 = unknown */
  int64_t count;
  /* Copies calls [first, first + n) into starts[] and ends[] (ns). */
  void (*read)(const sp_fmt_source *src, int64_t first, int64_t n,
               int64_t *starts, int64_t *ends);
  const void *ctx; /* for read() */
  int64_t aux;     /* for read() */
};

/* Fills out[i] (r->nblocks entries) to read from r's arrays. */
void sp_fmt_rank_sources(const sp_fmt_rank *r, sp_fmt_source *out);

/* The order of a rank's rows in a schema-2 file: by thread, then rows with
 * calls by the start of their first call (first_a, first_b), then rows
 * without calls, ties by name. <0, 0 or >0 as for qsort. */
int sp_fmt_row_cmp(const sp_fmt_source *a, int64_t first_a,
                   const sp_fmt_source *b, int64_t first_b);

/* n timestamps from p (this machine's order, any alignment) written as
 * little-endian int64 at file offset at of fd, in writes that end on
 * 256 KiB boundaries of the file. Returns 0, or -1 with errno set (0: no
 * progress). */
int sp_fmt_put_le64(int fd, int64_t at, const void *p, int64_t n);

/* The read() of those sources: ctx is the sp_fmt_block holding the calls. */
void sp_fmt_block_read(const sp_fmt_source *src, int64_t first, int64_t n,
                       int64_t *starts, int64_t *ends);

/* 1 with *starts and *ends set if src's calls are arrays in memory (its
 * read is sp_fmt_block_read), so statistics and writers can use them in
 * place instead of copying batches; else 0. */
static inline int sp_fmt_source_arrays(const sp_fmt_source *src,
                                       const int64_t **starts,
                                       const int64_t **ends) {
  if (src->read != sp_fmt_block_read || !src->ctx)
    return 0;
  const sp_fmt_block *b = (const sp_fmt_block *)src->ctx;
  *starts = b->starts;
  *ends = b->ends;
  return 1;
}

/* ---- summary statistics (schema 2's summary_statistics) ------------------ */

typedef struct sp_fmt_stats {
  int64_t calls, total_ns, min_ns, max_ns, first_start_ns, last_end_ns;
  int64_t exclusive_ns;   /* total minus direct children on the same thread */
  int64_t gpu_total_ns;   /* -1 = none */
  double mean_ns, std_ns; /* std: population */
  /* total_ns less the calls nested inside another call of the same region
   * on the same thread (recursion): the time spent in the region; -1 =
   * unknown (an .h5 written before the field existed) */
  int64_t outer_total_ns;
} sp_fmt_stats;

/* Statistics of one source's calls alone (exclusive_ns = total_ns; the
 * outer total from containment among its own calls). mean
 * and std are the correctly rounded values of exact sums, not of a running
 * approximation. Returns 0, or -1 when out of memory. */
int sp_fmt_stats_source(const sp_fmt_source *src, sp_fmt_stats *out);

/* Where containment failed: two calls overlap without nesting. */
typedef struct sp_fmt_nesting {
  int bad; /* 0 = properly nested */
  int32_t thread;
  const char *outer, *inner; /* region names (point into the sources) */
  int64_t outer_start, inner_start;
} sp_fmt_nesting;

/* Statistics of srcs[0..n), which must all be one rank's one thread, each
 * in start order: out[i] for srcs[i]. exclusive_ns comes from reconstructing
 * nesting by containment across all n sources (merged by start asc, end
 * desc, index asc). Sources are read in batches within a budget of 1 to 8
 * MiB.
 * Returns 0, or -1 when out of memory. Improper nesting is not an error:
 * nest (if given) describes the first case and exclusive times count only
 * properly nested children. */
int sp_fmt_stats_thread(const sp_fmt_source *srcs, int64_t n, sp_fmt_stats *out,
                        sp_fmt_nesting *nest);

/* A rank's sources with each thread's adjacent: sp_fmt_rank_sources
 * ordered by thread, then block order. out holds r->nblocks entries. */
void sp_fmt_rank_sources_by_thread(const sp_fmt_rank *r, sp_fmt_source *out);

/* sp_fmt_stats_thread over each run of one thread in srcs[0..n) (sources
 * grouped by thread, as sp_fmt_rank_sources_by_thread gives them).
 * Returns the number of threads whose calls are not properly nested (nest,
 * if given, describes the first), or -1 when out of memory. */
int64_t sp_fmt_stats_rank(const sp_fmt_source *srcs, int64_t n,
                          sp_fmt_stats *out, sp_fmt_nesting *nest);

/* A caller's view of the calls the statistics read, so it can use each
 * batch while it is in cache (sp-import writes it to its output) instead
 * of reading the calls a second time. Only sources read through read() are
 * seen here (sources with arrays in memory are used in place). i is the
 * source's index in the srcs given to sp_fmt_stats_rank_read. */
typedef struct sp_fmt_stats_reader {
  /* Optional: of the next n (>= 1) calls of srcs[i] from call first on, how
   * many the next batch reads (1 to n; out of range is clamped). NULL: n. */
  int64_t (*batch_size)(void *ctx, int64_t i, int64_t first, int64_t n);
  /* Optional: called once per batch read, right after it is read. Order:
   * each source's batches come in call order, contiguous from call 0 to its
   * last, each call exactly once; batches of different sources of one
   * thread interleave as the merge needs them; threads come one after the
   * other, in srcs order. starts and ends are valid during the call only.
   * Called on the caller's thread, before sp_fmt_stats_rank_read returns. */
  void (*batch)(void *ctx, int64_t i, int64_t first, int64_t n,
                const int64_t *starts, const int64_t *ends);
  void *ctx;
} sp_fmt_stats_reader;

/* sp_fmt_stats_rank, handing rd (if not NULL) each batch read. The
 * statistics do not depend on where batches end. */
int64_t sp_fmt_stats_rank_read(const sp_fmt_source *srcs, int64_t n,
                               sp_fmt_stats *out, sp_fmt_nesting *nest,
                               const sp_fmt_stats_reader *rd);

/* The one-line description of an improper nesting found in `path`'s rank
 * `rank`, as the tools print it. */
void sp_fmt_nesting_describe(const sp_fmt_nesting *nest, const char *path,
                             int32_t rank, char *buf, size_t size);

/* ---- .spt trace -----------------------------------------------------------
 */

/* Writes srcs as a .spt of `version` (1, 2 or 3) to a temporary name
 * beside path, then renames it to path; on failure nothing is left under
 * path (an existing file there is kept) and err says why. Versions 1 and 2
 * carry no thread: every source must have the same thread (else an error);
 * version 1 drops file/line. big_endian: 0 = little, 1 = big-endian. */
int sp_fmt_spt_write(const char *path, int32_t rank, int version,
                     const sp_fmt_source *srcs, int64_t n, int big_endian,
                     sp_fmt_err *err);

/* Parses a whole .spt image held in memory. name is used in messages
 * ("<name>: offset <N>: <what>"). Every length and count is checked against
 * the bytes left before any allocation; trailing bytes are an error. One
 * region per distinct name (first known location kept), one block per file
 * block in file order. On error *out is empty. Rules: docs/format.md. */
int sp_fmt_spt_parse(const unsigned char *buf, size_t len, const char *name,
                     sp_fmt_rank *out, sp_fmt_err *err);

/* Reads and parses the file at path. */
int sp_fmt_spt_read(const char *path, sp_fmt_rank *out, sp_fmt_err *err);
/* sp_fmt_spt_read, adding to p (sp_progress.h; NULL: none) the calls read
 * as their stamps arrive: the file's calls in all. */
typedef struct sp_fmt_progress sp_fmt_progress;
int sp_fmt_spt_read_progress(const char *path, sp_fmt_rank *out,
                             sp_fmt_progress *p, sp_fmt_err *err);

/* Validates the file at path as sp_fmt_spt_read does but reads no
 * timestamps: blocks have counts and file offsets, NULL arrays. */
int sp_fmt_spt_index(const char *path, sp_fmt_rank *out, sp_fmt_err *err);

/* A .spt block's calls read from its open file as they are wanted: the
 * read() of a source whose ctx is one of these, for statistics that stream
 * a rank too big to hold. A failed read sets *failed to errno (calls then
 * read as 0). */
typedef struct sp_fmt_spt_calls {
  int fd;
  int swap;       /* the file's byte order is not ours */
  int64_t offset; /* the block's file_offset */
  int64_t count;
  int *failed;
} sp_fmt_spt_calls;

void sp_fmt_spt_calls_read(const sp_fmt_source *src, int64_t first, int64_t n,
                           int64_t *starts, int64_t *ends);

/* 1 if the file at path starts with the 8 bytes of magic. */
int sp_fmt_starts_with(const char *path, const char magic[8]);

/* 1 if the first bytes of the file at path are the .spt magic. */
int sp_fmt_is_spt(const char *path);

/* ---- .spts stream (layout: sp_stream.h; rules: docs/format.md) ---------- */

typedef struct sp_fmt_stream sp_fmt_stream;

/* Flags of sp_fmt_stream_open. */
/* The caller wrote it (the runtime at finalize): no record checks, and
 * CALLS records not marked partial are not read while indexing (every call
 * in them has a start and an end; no stamp later than the last CLOCK or
 * STOP record). */
#define SP_FMT_STREAM_TRUST 1

/* Indexes the stream at path: every complete record up to the first one
 * that is cut short or fails its check (the torn tail, then ignored). Keeps
 * the file open; memory grows with the number of records, never with the
 * number of calls. A file that is not a stream, or whose header is torn,
 * is an error. */
int sp_fmt_stream_open(const char *path, int flags, sp_fmt_stream **out,
                       sp_fmt_err *err);

/* sp_fmt_stream_open, SP_FMT_STREAM_TRUST, given what the writer kept of
 * its first nhint records (offsets ascending, sp_stream.h): their heads
 * come from memory, the other bytes from the file. */
struct sp_stream_hint;
int sp_fmt_stream_open_hinted(const char *path, int flags,
                              const struct sp_stream_hint *hint, int64_t nhint,
                              sp_fmt_stream **out, sp_fmt_err *err);

typedef struct sp_fmt_stream_info {
  int32_t rank, pid;
  int64_t size;        /* bytes in the file */
  int64_t torn_offset; /* where the torn tail starts; -1 = none */
  int32_t stopped;     /* a STOP record was read */
  int32_t stop_cause;  /* of the last one: 0 finalize, -1 MPI_Abort, else a
                        * signal (SP_STREAM_STOP in sp_stream.h) */
  int64_t calls;       /* calls the sources hold */
  int64_t open_calls;  /* of them, calls without an end (closed at the
                          stream's last stamp) */
  int64_t dropped;     /* calls written with start 0 (not calls) */
  int32_t threads;     /* distinct threads with calls */
  char torn_what[160]; /* why the record at torn_offset is not complete */
} sp_fmt_stream_info;

void sp_fmt_stream_get_info(const sp_fmt_stream *s, sp_fmt_stream_info *info);
const sp_fmt_meta *sp_fmt_stream_meta(const sp_fmt_stream *s);

/* The stream's calls as sources, one per (thread, region name): threads
 * renumbered from 0 in order of the writer's thread numbers, sources
 * ordered by thread then first start, calls in start order and in CLOCK_-
 * MONOTONIC ns: what sp_fmt_spt_write and the statistics take. Their read()
 * reads the file (fastest forwards; they share one buffer, so one thread
 * at a time); a failed read makes sp_fmt_stream_failed non-zero and gives
 * calls of 0. Valid until sp_fmt_stream_close. */
int64_t sp_fmt_stream_nsources(const sp_fmt_stream *s);
const sp_fmt_source *sp_fmt_stream_sources(const sp_fmt_stream *s);
int sp_fmt_stream_failed(const sp_fmt_stream *s); /* errno of a read, or 0 */
void sp_fmt_stream_close(sp_fmt_stream *s);

/* Reads a whole stream into memory, as sp_fmt_spt_read reads a .spt. */
int sp_fmt_stream_read(const char *path, sp_fmt_rank *out, sp_fmt_err *err);

/* 1 if the first bytes of the file at path are the stream magic. */
int sp_fmt_is_stream(const char *path);

/* The one-line warning the tools print for a stream read (no prefix, no
 * newline): "<path>: rank R recovered from a stream: N calls (K left
 * open), <how it ended>[; torn tail ignored from byte T]". */
void sp_fmt_stream_describe(const sp_fmt_stream_info *info, const char *path,
                            char *buf, size_t size);

/* ---- schema-2 HDF5 ---------------------------------------------------------
 */

#define SP_FMT_HAVE_HDF5_API 1 /* the declarations below exist; the code */
                               /* only when built with SP_USE_HDF5 */

typedef struct sp_fmt_h5w sp_fmt_h5w;

/* Starts a schema-2 file that becomes path on sp_fmt_h5w_close (written
 * under a temporary name until then). Datasets are chunked and grow, so
 * rows stream in with memory bounded by one batch. */
sp_fmt_h5w *sp_fmt_h5w_open(const char *path, sp_fmt_err *err);
/* sp_fmt_h5w_open writing into tmp, a name of the caller's that does not
 * exist yet, which becomes path at close (tmp may be path itself: a name
 * the caller renames into place, so there is one temporary, not two);
 * NULL: a temporary name of its own, as sp_fmt_h5w_open. */
sp_fmt_h5w *sp_fmt_h5w_open_as(const char *path, const char *tmp,
                               sp_fmt_err *err);

/* Appends one row (rank, src->thread, region src->name) with src's calls.
 * Rows must come ordered by rank, thread, then first start. Region ids are
 * given in order of first appearance. stats may be NULL: then computed
 * from src alone, with exclusive_ns = total_ns. */
int sp_fmt_h5w_row(sp_fmt_h5w *w, int32_t rank, const sp_fmt_source *src,
                   const sp_fmt_stats *stats, sp_fmt_err *err);

/* For callers that write the calls themselves, faster than HDF5 would
 * (sp-import): before any row, sizes the event datasets to exactly n calls
 * (contiguous, allocated now). Rows then take no calls through the writer
 * (src->count only) and need their stats given: the caller writes each row's
 * calls with sp_fmt_h5w_put at the offset sp_fmt_h5w_events gave before the
 * row, and the rows must add up to n by close. Rows of a reserved writer
 * make no HDF5 call (the index is written at close), so any one thread at
 * a time may add them. */
int sp_fmt_h5w_reserve(sp_fmt_h5w *w, int64_t n, sp_fmt_err *err);

/* Calls written so far: the next row's first event. */
int64_t sp_fmt_h5w_events(const sp_fmt_h5w *w);

/* Writes n calls (timestamps in this machine's order, any alignment) at
 * event index first of a reserved writer, with pwrite: no HDF5 call, so
 * any thread may put while another adds rows. */
int sp_fmt_h5w_put(const sp_fmt_h5w *w, int64_t first, const void *starts,
                   const void *ends, int64_t n, sp_fmt_err *err);

/* A reserved writer for a file other processes have made and filled:
 * tmp, a schema-2 file with group events and its two datasets of exactly
 * n calls written, becomes path at close. Rows (with their stats) and
 * metadata follow as after sp_fmt_h5w_reserve, with no sp_fmt_h5w_put.
 * NULL with err set, tmp removed, when tmp is not such a file. */
sp_fmt_h5w *sp_fmt_h5w_adopt(const char *path, const char *tmp, int64_t n,
                             sp_fmt_err *err);

/* Where a reserved writer's events go, for other processes that write
 * their share with sp_fmt_put_le64 at at[0] + 8 * first (start times) and
 * at[1] + 8 * first (end times) of the file *tmp (the temporary name, valid
 * until close). Returns 0, or -1 when w is not reserved. */
int sp_fmt_h5w_layout(const sp_fmt_h5w *w, const char **tmp, int64_t at[2]);

/* Attributes of /metadata (replaces any set before). */
int sp_fmt_h5w_meta(sp_fmt_h5w *w, const sp_fmt_meta *meta, sp_fmt_err *err);

/* Writes region_table and the root attribute, closes, renames into place.
 * On failure the temporary is removed and path is untouched. Frees w. */
int sp_fmt_h5w_close(sp_fmt_h5w *w, sp_fmt_err *err);

/* Discards everything written; path is untouched. Frees w. */
void sp_fmt_h5w_abort(sp_fmt_h5w *w);

/* Reads a schema-2 file (per-rank or merged): *ranks gets one entry per
 * rank it holds, ascending, each with the file's metadata. Files without
 * rank_region_index/threads have every row on thread 0. */
int sp_fmt_h5_read(const char *path, sp_fmt_rank **ranks, int64_t *nranks,
                   sp_fmt_err *err);
/* sp_fmt_h5_read, adding to p (NULL: none) the calls read as their stamps
 * arrive: the file's calls in all. */
int sp_fmt_h5_read_progress(const char *path, sp_fmt_rank **ranks,
                            int64_t *nranks, sp_fmt_progress *p,
                            sp_fmt_err *err);

/* Reads only rank_region_index and region_table (no events): one entry per
 * row, for summary-only consumers. */
typedef struct sp_fmt_h5_row {
  int32_t rank, thread, region;
  int64_t event_offset, event_count;
  char *source_file; /* NULL = none */
  int32_t source_line;
  sp_fmt_stats stats;
} sp_fmt_h5_row;

typedef struct sp_fmt_h5_summary {
  int64_t nnames;
  char **names;
  int64_t nrows;
  sp_fmt_h5_row *rows;
  sp_fmt_meta meta;
} sp_fmt_h5_summary;

int sp_fmt_h5_read_summary(const char *path, sp_fmt_h5_summary *out,
                           sp_fmt_err *err);
void sp_fmt_h5_summary_free(sp_fmt_h5_summary *s);

/* 1 if the schema-2 file at path has summary statistics to read with
 * sp_fmt_h5_read_summary, or is anything else (left to the reader, whose
 * message says what is wrong); 0 for a file written before summary records
 * existed, or before they held outer_total_ns: its calls must be read
 * instead. */
int sp_fmt_h5_has_summary(const char *path);

/* 1 if the file at path starts with the HDF5 signature. */
int sp_fmt_is_h5(const char *path);

/* ---- input discovery (what the tools read) ---------------------------------
 */

/* What an input holds, decided by content (a file named explicitly may be
 * called anything): HDF5, a stream (or any *.spts), else a .spt. */
enum sp_fmt_input_kind {
  SP_FMT_INPUT_SPT,
  SP_FMT_INPUT_H5,
  SP_FMT_INPUT_STREAM
};

typedef struct sp_fmt_input {
  char *path;        /* as named or found; used in messages */
  int kind;          /* enum sp_fmt_input_kind */
  uint64_t dev, ino; /* the file's identity */
} sp_fmt_input;

typedef struct sp_fmt_inputs {
  sp_fmt_input *v;
  int64_t n, cap;
} sp_fmt_inputs;

/* Files and directories to a list of distinct input files (by device and
 * inode: the first mention kept), in argument order; a directory gives its
 * per-rank files (*.spt, *.spts, *_rank<N>.h5, not recursively) sorted by
 * name, and one holding none is an error. A file named explicitly is
 * always read. On error *out is empty and err says why. */
int sp_fmt_inputs_find(char *const *args, int nargs, sp_fmt_inputs *out,
                       sp_fmt_err *err);
void sp_fmt_inputs_free(sp_fmt_inputs *in); /* frees contents, not in itself */

/* What sp_fmt_claims_drop_empty reads of a tool's claim of a rank by an
 * input: the tools keep claims of their own types. */
typedef struct sp_fmt_claim_view {
  int32_t rank;
  int64_t input; /* index into the sp_fmt_inputs */
  int empty;     /* the input holds no call of the rank */
} sp_fmt_claim_view;
typedef void sp_fmt_claim_fn(const void *claim, sp_fmt_claim_view *view);

/* Leaves out of n claims (size bytes each, sorted by rank, then input) the
 * input with no call of a rank another input holds -- the empty stream of
 * a shell that exec'd the program under LD_PRELOAD, a process that never
 * reached instrumented code -- rather than calling it a clash: one line
 * "<tool>: warning: <path>: rank R recorded no calls; left out (rank R is
 * in <path>)" on stderr for each. Of a rank no input has a call of, the
 * first claim stays. Returns the number kept, moved to the front in
 * order. */
int64_t sp_fmt_claims_drop_empty(void *claims, int64_t n, size_t size,
                                 sp_fmt_claim_fn *view, const sp_fmt_inputs *in,
                                 const char *tool);

/* ---- atomic output helper --------------------------------------------------
 */

/* A temporary name beside path ("<path>.tmp.<pid>.<n>"), in buf.
 * Returns 0, or -1 when buf is too small. */
int sp_fmt_tmp_name(const char *path, char *buf, size_t size);

/* Renames tmp to path. On failure removes tmp, leaves path alone, says
 * "<path>: <reason>" in err and returns -1. Either way tmp is no longer
 * pending (sp_fmt_tmp_guard). */
int sp_fmt_tmp_commit(const char *tmp, const char *path, sp_fmt_err *err);

/* Creates a new file under a temporary name beside path, in buf: created
 * exclusively and without following a symbolic link, so nothing planted
 * at the name is ever written through; a name that exists is passed over
 * for another. Pending until committed or sp_fmt_tmp_discard. The file
 * descriptor (write only, close-on-exec), or -1 with err set
 * ("<path>: <reason>"). */
int sp_fmt_tmp_create(const char *path, char *buf, size_t size,
                      sp_fmt_err *err);
/* Tries at most this many names before giving up with EEXIST. */
#define SP_FMT_TMP_TRIES 64

/* Removes tmp and forgets it. */
void sp_fmt_tmp_discard(const char *tmp);

/* Pending temporaries of a tool, removed when a signal ends it.
 * sp_fmt_tmp_guard (the tools' main, never the runtime) installs handlers
 * for SIGINT, SIGTERM and SIGHUP (not over one the caller ignores) that
 * remove every pending temporary, then end the process by the signal
 * (exit status 128 + signal). Until it is called nothing is kept.
 * SP_TEST_TOOL_RAISE=SIG (test only) raises SIG when a temporary is about
 * to be renamed into place, whole. */
void sp_fmt_tmp_guard(void);
/* Marks name pending: dir removes it as a directory tree (two levels at
 * most); returns its slot, or -1 when not guarded or every slot is taken
 * (it is then not removed by a signal). */
int sp_fmt_tmp_hold(const char *name, int dir);
/* A child process writing into slot's temporary: killed (SIGKILL) and
 * waited for before the temporary is removed. pid 0: none. */
void sp_fmt_tmp_child(int slot, long pid);
/* Forgets name (removed or renamed by the caller). */
void sp_fmt_tmp_forget(const char *name);
/* The test hook of SP_TEST_TOOL_RAISE: raises its signal, if set. */
void sp_fmt_tmp_test_raise(void);

/* Length of the well-formed UTF-8 character at p (1-4), or 0 if p starts
 * none (a stray continuation byte, an overlong form, a surrogate, a code
 * point past U+10FFFF, or a cut sequence; the NUL byte is a character of
 * length 1). */
int sp_fmt_utf8_len(const unsigned char *p);

/* s as valid UTF-8 for a file that promises UTF-8 (HDF5 strings): NULL when
 * it is already (nothing allocated), else a malloc'd copy with every byte
 * that is not part of a UTF-8 character written as the four characters
 * \xNN; *oom = 1 when that copy could not be made. */
char *sp_fmt_utf8_dup(const char *s, int *oom);

/* err->msg = "<file>: offset <off>: " (no offset part when off < 0), then
 * vprintf(fmt, ap), truncated to fit, control bytes of the part after the
 * file name shown as '?' (a message is one line, whatever a name read
 * from a file holds); err may be NULL. The one formatter of every reader's
 * and writer's failure. */
void sp_fmt_err_vat(sp_fmt_err *err, const char *file, int64_t off,
                    const char *fmt, va_list ap);

/* err->msg = printf(fmt, ...) truncated to fit; err may be NULL. */
void sp_fmt_err_set(sp_fmt_err *err, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif /* SP_FORMAT_H */
