/* omp.c - OpenMP teams across threads: which `omp parallel @ LOC` call on
 * another thread of the rank each worker's `omp implicit task @ LOC` call
 * belongs to (same LOC, the parallel call's interval holding the task's). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static const char PAR[] = "omp parallel @ ", TASK[] = "omp implicit task @ ";

/* The calls of one parallel region on one rank: v[lo, hi), sorted by
 * (start asc, end desc, thread asc); maxdur bounds a backward search. */
typedef struct {
  int32_t rank, name;
  int64_t lo, hi, maxdur;
  int64_t hint; /* the last answer of after(): walks ask in time order */
} group;

struct rp_omp {
  int32_t *par;   /* per name: for a task, its LOC's parallel name; -1 */
  char *is_par;   /* per name: 1 for a parallel region, 2 when kept */
  rp_omp_call *v; /* every call of a parallel region, by (rank, name) */
  int64_t n;
  group *g; /* one per (rank, parallel name), sorted */
  int64_t ng;
  group *last; /* the last group asked for */
};

/* Calls of one rank. */
static int by_group(const void *a, const void *b) {
  const group *x = a, *y = b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return x->name < y->name ? -1 : (x->name > y->name);
}

static int by_call(const void *a, const void *b) {
  const rp_omp_call *x = a, *y = b;
  if (x->name != y->name)
    return x->name < y->name ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->end != y->end)
    return x->end > y->end ? -1 : 1;
  return x->thread < y->thread ? -1 : (x->thread > y->thread);
}

void rp_omp_free(rp_omp *m) {
  if (!m)
    return;
  free(m->par);
  free(m->is_par);
  free(m->v);
  free(m->g);
  free(m);
}

rp_omp *rp_omp_new(const rp_profile *p, const rp_opts *o, sp_fmt_err *err) {
  rp_omp *m = calloc(1, sizeof *m);
  size_t nn = p->nnames ? (size_t)p->nnames : 1;
  if (!m || !(m->par = malloc(nn * sizeof *m->par)) ||
      !(m->is_par = calloc(nn, 1)))
    goto oom;
  int any = 0;
  for (int64_t i = 0; i < p->nnames; i++) {
    const char *s = p->names[i];
    m->par[i] = -1;
    if (strncmp(s, PAR, sizeof PAR - 1) == 0)
      m->is_par[i] = (char)(1 + rp_name_selected(o, s));
    if (strncmp(s, TASK, sizeof TASK - 1) == 0 && rp_name_selected(o, s)) {
      /* The LOC's parallel name, looked up without building it twice. */
      size_t loc = strlen(s + sizeof TASK - 1);
      char *want = malloc(sizeof PAR + loc);
      if (!want)
        goto oom;
      memcpy(want, PAR, sizeof PAR - 1);
      memcpy(want + sizeof PAR - 1, s + sizeof TASK - 1, loc + 1);
      int32_t x = rp_name_find(p, want);
      free(want);
      if (x >= 0) {
        m->par[i] = x;
        any = 1;
      }
    }
  }
  if (!any)
    return m;              /* no team to join: every lookup says -1 at once */
  int64_t n = 0, nsrc = 0; /* calls; sources: at least one per group */
  for (int64_t i = 0; i < p->nthreads; i++) {
    const rp_thread *t = &p->threads[i];
    for (int64_t j = 0; j < t->nsrc; j++)
      if (m->is_par[t->name[j]]) {
        n += t->blk[j]->count;
        nsrc++;
      }
  }
  if (!(m->v = malloc((n ? (size_t)n : 1) * sizeof *m->v)) ||
      !(m->g = malloc((nsrc ? (size_t)nsrc : 1) * sizeof *m->g)))
    goto oom;
  /* A rank's threads are next to each other in p->threads, so are its
   * calls here: each rank's are sorted and cut into groups on their own. */
  for (int64_t i = 0, j; i < p->nthreads; i = j) {
    int32_t rank = p->threads[i].rank;
    int64_t lo = m->n;
    for (j = i; j < p->nthreads && p->threads[j].rank == rank; j++) {
      const rp_thread *t = &p->threads[j];
      for (int64_t q = 0; q < t->nsrc; q++) {
        if (!m->is_par[t->name[q]])
          continue;
        const sp_fmt_block *b = t->blk[q];
        for (int64_t k = 0; k < b->count; k++) {
          rp_omp_call c = {.start = b->starts[k],
                           .end = b->ends[k],
                           .node = -1,
                           .thread = t->thread,
                           .name = t->name[q],
                           .as = -1,
                           .kept = (int8_t)(m->is_par[t->name[q]] == 2)};
          m->v[m->n++] = c;
        }
      }
    }
    /* Usually one thread opens a region's teams, calls in start order:
     * then they are in order already. */
    rp_omp_call *v = m->v + lo;
    int64_t nv = m->n - lo, k = 1;
    while (k < nv && by_call(&v[k - 1], &v[k]) <= 0)
      k++;
    if (k < nv)
      qsort(v, (size_t)nv, sizeof *v, by_call);
    for (int64_t a = lo, z; a < m->n; a = z) {
      group *g = &m->g[m->ng++];
      g->rank = rank;
      g->name = m->v[a].name;
      g->lo = g->hint = a;
      g->maxdur = 0;
      for (z = a; z < m->n && m->v[z].name == g->name; z++)
        if (rp_sub(m->v[z].end, m->v[z].start) > g->maxdur)
          g->maxdur = rp_sub(m->v[z].end, m->v[z].start);
      g->hi = z;
    }
  }
  qsort(m->g, (size_t)m->ng, sizeof *m->g, by_group);
  return m;
oom:
  rp_omp_free(m);
  sp_fmt_err_set(err, "%s: out of memory", p->label);
  return NULL;
}

int rp_omp_any(const rp_omp *m) { return m->ng > 0; }

int rp_omp_parallel(const rp_omp *m, int32_t name) {
  return m->is_par[name] != 0;
}

static group *find_group(rp_omp *m, int32_t rank, int32_t name) {
  if (m->last && m->last->rank == rank && m->last->name == name)
    return m->last;
  int64_t lo = 0, hi = m->ng;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    const group *g = &m->g[mid];
    if (g->rank < rank || (g->rank == rank && g->name < name))
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < m->ng && m->g[lo].rank == rank && m->g[lo].name == name)
    return m->last = &m->g[lo];
  return NULL;
}

/* Index in g of the first call starting after s. A walk asks with starts
 * that grow (within a thread, or within a rank when its threads are walked
 * together): a few steps on from the last answer, else a binary search. */
static int64_t after(const rp_omp *m, group *g, int64_t s) {
  int64_t lo = g->lo, hi = g->hi, h = g->hint;
  if (h > lo && m->v[h - 1].start > s) {
    hi = h;
  } else {
    for (int k = 0; k < 8 && h < hi && m->v[h].start <= s; k++)
      h++;
    if (h == hi || m->v[h].start > s)
      return g->hint = h;
    lo = h;
  }
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (m->v[mid].start <= s)
      lo = mid + 1;
    else
      hi = mid;
  }
  return g->hint = lo;
}

rp_omp_call *rp_omp_match(rp_omp *m, const rp_thread *t, const rp_call *c,
                          const rp_call *parent) {
  if (m->ng == 0 || m->par[c->name] < 0)
    return NULL;
  int32_t par = m->par[c->name];
  /* On the encountering thread the task is nested in its parallel call. */
  if (parent && parent->name == par)
    return NULL;
  group *g = find_group(m, t->rank, par);
  if (!g)
    return NULL;
  /* Backwards from the last call starting by c's start: the first that
   * holds c is the tightest (latest start, then earliest end). Calls that
   * start more than the longest one before c cannot reach it. */
  for (int64_t k = after(m, g, c->start); k-- > g->lo;) {
    rp_omp_call *x = &m->v[k];
    if (x->start < c->start - g->maxdur)
      break;
    if (x->thread == t->thread || x->end < c->end)
      continue;
    /* An interval equal to the task's: the parallel call must come first
     * in the order calls are walked (thread order breaks that tie), so
     * that its path is known when the task opens. */
    if (x->start == c->start && x->end == c->end && x->thread > t->thread)
      continue;
    return x;
  }
  return NULL;
}

rp_omp_call *rp_omp_self(rp_omp *m, const rp_thread *t, const rp_call *c) {
  if (m->ng == 0 || !m->is_par[c->name])
    return NULL;
  group *g = find_group(m, t->rank, c->name);
  if (!g)
    return NULL;
  for (int64_t k = after(m, g, c->start); k-- > g->lo;) {
    rp_omp_call *x = &m->v[k];
    if (x->start != c->start)
      break;
    if (x->end == c->end && x->thread == t->thread)
      return x;
  }
  return NULL;
}
