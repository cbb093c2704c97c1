/* counters.c - sp-import's counters per region (SP_COUNTERS): each
 * input's tables (an .h5's rank<N>/likwid groups, a stream's COUNTERS
 * records) gathered into one table per rank of the output. */
#include "sp_import.h"

#include <stdlib.h>
#include <string.h>

int sp__imp_ctr_append(sp_fmt_ctr *dst, const sp_fmt_ctr *src, int32_t base,
                       const char *path, sp_fmt_err *err) {
  if (!dst->n) {
    dst->n = src->n;
    memcpy(dst->names, src->names, sizeof dst->names);
  } else if (dst->n != src->n ||
             memcmp(dst->names, src->names,
                    (size_t)src->n * sizeof src->names[0]) != 0) {
    sp_fmt_err_set(err,
                   "%s: rank %d: its counters differ from those of another "
                   "process of the rank",
                   path, dst->rank);
    return -1;
  }
  for (int64_t i = 0; i < src->nrows; i++)
    if (sp_fmt_ctr_add(dst, src->thread[i] + base, src->region[i],
                       src->calls[i], src->incl + i * src->n,
                       src->excl + i * src->n) != 0) {
      sp_fmt_err_set(err, "%s: out of memory", path);
      return -1;
    }
  return 0;
}

int sp__imp_counters(const sp_fmt_inputs *in, const sp_imp_claim *claims,
                     int64_t nclaims, sp_fmt_h5w *w, sp_fmt_err *err) {
  /* one table per distinct rank; claims come sorted by rank */
  sp_fmt_ctr *acc = calloc(nclaims ? (size_t)nclaims : 1, sizeof *acc);
  int64_t *slot = malloc((nclaims ? (size_t)nclaims : 1) * sizeof *slot);
  int64_t nacc = 0;
  int rc = 0;
  if (!acc || !slot) {
    free(acc);
    free(slot);
    sp_fmt_err_set(err, "out of memory");
    return -1;
  }
  for (int64_t c = 0; c < nclaims; c++) {
    if (c == 0 || claims[c].rank != claims[c - 1].rank)
      acc[nacc++].rank = claims[c].rank;
    slot[c] = nacc - 1;
  }
  for (int64_t i = 0; rc == 0 && i < in->n; i++) {
    int64_t c = 0;
    while (c < nclaims && claims[c].input != i)
      c++;
    if (c == nclaims)
      continue; /* left out */
    sp_fmt_ctr *t;
    int64_t nt;
    const char *path = in->v[i].path;
    if (sp_fmt_ctr_read(path, &t, &nt, err) != 0) {
      rc = -1;
      break;
    }
    for (; rc == 0 && c < nclaims; c++) {
      if (claims[c].input != i)
        continue;
      for (int64_t k = 0; rc == 0 && k < nt; k++)
        if (t[k].rank == claims[c].rank)
          rc = sp__imp_ctr_append(&acc[slot[c]], &t[k], claims[c].thread_base,
                                  path, err);
    }
    for (int64_t k = 0; k < nt; k++)
      sp_fmt_ctr_free(&t[k]);
    free(t);
  }
  for (int64_t r = 0; rc == 0 && r < nacc; r++) {
    sp_fmt_ctr_normalize(&acc[r]);
    rc = sp_fmt_h5w_counters(w, &acc[r], err);
  }
  for (int64_t r = 0; r < nacc; r++)
    sp_fmt_ctr_free(&acc[r]);
  free(acc);
  free(slot);
  return rc;
}
