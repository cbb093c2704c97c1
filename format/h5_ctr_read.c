/* h5_ctr_read.c - the rank<N>/likwid groups of a schema-2 file (counters
 * per region, SP_COUNTERS) read into one table per rank. */
#include "sp_common.h"
#include "sp_ctr.h"
#include "sp_guard.h"
#include "sp_h5.h"
#include "sp_h5_util.h"
#include "sp_h5_vlen.h"
#include "sp_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rd_fail(sp_fmt_err *err, const char *path, const char *what) {
  char why[256];
  const char *checked = sp__h5_vlen_take(); /* a damaged string's reason */
  sp__h5_reason(why, sizeof why);
  sp_fmt_err_set(err, "%.900s: cannot read %s: %s", path, what,
                 checked ? checked : why);
  return -1;
}

/* Rows of a dataset (its first dimension), cols its second (0: rank 1);
 * -1 on failure. */
static int64_t ds_shape(hid_t d, int64_t *cols) {
  hid_t sp = H5Dget_space(d);
  hsize_t dims[2] = {0, 0};
  int nd = sp >= 0 ? H5Sget_simple_extent_dims(sp, dims, NULL) : -1;
  if (sp >= 0)
    H5Sclose(sp);
  if (nd < 1 || nd > 2)
    return -1;
  *cols = nd == 2 ? (int64_t)dims[1] : 0;
  return (int64_t)dims[0];
}

static int read_ds(hid_t g, const char *name, hid_t mtype, int64_t rows,
                   int64_t cols, void *out) {
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  int64_t c = -1;
  int rc = d >= 0 && ds_shape(d, &c) == rows && c == cols ? 0 : -1;
  if (!rc && rows > 0 &&
      H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
    rc = -1;
  if (d >= 0)
    H5Dclose(d);
  return rc;
}

static int read_group(hid_t g, int32_t rank, sp_fmt_ctr *c, const char *path,
                      sp_fmt_err *err) {
  memset(c, 0, sizeof *c);
  c->rank = rank;
  hid_t str = sp__h5_vlen_utf8();
  hid_t a = H5Aopen(g, "counters", H5P_DEFAULT);
  hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
  hssize_t n = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
  char *names[SP_FMT_CTR_MAX] = {0};
  int rc = 0;
  /* From the file's bytes, checked, where they can be found (h5_vlen.c);
   * else through the library. */
  char **vs = NULL, why[512];
  hid_t ft = a >= 0 ? H5Aget_type(a) : -1;
  int vlen = ft >= 0 && H5Tis_variable_str(ft) > 0;
  if (ft >= 0)
    H5Tclose(ft);
  int got = str < 0 || n < 1 || n > SP_FMT_CTR_MAX ? -2
            : vlen ? sp__h5_vlen_read(a, "counters", n, &vs, why, sizeof why)
                   : 1;
  if (got == 0) {
    for (hssize_t i = 0; i < n; i++) {
      snprintf(c->names[i], SP_FMT_CTR_NAME, "%s", vs[i]);
      free(vs[i]);
    }
    free(vs);
  } else if (got == -1) {
    sp__h5_vlen_keep(why);
    rc = -1;
  } else if (got == -2 || H5Aread(a, str, names) < 0) {
    rc = -1;
  } else {
    for (hssize_t i = 0; i < n; i++)
      snprintf(c->names[i], SP_FMT_CTR_NAME, "%s", names[i] ? names[i] : "");
    H5Dvlen_reclaim(str, sp, H5P_DEFAULT, names);
  }
  if (sp >= 0)
    H5Sclose(sp);
  if (a >= 0)
    H5Aclose(a);
  if (rc) {
    if (str >= 0)
      H5Tclose(str);
    return rd_fail(err, path, "likwid/counters");
  }
  c->n = (int32_t)n;
  hid_t d = H5Dopen2(g, "region", H5P_DEFAULT);
  int64_t cols = -1, rows = d >= 0 ? ds_shape(d, &cols) : -1;
  if (d >= 0)
    H5Dclose(d);
  char **reg = rows > 0 ? calloc((size_t)rows, sizeof *reg) : NULL;
  int32_t *th = rows > 0 ? malloc((size_t)rows * sizeof *th) : NULL;
  int64_t *calls = rows > 0 ? malloc((size_t)rows * sizeof *calls) : NULL;
  int64_t *in = rows > 0 ? malloc((size_t)(rows * n) * sizeof *in) : NULL;
  int64_t *ex = rows > 0 ? malloc((size_t)(rows * n) * sizeof *ex) : NULL;
  if (rows < 0 || cols != 0)
    rc = -1;
  else if (rows > 0 && (!reg || !th || !calls || !in || !ex))
    rc = -2;
  else if (read_ds(g, "region", str, rows, 0, reg) != 0 ||
           read_ds(g, "thread", H5T_NATIVE_INT32, rows, 0, th) != 0 ||
           read_ds(g, "calls", H5T_NATIVE_INT64, rows, 0, calls) != 0 ||
           read_ds(g, "inclusive", H5T_NATIVE_INT64, rows, n, in) != 0 ||
           read_ds(g, "exclusive", H5T_NATIVE_INT64, rows, n, ex) != 0)
    rc = -1;
  for (int64_t i = 0; rc == 0 && i < rows; i++)
    if (sp_fmt_ctr_add(c, th[i], reg[i] ? reg[i] : "", calls[i], in + i * n,
                       ex + i * n) != 0)
      rc = -2;
  for (int64_t i = 0; reg && i < rows; i++)
    free(reg[i]); /* HDF5's vlen strings come from malloc */
  free(reg), free(th), free(calls), free(in), free(ex);
  H5Tclose(str);
  if (rc == -2) {
    sp_fmt_ctr_free(c);
    sp_fmt_err_set(err, "%.900s: out of memory", path);
    return -1;
  }
  if (rc) {
    sp_fmt_ctr_free(c);
    return rd_fail(err, path,
                   "likwid datasets (region, thread, calls, "
                   "inclusive, exclusive)");
  }
  return 0;
}

typedef struct walk_ctx {
  int32_t *ranks;
  int64_t n, cap;
} walk_ctx;

static herr_t each_link(hid_t loc, const char *name, const H5L_info_t *info,
                        void *data) {
  (void)info;
  walk_ctx *w = data;
  char *end;
  if (strncmp(name, "rank", 4) != 0 || !name[4])
    return 0;
  long r = strtol(name + 4, &end, 10);
  if (*end || r < 0 || r > INT32_MAX)
    return 0;
  char path[80];
  snprintf(path, sizeof path, "%s/likwid", name);
  if (H5Lexists(loc, name, H5P_DEFAULT) <= 0 ||
      H5Lexists(loc, path, H5P_DEFAULT) <= 0)
    return 0;
  if (w->n == w->cap) {
    int64_t cap = w->cap ? 2 * w->cap : 16;
    int32_t *v = realloc(w->ranks, (size_t)cap * sizeof *v);
    if (!v)
      return -1;
    w->ranks = v;
    w->cap = cap;
  }
  w->ranks[w->n++] = (int32_t)r;
  return 0;
}

static int by_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return x < y ? -1 : x > y;
}

static int h5_read_counters_in(const char *path, sp_fmt_ctr **out, int64_t *n,
                               sp_fmt_err *err) {
  *out = NULL;
  *n = 0;
  sp__h5_quiet();
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0)
    return rd_fail(err, path, "HDF5 file");
  walk_ctx w = {0};
  int rc = 0;
  if (H5Literate(f, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, each_link, &w) < 0) {
    rc = rd_fail(err, path, "the file's groups");
  } else if (w.n) {
    qsort(w.ranks, (size_t)w.n, sizeof *w.ranks, by_i32);
    *out = calloc((size_t)w.n, sizeof **out);
    if (!*out) {
      sp_fmt_err_set(err, "%.900s: out of memory", path);
      rc = -1;
    }
    for (int64_t i = 0; rc == 0 && i < w.n; i++) {
      char g[80];
      snprintf(g, sizeof g, "rank%d/likwid", (int)w.ranks[i]);
      hid_t h = H5Gopen2(f, g, H5P_DEFAULT);
      rc = h < 0 ? rd_fail(err, path, g)
                 : read_group(h, w.ranks[i], &(*out)[i], path, err);
      if (h >= 0)
        H5Gclose(h);
      if (rc == 0)
        *n = i + 1;
    }
  }
  if (rc != 0) {
    for (int64_t i = 0; i < *n; i++)
      sp_fmt_ctr_free(&(*out)[i]);
    free(*out);
    *out = NULL;
    *n = 0;
  }
  free(w.ranks);
  H5Fclose(f);
  return rc;
}

int sp_fmt_h5_read_counters(const char *path, sp_fmt_ctr **out, int64_t *n,
                            sp_fmt_err *err) {
  sp_fmt_guard_enter(path);
  int r = h5_read_counters_in(path, out, n, err);
  sp_fmt_guard_leave();
  return r;
}

int sp_fmt_ctr_read(const char *path, sp_fmt_ctr **t, int64_t *n,
                    sp_fmt_err *err) {
  *t = NULL;
  *n = 0;
  if (sp_fmt_is_h5(path))
    return sp_fmt_h5_read_counters(path, t, n, err);
  if (!sp_fmt_is_stream(path))
    return 0;
  sp_fmt_stream *s;
  if (sp_fmt_stream_open(path, 0, &s, err) != 0)
    return -1;
  sp_fmt_ctr c;
  int rc = sp_fmt_stream_counters(s, &c);
  sp_fmt_stream_close(s);
  if (rc != 0) {
    sp_fmt_err_set(err, "%.900s: out of memory", path);
    return -1;
  }
  if (!c.n)
    return 0;
  if (!(*t = malloc(sizeof **t))) {
    sp_fmt_ctr_free(&c);
    sp_fmt_err_set(err, "%.900s: out of memory", path);
    return -1;
  }
  (*t)[0] = c;
  *n = 1;
  return 0;
}
