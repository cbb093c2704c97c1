/* export_csv.c - the summary rows as CSV: integer nanoseconds, so a
 * spreadsheet or script gets the exact values. */
#include "report.h"

#include <stdlib.h>

int rp_export_csv(const rp_profile *p, const rp_opts *o, FILE *f,
                  sp_fmt_err *err) {
  rp_agg *v;
  int64_t n;
  if (rp_aggregate(p, o, o->by, &v, &n, err) != 0)
    return -1;
  fprintf(f,
          "region,%s,calls,total_ns,avg_ns,min_ns,max_ns,std_ns,"
          "exclusive_ns,span_pct,imbalance,thread_imbalance,file,line\n",
          o->by == RP_BY_THREAD ? "rank,thread"
          : o->by == RP_BY_RANK ? "rank"
                                : "ranks");
  for (int64_t i = 0; i < n; i++) {
    const rp_agg *a = &v[i];
    rp_csv_str(f, p->names[a->name]);
    fprintf(f, ",%d", o->by ? a->rank : a->nranks);
    if (o->by == RP_BY_THREAD)
      fprintf(f, ",%d", a->thread);
    fprintf(f, ",%lld,%lld,%.3f,%lld,%lld,%.3f,%lld,%.4f,%.4f,%.4f,",
            (long long)a->calls, (long long)a->total, a->mean,
            (long long)a->min, (long long)a->max, a->std, (long long)a->excl,
            a->pct, a->imbalance, a->timbal);
    rp_csv_str(f, p->files[a->name] ? p->files[a->name] : "");
    fprintf(f, ",%d\n", p->lines[a->name]);
  }
  free(v);
  return 0;
}
