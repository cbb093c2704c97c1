/* h5_write_raw.c - sp-import's events, written behind HDF5's back: datasets
 * HDF5 allocates whole (sp_fmt_h5w_reserve), filled with pwrite
 * (sp_fmt_h5w_put) from any thread while rows go to the writer. */
#include "sp_common.h"
#include "sp_h5.h"
#include "sp_h5w.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

int sp_fmt_h5w_reserve(sp_fmt_h5w *w, int64_t n, sp_fmt_err *err) {
  if (n < 0 || w->nrows > 0 || w->ds_start >= 0 || w->reserved >= 0) {
    sp__h5w_fail(err, w->path,
                 "events reserved after rows, twice, or negative");
    return -1;
  }
  /* Contiguous, allocated now and never filled: the bytes are where
   * H5Dget_offset says, for sp_fmt_h5w_put to write without HDF5. */
  hsize_t dims = (hsize_t)n;
  hid_t sp = H5Screate_simple(1, &dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hid_t *ds[2] = {&w->ds_start, &w->ds_end};
  const char *names[2] = {"events/start_times", "events/end_times"};
  int rc = sp >= 0 && dcpl >= 0 && H5Pset_layout(dcpl, H5D_CONTIGUOUS) >= 0 &&
                   H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) >= 0 &&
                   H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0
               ? 0
               : -1;
  for (int i = 0; i < 2 && rc == 0; i++) {
    *ds[i] = H5Dcreate2(w->file, names[i], H5T_STD_I64LE, sp, H5P_DEFAULT, dcpl,
                        H5P_DEFAULT);
    haddr_t at = *ds[i] >= 0 ? H5Dget_offset(*ds[i]) : HADDR_UNDEF;
    if (*ds[i] < 0 || (n > 0 && (at == HADDR_UNDEF || at > (haddr_t)INT64_MAX)))
      rc = -1;
    w->raw_at[i] = n > 0 ? (int64_t)at : 0;
  }
  if (sp >= 0)
    H5Sclose(sp);
  if (dcpl >= 0)
    H5Pclose(dcpl);
  if (rc != 0) {
    sp__h5w_h5fail(w, err, "events datasets");
    return -1;
  }
  w->raw_fd = open(w->tmp, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (w->raw_fd < 0) {
    sp__h5w_fail(err, w->path, "cannot open %s: %s", w->tmp, strerror(errno));
    return -1;
  }
  w->reserved = n;
  return 0;
}

/* n timestamps from p (ours: any alignment) as little-endian at `at`. */
static int put_times(const sp_fmt_h5w *w, int64_t at, const void *p, int64_t n,
                     sp_fmt_err *err) {
  if (sp_fmt_put_le64(w->raw_fd, at, p, n) == 0)
    return 0;
  sp__h5w_fail(err, w->path, "cannot write events to %s: %s", w->tmp,
               errno ? strerror(errno) : "no progress");
  return -1;
}

int sp_fmt_h5w_put(const sp_fmt_h5w *w, int64_t first, const void *starts,
                   const void *ends, int64_t n, sp_fmt_err *err) {
  if (w->reserved < 0 || first < 0 || n < 0 || first > w->reserved - n) {
    sp__h5w_fail(err, w->path, "events %lld..%lld outside the %lld reserved",
                 (long long)first, (long long)(first + n),
                 (long long)w->reserved);
    return -1;
  }
  if (put_times(w, w->raw_at[0] + first * 8, starts, n, err) != 0 ||
      put_times(w, w->raw_at[1] + first * 8, ends, n, err) != 0)
    return -1;
  return 0;
}

int sp__h5w_raw_close(sp_fmt_h5w *w, sp_fmt_err *err) {
  if (w->raw_fd < 0)
    return 0;
  int fd = w->raw_fd;
  w->raw_fd = -1;
  if (close(fd) != 0) { /* a delayed write error shows here */
    sp__h5w_fail(err, w->path, "cannot write events to %s: %s", w->tmp,
                 strerror(errno));
    return -1;
  }
  return 0;
}

int sp_fmt_h5w_layout(const sp_fmt_h5w *w, const char **tmp, int64_t at[2]) {
  if (w->reserved < 0)
    return -1;
  *tmp = w->tmp;
  at[0] = w->raw_at[0];
  at[1] = w->raw_at[1];
  return 0;
}
