/* h5_read.c - reads schema-2 HDF5 profiles (per-rank or merged) back into
 * sp_fmt_rank, or only their index for summaries; validates every slice. */
#include "sp_common.h"
#include "sp_guard.h"
#include "sp_h5.h"
#include "sp_h5_util.h"
#include "sp_h5_vlen.h"
#include "sp_profile.h"
#include "sp_progress.h"
#include "sp_rank.h"
#include "sp_stats.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int fail(sp_fmt_err *err, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sp_fmt_err_vat(err, path, -1, fmt, ap);
  va_end(ap);
  return -1;
}

static int h5fail(sp_fmt_err *err, const char *path, const char *what) {
  char why[256];
  const char *checked = sp__h5_vlen_take(); /* a damaged string's reason */
  sp__h5_reason(why, sizeof why);
  return fail(err, path, "cannot read %s: %s", what, checked ? checked : why);
}

/* The index of one file, column by column (one entry per row). */
typedef struct idx {
  int64_t nnames;
  char **names;
  int64_t n;
  int32_t *region, *rank, *thread, *line;
  int64_t *off, *cnt;
  char **file; /* NULL entries = none */
  sp_fmt_stats *st;
  int64_t nevents;
} idx;

static void free_strs(char **s, int64_t n) {
  for (int64_t i = 0; s && i < n; i++)
    free(s[i]);
  free(s);
}

static void idx_free(idx *x) {
  free_strs(x->names, x->nnames);
  free_strs(x->file, x->n);
  free(x->region);
  free(x->rank);
  free(x->thread);
  free(x->line);
  free(x->off);
  free(x->cnt);
  free(x->st);
  memset(x, 0, sizeof *x);
}

/* Length of a one-dimensional dataspace, or -1. */
static int64_t len1(hid_t space) {
  hsize_t d;
  if (space < 0 || H5Sget_simple_extent_ndims(space) != 1 ||
      H5Sget_simple_extent_dims(space, &d, NULL) < 0)
    return -1;
  return (int64_t)d;
}

/* Strings of a dataset (is_attr = 0) or attribute: vlen or fixed-size, as
 * the file has them, into n malloc'd C strings. */
static int read_strings(hid_t obj, int is_attr, int64_t n, char ***out) {
  hid_t ft = is_attr ? H5Aget_type(obj) : H5Dget_type(obj);
  hid_t mt = -1;
  int rc = -1;
  char **res = calloc(n ? (size_t)n : 1, sizeof *res);
  if (ft < 0 || !res || H5Tget_class(ft) != H5T_STRING)
    goto out;
  H5T_cset_t cset = H5Tget_cset(ft);
  mt = H5Tcopy(H5T_C_S1);
  if (H5Tis_variable_str(ft) > 0) {
    /* From the file's bytes, checked, where they can be found: libhdf5
     * follows a damaged reference unchecked. */
    char aname[256] = "", why[512];
    if (is_attr && (H5Aget_name(obj, sizeof aname, aname) <= 0 ||
                    strlen(aname) >= sizeof aname - 1))
      aname[0] = 0;
    char **vs = NULL;
    int got = !is_attr || aname[0]
                  ? sp__h5_vlen_read(obj, is_attr ? aname : NULL, n, &vs, why,
                                     sizeof why)
                  : 1;
    if (got == 0) {
      free(res);
      res = vs;
      rc = 0;
      goto out;
    }
    if (got < 0) {
      sp__h5_vlen_keep(why);
      goto out;
    }
    char **buf = calloc(n ? (size_t)n : 1, sizeof *buf);
    if (!buf || H5Tset_size(mt, H5T_VARIABLE) < 0 ||
        H5Tset_cset(mt, cset) < 0) {
      free(buf);
      goto out;
    }
    herr_t r = n == 0    ? 0
               : is_attr ? H5Aread(obj, mt, buf)
                         : H5Dread(obj, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    rc = r < 0 ? -1 : 0;
    for (int64_t i = 0; rc == 0 && i < n; i++)
      if (!(res[i] = strdup(buf[i] ? buf[i] : "")))
        rc = -1;
    if (r >= 0 && n > 0) {
      hid_t sp = is_attr ? H5Aget_space(obj) : H5Dget_space(obj);
      H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, buf);
      H5Sclose(sp);
    }
    free(buf);
  } else {
    size_t sz = H5Tget_size(ft) + 1;
    char *buf = malloc(n ? (size_t)n * sz : 1);
    if (!buf || H5Tset_size(mt, sz) < 0 ||
        H5Tset_strpad(mt, H5T_STR_NULLTERM) < 0 || H5Tset_cset(mt, cset) < 0) {
      free(buf);
      goto out;
    }
    herr_t r = n == 0    ? 0
               : is_attr ? H5Aread(obj, mt, buf)
                         : H5Dread(obj, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    rc = r < 0 ? -1 : 0;
    for (int64_t i = 0; rc == 0 && i < n; i++)
      if (!(res[i] = strndup(buf + (size_t)i * sz, sz)))
        rc = -1;
    free(buf);
  }
out:
  if (ft >= 0)
    H5Tclose(ft);
  if (mt >= 0)
    H5Tclose(mt);
  if (rc != 0) {
    free_strs(res, n);
    res = NULL;
  }
  *out = res;
  return rc;
}

int sp__h5_strings(hid_t ds, char ***out, int64_t *n) {
  hid_t sp = H5Dget_space(ds);
  *n = len1(sp);
  if (sp >= 0)
    H5Sclose(sp);
  if (*n < 0)
    return -1;
  return read_strings(ds, 0, *n, out) < 0 ? -1 : 0;
}

enum { COL_I32, COL_I64, COL_STR, COL_STATS };

static hid_t stats_mem_type(void) {
  hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_fmt_stats));
#define F(NAME, T)                                                             \
  if (t >= 0 && H5Tinsert(t, #NAME, offsetof(sp_fmt_stats, NAME), T) < 0) {    \
    H5Tclose(t);                                                               \
    t = -1;                                                                    \
  }
  F(calls, H5T_NATIVE_INT64)
  F(total_ns, H5T_NATIVE_INT64)
  F(min_ns, H5T_NATIVE_INT64)
  F(max_ns, H5T_NATIVE_INT64)
  F(first_start_ns, H5T_NATIVE_INT64)
  F(last_end_ns, H5T_NATIVE_INT64)
  F(exclusive_ns, H5T_NATIVE_INT64)
  F(gpu_total_ns, H5T_NATIVE_INT64)
  F(mean_ns, H5T_NATIVE_DOUBLE)
  F(std_ns, H5T_NATIVE_DOUBLE)
  F(outer_total_ns, H5T_NATIVE_INT64)
#undef F
  return t;
}

/* Reads column `name` of group g; *n is the expected length (-1: take the
 * dataset's). Returns 0, 1 when absent (and optional), -1 with err set. */
static int read_col(hid_t g, const char *path, const char *name, int kind,
                    int optional, int64_t *n, void **out, sp_fmt_err *err) {
  char what[128];
  snprintf(what, sizeof what, "rank_region_index/%s", name);
  *out = NULL;
  if (H5Lexists(g, name, H5P_DEFAULT) <= 0) {
    if (optional)
      return 1;
    return fail(err, path, "not a schema-2 profile: %s is missing", what);
  }
  hid_t ds = H5Dopen2(g, name, H5P_DEFAULT);
  if (ds < 0)
    return h5fail(err, path, what);
  hid_t sp = H5Dget_space(ds);
  int64_t len = len1(sp);
  H5Sclose(sp);
  int rc = 0;
  if (len < 0)
    rc = fail(err, path, "%s is not a one-dimensional dataset", what);
  else if (*n >= 0 && len != *n)
    rc = fail(err, path, "%s has %" PRId64 " entries, expected %" PRId64, what,
              len, *n);
  if (rc == 0) {
    *n = len;
    size_t cnt = len ? (size_t)len : 1;
    hid_t mt = -1;
    size_t esz = 0;
    hid_t ft = H5Dget_type(ds);
    H5T_class_t cls = H5Tget_class(ft);
    /* Records written before outer_total_ns existed: HDF5 leaves a member
     * the file lacks as it was, so it is set to -1 (unknown) after. */
    int no_outer = kind == COL_STATS && cls == H5T_COMPOUND &&
                   H5Tget_member_index(ft, "outer_total_ns") < 0;
    H5Tclose(ft);
    switch (kind) {
    case COL_I32:
      mt = H5T_NATIVE_INT32, esz = 4;
      break;
    case COL_I64:
      mt = H5T_NATIVE_INT64, esz = 8;
      break;
    case COL_STATS:
      esz = sizeof(sp_fmt_stats);
      break;
    }
    if (kind == COL_STR) {
      if (cls != H5T_STRING)
        rc = fail(err, path, "%s does not hold strings", what);
      else if (read_strings(ds, 0, len, (char ***)out) < 0)
        rc = h5fail(err, path, what);
    } else if ((kind == COL_STATS && cls != H5T_COMPOUND) ||
               (kind != COL_STATS && cls != H5T_INTEGER)) {
      rc = fail(err, path, "%s has the wrong type", what);
    } else {
      void *buf = malloc(cnt * esz);
      if (kind == COL_STATS)
        mt = stats_mem_type();
      if (!buf || mt < 0)
        rc = fail(err, path, "out of memory");
      else if (len > 0 &&
               H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        rc = h5fail(err, path, what);
      if (kind == COL_STATS && mt >= 0)
        H5Tclose(mt);
      if (rc == 0 && no_outer)
        for (int64_t i = 0; i < len; i++)
          ((sp_fmt_stats *)buf)[i].outer_total_ns = -1;
      if (rc == 0)
        *out = buf;
      else
        free(buf);
    }
  }
  H5Dclose(ds);
  return rc;
}

static int check_schema(hid_t f, const char *path, sp_fmt_err *err) {
  const char *an = "scope_profiler_schema";
  if (H5Aexists(f, an) <= 0)
    return fail(err, path,
                "not a schema-2 profile: no scope_profiler_schema attribute");
  hid_t a = H5Aopen(f, an, H5P_DEFAULT);
  hid_t t = a >= 0 ? H5Aget_type(a) : -1;
  hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
  int64_t v = 0;
  int rc = 0;
  if (a < 0 || t < 0 || sp < 0)
    rc = h5fail(err, path, an);
  else if (H5Tget_class(t) != H5T_INTEGER ||
           H5Sget_simple_extent_npoints(sp) != 1)
    rc = fail(err, path, "scope_profiler_schema is not one integer");
  else if (H5Aread(a, H5T_NATIVE_INT64, &v) < 0)
    rc = h5fail(err, path, an);
  else if (v > SP_FMT_SCHEMA)
    rc = fail(err, path,
              "schema %" PRId64 " is newer than this reader (schema %d)", v,
              SP_FMT_SCHEMA);
  else if (v != SP_FMT_SCHEMA)
    rc = fail(err, path, "unsupported schema %" PRId64 " (expected %d)", v,
              SP_FMT_SCHEMA);
  if (t >= 0)
    H5Tclose(t);
  if (sp >= 0)
    H5Sclose(sp);
  if (a >= 0)
    H5Aclose(a);
  return rc;
}

static int by_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A region is its name: one name under two ids would merge two regions'
 * rows into one (rank, thread, region) downstream. */
static int unique_names(const idx *x, const char *path, sp_fmt_err *err) {
  if (x->nnames < 2)
    return 0;
  char **v = malloc((size_t)x->nnames * sizeof *v);
  if (!v)
    return fail(err, path, "out of memory");
  memcpy(v, x->names, (size_t)x->nnames * sizeof *v);
  qsort(v, (size_t)x->nnames, sizeof *v, by_str);
  int rc = 0;
  for (int64_t i = 1; i < x->nnames && rc == 0; i++)
    if (strcmp(v[i], v[i - 1]) == 0)
      rc = fail(err, path, "region_table/names holds \"%.200s\" twice", v[i]);
  free(v);
  return rc;
}

static const idx *dup_x; /* qsort has no context argument in C11 */

static int by_row_key(const void *a, const void *b) {
  int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
  const idx *x = dup_x;
  if (x->rank[i] != x->rank[j])
    return x->rank[i] < x->rank[j] ? -1 : 1;
  if (x->thread[i] != x->thread[j])
    return x->thread[i] < x->thread[j] ? -1 : 1;
  return (x->region[i] > x->region[j]) - (x->region[i] < x->region[j]);
}

/* One row per (rank, thread, region): a second would count its calls
 * twice in a summary read and split them in a full one. Rows checked. */
static int unique_rows(const idx *x, const char *path, sp_fmt_err *err) {
  if (x->n < 2)
    return 0;
  int64_t *o = malloc((size_t)x->n * sizeof *o);
  if (!o)
    return fail(err, path, "out of memory");
  for (int64_t i = 0; i < x->n; i++)
    o[i] = i;
  dup_x = x;
  qsort(o, (size_t)x->n, sizeof *o, by_row_key);
  int rc = 0;
  for (int64_t k = 1; k < x->n && rc == 0; k++)
    if (by_row_key(&o[k - 1], &o[k]) == 0)
      rc = fail(err, path,
                "rows %" PRId64 " and %" PRId64
                ": two rows for rank %d thread %d region %.200s",
                o[k - 1] < o[k] ? o[k - 1] : o[k],
                o[k - 1] < o[k] ? o[k] : o[k - 1], x->rank[o[k]],
                x->thread[o[k]], x->names[x->region[o[k]]]);
  free(o);
  return rc;
}

/* Names, index columns and the event count; validates every row. */
static int read_index(hid_t f, const char *path, int want_stats, idx *x,
                      sp_fmt_err *err) {
  memset(x, 0, sizeof *x);
  if (check_schema(f, path, err) < 0)
    return -1;
  hid_t g = -1, ds = -1;
  int rc = -1;
  if (H5Lexists(f, "region_table", H5P_DEFAULT) <= 0 ||
      H5Lexists(f, "region_table/names", H5P_DEFAULT) <= 0)
    return fail(err, path,
                "not a schema-2 profile: region_table/names is "
                "missing");
  ds = H5Dopen2(f, "region_table/names", H5P_DEFAULT);
  if (ds < 0)
    return h5fail(err, path, "region_table/names");
  hid_t sp = H5Dget_space(ds);
  x->nnames = len1(sp);
  H5Sclose(sp);
  if (x->nnames < 0)
    rc = fail(err, path, "region_table/names is not one-dimensional");
  else if (read_strings(ds, 0, x->nnames, &x->names) < 0)
    rc = h5fail(err, path, "region_table/names");
  else
    rc = 0;
  H5Dclose(ds);
  if (rc < 0 || unique_names(x, path, err) < 0)
    goto bad;
  rc = -1;
  if (H5Lexists(f, "rank_region_index", H5P_DEFAULT) <= 0) {
    fail(err, path, "not a schema-2 profile: rank_region_index is missing");
    goto bad;
  }
  g = H5Gopen2(f, "rank_region_index", H5P_DEFAULT);
  if (g < 0) {
    h5fail(err, path, "rank_region_index");
    goto bad;
  }
  x->n = -1;
  int r;
  if (read_col(g, path, "region_ids", COL_I32, 0, &x->n, (void **)&x->region,
               err) < 0 ||
      read_col(g, path, "ranks", COL_I32, 0, &x->n, (void **)&x->rank, err) <
          0 ||
      read_col(g, path, "event_offsets", COL_I64, 0, &x->n, (void **)&x->off,
               err) < 0 ||
      read_col(g, path, "event_counts", COL_I64, 0, &x->n, (void **)&x->cnt,
               err) < 0)
    goto bad;
  if ((r = read_col(g, path, "threads", COL_I32, 1, &x->n, (void **)&x->thread,
                    err)) < 0)
    goto bad;
  if (r == 1 && !(x->thread = calloc(x->n ? (size_t)x->n : 1, 4))) {
    fail(err, path, "out of memory");
    goto bad;
  }
  if ((r = read_col(g, path, "source_lines", COL_I32, 1, &x->n,
                    (void **)&x->line, err)) < 0)
    goto bad;
  if (r == 1) {
    if (!(x->line = malloc(x->n ? (size_t)x->n * 4 : 4))) {
      fail(err, path, "out of memory");
      goto bad;
    }
    for (int64_t i = 0; i < x->n; i++)
      x->line[i] = -1;
  }
  if (read_col(g, path, "source_files", COL_STR, 1, &x->n, (void **)&x->file,
               err) < 0)
    goto bad;
  /* Read by every reader, to be checked against the rows. */
  if ((r = read_col(g, path, "summary_statistics", COL_STATS, 1, &x->n,
                    (void **)&x->st, err)) < 0)
    goto bad;
  if (want_stats) {
    if (r == 1) {
      /* Older files: only what the index itself knows. */
      if (!(x->st = calloc(x->n ? (size_t)x->n : 1, sizeof *x->st))) {
        fail(err, path, "out of memory");
        goto bad;
      }
      for (int64_t i = 0; i < x->n; i++) {
        x->st[i].calls = x->cnt[i];
        x->st[i].gpu_total_ns = -1;
        x->st[i].outer_total_ns = -1;
      }
    }
  }
  /* Events: both columns, one length. */
  int64_t ne[2] = {-1, -1};
  const char *evn[2] = {"events/start_times", "events/end_times"};
  for (int i = 0; i < 2; i++) {
    if (H5Lexists(f, "events", H5P_DEFAULT) <= 0 ||
        H5Lexists(f, evn[i], H5P_DEFAULT) <= 0) {
      fail(err, path, "not a schema-2 profile: %s is missing", evn[i]);
      goto bad;
    }
    ds = H5Dopen2(f, evn[i], H5P_DEFAULT);
    if (ds < 0) {
      h5fail(err, path, evn[i]);
      goto bad;
    }
    sp = H5Dget_space(ds);
    ne[i] = len1(sp);
    H5Sclose(sp);
    H5Dclose(ds);
    if (ne[i] < 0) {
      fail(err, path, "%s is not one-dimensional", evn[i]);
      goto bad;
    }
  }
  if (ne[0] != ne[1]) {
    fail(err, path,
         "events/start_times has %" PRId64 " entries but end_times %" PRId64,
         ne[0], ne[1]);
    goto bad;
  }
  x->nevents = ne[0];
  /* A profile (SP_MODE=profile, call_paths beside the index) has the
   * statistics of calls it never stored as events. */
  int no_events =
      x->nevents == 0 && H5Lexists(f, "call_paths", H5P_DEFAULT) > 0;
  for (int64_t i = 0; i < x->n; i++) {
    if (x->region[i] < 0 || x->region[i] >= x->nnames) {
      fail(err, path,
           "row %" PRId64 ": region id %d outside region_table "
           "(%" PRId64 " names)",
           i, x->region[i], x->nnames);
      goto bad;
    }
    if (x->rank[i] < 0 || x->thread[i] < 0) {
      fail(err, path, "row %" PRId64 ": negative rank or thread", i);
      goto bad;
    }
    if (x->cnt[i] < 0 || x->off[i] < 0) {
      fail(err, path, "row %" PRId64 ": negative event offset or count", i);
      goto bad;
    }
    if (x->off[i] > x->nevents || x->cnt[i] > x->nevents - x->off[i]) {
      fail(err, path,
           "row %" PRId64 ": events [%" PRId64 ", +%" PRId64
           ") beyond the %" PRId64 " stored",
           i, x->off[i], x->cnt[i], x->nevents);
      goto bad;
    }
    /* A summary read shows these calls without reading the events: they
     * must be the events' number (the other figures need the events). */
    if (x->st && x->st[i].calls != x->cnt[i] && !no_events) {
      fail(err, path,
           "row %" PRId64 ": summary_statistics says %" PRId64
           " calls, the row has %" PRId64 " events",
           i, x->st[i].calls, x->cnt[i]);
      goto bad;
    }
  }
  if (unique_rows(x, path, err) != 0)
    goto bad;
  H5Gclose(g);
  return 0;
bad:
  if (g >= 0)
    H5Gclose(g);
  idx_free(x);
  return -1;
}

typedef struct meta_ctx {
  sp_fmt_meta *m;
  int failed;
} meta_ctx;

/* One /metadata attribute: strings, string lists and numbers are kept;
 * other kinds (booleans, numeric arrays) have no sp_fmt_meta type. */
static herr_t meta_attr(hid_t loc, const char *name, const H5A_info_t *info,
                        void *data) {
  (void)info;
  meta_ctx *c = data;
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  if (a < 0) {
    c->failed = 1;
    return -1;
  }
  hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
  H5T_class_t cls = H5Tget_class(t);
  int nd = H5Sget_simple_extent_ndims(sp);
  hssize_t np = H5Sget_simple_extent_npoints(sp);
  int rc = 0;
  if (cls == H5T_STRING && nd == 0) {
    char **s = NULL;
    rc = read_strings(a, 1, 1, &s);
    if (rc == 0)
      rc = sp_fmt_meta_set_str(c->m, name, s[0]);
    free_strs(s, s ? 1 : 0);
  } else if (cls == H5T_STRING && nd == 1 && np >= 0) {
    char **s = NULL;
    rc = read_strings(a, 1, np, &s);
    if (rc == 0)
      rc = sp_fmt_meta_set_strlist(c->m, name, (const char *const *)s, np);
    free_strs(s, s ? np : 0);
  } else if (cls == H5T_INTEGER && np == 1) {
    int64_t v;
    rc = H5Aread(a, H5T_NATIVE_INT64, &v) < 0
             ? -1
             : sp_fmt_meta_set_int(c->m, name, v);
  } else if (cls == H5T_FLOAT && np == 1) {
    double v;
    rc = H5Aread(a, H5T_NATIVE_DOUBLE, &v);
    if (rc >= 0 && v == floor(v) && fabs(v) < 9e18) {
      rc = sp_fmt_meta_set_int(c->m, name, (int64_t)v);
    } else if (rc >= 0) {
      char buf[64];
      snprintf(buf, sizeof buf, "%.17g", v);
      rc = sp_fmt_meta_set_str(c->m, name, buf);
    }
  }
  H5Tclose(t);
  H5Sclose(sp);
  H5Aclose(a);
  if (rc < 0) {
    c->failed = 1;
    return -1;
  }
  return 0;
}

/* One dataset of /metadata, open as d: a 1-D string dataset is a string
 * list too (the writer's form for lists too long for an attribute). */
static int meta_dataset(hid_t d, const char *name, meta_ctx *c) {
  hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
  int rc = 0;
  hssize_t np = H5Sget_simple_extent_npoints(sp);
  if (H5Tget_class(t) == H5T_STRING && H5Sget_simple_extent_ndims(sp) == 1 &&
      np >= 0) {
    char **s = NULL;
    rc = read_strings(d, 0, np, &s);
    if (rc == 0)
      rc = sp_fmt_meta_set_strlist(c->m, name, (const char *const *)s, np);
    free_strs(s, s ? np : 0);
  }
  H5Tclose(t);
  H5Sclose(sp);
  if (rc < 0)
    c->failed = 1;
  return rc;
}

/* Every dataset of the group g (by index: the same calls in HDF5 1.10 and
 * later). */
static void meta_datasets(hid_t g, meta_ctx *c) {
  H5G_info_t gi;
  if (H5Gget_info(g, &gi) < 0)
    return;
  for (hsize_t i = 0; i < gi.nlinks && !c->failed; i++) {
    char name[1024];
    ssize_t len = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i,
                                     name, sizeof name, H5P_DEFAULT);
    if (len <= 0 || (size_t)len >= sizeof name)
      continue;
    hid_t o = H5Oopen(g, name, H5P_DEFAULT);
    if (o < 0)
      continue;
    if (H5Iget_type(o) == H5I_DATASET)
      meta_dataset(o, name, c);
    H5Oclose(o);
  }
}

static int read_meta(hid_t f, const char *path, sp_fmt_meta *m,
                     sp_fmt_err *err) {
  memset(m, 0, sizeof *m);
  if (H5Lexists(f, "metadata", H5P_DEFAULT) <= 0)
    return 0;
  hid_t g = H5Gopen2(f, "metadata", H5P_DEFAULT);
  if (g < 0)
    return h5fail(err, path, "metadata");
  meta_ctx c = {m, 0};
  hsize_t pos = 0;
  herr_t r = H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, &pos, meta_attr, &c);
  if (r >= 0 && !c.failed)
    meta_datasets(g, &c);
  H5Gclose(g);
  if (r < 0 || c.failed) {
    sp_fmt_meta_free(m);
    return h5fail(err, path, "metadata attributes");
  }
  return 0;
}

static hid_t open_file(const char *path, sp_fmt_err *err) {
  sp__h5_quiet();
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    fail(err, path, "cannot open: %s", strerror(errno));
    return -1;
  }
  fclose(fp);
  if (!sp_fmt_is_h5(path)) {
    fail(err, path, "not an HDF5 file (bad signature)");
    return -1;
  }
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0)
    h5fail(err, path, "HDF5 file (damaged or not HDF5)");
  return f;
}

/* The rule (as scope-profiler's reader has it): files with an index but
 * no summary records fall back to reading their calls; so do records
 * without outer_total_ns, which the region totals need. */
static int h5_has_summary_in(const char *path) {
  int yes = 1;
  H5E_BEGIN_TRY {
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f >= 0) {
      const char *ss = "rank_region_index/summary_statistics";
      if (H5Lexists(f, "rank_region_index", H5P_DEFAULT) > 0) {
        yes = H5Lexists(f, ss, H5P_DEFAULT) > 0;
        hid_t ds = yes ? H5Dopen2(f, ss, H5P_DEFAULT) : -1;
        hid_t t = ds >= 0 ? H5Dget_type(ds) : -1;
        if (t >= 0 && H5Tget_class(t) == H5T_COMPOUND &&
            H5Tget_member_index(t, "outer_total_ns") < 0)
          yes = 0;
        if (t >= 0)
          H5Tclose(t);
        if (ds >= 0)
          H5Dclose(ds);
      }
      H5Fclose(f);
    }
  }
  H5E_END_TRY;
  return yes;
}

int sp_fmt_h5_has_summary(const char *path) {
  sp_fmt_guard_enter(path);
  int r = h5_has_summary_in(path);
  sp_fmt_guard_leave();
  return r;
}

static int h5_read_summary_in(const char *path, sp_fmt_h5_summary *out,
                              sp_fmt_err *err) {
  memset(out, 0, sizeof *out);
  hid_t f = open_file(path, err);
  if (f < 0)
    return -1;
  idx x;
  int rc = read_index(f, path, 1, &x, err);
  if (rc == 0)
    rc = read_meta(f, path, &out->meta, err);
  H5Fclose(f);
  if (rc < 0) {
    idx_free(&x); /* read_index leaves x zeroed when it fails */
    return -1;
  }
  out->rows = calloc(x.n ? (size_t)x.n : 1, sizeof *out->rows);
  if (!out->rows) {
    idx_free(&x);
    sp_fmt_meta_free(&out->meta);
    return fail(err, path, "out of memory");
  }
  for (int64_t i = 0; i < x.n; i++) {
    sp_fmt_h5_row *r = &out->rows[i];
    r->rank = x.rank[i];
    r->thread = x.thread[i];
    r->region = x.region[i];
    r->event_offset = x.off[i];
    r->event_count = x.cnt[i];
    r->source_line = x.line[i];
    r->stats = x.st[i];
    if (x.file && x.file[i] && x.file[i][0]) {
      r->source_file = x.file[i]; /* take ownership */
      x.file[i] = NULL;
    }
  }
  out->nrows = x.n;
  out->nnames = x.nnames;
  out->names = x.names;
  x.names = NULL;
  x.nnames = 0;
  idx_free(&x);
  return 0;
}

int sp_fmt_h5_read_summary(const char *path, sp_fmt_h5_summary *out,
                           sp_fmt_err *err) {
  sp_fmt_guard_enter(path);
  int r = h5_read_summary_in(path, out, err);
  sp_fmt_guard_leave();
  return r;
}

void sp_fmt_h5_summary_free(sp_fmt_h5_summary *s) {
  if (!s)
    return;
  free_strs(s->names, s->nnames);
  for (int64_t i = 0; s->rows && i < s->nrows; i++)
    free(s->rows[i].source_file);
  free(s->rows);
  sp_fmt_meta_free(&s->meta);
  memset(s, 0, sizeof *s);
}

static const idx *sort_x; /* qsort has no context argument in C11 */

static int by_rank_thread(const void *a, const void *b) {
  int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
  if (sort_x->rank[i] != sort_x->rank[j])
    return sort_x->rank[i] < sort_x->rank[j] ? -1 : 1;
  if (sort_x->thread[i] != sort_x->thread[j])
    return sort_x->thread[i] < sort_x->thread[j] ? -1 : 1;
  return i < j ? -1 : (i > j);
}

static int read_slice(hid_t ds, int64_t off, int64_t n, int64_t *buf) {
  if (n == 0)
    return 0;
  hsize_t start = (hsize_t)off, count = (hsize_t)n;
  hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(1, &count, NULL);
  herr_t rc = -1;
  if (fs >= 0 && ms >= 0 &&
      H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0)
    rc = H5Dread(ds, H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT, buf);
  if (fs >= 0)
    H5Sclose(fs);
  if (ms >= 0)
    H5Sclose(ms);
  return rc < 0 ? -1 : 0;
}

/* read_slice in pieces of 1 Mi stamps, each counted into prog (two
 * stamps a call; *stamps carries the odd one over). */
static int read_counted(hid_t ds, int64_t off, int64_t n, int64_t *buf,
                        sp_fmt_progress *prog, int64_t *stamps) {
  if (!prog)
    return read_slice(ds, off, n, buf);
  for (int64_t done = 0; done < n;) {
    int64_t k = n - done < ((int64_t)1 << 20) ? n - done : (int64_t)1 << 20;
    if (read_slice(ds, off + done, k, buf + done) < 0)
      return -1;
    done += k;
    int64_t before = *stamps / 2;
    *stamps += k;
    sp_fmt_progress_add(prog, *stamps / 2 - before);
  }
  return 0;
}

/* Builds ranks from rows order[lo, hi) of one rank and reads their events. */
static int build_rank(const idx *x, const int64_t *order, int64_t lo,
                      int64_t hi, hid_t ds_s, hid_t ds_e, int32_t *local,
                      int64_t *seen, const char *path, sp_fmt_progress *prog,
                      int64_t *stamps, sp_fmt_rank *r, sp_fmt_err *err) {
  int64_t nrows = hi - lo;
  memset(r, 0, sizeof *r);
  r->rank = x->rank[order[lo]];
  r->regions = calloc((size_t)nrows, sizeof *r->regions);
  r->blocks = calloc((size_t)nrows, sizeof *r->blocks);
  if (!r->regions || !r->blocks)
    return fail(err, path, "out of memory");
  for (int64_t k = lo; k < hi; k++) {
    int64_t i = order[k];
    int32_t g = x->region[i];
    /* seen[g] remembers the row that last used region g on this rank, so
     * a second row for one (thread, region) is caught. */
    if (local[g] < 0) {
      sp_fmt_region *reg = &r->regions[r->nregions];
      reg->name = strdup(x->names[g]);
      reg->line = x->line[i];
      if (x->file && x->file[i] && x->file[i][0])
        reg->file = strdup(x->file[i]);
      if (!reg->name)
        return fail(err, path, "out of memory");
      local[g] = (int32_t)r->nregions++;
    } else if (seen[g] >= 0 && x->thread[seen[g]] == x->thread[i]) {
      return fail(err, path, "two rows for rank %d thread %d region %s",
                  r->rank, x->thread[i], x->names[g]);
    } else if (!r->regions[local[g]].file && x->file && x->file[i] &&
               x->file[i][0]) {
      r->regions[local[g]].file = strdup(x->file[i]);
      r->regions[local[g]].line = x->line[i];
    }
    seen[g] = i;
    sp_fmt_block *b = &r->blocks[r->nblocks++];
    b->thread = x->thread[i];
    b->region = local[g];
    b->count = x->cnt[i];
    size_t bytes = (size_t)(x->cnt[i] ? x->cnt[i] : 1) * sizeof(int64_t);
    b->starts = malloc(bytes);
    b->ends = malloc(bytes);
    if (!b->starts || !b->ends)
      return fail(err, path, "out of memory");
    if (read_counted(ds_s, x->off[i], x->cnt[i], b->starts, prog, stamps) < 0 ||
        read_counted(ds_e, x->off[i], x->cnt[i], b->ends, prog, stamps) < 0)
      return h5fail(err, path, "events");
  }
  return 0;
}

int sp_fmt_h5_read(const char *path, sp_fmt_rank **ranks, int64_t *nranks,
                   sp_fmt_err *err) {
  return sp_fmt_h5_read_progress(path, ranks, nranks, NULL, err);
}

static int h5_read_progress_in(const char *path, sp_fmt_rank **ranks,
                               int64_t *nranks, sp_fmt_progress *prog,
                               sp_fmt_err *err) {
  int64_t stamps = 0;
  *ranks = NULL;
  *nranks = 0;
  hid_t f = open_file(path, err);
  if (f < 0)
    return -1;
  idx x;
  sp_fmt_meta meta;
  memset(&meta, 0, sizeof meta);
  sp_fmt_rank *out = NULL;
  int64_t nout = 0;
  int64_t *order = NULL, *seen = NULL;
  int32_t *local = NULL;
  hid_t ds_s = -1, ds_e = -1;
  int rc = read_index(f, path, 0, &x, err);
  if (rc < 0) {
    H5Fclose(f);
    return -1;
  }
  rc = -1;
  if (read_meta(f, path, &meta, err) < 0)
    goto out;
  order = malloc((x.n ? (size_t)x.n : 1) * sizeof *order);
  seen = malloc((x.nnames ? (size_t)x.nnames : 1) * sizeof *seen);
  local = malloc((x.nnames ? (size_t)x.nnames : 1) * sizeof *local);
  out = calloc(x.n ? (size_t)x.n : 1, sizeof *out);
  if (!order || !seen || !local || !out) {
    fail(err, path, "out of memory");
    goto out;
  }
  for (int64_t i = 0; i < x.n; i++)
    order[i] = i;
  sort_x = &x;
  qsort(order, (size_t)x.n, sizeof *order, by_rank_thread);
  ds_s = H5Dopen2(f, "events/start_times", H5P_DEFAULT);
  ds_e = H5Dopen2(f, "events/end_times", H5P_DEFAULT);
  if (ds_s < 0 || ds_e < 0) {
    h5fail(err, path, "events");
    goto out;
  }
  for (int64_t g = 0; g < x.nnames; g++)
    local[g] = -1, seen[g] = -1;
  for (int64_t lo = 0; lo < x.n;) {
    int64_t hi = lo;
    while (hi < x.n && x.rank[order[hi]] == x.rank[order[lo]])
      hi++;
    sp_fmt_rank *r = &out[nout++];
    if (build_rank(&x, order, lo, hi, ds_s, ds_e, local, seen, path, prog,
                   &stamps, r, err) < 0)
      goto out;
    if (sp_fmt_meta_copy(&r->meta, &meta) != 0) {
      fail(err, path, "out of memory");
      goto out;
    }
    if (sp__h5_mpi_read(f, r->rank, x.names, x.nnames, &r->mpi) != 0) {
      fail(err, path, "cannot read rank %d's MPI datasets (rank%d/mpi)",
           (int)r->rank, (int)r->rank);
      goto out;
    }
    for (int64_t k = lo; k < hi; k++)
      local[x.region[order[k]]] = -1, seen[x.region[order[k]]] = -1;
    lo = hi;
  }
  rc = 0;
out:
  if (ds_s >= 0)
    H5Dclose(ds_s);
  if (ds_e >= 0)
    H5Dclose(ds_e);
  H5Fclose(f);
  if (rc < 0) {
    for (int64_t i = 0; i < nout; i++)
      sp_fmt_rank_free(&out[i]);
    free(out);
    out = NULL;
    nout = 0;
  }
  *ranks = out;
  *nranks = nout;
  free(order);
  free(seen);
  free(local);
  sp_fmt_meta_free(&meta);
  idx_free(&x);
  return rc;
}

int sp_fmt_h5_read_progress(const char *path, sp_fmt_rank **ranks,
                            int64_t *nranks, sp_fmt_progress *prog,
                            sp_fmt_err *err) {
  sp_fmt_guard_enter(path);
  int r = h5_read_progress_in(path, ranks, nranks, prog, err);
  sp_fmt_guard_leave();
  return r;
}

/* ---- SP_MODE=profile: statistics and call paths (sp_profile.h) ---- */

static int meta_says_profile(const sp_fmt_meta *m) {
  const sp_fmt_meta_item *it = sp_fmt_meta_get(m, "mode");
  return it && it->type == SP_FMT_META_STR && strcmp(it->str, "profile") == 0;
}

static int h5_is_profile_in(const char *path, sp_fmt_err *err) {
  hid_t f = open_file(path, err);
  if (f < 0)
    return -1;
  sp_fmt_meta m;
  int rc = read_meta(f, path, &m, err);
  H5Fclose(f);
  if (rc != 0)
    return -1;
  rc = meta_says_profile(&m);
  sp_fmt_meta_free(&m);
  return rc;
}

int sp_fmt_h5_is_profile(const char *path, sp_fmt_err *err) {
  sp_fmt_guard_enter(path);
  int r = h5_is_profile_in(path, err);
  sp_fmt_guard_leave();
  return r;
}

/* call_paths/<name>: n entries (n < 0: take its length) of memory type mt. */
static int path_col(hid_t g, const char *path, const char *name, hid_t mt,
                    size_t esz, int64_t *n, void **out, sp_fmt_err *err) {
  char what[96];
  snprintf(what, sizeof what, "call_paths/%s", name);
  *out = NULL;
  if (H5Lexists(g, name, H5P_DEFAULT) <= 0)
    return fail(err, path, "not a profile: %s is missing", what);
  hid_t ds = H5Dopen2(g, name, H5P_DEFAULT);
  if (ds < 0)
    return h5fail(err, path, what);
  hid_t sp = H5Dget_space(ds);
  int64_t len = len1(sp);
  H5Sclose(sp);
  int rc = 0;
  if (len < 0 || (*n >= 0 && len != *n))
    rc = fail(err, path, "%s has %" PRId64 " entries, expected %" PRId64, what,
              len, *n);
  void *buf = rc ? NULL : malloc(len ? (size_t)len * esz : 1);
  if (!rc && !buf)
    rc = fail(err, path, "out of memory");
  if (!rc && len > 0 && H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
    rc = h5fail(err, path, what);
  H5Dclose(ds);
  if (rc) {
    free(buf);
    return -1;
  }
  *n = len;
  *out = buf;
  return 0;
}

static int h5_read_profile_in(const char *path, sp_fmt_profile *out,
                              sp_fmt_meta *meta, sp_fmt_err *err) {
  memset(out, 0, sizeof *out);
  memset(meta, 0, sizeof *meta);
  hid_t f = open_file(path, err);
  if (f < 0)
    return -1;
  hid_t g = -1, st_t = stats_mem_type();
  int32_t *reg = NULL, *par = NULL, *rk = NULL, *th = NULL;
  uint64_t *hi = NULL, *lo = NULL;
  sp_fmt_stats *st = NULL;
  int64_t nnames = -1, n = -1, rc = -1;
  idx x;
  memset(&x, 0, sizeof x);
  if (check_schema(f, path, err) != 0 || read_meta(f, path, meta, err) != 0)
    goto out;
  if (!meta_says_profile(meta)) {
    fail(err, path, "not a profile (its metadata has no mode \"profile\")");
    goto out;
  }
  /* The regions' names and the places the index rows give them. */
  if (read_index(f, path, 0, &x, err) != 0)
    goto out;
  nnames = x.nnames;
  if ((g = H5Gopen2(f, "call_paths", H5P_DEFAULT)) < 0) {
    h5fail(err, path, "call_paths");
    goto out;
  }
  if (st_t < 0 ||
      path_col(g, path, "region_ids", H5T_NATIVE_INT32, 4, &n, (void **)&reg,
               err) ||
      path_col(g, path, "parents", H5T_NATIVE_INT32, 4, &n, (void **)&par,
               err) ||
      path_col(g, path, "ranks", H5T_NATIVE_INT32, 4, &n, (void **)&rk, err) ||
      path_col(g, path, "threads", H5T_NATIVE_INT32, 4, &n, (void **)&th,
               err) ||
      path_col(g, path, "statistics", st_t, sizeof *st, &n, (void **)&st,
               err) ||
      path_col(g, path, "sum_squares_hi", H5T_NATIVE_UINT64, 8, &n,
               (void **)&hi, err) ||
      path_col(g, path, "sum_squares_lo", H5T_NATIVE_UINT64, 8, &n,
               (void **)&lo, err))
    goto out;
  out->regions = calloc(nnames ? (size_t)nnames : 1, sizeof *out->regions);
  out->paths = malloc(n ? (size_t)n * sizeof *out->paths : 1);
  if (!out->regions || !out->paths) {
    fail(err, path, "out of memory");
    goto out;
  }
  for (int64_t i = 0; i < nnames; i++) {
    out->regions[i].line = -1;
    if (!(out->regions[i].name = strdup(x.names[i]))) {
      out->nregions = i;
      fail(err, path, "out of memory");
      goto out;
    }
  }
  out->nregions = nnames;
  for (int64_t i = 0; i < x.n; i++) { /* first known place of each region */
    sp_fmt_region *r = &out->regions[x.region[i]];
    if (!r->file && x.file && x.file[i] && x.file[i][0]) {
      if (!(r->file = strdup(x.file[i]))) {
        fail(err, path, "out of memory");
        goto out;
      }
      r->line = x.line ? x.line[i] : -1;
    }
  }
  for (int64_t i = 0; i < n; i++) {
    if (reg[i] < 0 || reg[i] >= nnames || rk[i] < 0 || th[i] < 0 ||
        par[i] < -1 || par[i] >= i ||
        (par[i] >= 0 && (rk[par[i]] != rk[i] || th[par[i]] != th[i])) ||
        st[i].calls < 0) {
      fail(err, path,
           "call_paths row %" PRId64 ": region, parent, rank, thread or "
           "calls out of range",
           i);
      goto out;
    }
    sp_fmt_ppath *p = &out->paths[i];
    p->parent = par[i];
    p->region = reg[i];
    p->rank = rk[i];
    p->thread = th[i];
    sp_fmt_psum_init(&p->s);
    if (st[i].calls > 0) {
      p->s.calls = st[i].calls;
      p->s.total = st[i].total_ns;
      p->s.excl = st[i].exclusive_ns;
      p->s.outer = st[i].outer_total_ns;
      p->s.min = st[i].min_ns;
      p->s.max = st[i].max_ns;
      p->s.first = st[i].first_start_ns;
      p->s.last = st[i].last_end_ns;
      p->s.sq = (unsigned __int128)hi[i] << 64 | lo[i];
    }
  }
  out->npaths = n;
  rc = 0;
out:
  if (g >= 0)
    H5Gclose(g);
  if (st_t >= 0)
    H5Tclose(st_t);
  H5Fclose(f);
  idx_free(&x);
  free(reg), free(par), free(rk), free(th), free(hi), free(lo), free(st);
  if (rc != 0) {
    sp_fmt_profile_free(out);
    sp_fmt_meta_free(meta);
  }
  return (int)rc;
}

int sp_fmt_h5_read_profile(const char *path, sp_fmt_profile *out,
                           sp_fmt_meta *meta, sp_fmt_err *err) {
  sp_fmt_guard_enter(path);
  int r = h5_read_profile_in(path, out, meta, err);
  sp_fmt_guard_leave();
  return r;
}
