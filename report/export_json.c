/* export_json.c - region statistics as JSON in the layout of
 * scope-profiler's region_statistics.json (seconds, per rank, names common
 * to all inputs). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static void stats(FILE *f, const rp_agg *a) {
  fprintf(
      f,
      "\"count\": %lld, \"average\": %.15g, \"min\": %.15g, \"max\": %.15g, "
      "\"std\": %.15g, \"total\": %.15g, \"exclusive\": %.15g",
      (long long)a->calls, a->mean / 1e9, (double)a->min / 1e9,
      (double)a->max / 1e9, a->std / 1e9, (double)a->total / 1e9,
      (double)a->excl / 1e9);
}

static int one(const rp_profile *p, const rp_opts *o, FILE *f,
               sp_fmt_err *err) {
  rp_agg *v, *r;
  int64_t n, nr;
  if (rp_aggregate(p, o, RP_BY_REGION, &v, &n, err) != 0)
    return -1;
  rp_opts all = *o; /* per-rank rows of every region, by name then rank */
  all.sort = "region";
  all.top = 0;
  int64_t *at = malloc((p->nnames ? (size_t)p->nnames : 1) * sizeof *at);
  if (!at || rp_aggregate(p, &all, RP_BY_RANK, &r, &nr, err) != 0) {
    if (!at)
      sp_fmt_err_set(err, "%s: out of memory", p->label);
    free(v);
    free(at);
    return -1;
  }
  for (int64_t i = 0; i < p->nnames; i++)
    at[i] = -1;
  for (int64_t k = nr; k-- > 0;)
    at[r[k].name] = k;
  fprintf(f, "    {\"file\": ");
  rp_json_str(f, p->label);
  fprintf(f, ", \"mpi_size\": %lld, \"span\": %.15g, \"regions\": {",
          (long long)rp_mpi_size(p),
          p->span_hi > p->span_lo
              ? ((double)p->span_hi - (double)p->span_lo) / 1e9
              : 0.0);
  for (int64_t i = 0; i < n; i++) {
    const rp_agg *a = &v[i];
    fprintf(f, "%s\n      ", i ? "," : "");
    rp_json_str(f, p->names[a->name]);
    fprintf(f, ": {");
    stats(f, a);
    fprintf(f,
            ", \"ranks\": %d, \"imbalance\": %.6g, \"thread_imbalance\": "
            "%.6g, \"source_file\": ",
            a->nranks, a->imbalance, a->timbal);
    if (p->files[a->name])
      rp_json_str(f, p->files[a->name]);
    else
      fputs("null", f);
    fprintf(f, ", \"source_lineno\": %d, \"per_rank\": {", p->lines[a->name]);
    for (int64_t k = at[a->name]; k >= 0 && k < nr && r[k].name == a->name;
         k++) {
      fprintf(f, "%s\"%d\": {", k == at[a->name] ? "" : ", ", r[k].rank);
      stats(f, &r[k]);
      fputc('}', f);
    }
    fputs("}}", f);
  }
  fputs("\n    }}", f);
  free(v);
  free(r);
  free(at);
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int rp_export_json(rp_profile *const *ps, int n, const rp_opts *o, FILE *f,
                   sp_fmt_err *err) {
  fputs("{\n  \"units\": \"seconds\",\n  \"files\": [\n", f);
  for (int i = 0; i < n; i++) {
    if (i)
      fputs(",\n", f);
    if (one(ps[i], o, f, err) != 0)
      return -1;
  }
  fputs("\n  ],\n  \"common_regions\": [", f);
  /* Names of the first input present (and selected) in every other one. */
  const rp_profile *p0 = ps[0];
  char **common =
      malloc((p0->nnames ? (size_t)p0->nnames : 1) * sizeof *common);
  if (!common) {
    sp_fmt_err_set(err, "%s: out of memory", p0->label);
    return -1;
  }
  int64_t m = 0;
  for (int64_t j = 0; j < p0->nnames; j++) {
    if (!rp_name_selected(o, p0->names[j]))
      continue;
    int in_all = 1;
    for (int i = 1; i < n && in_all; i++)
      in_all = rp_name_find(ps[i], p0->names[j]) >= 0;
    if (in_all)
      common[m++] = p0->names[j];
  }
  qsort(common, (size_t)m, sizeof *common, cmp_str);
  for (int64_t j = 0; j < m; j++) {
    fputs(j ? ", " : "", f);
    rp_json_str(f, common[j]);
  }
  free(common);
  fputs("]\n}\n", f);
  return 0;
}
