/* sp_h5_util.h - small helpers shared by h5_write.c and h5_read.c: quiet
 * HDF5 error handling turned into one-line reasons, and the string type. */
#ifndef SP_H5_UTIL_H
#define SP_H5_UTIL_H

#include <hdf5.h>
#include <stdio.h>
#include <string.h>

/* HDF5 prints its whole error stack to stderr by default; tools must print
 * one line, so the stack is silenced and read back by sp__h5_reason. */
static inline void sp__h5_quiet(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

static inline herr_t sp__h5_walk(unsigned n, const H5E_error2_t *e,
                                 void *data) {
  /* Walking upward, the first described entry is the most specific. */
  char *buf = data;
  (void)n;
  if (!buf[0] && e->desc && e->desc[0])
    snprintf(buf, 256, "%s", e->desc);
  return 0;
}

/* Copies the most specific HDF5 error description into buf (or a generic
 * text), on one line, and clears the stack. */
static inline const char *sp__h5_reason(char *buf, size_t size) {
  char inner[256] = "";
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, sp__h5_walk, inner);
  H5Eclear2(H5E_DEFAULT);
  for (char *c = inner; *c; c++)
    if (*c == '\n' || *c == '\r')
      *c = ' ';
  snprintf(buf, size, "%s", inner[0] ? inner : "HDF5 error");
  return buf;
}

/* The writer's file driver (h5_vfd.c): a failed write or truncate is kept
 * here instead of being reported to HDF5. */
typedef struct sp__h5_sink {
  int err;      /* errno of the first failed write, truncate or close */
  int open_err; /* errno of a failed open */
} sp__h5_sink;

/* A file access list writing through that driver into sink (zeroed here);
 * *driver gets the driver's id, to H5FDunregister once the file is closed.
 * -1 on failure. */
hid_t sp__h5_sink_fapl(sp__h5_sink *sink, hid_t *driver);

/* Variable-length UTF-8 string type (caller closes). */
static inline hid_t sp__h5_vlen_utf8(void) {
  hid_t t = H5Tcopy(H5T_C_S1);
  if (t < 0)
    return t;
  if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
    H5Tclose(t);
    return -1;
  }
  return t;
}

/* The strings of dataset ds, *n of them (h5_read.c); 0 or -1. */
int sp__h5_strings(hid_t ds, char ***out, int64_t *n);
struct sp_fmt_mpi;
/* Rank rank's MPI datasets of file f into m (h5_mpi_read.c), names the
 * file's region names: 0 (m empty when it has none), or -1. */
int sp__h5_mpi_read(hid_t f, int32_t rank, char *const *names, int64_t nnames,
                    struct sp_fmt_mpi *m);
/* The ranks with MPI datasets, ascending (malloc'd); 0 or -1. */
int sp__h5_mpi_ranks(hid_t f, int32_t **ranks, int64_t *n);

#endif /* SP_H5_UTIL_H */
