/* h5_mpi_write.c - a schema-2 file's optional MPI datasets, written at
 * close: each rank's messages (rank<N>/mpi/messages/<column>) and
 * communicators (rank<N>/mpi/communicators/...), docs/format-hdf5.md. */
#include "sp_h5.h"
#include "sp_h5w.h"
#include "sp_rank.h"

#include <stdlib.h>
#include <string.h>

int sp_fmt_h5w_mpi(sp_fmt_h5w *w, int32_t rank, sp_fmt_mpi *m,
                   sp_fmt_err *err) {
  if (!m->nmsgs && !m->ncomms) {
    sp_fmt_mpi_free(m);
    return 0;
  }
  /* another process of a rank already given: its messages join them */
  for (int64_t i = 0; i < w->nmpi; i++) {
    if (w->mpi[i].rank != rank)
      continue;
    sp_fmt_mpi *to = &w->mpi[i].mpi;
    sp_fmt_mpimsg *v =
        realloc(to->msgs, (size_t)(to->nmsgs + m->nmsgs) * sizeof *v + 1);
    sp_fmt_mpicomm *c =
        v ? realloc(to->comms, (size_t)(to->ncomms + m->ncomms) * sizeof *c + 1)
          : NULL;
    if (v)
      to->msgs = v;
    if (c)
      to->comms = c;
    int rc = v && c ? 0 : -1;
    for (int64_t k = 0; rc == 0 && k < m->nmsgs; k++) {
      sp_fmt_mpimsg x = m->msgs[k];
      if (x.region >= 0 &&
          (x.region = sp_fmt_mpi_name(to, m->names[x.region])) < 0)
        rc = -1;
      if (x.origin_region >= 0 && (x.origin_region = sp_fmt_mpi_name(
                                       to, m->names[x.origin_region])) < 0)
        rc = -1;
      to->msgs[to->nmsgs++] = x;
    }
    for (int64_t k = 0; rc == 0 && k < m->ncomms; k++) {
      to->comms[to->ncomms++] = m->comms[k];
      m->comms[k].members = NULL;
    }
    sp_fmt_mpi_free(m);
    if (rc != 0)
      sp__h5w_fail(err, w->path, "out of memory");
    return rc;
  }
  if (w->nmpi == w->capmpi) {
    int64_t cap = w->capmpi ? w->capmpi * 2 : 16;
    sp_fmt_mpi_rank *v = realloc(w->mpi, (size_t)cap * sizeof *v);
    if (!v) {
      sp__h5w_fail(err, w->path, "out of memory");
      return -1;
    }
    w->mpi = v;
    w->capmpi = cap;
  }
  w->mpi[w->nmpi].rank = rank;
  w->mpi[w->nmpi++].mpi = *m;
  memset(m, 0, sizeof *m);
  return 0;
}

static int col(hid_t g, const char *name, hid_t ft, hid_t mt, int64_t n,
               const void *data) {
  hsize_t d = (hsize_t)n;
  hid_t sp = H5Screate_simple(1, &d, NULL);
  if (sp < 0)
    return -1;
  hid_t ds = H5Dcreate2(g, name, ft, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Sclose(sp);
  if (ds < 0)
    return -1;
  herr_t rc = n > 0 ? H5Dwrite(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) : 0;
  if (H5Dclose(ds) < 0)
    rc = -1;
  return rc < 0 ? -1 : 0;
}

static hid_t group(hid_t f, const char *name) {
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  if (lcpl < 0)
    return -1;
  H5Pset_create_intermediate_group(lcpl, 1);
  hid_t g = H5Gcreate2(f, name, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  H5Pclose(lcpl);
  return g;
}

/* One rank's messages and communicators. */
static int write_one(sp_fmt_h5w *w, const sp_fmt_mpi_rank *mr,
                     const char **what) {
  const sp_fmt_mpi *m = &mr->mpi;
  char name[64];
  int64_t n = m->nmsgs, cnt = n ? n : 1;
  int32_t *reg = malloc((size_t)m->nnames * sizeof *reg + 4);
  int32_t *i32 = malloc((size_t)cnt * sizeof *i32);
  int64_t *i64 = malloc((size_t)cnt * sizeof *i64);
  int rc = -1;
  hid_t g = -1;
  *what = "out of memory";
  if (!reg || !i32 || !i64)
    goto out;
  for (int64_t i = 0; i < m->nnames; i++)
    if ((reg[i] = sp__h5w_region_id(w, m->names[i])) < 0)
      goto out;
  snprintf(name, sizeof name, "rank%d/mpi/messages", (int)mr->rank);
  *what = "MPI messages";
  if ((g = group(w->file, name)) < 0)
    goto out;
#define C32(NAME, EXPR)                                                        \
  for (int64_t i = 0; i < n; i++)                                              \
    i32[i] = (EXPR);                                                           \
  if (col(g, NAME, H5T_STD_I32LE, H5T_NATIVE_INT32, n, i32) < 0)               \
    goto out;
#define C64(NAME, EXPR)                                                        \
  for (int64_t i = 0; i < n; i++)                                              \
    i64[i] = (EXPR);                                                           \
  if (col(g, NAME, H5T_STD_I64LE, H5T_NATIVE_INT64, n, i64) < 0)               \
    goto out;
  C64("start_ns", m->msgs[i].start_ns)
  C32("thread", m->msgs[i].thread)
  C32("region", m->msgs[i].region >= 0 ? reg[m->msgs[i].region] : -1)
  C32("kind", m->msgs[i].kind)
  C32("peer", m->msgs[i].peer)
  C32("tag", m->msgs[i].tag)
  C32("comm", m->msgs[i].comm)
  C32("root", m->msgs[i].root)
  C64("bytes_sent", m->msgs[i].sent)
  C64("bytes_recv", m->msgs[i].recvd)
  C64("origin_ns", m->msgs[i].origin_ns)
  C32("origin_region",
      m->msgs[i].origin_region >= 0 ? reg[m->msgs[i].origin_region] : -1)
  H5Gclose(g);
  g = -1;
  /* communicators: ids, sizes, and members as one column with offsets */
  int64_t nc = m->ncomms, nm = 0;
  for (int64_t i = 0; i < nc; i++)
    nm += m->comms[i].size;
  free(i32);
  free(i64);
  i32 = malloc((size_t)(nm > nc ? nm : nc) * sizeof *i32 + 4);
  i64 = malloc((size_t)nc * sizeof *i64 + 8);
  *what = "MPI communicators";
  snprintf(name, sizeof name, "rank%d/mpi/communicators", (int)mr->rank);
  if (!i32 || !i64 || (g = group(w->file, name)) < 0)
    goto out;
  n = nc;
  C32("ids", m->comms[i].id)
  C32("sizes", m->comms[i].size)
  for (int64_t i = 0, at = 0; i < nc; i++) {
    i64[i] = at;
    memcpy(i32 + at, m->comms[i].members, (size_t)m->comms[i].size * 4);
    at += m->comms[i].size;
  }
  if (col(g, "member_offsets", H5T_STD_I64LE, H5T_NATIVE_INT64, nc, i64) < 0 ||
      col(g, "members", H5T_STD_I32LE, H5T_NATIVE_INT32, nm, i32) < 0)
    goto out;
#undef C32
#undef C64
  rc = 0;
out:
  if (g >= 0 && H5Gclose(g) < 0)
    rc = -1;
  free(reg);
  free(i32);
  free(i64);
  return rc;
}

int sp__h5w_mpi_write(sp_fmt_h5w *w, sp_fmt_err *err) {
  for (int64_t i = 0; i < w->nmpi; i++) {
    const char *what;
    if (write_one(w, &w->mpi[i], &what) != 0) {
      if (strcmp(what, "out of memory") == 0)
        sp__h5w_fail(err, w->path, "out of memory");
      else
        sp__h5w_h5fail(w, err, what);
      return -1;
    }
  }
  return 0;
}

void sp__h5w_mpi_free(sp_fmt_h5w *w) {
  for (int64_t i = 0; i < w->nmpi; i++)
    sp_fmt_mpi_free(&w->mpi[i].mpi);
  free(w->mpi);
  w->mpi = NULL;
  w->nmpi = w->capmpi = 0;
}
