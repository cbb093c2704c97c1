/* sp_h5w.h - the schema-2 writer's state, shared by its two halves:
 * h5_write.c (through HDF5) and h5_write_raw.c (reserved events, pwrite). */
#ifndef SP_H5W_H
#define SP_H5W_H

#include "sp_common.h"
#include "sp_h5.h"
#include "sp_h5_util.h"
#include "sp_hash.h"
#include "sp_rank.h"
#include "sp_stats.h"

/* Writes of up to 256 KiB that end on 256 KiB boundaries of the file: a
 * larger write makes the page cache take a larger folio, which in a VM may
 * come from memory the host has taken back, so its cost swings widely; an
 * unaligned one gets small folios where it starts, and costs more.
 * docs/performance.md has the figures. */
#define SP__H5W_PIECE ((size_t)256 << 10)

typedef struct sp__h5w_row {
  int32_t region, rank, thread;
  int64_t offset, count;
  sp_fmt_stats st;
} sp__h5w_row;

typedef struct sp__h5w_region {
  char *name;
  char *file; /* first known; NULL = none */
  int32_t line;
  int32_t last_rank, last_thread; /* last row, to refuse duplicates */
} sp__h5w_region;

struct sp_fmt_h5w {
  char *path, *tmp;
  hid_t file, ds_start, ds_end;
  int64_t *buf_s, *buf_e;
  int64_t fill, written; /* events in buf, events already in the file */
  int64_t reserved;      /* sp_fmt_h5w_reserve's count; -1 = not reserved */
  int raw_fd;            /* reserved: written to with pwrite */
  int64_t raw_at[2];     /* reserved: file offsets of the two datasets */
  sp__h5w_row *rows;
  int64_t nrows, caprows;
  sp__h5w_region *regs;
  int64_t nregs, capregs;
  sp__hash names; /* region names to their index in regs */
  sp_fmt_meta meta;
  sp_fmt_mpi_rank *mpi; /* sp_fmt_h5w_mpi's, written at close */
  int64_t nmpi, capmpi;
  sp__h5_sink sink; /* write errors the file driver kept from HDF5 */
  hid_t driver;     /* that driver's id; -1 = none */
};

/* err = "<path>: <printf(fmt, ...)>". */
void sp__h5w_fail(sp_fmt_err *err, const char *path, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* -1 with err set if the file driver kept a failed write (a full disk),
 * the reason for any failure after it; else 0. */
int sp__h5w_sunk(sp_fmt_h5w *w, sp_fmt_err *err);

/* err = why HDF5 could not write `what` (or the driver's failed write). */
void sp__h5w_h5fail(sp_fmt_h5w *w, sp_fmt_err *err, const char *what);

/* Closes the reserved events' file descriptor, if open: a delayed write
 * error shows here. Returns 0, or -1 with err set. */
int sp__h5w_raw_close(sp_fmt_h5w *w, sp_fmt_err *err);

/* Region id of name in the file (added if new); -1 = no memory. */
int32_t sp__h5w_region_id(sp_fmt_h5w *w, const char *name);
/* The MPI datasets sp_fmt_h5w_mpi kept (h5_mpi_write.c), at close; 0 or
 * -1 with err set. */
int sp__h5w_mpi_write(sp_fmt_h5w *w, sp_fmt_err *err);
void sp__h5w_mpi_free(sp_fmt_h5w *w);
#endif /* SP_H5W_H */
