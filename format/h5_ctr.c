/* h5_ctr.c - counters per region (SP_COUNTERS) in a schema-2 file: the
 * rank<N>/likwid group written (into a writer's open file or a finished
 * one) and read back (docs/format-hdf5.md has the layout). */
#include "sp_common.h"
#include "sp_ctr.h"
#include "sp_h5.h"
#include "sp_h5_util.h"
#include "sp_h5w.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ctr_fail(sp_fmt_err *err, const char *path, const char *what) {
  char why[256];
  sp__h5_reason(why, sizeof why);
  sp_fmt_err_set(err, "%.900s: cannot write HDF5 %s: %s", path, what, why);
  return -1;
}

/* A dataset of rank 1 or 2 (cols 0: rank 1) written whole. */
static int put_ds(hid_t g, const char *name, hid_t ftype, hid_t mtype,
                  int64_t rows, int cols, const void *data) {
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)cols};
  hid_t sp = H5Screate_simple(cols ? 2 : 1, dims, NULL);
  if (sp < 0)
    return -1;
  hid_t d =
      H5Dcreate2(g, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t rc = d < 0 ? -1 : 0;
  if (d >= 0 && rows > 0)
    rc = H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  if (d >= 0 && H5Dclose(d) < 0)
    rc = -1;
  H5Sclose(sp);
  return rc < 0 ? -1 : 0;
}

/* Group rank<c->rank>/likwid of file, which must not have one yet. */
static int put_group(hid_t file, const sp_fmt_ctr *c, const char *path,
                     sp_fmt_err *err) {
  char name[64];
  snprintf(name, sizeof name, "rank%d", (int)c->rank);
  hid_t str = sp__h5_vlen_utf8();
  if (str < 0)
    return ctr_fail(err, path, "string type");
  hid_t r = H5Lexists(file, name, H5P_DEFAULT) > 0
                ? H5Gopen2(file, name, H5P_DEFAULT)
                : H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t g = r >= 0
                ? H5Gcreate2(r, "likwid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                : -1;
  int rc = g < 0 ? ctr_fail(err, path, "group likwid") : 0;
  const char *names[SP_FMT_CTR_MAX];
  for (int i = 0; i < c->n; i++)
    names[i] = c->names[i];
  hsize_t n = (hsize_t)c->n;
  hid_t sp = rc ? -1 : H5Screate_simple(1, &n, NULL);
  hid_t a = sp >= 0
                ? H5Acreate2(g, "counters", str, sp, H5P_DEFAULT, H5P_DEFAULT)
                : -1;
  if (!rc && (a < 0 || H5Awrite(a, str, names) < 0))
    rc = ctr_fail(err, path, "attribute likwid/counters");
  if (a >= 0)
    H5Aclose(a);
  if (sp >= 0)
    H5Sclose(sp);
  const char *src = "perf_event_open";
  sp = rc ? -1 : H5Screate(H5S_SCALAR);
  a = sp >= 0 ? H5Acreate2(g, "source", str, sp, H5P_DEFAULT, H5P_DEFAULT) : -1;
  if (!rc && (a < 0 || H5Awrite(a, str, &src) < 0))
    rc = ctr_fail(err, path, "attribute likwid/source");
  if (a >= 0)
    H5Aclose(a);
  if (sp >= 0)
    H5Sclose(sp);
  if (!rc && (put_ds(g, "region", str, str, c->nrows, 0, c->region) != 0 ||
              put_ds(g, "thread", H5T_STD_I32LE, H5T_NATIVE_INT32, c->nrows, 0,
                     c->thread) != 0 ||
              put_ds(g, "calls", H5T_STD_I64LE, H5T_NATIVE_INT64, c->nrows, 0,
                     c->calls) != 0 ||
              put_ds(g, "inclusive", H5T_STD_I64LE, H5T_NATIVE_INT64, c->nrows,
                     c->n, c->incl) != 0 ||
              put_ds(g, "exclusive", H5T_STD_I64LE, H5T_NATIVE_INT64, c->nrows,
                     c->n, c->excl) != 0))
    rc = ctr_fail(err, path, "likwid datasets");
  if (g >= 0)
    H5Gclose(g);
  if (r >= 0)
    H5Gclose(r);
  H5Tclose(str);
  return rc;
}

int sp_fmt_h5w_counters(sp_fmt_h5w *w, const sp_fmt_ctr *c, sp_fmt_err *err) {
  if (!c->n)
    return 0;
  return put_group(w->file, c, w->path, err);
}

int sp_fmt_h5_add_counters(const char *path, const sp_fmt_ctr *c,
                           sp_fmt_err *err) {
  if (!c->n)
    return 0;
  sp__h5_quiet();
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  if (f < 0)
    return ctr_fail(err, path, "file (open to add counters)");
  int rc = put_group(f, c, path, err);
  if (H5Fclose(f) < 0 && rc == 0)
    rc = ctr_fail(err, path, "file (close)");
  return rc;
}
