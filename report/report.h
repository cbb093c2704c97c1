/* report.h - what the parts of sp-report (command line, loading, tables,
 * exports, pictures) pass between them. Internal to the tool. */
#ifndef SP_REPORT_H
#define SP_REPORT_H

#include "sp_common.h"
#include "sp_h5.h"
#include "sp_hash.h"
#include "sp_profile.h"
#include "sp_progress.h"
#include "sp_rank.h"
#include "sp_stats.h"

#include <regex.h>
#include <stdio.h>

/* ---- options ------------------------------------------------------------ */

typedef struct rp_range {
  int32_t lo, hi;
} rp_range;

/* What one row of the table stands for. */
enum { RP_BY_REGION, RP_BY_RANK, RP_BY_THREAD };

typedef struct rp_opts {
  int by;           /* RP_BY_*: --by-rank, --by-thread */
  const char *sort; /* column name; NULL = total */
  int have_include, have_exclude;
  regex_t include, exclude;
  rp_range *ranks; /* NULL = every rank */
  int nranks;
  int64_t top;            /* 0 = all rows */
  const char *export_fmt; /* csv, json, events, chrome, folded, otf2 */
  const char *out;        /* -o */
  const char *metric;     /* compare: avg, total, min, max */
  double win_lo,
      win_hi; /* timeline and otf2 window, seconds from the run's start */
  int events; /* --events: read calls even when summaries would do */
  int wide;   /* --wide: names in full in text tables */
  const char *region; /* --region NAME: that region's durations */
  /* --suggest-filter[=FILE]: "" = the filter file on the output */
  const char *suggest;
  double record_cost; /* --record-cost NS; 0 = RP_RECORD_COST_NS */
  int tree_depth;     /* --depth N: tree levels shown; 0 = all */
  double min_pct;     /* --min-percent P: tree nodes under P% hidden */
  int with_metadata;  /* --with-metadata: exports carry every metadata item */
  int64_t min_dur;    /* --min-duration NS: chrome leaves shorter calls out */
  /* --counters[=LIST]: "" the default columns; NULL not asked */
  const char *counters;
} rp_opts;

/* Whether an export (chrome, otf2) carries the metadata item key: the
 * run's description always (version, mode, clock, sizes, counters), the
 * environment, user, hosts, paths and the rest with --with-metadata. */
int rp_meta_exported(const rp_opts *o, const char *key);

/* --suggest-filter's estimates. The cost of recording one call: the
 * runtime's overhead per call pair that bench_runtime measures
 * (docs/performance.md: 22-23.5 ns for sp_begin/sp_end, 21.6-22.5 ns for
 * the -finstrument-functions path), rounded up. */
#define RP_RECORD_COST_NS 23.0
/* A region whose mean call is under this many record costs is left out:
 * recording it adds over a tenth to its time. */
#define RP_FILTER_FACTOR 10
/* ... and only when recording its calls costs at least this share of the
 * run (span times threads): a function called a few times stays. */
#define RP_FILTER_MIN_SHARE 0.001
/* Bytes one call takes in a trace: a (start, end) pair of int64 stamps in
 * the .spt, the stream's CALLS records and the .h5's event columns. */
#define RP_CALL_BYTES 16

int rp_parse_ranks(const char *s, rp_opts *o);
int rp_rank_selected(const rp_opts *o, int32_t rank);
/* 1 if name passes --include/--exclude. */
int rp_name_selected(const rp_opts *o, const char *name);

/* ---- a loaded profile --------------------------------------------------- */

/* One (rank, thread, region) with its statistics. */
typedef struct rp_row {
  int32_t rank, thread, name; /* name: index into rp_profile.names */
  sp_fmt_stats st;
} rp_row;

/* Events of one thread of one rank: its sources (one per region), for
 * the outputs that need every call. */
typedef struct rp_thread {
  int32_t rank, thread;
  int64_t nsrc;
  sp_fmt_source *srcs;      /* point into rp_profile.ranks */
  int32_t *name;            /* profile name index of each source */
  const sp_fmt_block **blk; /* the calls of each source, in memory */
} rp_thread;

typedef struct rp_profile {
  char *label; /* what the user named, for titles and messages */
  int64_t nnames, capnames;
  char **names;
  char **files;   /* first known source file per name, NULL = unknown */
  int32_t *lines; /* -1 = unknown */
  sp__hash ids;   /* names to their index in names */
  int64_t nrows, caprows;
  rp_row *rows;
  int32_t *ranks; /* distinct selected ranks, ascending */
  int64_t nranks;
  sp_fmt_meta meta;
  int64_t span_lo, span_hi; /* first start, last end over selected ranks */
  /* only when loaded with events */
  sp_fmt_rank *rk;
  int64_t nrk;
  rp_thread *threads;
  int64_t nthreads;
  sp_fmt_source *srcbuf;
  int32_t *namebuf;
  const sp_fmt_block **blkbuf;
  /* SP_MODE=profile inputs: their call paths (region: a name index;
   * parent: an index here), and the first such input and the first trace
   * (NULL: none), for messages */
  sp_fmt_ppath *paths;
  int64_t npaths, cappaths;
  char *profile_input, *trace_input;
  /* MPI messages per rank (rp_load_mpi: --matrix, --mpi), rank order */
  sp_fmt_mpi_rank *mpi;
  int64_t nmpi;
  int mpi_loaded;
  /* --counters: the counters per region of the selected ranks (SP_COUNTERS),
   * one table per rank and input */
  sp_fmt_ctr *ctr;
  int64_t nctr;
} rp_profile;

/* Loads args[0..nargs) (files or directories, sp-import's rules) as one
 * profile. events = 0 reads an .h5's summary_statistics only. Rank
 * selection applies here; region filters are left to each output. */
/* Differences and sums of stamps and times, wrapping: a crafted file's
 * stamps may be any int64 (the figure is then meaningless, but the
 * arithmetic is defined and ends). */
static inline int64_t rp_sub(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a - (uint64_t)b);
}
static inline int64_t rp_add(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* The progress line over the calls: reading them from the files (load.c),
 * their statistics (load.c) and, for the outputs that walk call stacks,
 * the walk (callstack.c); main starts it before loading. */
extern sp_fmt_progress rp_progress;

int rp_load(char *const *args, int nargs, const rp_opts *o, int events,
            rp_profile *p, sp_fmt_err *err);
/* The calls rp_load(args, nargs, ..., events, ...) reads from files, for
 * the progress line: 0 for summary-only .h5 inputs and unreadable ones. */
int64_t rp_count_calls(char *const *args, int nargs, int events);
void rp_profile_free(rp_profile *p);
int32_t rp_name_id(rp_profile *p, const char *name); /* -1: out of memory */
int32_t rp_name_find(const rp_profile *p, const char *name); /* -1: none */
/* mpi_size from the metadata, else the number of ranks. */
int64_t rp_mpi_size(const rp_profile *p);
/* The index of rank in p->ranks (sorted), or -1. */
int64_t rp_rank_index(const rp_profile *p, int32_t rank);

/* ---- statistics per region (or per region and rank) -------------------- */

typedef struct rp_agg {
  int32_t name;
  int32_t rank;   /* -1 when aggregated over ranks */
  int32_t thread; /* -1 when aggregated over threads */
  int32_t nranks;
  /* total: the outermost calls' (a recursive call inside another of the
   * region on its thread is not added again); mean over every call */
  int64_t calls, total, min, max, excl;
  double mean, std, pct;
  double imbalance; /* max/mean of rank totals */
  double timbal;    /* max/mean of thread totals in a rank, worst rank */
} rp_agg;

/* Rows of p that pass the filters, aggregated (by: RP_BY_*) and sorted by
 * o->sort, cut to o->top. Returns 0, or -1 with err set. */
int rp_aggregate(const rp_profile *p, const rp_opts *o, int by, rp_agg **out,
                 int64_t *n, sp_fmt_err *err);
/* The canonical name of a --sort column, or NULL when there is none. */
const char *rp_sort_column(const char *s);
int rp_print_table(const rp_profile *p, const rp_opts *o, FILE *f,
                   sp_fmt_err *err);
/* --region NAME: its calls' statistics, percentiles and histogram. */
int rp_print_region(const rp_profile *p, const rp_opts *o, FILE *f,
                    sp_fmt_err *err);
/* 1 if name is an MPI region: it starts with MPI_ or PMPI_. */
int rp_mpi_name(const char *name);
/* --mpi: time inside MPI per rank, MPI functions with their spread over
 * ranks; as text, or o->export_fmt csv or json. */
/* The inputs' MPI messages as a trace export's events (mpi_events.c):
 * per p->threads index, sorted by call (start, name); partners and roots
 * as ranks of the call's communicator (UINT32_MAX: none). */
enum {
  RP_MPIEV_SEND,       /* at the call's start */
  RP_MPIEV_ISEND,      /* at its start; request: its start */
  RP_MPIEV_IRECV_REQ,  /* at its start; request: its start */
  RP_MPIEV_COLL_BEGIN, /* at its start */
  RP_MPIEV_RECV,       /* at its end */
  RP_MPIEV_IRECV,      /* at its end; request: the posting call's start */
  RP_MPIEV_ISEND_DONE, /* at its end; request: the MPI_Isend's start */
  RP_MPIEV_COLL_END    /* at its end */
};
#define RP_NCOLL 17 /* MPI_Barrier ... MPI_Exscan (rp_coll_of) */
typedef struct rp_mpiev {
  int64_t thread, start, seq;
  int32_t name, kind, coll; /* coll: RP_COLL index, -1 */
  uint32_t peer, comm, tag; /* comm: index in rp_mpievents.comms */
  uint64_t sent, recvd, request;
} rp_mpiev;
typedef struct rp_mpicomm {
  int32_t size;
  int32_t *members; /* world ranks */
} rp_mpicomm;
typedef struct rp_mpievents {
  int64_t *off; /* thread i's events: ev[off[i], off[i + 1]) */
  rp_mpiev *ev;
  int64_t nev;
  rp_mpicomm *comms; /* comms[0]: MPI_COMM_WORLD */
  int64_t ncomms;
  int64_t skipped; /* messages whose partner is not in their communicator */
  const char *const *names_of;
} rp_mpievents;
int rp_mpi_events(const rp_profile *p, rp_mpievents *e, sp_fmt_err *err);
/* The events of a call: [returned, *end). */
int64_t rp_mpi_events_of(const rp_mpievents *e, int64_t thread, int64_t start,
                         int32_t name, int64_t *end);
void rp_mpi_events_free(rp_mpievents *e);
/* The collective (0 .. RP_NCOLL-1, in MPI_Barrier, MPI_Bcast, MPI_Gather,
 * Gatherv, Scatter, Scatterv, Allgather, Allgatherv, Alltoall, Alltoallv,
 * Alltoallw, Allreduce, Reduce, Reduce_scatter, Reduce_scatter_block, Scan,
 * Exscan order) a region's name stands for, nonblocking ones too; -1. */
int rp_coll_of(const char *name);
/* The inputs' MPI messages into p->mpi (selected ranks only; mpi_load.c);
 * 0, or -1 with err set. */
int rp_load_mpi(char *const *args, int nargs, const rp_opts *o, rp_profile *p,
                sp_fmt_err *err);
void rp_mpi_free(rp_profile *p);
/* Late sender (waits.c): into late[name * p->nranks + rank index], the
 * ns each receiving call (MPI_Recv, or the wait or test that completed an
 * MPI_Irecv) spent before the matching send began, up to its own end;
 * and late receiver, into lrecv likewise: the ns each blocking send that
 * ended after its receive was posted spent before that (late, lrecv:
 * p->nnames * p->nranks zeros). 0, or -1 out of memory. */
int rp_late_sender(const rp_profile *p, int64_t *late, int64_t *lrecv);
/* Into wait[name * p->nranks + rank index], as rp_late_sender: the ns each
 * blocking collective (MPI_Barrier, MPI_Allreduce, ...) spent before the
 * last of its communicator's ranks entered it, up to its own end. Only
 * ranks in the profile count (a rank left out by --ranks or missing is
 * not waited for). 0, or -1 out of memory. */
int rp_coll_wait(const rp_profile *p, int64_t *wait);
/* --matrix: messages and bytes, sender x receiver (text, --export csv or
 * json); --svg matrix: the bytes as a heat map (matrix.c). */
int rp_print_matrix(const rp_profile *p, const rp_opts *o, FILE *f,
                    sp_fmt_err *err);
int rp_svg_matrix(const rp_profile *p, const rp_opts *o, FILE *f,
                  sp_fmt_err *err);
int rp_print_mpi(const rp_profile *p, const rp_opts *o, FILE *f,
                 sp_fmt_err *err);
int rp_print_tree(const rp_profile *p, const rp_opts *o, FILE *f,
                  sp_fmt_err *err);
int rp_diff(const rp_profile *a, const rp_profile *b, const rp_opts *o, FILE *f,
            sp_fmt_err *err);
/* --counters: the table's regions with their counters' sums (the columns
 * o->counters names) and the metrics derived from them. */
int rp_print_counters(const rp_profile *p, const rp_opts *o, FILE *f,
                      sp_fmt_err *err);
/* The counter tables of the input at path, of the ranks o selects, added
 * to p. */
int rp_load_counters(rp_profile *p, const char *path, const rp_opts *o,
                     sp_fmt_err *err);
/* A profile's counters indexed for sums (counters.c): the counters of
 * every table in order of first appearance, each table's row as an entry
 * sorted by (region name, rank, thread), and the columns --counters[=LIST]
 * asks for (each with its title and width). */
#define RP_CTR_MAX 64
typedef struct rp_ctr_entry {
  int32_t name, rank, thread;
  int32_t t; /* p->ctr index */
  int64_t r; /* its row */
} rp_ctr_entry;
typedef struct rp_ctr_col {
  int k, excl, d; /* counter k (inclusive or excl), or derived metric d */
  char title[48];
  int w;
} rp_ctr_col;
typedef struct rp_ctrs {
  int n;
  char names[RP_CTR_MAX][SP_FMT_CTR_NAME];
  int *map; /* table t's counter j: names[map[t * SP_FMT_CTR_MAX + j]] */
  rp_ctr_entry *e;
  int64_t ne;
  rp_ctr_col col[RP_CTR_MAX];
  int ncol;
} rp_ctrs;
/* Sums of counters (indices into rp_ctrs.names) and the calls counted. */
typedef struct rp_ctr_sum {
  int64_t incl[RP_CTR_MAX], excl[RP_CTR_MAX], calls;
} rp_ctr_sum;
/* 0, or -1 with err set: no counters, a column spec names none, memory. */
int rp_ctrs_open(rp_ctrs *u, const rp_profile *p, const char *spec,
                 sp_fmt_err *err);
void rp_ctrs_free(rp_ctrs *u);
/* The first entry at or after (name, rank, thread) (-1: the lowest). */
int64_t rp_ctrs_first(const rp_ctrs *u, int32_t name, int32_t rank,
                      int32_t thread);
/* Into s the rows of name on rank and thread (-1: any; a thread only with
 * a rank); the number of rows summed. */
int64_t rp_ctrs_sum(const rp_ctrs *u, const rp_profile *p, int32_t name,
                    int32_t rank, int32_t thread, rp_ctr_sum *s);
/* The columns' titles, and their values from s (NULL: '-', unknown). */
void rp_ctrs_titles(const rp_ctrs *u, FILE *f);
void rp_ctrs_values(const rp_ctrs *u, FILE *f, const rp_ctr_sum *s);
/* --region NAME's counters (ctr_sums.c): region id's per rank and thread
 * and over them all, in u's columns. */
void rp_region_counters(const rp_profile *p, const rp_ctrs *u, int32_t id,
                        FILE *f);
/* --suggest-filter: the filter file (to o->suggest when named, else to f)
 * and, when it went to its own file, the estimates per region on f. */
int rp_suggest_filter(const rp_profile *p, const rp_opts *o, FILE *f,
                      sp_fmt_err *err);

/* ---- call stacks -------------------------------------------------------- */

/* One reconstructed call, given to a visitor in merge order (start asc,
 * end desc, source index asc: the rules of sp_fmt_stats_thread). */
typedef struct rp_call {
  int32_t name; /* profile name index */
  int32_t depth;
  int64_t start, end;
  int64_t exclusive; /* known only at on_close */
  int64_t node;      /* the visitor's own, kept while the call is open */
} rp_call;

typedef struct rp_visitor {
  /* Called when a call opens (its parent is open) and when it closes
   * (all its children closed). Return nonzero to stop. */
  int (*on_open)(void *ctx, const rp_thread *t, rp_call *c,
                 const rp_call *parent);
  int (*on_close)(void *ctx, const rp_thread *t, const rp_call *c);
  void *ctx;
} rp_visitor;

/* rp_walk's flags. */
enum {
  /* Improper nesting stops the walk with one line naming rank, thread and
   * both regions; otherwise the overlapped calls are closed early. */
  RP_WALK_STRICT = 1,
  /* A worker's `omp implicit task @ LOC` call gets the `omp parallel @ LOC`
   * call it belongs to (omp.c) as its parent, and the threads of a rank
   * are walked together in start order so that call is seen first. */
  RP_WALK_OMP = 2
};

/* Walks every thread of p (filtered regions dropped, their children
 * attached to the nearest kept caller), thread after thread unless
 * RP_WALK_OMP finds OpenMP teams; flags: RP_WALK_*. */
int rp_walk(const rp_profile *p, const rp_opts *o, const rp_visitor *v,
            int flags, sp_fmt_err *err);

/* ---- OpenMP teams (omp.c) ----------------------------------------------- */

/* One call of an `omp parallel @ LOC` region, and what a walk learnt of it:
 * the call its workers' tasks go under (itself, or when it is filtered out
 * its nearest kept caller): that call's name, depth and node. */
typedef struct rp_omp_call {
  int64_t start, end;
  int64_t node;
  int32_t thread, name; /* name: the parallel region's */
  int32_t as, depth;    /* as: the name of the call the tasks go under */
  int8_t kept, seen; /* kept: passes the filters; seen: as, depth, node set */
} rp_omp_call;

typedef struct rp_omp rp_omp;

/* The calls of p's parallel regions (filtered out or not: a worker's task
 * then belongs to the parallel call's nearest kept caller), indexed; NULL
 * (err set) when out of memory. Lookups remember where they were, so
 * one rp_omp serves one walk at a time. */
rp_omp *rp_omp_new(const rp_profile *p, const rp_opts *o, sp_fmt_err *err);
void rp_omp_free(rp_omp *m);
int rp_omp_any(const rp_omp *m); /* 1 if some task may belong to a team */
int rp_omp_parallel(const rp_omp *m, int32_t name); /* an omp parallel? */
/* For a call c of `omp implicit task @ LOC` on thread t whose own parent
 * (parent, NULL for none) is not an `omp parallel @ LOC` call: the tightest
 * call of `omp parallel @ LOC` on another thread of t's rank holding c's
 * interval. NULL for any other call or when none holds it. */
rp_omp_call *rp_omp_match(rp_omp *m, const rp_thread *t, const rp_call *c,
                          const rp_call *parent);
/* The entry of c itself when c is a parallel call; else NULL. */
rp_omp_call *rp_omp_self(rp_omp *m, const rp_thread *t, const rp_call *c);

/* Aggregated call paths: node = (parent node, region). Recursion folds
 * (docs/report.md, "Deep call paths"): a call of the region its caller's
 * node is joins that node, and below RP_TREE_DEPTH levels every deeper
 * call joins one note node (name RP_FOLDED) under the last level, so the
 * paths, and whatever prints them, stay as deep as RP_TREE_DEPTH at most. */
#define RP_TREE_DEPTH 256
#define RP_FOLDED (-1)
typedef struct rp_node {
  int64_t parent;
  int32_t name, depth; /* name: RP_FOLDED for the note node */
  /* calls: calls that entered the node from its parent's (total is
   * theirs); rec: calls folded into it from inside it */
  int64_t calls, rec, total, excl;
  int32_t lo, hi; /* note node: shallowest and deepest call depth in it */
  int64_t first_child, next_sibling; /* -1 = none; filled by rp_tree_link */
} rp_node;

/* Told, while a tree is built, of each call (or stored call path) of
 * region on (rank, thread) and the node it went to; folded: a recursive
 * call folded into its caller's node. Nonzero stops the build (out of
 * memory). */
typedef struct rp_tree_hook {
  int (*seen)(void *ctx, int32_t rank, int32_t thread, int32_t region,
              int64_t node, int folded);
  void *ctx;
} rp_tree_hook;

typedef struct rp_tree {
  rp_node *v;
  int64_t n, cap;
  sp__hash ix;              /* (parent, name) to the node's index in v */
  int64_t first_root;       /* filled by rp_tree_link */
  const rp_tree_hook *hook; /* NULL: none */
} rp_tree;

int rp_tree_build(const rp_profile *p, const rp_opts *o, rp_tree *t,
                  sp_fmt_err *err);
/* rp_tree_build telling hook (NULL: none) of every call. */
int rp_tree_build_hooked(const rp_profile *p, const rp_opts *o, rp_tree *t,
                         const rp_tree_hook *hook, sp_fmt_err *err);
/* Children lists ordered by region name. */
void rp_tree_link(rp_tree *t, const rp_profile *p);
void rp_tree_free(rp_tree *t);
/* The node after x in a depth-first walk (children in rp_tree_link's
 * order), or -1 after the last; start from t->first_root. */
int64_t rp_tree_next(const rp_tree *t, int64_t x);
/* The node after x's subtree in that walk, or -1. */
int64_t rp_tree_skip(const rp_tree *t, int64_t x);
/* Node x's name: its region's, or for the note node "[N deeper levels
 * folded]" formatted in buf. */
const char *rp_tree_name(const rp_tree *t, const rp_profile *p, int64_t x,
                         char *buf, size_t size);
/* Writes node's call path, root first, names through put() joined by sep
 * ("a;b;c" or "a > b > c"). */
void rp_tree_fpath(const rp_tree *t, const rp_profile *p, int64_t node,
                   const char *sep, FILE *f,
                   void (*put)(FILE *f, const char *s));

/* --tree --counters (ctr_sums.c): a node's counters are the sums per
 * region and thread of the (rank, thread)s whose calls reach it when on
 * each of them every call of its region reached this node, none folded
 * in from inside; else unknown ('-'). new: the columns o->counters
 * names, NULL with err set; its hook goes to rp_tree_build_hooked; done
 * (0, or -1 with err set) sums after the build. */
typedef struct rp_ctr_tree rp_ctr_tree;
rp_ctr_tree *rp_ctr_tree_new(const rp_profile *p, const rp_opts *o,
                             sp_fmt_err *err);
const rp_tree_hook *rp_ctr_tree_hook(rp_ctr_tree *c);
int rp_ctr_tree_done(rp_ctr_tree *c, const rp_tree *t, sp_fmt_err *err);
void rp_ctr_tree_titles(const rp_ctr_tree *c, FILE *f);
void rp_ctr_tree_put(const rp_ctr_tree *c, const rp_tree *t, int64_t x,
                     FILE *f);
void rp_ctr_tree_free(rp_ctr_tree *c); /* NULL: nothing */

/* ---- outputs ------------------------------------------------------------ */

/* Output written to a temporary beside path and renamed on success. */
typedef struct rp_out {
  FILE *f;
  char tmp[4096];
  const char *path;
} rp_out;

int rp_out_open(rp_out *o, const char *path, sp_fmt_err *err);
int rp_out_commit(rp_out *o, sp_fmt_err *err); /* checks write errors */
void rp_out_abort(rp_out *o);

int rp_export_csv(const rp_profile *p, const rp_opts *o, FILE *f,
                  sp_fmt_err *err);
int rp_export_json(rp_profile *const *ps, int n, const rp_opts *o, FILE *f,
                   sp_fmt_err *err);
int rp_export_events(const rp_profile *p, const rp_opts *o, FILE *f,
                     sp_fmt_err *err);
int rp_export_chrome(const rp_profile *p, const rp_opts *o, FILE *f,
                     sp_fmt_err *err);
int rp_export_folded(const rp_profile *p, const rp_opts *o, FILE *f,
                     sp_fmt_err *err);
/* An OTF2 archive in directory dir (new, or empty), built beside it under
 * a temporary name and renamed; a failure leaves neither. */
int rp_export_otf2(const rp_profile *p, const rp_opts *o, const char *dir,
                   sp_fmt_err *err);
int rp_svg_flame(const rp_profile *p, const rp_opts *o, FILE *f,
                 sp_fmt_err *err);
int rp_svg_timeline(const rp_profile *p, const rp_opts *o, FILE *f,
                    sp_fmt_err *err);
int rp_svg_compare(rp_profile *const *ps, int n, const rp_opts *o, FILE *f,
                   sp_fmt_err *err);
int rp_svg_speedup(rp_profile *const *ps, int n, const rp_opts *o, FILE *f,
                   sp_fmt_err *err);

/* ---- text helpers (text.c) ---------------------------------------------- */

/* "12.3 ms": three significant digits in ns, us, ms or s. */
const char *rp_time(double ns, char *buf, size_t size);
void rp_json_str(FILE *f, const char *s); /* quoted, escaped */
void rp_xml_str(FILE *f, const char *s);  /* escaped, not quoted */
void rp_csv_str(FILE *f, const char *s);  /* quoted when needed */
void rp_utf8_str(FILE *f, const char *s); /* invalid bytes as U+FFFD */
/* A region name in a text table: newlines, tabs, backslashes, other
 * control bytes and bytes that are not UTF-8 escaped (\n, \t, \\, \xNN),
 * so a name never breaks the columns or sends a terminal escape; longer
 * than width characters (width > 0), its start and end around "...";
 * padded to width. rp_name_cols: its width unshortened. */
void rp_name_str(FILE *f, const char *name, int width);
int rp_name_cols(const char *name);

/* A column of names, each escaped and shortened as rp_name_str does, but
 * kept distinct: names cut alike show where they differ (start, "...",
 * the differing part, "...", end), and any still alike are numbered
 * (~1, ~2 at their end). shown[i] is NULL for a NULL name. */
typedef struct rp_fit {
  int width;
  int64_t n;
  char **shown;
} rp_fit;
int rp_fit_names(rp_fit *fit, const char *const *names, int64_t n, int width);
void rp_fit_put(FILE *f, const rp_fit *fit, int64_t i); /* padded */
void rp_fit_free(rp_fit *fit);
/* The names of rows v[0..n) fitted for a table: as wide as the widest,
 * at least 6 and, unless o->wide, at most 48 columns. 0, or -1 when out
 * of memory. */
int rp_fit_rows(rp_fit *fit, const rp_profile *p, const rp_opts *o,
                const rp_agg *v, int64_t n);

/* ---- pictures' shared pieces (svg.c) ------------------------------------ */

/* The XML prolog, <svg> with a background and a centred title. */
void rp_svg_begin(FILE *f, int w, int h, const char *title);
/* A warm colour for a region name, the same in every flame graph. */
void rp_color(const char *name, char *buf, size_t size);
/* Categorical colours, far apart from each other and from RP_OTHERS (the
 * colour of what no palette colour was left for). */
#define RP_PALETTE_N 12
#define RP_OTHERS "#c8c8c8"
extern const char *const rp_palette[RP_PALETTE_N];

/* Width of a character of the 11 px monospace font the pictures use, a
 * little over the fonts' own, so that a label estimated to fit does. */
#define RP_CHAR_W 6.7
/* Columns s takes when drawn (wide characters two). */
int rp_text_cols(const char *s);
/* <text> at (x, y) with attrs (e.g. " text-anchor=\"end\"", or NULL) holding s,
 * or as much of it as fits in px: its start and end around ".." when 20
 * characters fit, else its start followed by "..", or nothing when fewer
 * than three characters would: 1 if something was written. */
int rp_svg_text(FILE *f, const char *s, double x, double y, double px,
                const char *attrs);

/* Round ticks of an axis: at (k0 + i) * step for i in [0, n), step 1, 2 or
 * 5 x 10^k, labelled in one unit with only the decimals the step needs. */
typedef struct rp_ticks {
  double k0, step;
  int n;
  int decimals;
  double unit;        /* labels show value / unit */
  const char *suffix; /* "ns", "us", "ms", "s", or "" for plain numbers */
} rp_ticks;
/* Ticks inside [lo, hi] for an axis px long (vertical: up the page, else
 * across, where labels must not touch); a step at least min_step (0: any);
 * time: values are ns, labelled in ns/us/ms/s. n = 0 when hi <= lo. */
void rp_ticks_make(double lo, double hi, double px, int vertical,
                   double min_step, int time, rp_ticks *t);
double rp_tick_at(const rp_ticks *t, int i);
/* "1.5 ms", "0", "2.5": the label of tick i. */
const char *rp_tick_label(const rp_ticks *t, int i, char *buf, size_t size);

#endif /* SP_REPORT_H */
