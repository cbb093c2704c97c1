/* mpi_load.c - the MPI messages of the inputs (rank<N>/mpi of an .h5, the
 * MPI records of a stream, the file beside a .spt) for --matrix, --mpi's
 * bytes and wait states, and the OTF2 export's messages. */
#include "report.h"

#include "sp_h5.h"
#include "sp_inputs.h"
#include "sp_spt.h"
#include "sp_stream.h"

#include <stdlib.h>
#include <string.h>

static int keep(rp_profile *p, const rp_opts *o, int32_t rank, sp_fmt_mpi *m,
                const char *path, sp_fmt_err *err) {
  if (!rp_rank_selected(o, rank) || (!m->nmsgs && !m->ncomms)) {
    sp_fmt_mpi_free(m);
    return 0;
  }
  sp_fmt_mpi_rank *v = realloc(p->mpi, (size_t)(p->nmpi + 1) * sizeof *p->mpi);
  if (!v) {
    sp_fmt_mpi_free(m);
    sp_fmt_err_set(err, "%s: out of memory", path);
    return -1;
  }
  p->mpi = v;
  p->mpi[p->nmpi].rank = rank;
  p->mpi[p->nmpi++].mpi = *m;
  memset(m, 0, sizeof *m);
  return 0;
}

static int by_rank(const void *a, const void *b) {
  const sp_fmt_mpi_rank *x = a, *y = b;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

int rp_load_mpi(char *const *args, int nargs, const rp_opts *o, rp_profile *p,
                sp_fmt_err *err) {
  sp_fmt_inputs in;
  if (sp_fmt_inputs_find(args, nargs, &in, err) != 0)
    return -1;
  int rc = 0, spt_mpi = sp_fmt_inputs_spt_mpi(&in);
  for (int64_t i = 0; rc == 0 && i < in.n; i++) {
    const sp_fmt_input *x = &in.v[i];
    if (x->kind == SP_FMT_INPUT_H5) {
#ifdef SP_USE_HDF5
      sp_fmt_mpi_rank *v = NULL;
      int64_t n = 0;
      rc = sp_fmt_h5_read_mpi(x->path, &v, &n, err);
      for (int64_t k = 0; k < n; k++)
        if (rc == 0)
          rc = keep(p, o, v[k].rank, &v[k].mpi, x->path, err);
        else
          sp_fmt_mpi_free(&v[k].mpi);
      free(v);
#endif
    } else if (x->kind == SP_FMT_INPUT_STREAM) {
      sp_fmt_stream *s;
      sp_fmt_mpi m;
      if ((rc = sp_fmt_stream_open(x->path, 0, &s, err)) != 0)
        break;
      sp_fmt_stream_info info;
      sp_fmt_stream_get_info(s, &info);
      rc = sp_fmt_stream_mpi(s, &m, err);
      sp_fmt_stream_close(s);
      if (rc == 0)
        rc = keep(p, o, info.rank, &m, x->path, err);
    } else if (x->kind == SP_FMT_INPUT_SPT) {
      sp_fmt_rank r;
      sp_fmt_mpi m;
      if ((rc = sp_fmt_spt_index(x->path, &r, err)) != 0)
        break;
      int32_t rank = r.rank;
      sp_fmt_rank_free(&r);
      if (sp_fmt_spt_mpi_take(x->path, rank, spt_mpi, "sp-report", &m))
        rc = keep(p, o, rank, &m, x->path, err);
    }
  }
  sp_fmt_inputs_free(&in);
  if (rc == 0 && p->nmpi)
    qsort(p->mpi, (size_t)p->nmpi, sizeof *p->mpi, by_rank);
  p->mpi_loaded = rc == 0;
  return rc;
}

void rp_mpi_free(rp_profile *p) {
  for (int64_t i = 0; i < p->nmpi; i++)
    sp_fmt_mpi_free(&p->mpi[i].mpi);
  free(p->mpi);
  p->mpi = NULL;
  p->nmpi = 0;
}
