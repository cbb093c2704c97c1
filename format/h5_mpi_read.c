/* h5_mpi_read.c - a schema-2 file's optional MPI datasets read back:
 * rank<N>/mpi/messages and rank<N>/mpi/communicators
 * (docs/format-hdf5.md). A file without them has no messages. */
#include "sp_guard.h"
#include "sp_h5.h"
#include "sp_h5_util.h"
#include "sp_h5_vlen.h"
#include "sp_rank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A one-dimensional column of n values as mt into a new buffer; -1 when
 * missing or of another length. */
static int col(hid_t g, const char *name, hid_t mt, size_t size, int64_t *n,
               void **out) {
  *out = NULL;
  hid_t ds = H5Dopen2(g, name, H5P_DEFAULT);
  if (ds < 0)
    return -1;
  hid_t sp = H5Dget_space(ds);
  hsize_t d = 0;
  int rc = -1;
  if (sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
      H5Sget_simple_extent_dims(sp, &d, NULL) >= 0 &&
      (*n < 0 || (int64_t)d == *n)) {
    *n = (int64_t)d;
    *out = malloc((size_t)d * size + 8);
    if (*out &&
        (d == 0 || H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) >= 0))
      rc = 0;
  }
  if (sp >= 0)
    H5Sclose(sp);
  H5Dclose(ds);
  if (rc) {
    free(*out);
    *out = NULL;
  }
  return rc;
}

enum { NCOLS = 12 };
static const char *const cols[NCOLS] = {
    "start_ns",   "thread",     "region",    "kind",
    "peer",       "tag",        "comm",      "root",
    "bytes_sent", "bytes_recv", "origin_ns", "origin_region"};

static int read_rank(hid_t f, int32_t rank, int64_t nnames, sp_fmt_mpi *m) {
  char name[64];
  snprintf(name, sizeof name, "rank%d/mpi/messages", (int)rank);
  hid_t g = H5Gopen2(f, name, H5P_DEFAULT);
  if (g < 0)
    return -1;
  void *c[NCOLS] = {0};
  int64_t n = -1;
  int rc = 0;
  for (int i = 0; i < NCOLS && rc == 0; i++) {
    int wide = i == 0 || i == 8 || i == 9 || i == 10;
    rc = col(g, cols[i], wide ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32,
             wide ? 8 : 4, &n, &c[i]);
  }
  H5Gclose(g);
  if (rc == 0) {
    m->msgs = malloc((size_t)n * sizeof *m->msgs + 1);
    rc = m->msgs ? 0 : -1;
  }
  for (int64_t k = 0; rc == 0 && k < n; k++) {
    sp_fmt_mpimsg *x = &m->msgs[k];
#define I32(j) (((const int32_t *)c[j])[k])
#define I64(j) (((const int64_t *)c[j])[k])
    x->start_ns = I64(0);
    x->thread = I32(1);
    x->region = I32(2) >= 0 && I32(2) < nnames ? I32(2) : -1;
    x->kind = I32(3);
    x->peer = I32(4);
    x->tag = I32(5);
    x->comm = I32(6);
    x->root = I32(7);
    x->sent = I64(8);
    x->recvd = I64(9);
    x->origin_ns = I64(10);
    x->origin_region = I32(11) >= 0 && I32(11) < nnames ? I32(11) : -1;
#undef I32
#undef I64
  }
  if (rc == 0)
    m->nmsgs = n;
  for (int i = 0; i < NCOLS; i++)
    free(c[i]);
  if (rc != 0)
    return -1;
  snprintf(name, sizeof name, "rank%d/mpi/communicators", (int)rank);
  if ((g = H5Gopen2(f, name, H5P_DEFAULT)) < 0)
    return 0; /* messages without communicators: none known */
  int32_t *ids = NULL, *sizes = NULL, *mem = NULL;
  int64_t *offs = NULL, nc = -1, nm = -1;
  if (col(g, "ids", H5T_NATIVE_INT32, 4, &nc, (void **)&ids) == 0 &&
      col(g, "sizes", H5T_NATIVE_INT32, 4, &nc, (void **)&sizes) == 0 &&
      col(g, "member_offsets", H5T_NATIVE_INT64, 8, &nc, (void **)&offs) == 0 &&
      col(g, "members", H5T_NATIVE_INT32, 4, &nm, (void **)&mem) == 0 &&
      (m->comms = calloc((size_t)nc + 1, sizeof *m->comms))) {
    for (int64_t i = 0; i < nc; i++) {
      if (sizes[i] < 0 || offs[i] < 0 || offs[i] + sizes[i] > nm)
        break;
      sp_fmt_mpicomm *x = &m->comms[m->ncomms];
      x->id = ids[i];
      x->size = sizes[i];
      if (!(x->members = malloc((size_t)sizes[i] * 4 + 4)))
        break;
      memcpy(x->members, mem + offs[i], (size_t)sizes[i] * 4);
      m->ncomms++;
    }
  }
  free(ids);
  free(sizes);
  free(offs);
  free(mem);
  H5Gclose(g);
  return 0;
}

typedef struct walk {
  int32_t *ranks;
  int64_t n, cap;
} walk;

static herr_t on_link(hid_t loc, const char *name, const H5L_info_t *info,
                      void *data) {
  (void)info;
  walk *wk = data;
  int r, used = 0;
  char path[80];
  if (sscanf(name, "rank%d%n", &r, &used) != 1 || name[used] || r < 0)
    return 0;
  snprintf(path, sizeof path, "%s/mpi", name);
  if (H5Lexists(loc, path, H5P_DEFAULT) <= 0)
    return 0;
  snprintf(path, sizeof path, "%s/mpi/messages", name);
  if (H5Lexists(loc, path, H5P_DEFAULT) <= 0)
    return 0;
  if (wk->n == wk->cap) {
    int64_t cap = wk->cap ? wk->cap * 2 : 16;
    int32_t *v = realloc(wk->ranks, (size_t)cap * sizeof *v);
    if (!v)
      return -1;
    wk->ranks = v;
    wk->cap = cap;
  }
  wk->ranks[wk->n++] = r;
  return 0;
}

static int by_rank(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

int sp__h5_mpi_ranks(hid_t f, int32_t **ranks, int64_t *n) {
  walk wk = {0};
  herr_t rc;
  H5E_BEGIN_TRY {
    rc = H5Literate(f, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, on_link, &wk);
  }
  H5E_END_TRY;
  if (rc < 0) {
    free(wk.ranks);
    return -1;
  }
  if (wk.n > 1) /* qsort's base must not be NULL, even for 0 elements */
    qsort(wk.ranks, (size_t)wk.n, sizeof *wk.ranks, by_rank);
  *ranks = wk.ranks;
  *n = wk.n;
  return 0;
}

int sp__h5_mpi_read(hid_t f, int32_t rank, char *const *names, int64_t nnames,
                    sp_fmt_mpi *m) {
  memset(m, 0, sizeof *m);
  char path[64];
  snprintf(path, sizeof path, "rank%d/mpi/messages", (int)rank);
  int there = 0;
  H5E_BEGIN_TRY {
    snprintf(path, sizeof path, "rank%d", (int)rank);
    if (H5Lexists(f, path, H5P_DEFAULT) > 0) {
      snprintf(path, sizeof path, "rank%d/mpi", (int)rank);
      if (H5Lexists(f, path, H5P_DEFAULT) > 0) {
        snprintf(path, sizeof path, "rank%d/mpi/messages", (int)rank);
        there = H5Lexists(f, path, H5P_DEFAULT) > 0;
      }
    }
  }
  H5E_END_TRY;
  if (!there)
    return 0;
  int rc;
  H5E_BEGIN_TRY { rc = read_rank(f, rank, nnames, m); }
  H5E_END_TRY;
  m->names = calloc((size_t)nnames + 1, sizeof *m->names);
  if (rc != 0 || !m->names) {
    sp_fmt_mpi_free(m);
    return -1;
  }
  for (int64_t i = 0; i < nnames; i++)
    if (!(m->names[m->nnames++] = strdup(names[i]))) {
      sp_fmt_mpi_free(m);
      return -1;
    }
  return 0;
}

static int h5_read_mpi_in(const char *path, sp_fmt_mpi_rank **out, int64_t *n,
                          sp_fmt_err *err) {
  *out = NULL;
  *n = 0;
  sp__h5_quiet();
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) {
    sp_fmt_err_set(err, "%s: cannot open as HDF5", path);
    return -1;
  }
  int32_t *ranks = NULL;
  int64_t nr = 0, nnames = 0;
  char **names = NULL;
  int rc = -1;
  hid_t ds = -1;
  if (sp__h5_mpi_ranks(f, &ranks, &nr) != 0)
    goto out;
  if (nr == 0) {
    rc = 0;
    goto out;
  }
  ds = H5Dopen2(f, "region_table/names", H5P_DEFAULT);
  if (ds < 0 || sp__h5_strings(ds, &names, &nnames) != 0)
    goto out;
  *out = calloc((size_t)nr, sizeof **out);
  if (!*out)
    goto out;
  for (int64_t i = 0; i < nr; i++) {
    (*out)[i].rank = ranks[i];
    if (sp__h5_mpi_read(f, ranks[i], names, nnames, &(*out)[i].mpi) != 0)
      goto out;
    *n = i + 1;
  }
  rc = 0;
out:
  if (rc != 0) {
    const char *checked = sp__h5_vlen_take(); /* a damaged string's */
    sp_fmt_err_set(err, "%s: cannot read the MPI datasets (rank<N>/mpi)%s%s",
                   path, checked ? ": " : "", checked ? checked : "");
    for (int64_t i = 0; i < *n; i++)
      sp_fmt_mpi_free(&(*out)[i].mpi);
    free(*out);
    *out = NULL;
    *n = 0;
  }
  if (ds >= 0)
    H5Dclose(ds);
  for (int64_t i = 0; i < nnames; i++)
    free(names[i]);
  free(names);
  free(ranks);
  H5Fclose(f);
  return rc;
}

int sp_fmt_h5_read_mpi(const char *path, sp_fmt_mpi_rank **out, int64_t *n,
                       sp_fmt_err *err) {
  sp_fmt_guard_enter(path);
  int r = h5_read_mpi_in(path, out, n, err);
  sp_fmt_guard_leave();
  return r;
}
