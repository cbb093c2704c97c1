/* sp_spt.h - the .spt trace (v1/v2/v3): written, parsed, indexed, read as
 * sources (docs/format.md). Internal. */
#ifndef SP_SPT_H
#define SP_SPT_H

#include "sp_rank.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_FMT_MAGIC "SCOPEPRF"
#define SP_FMT_SPT_MAX_VERSION 4

/* Writes srcs as a .spt of `version` (1 to 4) to a temporary name
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
  int64_t zbytes; /* the block's zbytes (version 4), else 0 */
  /* version 4: where the last read stopped (a sequential reader goes on) */
  int64_t zcall, zat;
  uint64_t zprev;
} sp_fmt_spt_calls;

/* c set up to read block b of r (from sp_fmt_spt_index) in the open fd. */
void sp_fmt_spt_calls_init(sp_fmt_spt_calls *c, int fd, const sp_fmt_rank *r,
                           const sp_fmt_block *b, int *failed);

void sp_fmt_spt_calls_read(const sp_fmt_source *src, int64_t first, int64_t n,
                           int64_t *starts, int64_t *ends);

/* A .spt's MPI messages, in a file beside it named as the .spt plus ".mpi"
 * (docs/format.md, "Messages beside a .spt"). */
#define SP_FMT_SPT_MPI_MAGIC "SPTMPI\r\n"
#define SP_FMT_SPT_MPI_VERSION 1
/* The sidecar's name of the .spt at spt, in buf; -1 when it does not fit. */
int sp_fmt_spt_mpi_path(const char *spt, char *buf, size_t size);
/* Writes m (rank's messages; lost: the messages the runtime dropped) to a
 * temporary name beside path, then renames it to path; spt_size is the
 * byte size of the .spt it goes with. 0, or -1 with err set. */
int sp_fmt_spt_mpi_write(const char *path, int32_t rank, int64_t spt_size,
                         const sp_fmt_mpi *m, int64_t lost, sp_fmt_err *err);
/* Reads the messages beside the .spt at spt (of rank) into *m and *lost.
 * 1: read; 0: it has none (*m empty); -1: they cannot be read, or are
 * truncated, damaged or another .spt's (its rank or size differ): err is
 * one line naming the file and the byte offset, *m empty. */
int sp_fmt_spt_mpi_read(const char *spt, int32_t rank, sp_fmt_mpi *m,
                        int64_t *lost, sp_fmt_err *err);
/* 1 if the .spt at spt has a file of messages beside it. */
int sp_fmt_spt_mpi_exists(const char *spt);

/* 1 if the first bytes of the file at path are the .spt magic. */
int sp_fmt_is_spt(const char *path);

#ifdef __cplusplus
}
#endif
#endif /* SP_SPT_H */
