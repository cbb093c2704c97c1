/* sp_rank.h - one rank's calls in memory (what readers return), its metadata,
 * and the sources writers and statistics pull calls from. Internal. */
#ifndef SP_RANK_H
#define SP_RANK_H

#include "sp_common.h"

#ifdef __cplusplus
extern "C" {
#endif

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
  int64_t zbytes;      /* .spt 4: bytes of the calls' varints there, else 0 */
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

/* What one MPI call sent or received (sp_stream_mpimsg, in ns; the
 * kinds SP_MPI_K_* of sp_stream.h). */
typedef struct sp_fmt_mpimsg {
  int64_t start_ns;  /* the call's start: with thread and region, its call */
  int64_t origin_ns; /* a completion: the start of the call that began the
                        request; -1 = none */
  int32_t thread;
  int32_t region;        /* index into sp_fmt_mpi.names */
  int32_t origin_region; /* likewise; -1 = none */
  int32_t kind, peer, tag, comm, root;
  int64_t sent, recvd;
} sp_fmt_mpimsg;

/* A communicator of the rank: its members' MPI_COMM_WORLD ranks. */
typedef struct sp_fmt_mpicomm {
  int32_t id, size;
  int32_t *members;
} sp_fmt_mpicomm;

/* A rank's MPI messages and communicators (none: all zero). */
typedef struct sp_fmt_mpi {
  int64_t nmsgs;
  sp_fmt_mpimsg *msgs;
  int64_t ncomms;
  sp_fmt_mpicomm *comms; /* ascending id */
  int64_t nnames;
  char **names; /* the regions messages name */
} sp_fmt_mpi;

void sp_fmt_mpi_free(sp_fmt_mpi *m); /* frees contents, not m itself */

typedef struct sp_fmt_mpi_rank {
  int32_t rank;
  sp_fmt_mpi mpi;
} sp_fmt_mpi_rank;
/* The index of name in m->names, added if new; -1 when out of memory. */
int32_t sp_fmt_mpi_name(sp_fmt_mpi *m, const char *name);

typedef struct sp_fmt_rank {
  int32_t rank;
  int32_t version; /* .spt version it was read from (1..4); 0 for HDF5 */
  int64_t nregions;
  sp_fmt_region *regions; /* names unique within a rank */
  int64_t nblocks;
  sp_fmt_block *blocks;  /* at most one per (thread, region) */
  sp_fmt_meta meta;      /* empty for .spt */
  int32_t foreign_order; /* .spt: its byte order is not this machine's */
  sp_fmt_mpi mpi;        /* streams and .h5 files that hold them */
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

#ifdef __cplusplus
}
#endif
#endif /* SP_RANK_H */
