/* h5_write_par.c - the events of a merged schema-2 file, written by every
 * rank of an MPI job together: parallel HDF5 creates the file and its
 * events datasets, MPI-IO collective writes fill them; the rest of the
 * file is one rank's, through sp_fmt_h5w_adopt. */
#include "sp_common.h"
#include "sp_h5_util.h"
#include "sp_h5p.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The calls go through MPI-IO at the places HDF5 allocated, not through
 * H5Dwrite: for a contiguous dataset that is the same collective write
 * HDF5 makes, and a write failing on some ranks only leaves every rank's
 * MPI-IO in step, where HDF5's close then ran different collectives on
 * different ranks and hung (one rank past its file size limit). */
struct sp_fmt_h5p {
  MPI_Comm comm;
  MPI_File fh;
  int64_t at[2]; /* file offsets of start_times and end_times */
  char *tmp;
  int failed; /* this rank: a write failed */
};

/* Whether every rank of comm has ok (an MPI failure counts as not). */
static int all_ok(MPI_Comm comm, int ok) {
  int all = 0;
  if (PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
    return 0;
  return all;
}

static void h5fail(sp_fmt_err *err, const char *tmp, const char *what) {
  char why[256];
  sp__h5_reason(why, sizeof why);
  sp_fmt_err_set(err, "%s: parallel HDF5 could not create %s: %s", tmp, what,
                 why);
}

static void mpifail(sp_fmt_err *err, const char *tmp, const char *what,
                    int code) {
  char why[MPI_MAX_ERROR_STRING + 1] = "";
  int len = 0;
  if (PMPI_Error_string(code, why, &len) != MPI_SUCCESS)
    snprintf(why, sizeof why, "MPI error %d", code);
  for (char *c = why; *c; c++)
    if (*c == '\n')
      *c = ' ';
  sp_fmt_err_set(err, "%s: MPI-IO could not %s: %s", tmp, what, why);
}

/* Collective: the file, group events and its two allocated datasets,
 * through parallel HDF5; their offsets in at. 0 on every rank, or -1 on
 * every rank (err set on those that failed). */
static int skeleton(const char *tmp, MPI_Comm comm, int64_t n, int64_t at[2],
                    sp_fmt_err *err) {
  /* The serial writer's alignment: the events start on a 256 KiB
   * boundary of the file. */
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), file = -1;
  if (fapl >= 0 && H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) >= 0 &&
      H5Pset_alignment(fapl, (hsize_t)4 << 20, (hsize_t)256 << 10) >= 0)
    file = H5Fcreate(tmp, H5F_ACC_EXCL, H5P_DEFAULT, fapl);
  if (fapl >= 0)
    H5Pclose(fapl);
  int ok = file >= 0;
  if (!ok)
    h5fail(err, tmp, "the file");
  if (!all_ok(comm, ok)) {
    if (ok)
      sp_fmt_err_set(err, "%s: another rank could not create it", tmp);
    if (file >= 0)
      H5Fclose(file);
    return -1;
  }
  hsize_t dims = (hsize_t)n;
  hid_t g = H5Gcreate2(file, "events", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t sp = H5Screate_simple(1, &dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  ok = g >= 0 && sp >= 0 && dcpl >= 0 &&
       H5Pset_layout(dcpl, H5D_CONTIGUOUS) >= 0 &&
       H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) >= 0 &&
       H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0;
  const char *names[2] = {"events/start_times", "events/end_times"};
  for (int i = 0; i < 2 && ok; i++) {
    hid_t ds = H5Dcreate2(file, names[i], H5T_STD_I64LE, sp, H5P_DEFAULT, dcpl,
                          H5P_DEFAULT);
    haddr_t a = ds >= 0 ? H5Dget_offset(ds) : HADDR_UNDEF;
    ok = ds >= 0 && (n == 0 || (a != HADDR_UNDEF && a <= (haddr_t)INT64_MAX));
    at[i] = ok && n > 0 ? (int64_t)a : 0;
    if (ds >= 0 && H5Dclose(ds) < 0)
      ok = 0;
  }
  if (!ok)
    h5fail(err, tmp, "the events datasets");
  if (g >= 0)
    H5Gclose(g);
  if (sp >= 0)
    H5Sclose(sp);
  if (dcpl >= 0)
    H5Pclose(dcpl);
  /* Collective whatever happened here: every rank closes. */
  if (H5Fclose(file) < 0 && ok) {
    h5fail(err, tmp, "the file (close)");
    ok = 0;
  }
  if (!all_ok(comm, ok)) {
    if (ok)
      sp_fmt_err_set(err, "%s: another rank could not create the events", tmp);
    return -1;
  }
  return 0;
}

sp_fmt_h5p *sp_fmt_h5p_create(const char *tmp, MPI_Comm comm, int64_t n,
                              sp_fmt_err *err) {
  sp__h5_quiet();
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  sp_fmt_h5p *p = calloc(1, sizeof *p);
  if (p) {
    p->comm = comm;
    p->tmp = strdup(tmp);
  }
  int ok = p && p->tmp && n >= 0;
  if (!all_ok(comm, ok)) {
    sp_fmt_err_set(err, "%s: %s", tmp,
                   ok ? "another rank is out of memory" : "out of memory");
    goto bad;
  }
  if (skeleton(tmp, comm, n, p->at, err) != 0)
    goto bad_unlink;
  int rc = PMPI_File_open(comm, tmp, MPI_MODE_WRONLY, MPI_INFO_NULL, &p->fh);
  if (rc != MPI_SUCCESS)
    mpifail(err, tmp, "open it", rc);
  if (!all_ok(comm, rc == MPI_SUCCESS)) {
    if (rc == MPI_SUCCESS) {
      sp_fmt_err_set(err, "%s: another rank could not open it", tmp);
      PMPI_File_close(&p->fh);
    }
    goto bad_unlink;
  }
  PMPI_File_set_errhandler(p->fh, MPI_ERRORS_RETURN);
  return p;
bad_unlink:
  if (rank == 0)
    unlink(tmp);
bad:
  H5Eclear2(H5E_DEFAULT);
  if (p)
    free(p->tmp);
  free(p);
  return NULL;
}

int sp_fmt_h5p_put(sp_fmt_h5p *p, int64_t first, int64_t *starts, int64_t *ends,
                   int64_t n, sp_fmt_err *err) {
  int64_t *buf[2] = {starts, ends}, none = 0;
  if (n < 0 || n > INT32_MAX / 8 || (n > 0 && first < 0))
    n = 0, p->failed = p->failed ? p->failed : -1;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  for (int i = 0; i < 2; i++)
    for (int64_t k = 0; k < n; k++)
      buf[i][k] = (int64_t)__builtin_bswap64((uint64_t)buf[i][k]);
#endif
  for (int i = 0; i < 2; i++) {
    /* A rank with nothing (more) to write still takes part, with 0 bytes. */
    MPI_Status st;
    int bytes = (int)(n * 8), got = 0;
    int rc = PMPI_File_write_at_all(p->fh, (MPI_Offset)(p->at[i] + first * 8),
                                    n > 0 ? (void *)buf[i] : &none, bytes,
                                    MPI_BYTE, &st);
    if (rc == MPI_SUCCESS &&
        (PMPI_Get_count(&st, MPI_BYTE, &got) != MPI_SUCCESS || got != bytes))
      rc = MPI_ERR_IO;
    if (rc != MPI_SUCCESS && !p->failed) {
      mpifail(err, p->tmp, "write the events", rc);
      p->failed = 1;
    }
  }
  if (p->failed < 0) {
    sp_fmt_err_set(err, "%s: events %lld..%lld cannot be written", p->tmp,
                   (long long)first, (long long)(first + n));
    p->failed = 1;
  }
  return p->failed ? -1 : 0;
}

int sp_fmt_h5p_close(sp_fmt_h5p *p, sp_fmt_err *err) {
  int failed = p->failed;
  int rc = PMPI_File_close(&p->fh);
  if (rc != MPI_SUCCESS && !failed) {
    mpifail(err, p->tmp, "close it", rc);
    failed = 1;
  }
  free(p->tmp);
  free(p);
  return failed ? -1 : 0;
}
