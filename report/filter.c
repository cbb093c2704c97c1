/* filter.c - which ranks (--ranks LIST) and regions (--include/--exclude)
 * an output shows. */
#include "report.h"

#include <errno.h>
#include <stdlib.h>

/* "0,2-3,8": ranges of non-negative ranks; anything else is refused. */
int rp_parse_ranks(const char *s, rp_opts *o) {
  const char *p = s;
  while (*p) {
    char *end;
    errno = 0;
    long lo = strtol(p, &end, 10), hi;
    if (end == p || lo < 0 || lo > INT32_MAX || errno)
      return -1;
    p = end;
    hi = lo;
    if (*p == '-') {
      const char *q = ++p;
      hi = strtol(q, &end, 10);
      if (end == q || hi < lo || hi > INT32_MAX || errno)
        return -1;
      p = end;
    }
    rp_range *v = realloc(o->ranks, (size_t)(o->nranks + 1) * sizeof *v);
    if (!v)
      return -1;
    o->ranks = v;
    o->ranks[o->nranks++] = (rp_range){(int32_t)lo, (int32_t)hi};
    if (*p == ',' && p[1])
      p++;
    else if (*p)
      return -1;
  }
  return o->nranks ? 0 : -1;
}

int rp_rank_selected(const rp_opts *o, int32_t rank) {
  if (!o->ranks)
    return 1;
  for (int i = 0; i < o->nranks; i++)
    if (rank >= o->ranks[i].lo && rank <= o->ranks[i].hi)
      return 1;
  return 0;
}

int rp_name_selected(const rp_opts *o, const char *name) {
  if (o->have_include && regexec(&o->include, name, 0, NULL, 0) != 0)
    return 0;
  if (o->have_exclude && regexec(&o->exclude, name, 0, NULL, 0) == 0)
    return 0;
  return 1;
}
