/* internal.h - state shared by the runtime's files: globals, per-thread
 * buffers, the clock, and the helpers finalize needs. Not installed. */
#ifndef SP_INTERNAL_H
#define SP_INTERNAL_H

#include "scope_profiler.h"
#include "sp_hooks.h"
#include "sp_stream.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define SP_HIDDEN __attribute__((visibility("hidden")))
#define SP_LIKELY(x) __builtin_expect(!!(x), 1)
#define SP_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* For the C library functions the runtime defines that a sanitizer's own
 * start-up may call (TSan installs its signal handlers through sigaction
 * before it can run instrumented code): no sanitizer instrumentation at
 * all, entry hooks included. GCC has no such attribute, and its sanitizer
 * runtimes do not call through these symbols early. */
#if defined(__has_attribute)
#if __has_attribute(disable_sanitizer_instrumentation)
#define SP_PRESANITIZER __attribute__((disable_sanitizer_instrumentation))
#endif
#endif
#ifndef SP_PRESANITIZER
#define SP_PRESANITIZER
#endif

/* Diagnostics: one line with a fixed prefix. Never called per event. */
SP_HIDDEN void sp__warn(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* As sp__warn, but only when SP_VERBOSE is set. */
SP_HIDDEN void sp__debug(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* ---- limits (documented in docs/runtime.md) ---- */
#define SP__PAGE_BITS 12 /* 4096 regions per table page */
#define SP__PAGE_SIZE (1u << SP__PAGE_BITS)
#ifndef SP__MAX_PAGES      /* a test builds the registry with fewer */
#define SP__MAX_PAGES 1024 /* so at most 4,194,304 regions */
#endif
#define SP__MAX_REGIONS (SP__PAGE_SIZE * SP__MAX_PAGES)
#define SP__STACK_MAX (1u << 20) /* nesting depth per thread */
#define SP__NAME_MAX (16u << 20) /* bytes of a region's name or file */

/* ---- life cycle ---- */
enum {
  SP__UNINIT = 0,
  SP__RUNNING,
  SP__DISABLED,
  SP__FINALIZING,
  SP__FINALIZED
};
SP_HIDDEN extern _Atomic int sp__state;
SP_HIDDEN void sp__ensure_init(void);
SP_HIDDEN void sp__set_active(int on);
/* pause.c: finalize's switch of the flag and the state, ordered against
 * sp_resume(); the end of a call whose end the latest pause may have hidden
 * (sp__pause_cut: *hidden set when so; at least above, the end given to
 * the call it held), and how many such calls were closed. */
SP_HIDDEN void sp__pause_finalizing(void);
SP_HIDDEN uint64_t sp__pause_cut(uint64_t start, uint64_t above, uint64_t now,
                                 int *hidden);
SP_HIDDEN void sp__pause_hidden(uint64_t n);
SP_HIDDEN uint64_t sp__pause_hidden_calls(void);
SP_HIDDEN int sp__finalize(int at_exit);
/* sp__finalize writing the job's merged file (SP_MERGE) when merge is 1. */
SP_HIDDEN int sp__finalize_as(int at_exit, int merge);

/* ---- configuration, read once at init (env.def lists the variables) ---- */
typedef struct sp__config {
  char prefix[PATH_MAX]; /* SP_OUTPUT, before %p/%h expansion */
  int format_h5;         /* SP_FORMAT: 1 .h5, 0 .spt */
  int spt_version;       /* SP_SPT_VERSION: 4, or 3 (2 for one thread) */
  char h5_module[PATH_MAX];
  char label[256];
  int verbose;
  int enable;
  int mode;              /* SP_MODE: 0 trace, 1 profile */
  char filter[PATH_MAX]; /* SP_FILTER: run-time filter file */
  char counters[512];    /* SP_COUNTERS: counter names */
  int profile_paths;     /* SP_PROFILE_PATHS: paths per thread */
  int profile_snapshot;  /* SP_PROFILE_SNAPSHOT: seconds, 0 none */
  uint64_t memory;       /* SP_MEMORY: bytes */
  int signals;           /* SP_SIGNALS: install handlers */
  int stream_compact;    /* SP_STREAM_COMPACT: ZCALLS records */
  int progress;          /* SP_PROGRESS: 0 auto, 1 never, 2 always */
  int ompt;              /* SP_OMPT: OpenMP constructs through OMPT */
  int rank;              /* SP_RANK, or -1 */
  int merge;             /* SP_MERGE: one file for the MPI job */
  int merge_timeout;     /* SP_MERGE_TIMEOUT: seconds */
  int abort_wait;        /* SP_ABORT_WAIT: ms, 0 = off */
  int merge_writers;     /* SP_MERGE_WRITERS: turns open at once */
  int merge_parallel;    /* SP_MERGE_PARALLEL: 0 auto, 1 never, 2 always */
  /* env_test.def */
#ifdef SP_TESTING
  int merge_keep;            /* SP_MERGE_KEEP_RANK_FILES */
  int merge_test_fail;       /* SP_MERGE_TEST_FAIL */
  char merge_test_host[256]; /* SP_MERGE_TEST_HOST */
  int merge_reverse;         /* SP_MERGE_TEST_REVERSE */
  int test_raise;            /* SP_TEST_RAISE_IN_WRITE */
  int test_snapshot_fd;      /* SP_TEST_SNAPSHOT_FD, or -1 */
  int test_no_symbols;       /* SP_TEST_NO_SYMBOLS */
  int test_rdpmc;            /* SP_TEST_RDPMC */
  int test_ctr_sources;      /* SP_TEST_COUNTER_SOURCES */
#endif
} sp__config_t;
SP_HIDDEN extern sp__config_t sp__cfg;
/* A test-only setting (env_test.def) in a test build, else the value it
 * has when unset: the branches it drives compile away in production. */
#ifdef SP_TESTING
#define SP__TEST_CFG(field, unset) (sp__cfg.field)
#else
#define SP__TEST_CFG(field, unset) (unset)
#endif
/* Fills cfg from the SP_* variables, warning once for each invalid value. */
SP_HIDDEN void sp__env_read(sp__config_t *cfg);
/* 1 for a prefix that asks for no output at all (/dev/null). */
SP_HIDDEN int sp__discard(const char *prefix);

SP_HIDDEN int sp__rank_from_env(void);
SP_HIDDEN int sp__size_from_env(void);
/* Rank and size from an initialized, not yet finalized MPI (through the
 * MPI layer, when loaded); 0 or -1. */
SP_HIDDEN int sp__mpi_query(int *rank, int *size);
/* As sp__mpi_query, else what the layer saw while MPI was alive. */
SP_HIDDEN int sp__mpi_rank(int *rank, int *size);
/* The rank and job size this process reports, decided at finalize. */
SP_HIDDEN extern int sp__mpi_size;
SP_HIDDEN int sp__final_rank(void); /* sets sp__mpi_size when MPI says */

/* ---- output names (output_path.c) and the final file (convert.c) ---- */
/* Expands %p, %h and %% of prefix and appends _rank<NNNNN><ext>. */
SP_HIDDEN int sp__output_path(const char *prefix, int rank, const char *ext,
                              char *out, size_t size);
/* Expands %p, %h and %% of prefix and appends ext: the merged file's name. */
SP_HIDDEN int sp__output_job_path(const char *prefix, const char *ext,
                                  char *out, size_t size);
/* A short private name beside path to write the final file under. */
SP_HIDDEN int sp__private_name(const char *path, char *out, size_t size);
/* A temporary file of the final write (slot 0: this rank's own file, 1:
 * the job's merged file on rank 0), removed by the signal handler when a
 * signal ends the process while it is written; NULL: none (after it is
 * renamed or removed). */
SP_HIDDEN void sp__pending_tmp(int slot, const char *path);
/* Raises SP_TEST_RAISE_IN_WRITE's signal, if set (tests). */
SP_HIDDEN void sp__test_raise(void);
/* In msg, the private name tmp replaced by the final name path. */
SP_HIDDEN void sp__rename_in_msg(char *msg, size_t size, const char *tmp,
                                 const char *path);
/* tmp to path, never silently replacing a file another process wrote there
 * while this one ran (then to another name beside it); the name it got in
 * placed (NULL: not wanted). 0, or -1 with one line said. */
SP_HIDDEN int sp__place(const char *tmp, const char *path, int rank,
                        char *placed, size_t size);
struct sp_fmt_stream_info;
struct sp_fmt_err;
/* The complete stream into the file path, .spt or .h5 (SP_FORMAT); 0, or
 * -1 with err set and nothing left at path. */
SP_HIDDEN int sp__convert(const char *path, int rank,
                          struct sp_fmt_stream_info *info,
                          struct sp_fmt_err *err);
struct sp_fmt_meta;
/* The metadata of this rank's .h5 into m (empty): the process's, the clock
 * alignment's keys from the stream's smeta, and the recording's counters. */
SP_HIDDEN void sp__rank_meta(struct sp_fmt_meta *m,
                             const struct sp_fmt_meta *smeta,
                             int64_t open_calls);

/* ---- SP_MERGE (merge.c) ---- */
/* What libscopeprof_mpi.so registered (sp_mpi_hooks.h), or NULL: no MPI
 * in this process as far as the runtime can tell. */
struct sp__mpi_ops;
SP_HIDDEN const struct sp__mpi_ops *sp__mpi_get(void);
/* Finalize at MPI_Finalize under SP_MERGE (mpi_hooks.c calls it). */
SP_HIDDEN void sp__merge_at_finalize(void);
/* With the stream complete: this rank's share of the job's <prefix>.h5,
 * written together with every other rank. 0 when the merged file was
 * written; -1 when this rank must write its own file instead (a rank
 * missing, a write failed: one line says why on rank 0). */
SP_HIDDEN int sp__merge(int rank);
/* sp__merge in profile mode: every rank's call paths to rank 0, which
 * writes the job's <prefix>.h5; 0 or -1 as sp__merge. */
SP_HIDDEN int sp__merge_profile(int rank);

/* ---- clock ---- */
/* 1: raw ticks of the CPU's counter (sp__ticks), 0: CLOCK_MONOTONIC ns */
SP_HIDDEN extern int sp__clock_tsc;
SP_HIDDEN void sp__clock_init(void);
SP_HIDDEN int64_t sp__mono_ns(void);
SP_HIDDEN const char *sp__clock_name(void);
SP_HIDDEN uint64_t sp__clock_id(void);
SP_HIDDEN void sp__clock_origin(uint64_t *stamp, int64_t *mono);
SP_HIDDEN void sp__clock_point(uint64_t *stamp, int64_t *mono);

/* The CPU's counter: the TSC on x86; on aarch64 the generic timer's
 * virtual count, which Linux lets user space read. Neither read is
 * ordered against the instructions around it. Elsewhere there is none and
 * clock.c never selects it. */
#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t sp__ticks(void) { return __builtin_ia32_rdtsc(); }
#elif defined(__aarch64__)
static inline uint64_t sp__ticks(void) {
  uint64_t v;
  __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
  return v;
}
#else
static inline uint64_t sp__ticks(void) { return 0; }
#endif

static inline uint64_t sp__now(void) {
  if (SP_LIKELY(sp__clock_tsc))
    return sp__ticks();
  return (uint64_t)sp__mono_ns();
}

/* ---- regions ---- */
typedef struct sp__region {
  const char *name; /* NULL for an address region until resolved */
  const char *file; /* NULL = unknown */
  int line;
  int32_t kind;     /* 0: a function; else an OpenMP construct (ompt.c) */
  const void *addr; /* function address, or a construct's code pointer */
  int gone;    /* atomic: addr's object was closed (dlclose); lookups skip it */
  int32_t obj; /* atomic: 1 + the index of addr's loaded object; 0 none */
} sp__region_t;

SP_HIDDEN extern _Atomic int32_t sp__nregions;
SP_HIDDEN extern _Atomic uint64_t sp__names_refused; /* over SP__NAME_MAX */
SP_HIDDEN sp__region_t *sp__region_get(int32_t id);
/* The id of a region (added if new), or SP_ELIMIT or SP_ENOMEM. */
SP_HIDDEN int32_t sp__register(const char *name, const char *file, int line);
SP_HIDDEN int32_t sp__register_addr(const void *fn);
/* The id of a region already registered under name, without the lock (a
 * signal handler may ask), or SP_EBUSY. */
SP_HIDDEN int32_t sp__region_find(const char *name);
/* The region of an OpenMP construct of this kind at this code pointer
 * (added if new, named later by sp__ompt_name). */
SP_HIDDEN int32_t sp__register_addr_kind(const void *addr, int32_t kind);
SP_HIDDEN void sp__registry_lock(void);
SP_HIDDEN void sp__registry_unlock(void);
SP_HIDDEN void *sp__arena_alloc(size_t size); /* never freed; 16-aligned */

/* ---- loaded objects of address regions (objects.c) ---- */
typedef struct sp__obj {
  uintptr_t bias, lo, hi; /* load bias; the span of its PT_LOAD segments */
  unsigned char build_id[64];
  uint32_t nbuild_id; /* 0: the object has no build-id note */
  _Atomic int gone;   /* unloaded (dlclose): not found for new regions */
  const char *path;   /* as loaded; the program's from /proc/self/exe */
} sp__obj_t;
SP_HIDDEN extern _Atomic int32_t sp__nobjs;
SP_HIDDEN const sp__obj_t *sp__obj_get(int32_t i);
/* Sets region id's obj, if it is an address region without one: the
 * object found by dl_iterate_phdr the first time one of its addresses is
 * seen. Not in a signal handler. */
SP_HIDDEN void sp__obj_note(int32_t id);
/* Around fork; taken before the registry's lock. */
SP_HIDDEN void sp__objects_lock(void);
SP_HIDDEN void sp__objects_unlock(void);
/* The object loaded at bias whose first segment starts at lo went. */
SP_HIDDEN void sp__obj_gone(uintptr_t bias, uintptr_t lo);

/* ---- chunks: the unit of memory, hand-off and writing (pool.c) ---- */
typedef struct sp__pair {
  uint64_t start, end; /* raw stamps; the layout of sp_stream_pair */
} sp__pair_t;

enum { SP__CH_FREE = 0, SP__CH_OWNED, SP__CH_QUEUED };
enum { SP__CH_CALLS = 0, SP__CH_ENDS };
#define SP__NCLASSES 4 /* chunk sizes 1, 4, 16 and 64 KiB */

struct sp__buf;

/* A chunk is laid out so that from `rec` on it is the stream record as
 * written: the writer hands it to writev as it stands. */
typedef struct sp__chunk {
  struct sp__chunk *next; /* free list or writer queue */
  struct sp__buf *buf;    /* OWNED calls chunk: whose cur counts it */
  uint32_t bytes;         /* the whole chunk, control included */
  uint32_t cap;           /* pairs (calls) or entries (ends) */
  uint32_t state;         /* SP__CH_*, atomic */
  uint32_t kind;          /* SP__CH_CALLS or SP__CH_ENDS */
  int64_t nends;          /* ENDS chunk: entries written, atomic */
  uint32_t cls;           /* size class */
  uint32_t pad_[5];
  sp_stream_rec rec;
  unsigned char payload[];
} sp__chunk_t;

#define SP__CALLS(c) ((sp_stream_calls *)(void *)(c)->payload)
#define SP__PAIRS(c)                                                           \
  ((sp__pair_t *)(void *)((c)->payload + sizeof(sp_stream_calls)))
#define SP__ENDS(c) ((sp_stream_end *)(void *)((c)->payload + 8))

/* The budget (SP_MEMORY) and the chunks carved from it. */
SP_HIDDEN int sp__pool_init(uint64_t budget);
/* A free chunk of class cls or another; waits for the writer when the
 * budget is used up; NULL when none can be had (counted by the caller). */
SP_HIDDEN sp__chunk_t *sp__chunk_get(uint32_t cls);
/* As sp__chunk_get, but past the budget when none is free (counted). */
SP_HIDDEN sp__chunk_t *sp__chunk_get_over(uint32_t cls);
SP_HIDDEN void sp__chunk_put(sp__chunk_t *c); /* back to the free lists */
/* n written chunks back at once, waking threads that wait for memory. */
SP_HIDDEN void sp__chunks_put(sp__chunk_t **cs, int n);
/* Calls f on every chunk carved so far; async-signal-safe. */
SP_HIDDEN void sp__pool_walk(void (*f)(sp__chunk_t *c, void *arg), void *arg);
SP_HIDDEN void sp__pool_lock(void); /* around fork */
SP_HIDDEN void sp__pool_unlock(void);
SP_HIDDEN void sp__pool_after_fork(void);     /* in the child, lock held */
SP_HIDDEN void sp__pool_release_unused(void); /* at finalize */
SP_HIDDEN extern uint64_t sp__budget;
SP_HIDDEN extern _Atomic uint64_t sp__wait_ns, sp__overrun_bytes;

/* ---- per-thread recording ---- */

/* The calls of one region on one thread: the chunk being filled. */
typedef struct sp__buf {
  sp__pair_t *cur, *end; /* cur: atomic (others read it), written by owner */
  sp__chunk_t *chunk;
  int64_t next_first; /* index of the first call of the next chunk */
  uint32_t cls;       /* size class of the next chunk */
  uint32_t pad_;
} sp__buf_t;

/* An open call. region has SP__DETACHED set once its chunk went to the
 * writer (the end fast path then falls to the slow path, which writes the
 * end as an ENDS entry). */
#define SP__DETACHED 0x80000000u
enum {
  SP__F_INHERITED = 1, /* open at fork, in the parent's memory */
  SP__F_DROPPED = 2,   /* not recorded (no memory): its end writes nothing */
};
typedef struct sp__frame {
  int32_t region;
  uint32_t flags;
  sp__pair_t *slot; /* attached: where the end goes */
  int64_t index;    /* detached: the call's index in its (thread, region) */
  uint64_t start;   /* detached: its start */
} sp__frame_t;

typedef struct sp__thread {
  sp__frame_t *stack;
  uint32_t depth, stack_cap;
  uint32_t overflow; /* frames beyond SP__STACK_MAX, not recorded */
  int32_t index;     /* thread number in the stream */
  sp__buf_t *pages[SP__MAX_PAGES];
  sp__chunk_t *ends; /* ENDS chunk being filled, or NULL */
  int live;          /* atomic: 1 while a thread owns this state */
  /* counters, reported at finalize */
  uint64_t n_mismatch, n_closed_above, n_unmatched, n_dropped, n_invalid;
  struct sp__thread *next;      /* every state ever made, newest first */
  struct sp__thread *free_next; /* states of exited threads */
  /* __cyg_profile cache: function address -> region id */
  struct {
    const void *fn;
    int32_t id;
  } cyg_cache[256];
} sp__thread_t;

/* What the fast paths read: the thread's state, NULL while the thread runs
 * a slow path (so a signal handler's fast paths take the slow path too). */
SP_HIDDEN extern __thread sp__thread_t *sp__tls;
SP_HIDDEN extern __thread sp__thread_t *sp__self; /* what the slow paths use */
SP_HIDDEN extern _Atomic(sp__thread_t *) sp__threads; /* newest first */
SP_HIDDEN sp__thread_t *sp__thread_slow(void);        /* sets sp__self */
/* Around every slow path a signal handler can reach (which may take a
 * lock): sp__guard_enter gives 0 when a handler interrupted one on this
 * thread (its call is then dropped, and counted in sp__signal_drops when
 * count is 1), else what sp__guard_leave must be given. */
SP_HIDDEN extern __thread int sp__guard;
SP_HIDDEN extern _Atomic uint64_t sp__signal_drops;
SP_HIDDEN int sp__guard_enter(int count);
SP_HIDDEN void sp__guard_leave(int entered);
SP_HIDDEN void sp__record_after_fork(void); /* states' lock held */
SP_HIDDEN void sp__states_lock(void);       /* around fork */
SP_HIDDEN void sp__states_unlock(void);
/* Slow paths in progress: finalize waits for them to leave. */
SP_HIDDEN extern _Atomic int sp__in_slow;
/* Every call count of a chunk another thread may be filling. */
SP_HIDDEN int64_t sp__chunk_count(const sp__chunk_t *c);
SP_HIDDEN void sp__thread_counters(uint64_t out[5]);

static inline sp__buf_t *sp__buf_peek(sp__thread_t *t, int32_t id) {
  sp__buf_t *page = t->pages[(uint32_t)id >> SP__PAGE_BITS];
  return page ? &page[(uint32_t)id & (SP__PAGE_SIZE - 1)] : NULL;
}

/* ---- the stream and its writer thread (stream.c, writer.c) ---- */
/* Hands a filled chunk to the writer (starting it on first use). */
SP_HIDDEN void sp__writer_push(sp__chunk_t *c);
SP_HIDDEN void sp__writer_start(void); /* now, if not running yet */
/* Profile mode: starts the writer, which then writes a snapshot of the
 * profile every SP_PROFILE_SNAPSHOT seconds (none when 0). */
SP_HIDDEN void sp__writer_ticks(void);
/* 1 while chunks are queued or being written: waiting frees memory. */
SP_HIDDEN int sp__writer_busy(void);
/* Stops the writer after it wrote everything queued. */
SP_HIDDEN void sp__writer_stop(void);
SP_HIDDEN void sp__writer_lock(void); /* around fork */
SP_HIDDEN void sp__writer_unlock(void);
SP_HIDDEN void sp__writer_after_fork(void);
SP_HIDDEN int sp__writer_is_me(void);

/* Who may append to the stream: the writer thread or finalize, or, for
 * good, a signal handler. */
enum { SP__TOKEN_FREE = 0, SP__TOKEN_WRITER, SP__TOKEN_HANDLER };
SP_HIDDEN int sp__token_take(int who, int wait_ms);
SP_HIDDEN void sp__token_give(void);

/* The stream file: created on first use; every function here is
 * async-signal-safe and expects the token held. */
SP_HIDDEN extern char sp__stream_path[PATH_MAX + 64];
SP_HIDDEN extern char sp__stream_base[PATH_MAX + 64]; /* without .spts */
SP_HIDDEN extern int32_t sp__rank_guess; /* the rank known at start-up */
SP_HIDDEN extern int sp__stream_fd;
/* Creates the stream if need be; normal: not in a signal handler, so the
 * run's metadata goes in as well. */
SP_HIDDEN int sp__stream_open(int normal);
SP_HIDDEN void sp__stream_resolve(void); /* names regions; before the token */
SP_HIDDEN int sp__stream_regions(void);  /* REGION records for new ids */
SP_HIDDEN int sp__stream_clock(void);    /* a CLOCK record of now */
SP_HIDDEN int sp__stream_chunks(sp__chunk_t **cs, int n); /* as they stand */
/* Every chunk still in memory (queued or being filled), as records. */
SP_HIDDEN int sp__stream_snapshot(void);
SP_HIDDEN int sp__stream_meta_int(const char *key, int64_t v);
SP_HIDDEN int sp__stream_meta_str(const char *key, const char *v);
SP_HIDDEN int sp__stream_stop(int cause);
/* Appends the n records in iov (token held); async-signal-safe. */
struct iovec;
SP_HIDDEN int sp__stream_put(struct iovec *iov, int n);
/* Bytes of whole records in the stream (token held). */
SP_HIDDEN int64_t sp__stream_size(void);
/* Profile mode (token held, not in a handler): the stream rewritten as a
 * new file holding its records but the superseded snapshots, then what
 * snapshot() appends (a whole snapshot), renamed over it; 0, or -1 with
 * the stream as it was. */
SP_HIDDEN int sp__stream_compact(int (*snapshot)(void));
/* The MPI layer's message records not yet written (mpi_msgs.c; token
 * held); async-signal-safe. */
SP_HIDDEN int sp__mpi_msgs_stream(void);
/* The full chunks of message records (token held; the writer thread),
 * their memory then reused. */
SP_HIDDEN int sp__mpi_msgs_full(void);
/* A child of fork: the parent's messages are the parent's. */
SP_HIDDEN void sp__mpi_msgs_after_fork(void);
SP_HIDDEN uint64_t sp__mpi_msgs_lost(void);
/* Everything in memory, a clock and a STOP record, appended (token held). */
SP_HIDDEN int sp__stream_flush(int cause, int normal);
/* Normal context: the slow parts (metadata, region names) gathered, then
 * the token taken as a writer, waiting up to wait_ms. 1 if taken. */
SP_HIDDEN int sp__stream_acquire(int wait_ms);
SP_HIDDEN extern int sp__stream_errno; /* first failed write, or 0 */
/* The stream could not be created: 1, sp__stream_path is the directory
 * that could not be made; 2, it is the stream's name, all of whose
 * variants were taken; 0, neither. */
SP_HIDDEN extern int sp__stream_blame;
/* What the stream writer kept of the records it wrote (token held). */
SP_HIDDEN const sp_stream_hint *sp__stream_hints(int64_t *n);
/* Set by finalize once the stream holds every call (STOP written). */
SP_HIDDEN extern _Atomic int sp__stream_complete;
SP_HIDDEN extern _Atomic uint64_t sp__lost_calls;
SP_HIDDEN void sp__stream_after_fork(void);
/* Names the stream <prefix>_rank<NNNNN>.<pid>.spts; 0, or -1 if too long. */
SP_HIDDEN int sp__stream_set_path(int rank);

/* Everything recorded so far to the stream, from a normal context (exec,
 * MPI_Abort): the writer pauses meanwhile; recording goes on after. */
SP_HIDDEN void sp__flush_to_stream(int cause);

/* ---- MPI_Abort and the job's other ranks on this node (abort.c) ---- */
/* In a process a launcher started as part of a job: listens for another
 * rank's MPI_Abort (a thread blocked on a socket). */
SP_HIDDEN void sp__abort_listen(void);
SP_HIDDEN void sp__abort_after_fork(void);
/* Before PMPI_Abort: asks the job's other ranks on this node to save their
 * calls to their streams and waits for them, at most SP_ABORT_WAIT ms. */
SP_HIDDEN void sp__abort_others(void);

/* ---- signals (signals.c) ---- */
SP_HIDDEN void sp__signals_install(void);
SP_HIDDEN void sp__signals_after_fork(void);
/* An alternate signal stack for the calling thread, once, unless it has
 * one of its own (a stack overflow is then flushed too). */
SP_HIDDEN void sp__altstack_thread(void);

/* ---- symbols (off the hot path: called at finalize) ---- */
/* Name of the function at addr, demangled, malloc'd; never NULL. */
SP_HIDDEN char *sp__symbol_name(const void *addr);
/* Where the parallel region started by the call that returns to ret is:
 * *file (malloc'd) and *line from the call's own location record (its
 * ident_t), never from the call's row, whose line optimisation may have
 * given another statement; *line -1 when the record gives none (*file
 * then the call's row's file, or NULL). 0 if *file was found. */
SP_HIDDEN int sp__symbol_fork(const void *ret, char **file, int *line);
/* An OpenMP construct's region of this kind at code pointer addr: *name,
 * *file (NULL: unknown), *line (-1: unknown), malloc'd, as sp_fmt_sym_omp
 * makes them from the object holding addr; 0, or -1 out of memory. */
SP_HIDDEN int sp__symbol_omp(const void *addr, int32_t kind, char **name,
                             char **file, int *line);
/* Names address region r (a function's, or an OpenMP construct's) unless
 * it has a name; serialised with dlclose. */
SP_HIDDEN void sp__region_name(sp__region_t *r);
/* Around the program's dlclose (dlclose.c): what is loaded before, then,
 * after a successful close, regions of the objects that went are named and
 * retired, so code loaded at their addresses later gets regions of its own. */
SP_HIDDEN void *sp__dl_closing(void);
SP_HIDDEN void sp__dl_closed(void *before, int closed);
SP_HIDDEN void sp__symbols_lock(void); /* around fork */
SP_HIDDEN void sp__symbols_unlock(void);

/* ---- OpenMP through OMPT (ompt.c) ---- */
/* Names region r of an OpenMP construct (its name, file and line). */
SP_HIDDEN void sp__ompt_name(sp__region_t *r);
/* At exit: stops the OpenMP runtime (OMPT's ompt_finalize_tool) when this
 * thread is in no OpenMP region, so its idle workers close their last
 * region before the profile is written. */
SP_HIDDEN void sp__ompt_exit(void);
/* omp_num_threads metadata: the OpenMP runtime's, or 1 without one. */
SP_HIDDEN int64_t sp__omp_num_threads(void);

/* ---- metadata ---- */
struct sp_fmt_meta;
SP_HIDDEN void sp__metadata_collect(struct sp_fmt_meta *m);
SP_HIDDEN int64_t sp__start_time_ns(void);
SP_HIDDEN void sp__stream_meta_prepare(void); /* before taking the token */
SP_HIDDEN void sp__meta_lock(void);           /* around fork */
SP_HIDDEN void sp__meta_unlock(void);
SP_HIDDEN void sp__stream_meta_full(void); /* token held; not in a handler */
SP_HIDDEN extern char sp__start_timestamp[64];
SP_HIDDEN extern struct timespec sp__start_real;

/* ---- .h5 output (h5_load.c) ---- */
struct sp_fmt_source;
struct sp_fmt_err;
/* Writes one rank's .h5 through libscopeprof_h5.so, loaded now: srcs are
 * its (thread, region) sources ordered by thread, then first start. 0, or
 * -1 with err set (also when the module or HDF5 cannot be loaded); on
 * failure nothing is left under path. */
struct sp_fmt_mpi;
SP_HIDDEN int sp__write_h5(const char *path, int32_t rank,
                           const struct sp_fmt_source *srcs, int64_t n,
                           const struct sp_fmt_meta *meta,
                           struct sp_fmt_mpi *mpi, struct sp_fmt_err *err);

struct sp_fmt_profile;
/* SP_MODE=profile: one rank's .h5 (statistics and call paths) through the
 * HDF5 module; as sp__write_h5. */
SP_HIDDEN int sp__write_h5_profile(const char *path,
                                   const struct sp_fmt_profile *p,
                                   const struct sp_fmt_meta *meta,
                                   struct sp_fmt_err *err);

struct sp_fmt_ctr;
/* SP_COUNTERS: c as the rank<N>/likwid group of the .h5 written at path
 * (not yet renamed into place), through the HDF5 module; 0, or -1 with
 * err set. */
SP_HIDDEN int sp__write_h5_counters(const char *path,
                                    const struct sp_fmt_ctr *c,
                                    struct sp_fmt_err *err);

struct sp__h5_merge_ops;
/* Rank 0's writer of the merged file (h5_merge.h), from the module loaded
 * now; NULL with err set naming path. */
SP_HIDDEN const struct sp__h5_merge_ops *sp__h5_merge(const char *path,
                                                      struct sp_fmt_err *err);
struct sp__h5_par_ops;
/* Every rank's part of the merged file's parallel write (h5_merge.h), from
 * libscopeprof_h5mpi.so loaded now: from then on it also serves
 * sp__write_h5 and sp__h5_merge, so the process holds one HDF5. NULL with
 * err set when it is not built, not found or cannot serve this process. */
SP_HIDDEN const struct sp__h5_par_ops *sp__h5_par(struct sp_fmt_err *err);

#endif /* SP_INTERNAL_H */
