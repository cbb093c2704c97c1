/* counters.c - sp-report --counters: the table's regions with the sums of
 * their counters (SP_COUNTERS: the files' rank<N>/likwid groups, a
 * stream's records) and the metrics derived from them. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* A metric from two counters: num / den (den "calls": per call). */
typedef struct derived {
  const char *name, *num, *den;
  int percent;
} derived;

static const derived DERIVED[] = {
    {"ipc", "instructions", "cycles", 0},
    {"miss-rate", "cache-misses", "cache-references", 1},
    {"branch-miss-rate", "branch-misses", "branches", 1},
    {"faults/call", "page-faults", "calls", 0},
};
#define NDERIVED ((int)(sizeof DERIVED / sizeof DERIVED[0]))

/* A column: counter k inclusive or exclusive, or derived metric d. */
typedef struct column {
  int k, excl, d;
  char title[48];
} column;

/* One row of a table, indexed for the join with the table's rows. */
typedef struct entry {
  int32_t name, rank, thread;
  int32_t t;
  int64_t r;
} entry;

static int by_entry(const void *a, const void *b) {
  const entry *x = a, *y = b;
  if (x->name != y->name)
    return x->name < y->name ? -1 : 1;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return x->thread < y->thread ? -1 : (x->thread > y->thread);
}

/* The counters of every table, in order of first appearance. */
typedef struct names {
  int n;
  char v[64][SP_FMT_CTR_NAME];
} names;

static int name_of(const names *u, const char *s) {
  for (int i = 0; i < u->n; i++)
    if (!strcmp(u->v[i], s))
      return i;
  return -1;
}

static int derivable(const names *u, const derived *d) {
  return name_of(u, d->num) >= 0 &&
         (!strcmp(d->den, "calls") || name_of(u, d->den) >= 0);
}

/* The columns --counters[=LIST] asks for; -1 with err set. */
static int columns(const rp_profile *p, const char *spec, const names *u,
                   column *c, int *nc, sp_fmt_err *err) {
  *nc = 0;
  if (!spec || !*spec) { /* every counter, then what derives from them */
    for (int i = 0; i < u->n && *nc < 64; i++, ++*nc)
      c[*nc] = (column){i, 0, -1, ""};
    for (int d = 0; d < NDERIVED && *nc < 64; d++)
      if (derivable(u, &DERIVED[d]))
        c[(*nc)++] = (column){-1, 0, d, ""};
  } else {
    const char *s = spec;
    while (*s && *nc < 64) {
      size_t len = strcspn(s, ",");
      char tok[64];
      if (len == 0 || len >= sizeof tok) {
        sp_fmt_err_set(err, "--counters: empty or long column in '%s'", spec);
        return -1;
      }
      memcpy(tok, s, len);
      tok[len] = 0;
      s += len + (s[len] == ',');
      char *colon = strstr(tok, ":excl");
      int excl = colon && !colon[5];
      if (excl)
        *colon = 0;
      int k = name_of(u, tok), d = -1;
      for (int i = 0; k < 0 && !excl && i < NDERIVED; i++)
        if (!strcmp(tok, DERIVED[i].name))
          d = i;
      if (d >= 0 && !derivable(u, &DERIVED[d])) {
        sp_fmt_err_set(err,
                       "%s: --counters: %s needs the counters %s and %s, "
                       "which were not recorded",
                       p->label, tok, DERIVED[d].num, DERIVED[d].den);
        return -1;
      }
      if (k < 0 && d < 0) {
        char have[512] = "";
        for (int i = 0; i < u->n; i++)
          snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s",
                   i ? ", " : "", u->v[i]);
        sp_fmt_err_set(err,
                       "%s: --counters: no column '%s' (counters: %s, each "
                       "also as NAME:excl; derived: ipc, miss-rate, "
                       "branch-miss-rate, faults/call)",
                       p->label, tok, have);
        return -1;
      }
      c[(*nc)++] = (column){k, excl, d, ""};
    }
  }
  for (int i = 0; i < *nc; i++)
    if (c[i].d >= 0)
      snprintf(c[i].title, sizeof c[i].title, "%s", DERIVED[c[i].d].name);
    else
      snprintf(c[i].title, sizeof c[i].title, "%s%s", u->v[c[i].k],
               c[i].excl ? ":excl" : "");
  return 0;
}

/* Sums of the rows matching agg a (rank, thread -1: any) into incl and
 * excl (per union counter) and *calls. */
static void sums(const rp_profile *p, const entry *e, int64_t ne,
                 const int *map_of_table, const names *u, const rp_agg *a,
                 int64_t *incl, int64_t *excl, int64_t *calls) {
  memset(incl, 0, (size_t)u->n * sizeof *incl);
  memset(excl, 0, (size_t)u->n * sizeof *excl);
  *calls = 0;
  entry key = {a->name, a->rank < 0 ? INT32_MIN : a->rank,
               a->thread < 0 ? INT32_MIN : a->thread, 0, 0};
  int64_t lo = 0, hi = ne;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (by_entry(&e[mid], &key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (int64_t i = lo; i < ne && e[i].name == a->name; i++) {
    if (a->rank >= 0 && e[i].rank != a->rank)
      break;
    if (a->thread >= 0 && e[i].thread != a->thread)
      break;
    const sp_fmt_ctr *t = &p->ctr[e[i].t];
    const int *map = map_of_table + (size_t)e[i].t * SP_FMT_CTR_MAX;
    for (int j = 0; j < t->n; j++) {
      incl[map[j]] += t->incl[e[i].r * t->n + j];
      excl[map[j]] += t->excl[e[i].r * t->n + j];
    }
    *calls += t->calls[e[i].r];
  }
}

static void put_value(FILE *f, const column *c, const names *u,
                      const int64_t *incl, const int64_t *excl, int64_t calls,
                      int w) {
  if (c->d < 0) {
    fprintf(f, " %*lld", w, (long long)(c->excl ? excl : incl)[c->k]);
    return;
  }
  const derived *d = &DERIVED[c->d];
  double num = (double)incl[name_of(u, d->num)];
  double den = !strcmp(d->den, "calls") ? (double)calls
                                        : (double)incl[name_of(u, d->den)];
  if (den <= 0)
    fprintf(f, " %*s", w, "-");
  else if (d->percent)
    fprintf(f, " %*.2f%%", w - 1, 100.0 * num / den);
  else
    fprintf(f, " %*.3f", w, num / den);
}

int rp_print_counters(const rp_profile *p, const rp_opts *o, FILE *f,
                      sp_fmt_err *err) {
  if (!p->nctr) {
    sp_fmt_err_set(err,
                   "%s: no counters in the profile (record with "
                   "SP_COUNTERS=..., see docs/runtime.md)",
                   p->label);
    return -1;
  }
  names u = {0};
  int *map = calloc((size_t)p->nctr * SP_FMT_CTR_MAX, sizeof *map);
  int64_t ne = 0;
  for (int64_t t = 0; t < p->nctr; t++)
    ne += p->ctr[t].nrows;
  entry *e = malloc((ne ? (size_t)ne : 1) * sizeof *e);
  rp_agg *v = NULL;
  int64_t n = 0;
  int rc = -1;
  if (!map || !e) {
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    goto out;
  }
  ne = 0;
  for (int64_t t = 0; t < p->nctr; t++) {
    const sp_fmt_ctr *c = &p->ctr[t];
    for (int j = 0; j < c->n; j++) {
      int k = name_of(&u, c->names[j]);
      if (k < 0 && u.n < 64) {
        k = u.n++;
        memcpy(u.v[k], c->names[j], SP_FMT_CTR_NAME);
      }
      map[t * SP_FMT_CTR_MAX + j] = k < 0 ? 0 : k;
    }
    for (int64_t r = 0; r < c->nrows; r++) {
      int32_t name = rp_name_find(p, c->region[r]);
      if (name >= 0)
        e[ne++] = (entry){name, c->rank, c->thread[r], (int32_t)t, r};
    }
  }
  qsort(e, (size_t)ne, sizeof *e, by_entry);
  column col[64];
  int nc;
  if (columns(p, o->counters, &u, col, &nc, err) != 0)
    goto out;
  if (rp_aggregate(p, o, o->by, &v, &n, err) != 0)
    goto out;
  if (n == 0) {
    sp_fmt_err_set(err, "%s: no region matches the filters", p->label);
    goto out;
  }
  rp_fit fit;
  if (rp_fit_rows(&fit, p, o, v, n) != 0) {
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    goto out;
  }
  int w = fit.width;
  int cw[64];
  fprintf(f,
          "%s: counters per region, inclusive (the calls with what runs "
          "inside them); NAME:excl without the regions inside\n",
          p->label);
  fprintf(f, "%-*s", w, "region");
  if (o->by)
    fprintf(f, " %5s", "rank");
  if (o->by == RP_BY_THREAD)
    fprintf(f, " %6s", "thread");
  fprintf(f, " %10s %10s", "calls", "total");
  for (int i = 0; i < nc; i++) {
    int l = (int)strlen(col[i].title);
    cw[i] = l > 12 ? l : 12;
    fprintf(f, " %*s", cw[i], col[i].title);
  }
  fputc('\n', f);
  int64_t incl[64], excl[64], calls;
  char b[32];
  for (int64_t i = 0; i < n; i++) {
    const rp_agg *a = &v[i];
    rp_fit_put(f, &fit, a->name);
    if (o->by)
      fprintf(f, " %5d", a->rank);
    if (o->by == RP_BY_THREAD)
      fprintf(f, " %6d", a->thread);
    sums(p, e, ne, map, &u, a, incl, excl, &calls);
    fprintf(f, " %10lld %10s", (long long)a->calls,
            rp_time((double)a->total, b, sizeof b));
    for (int k = 0; k < nc; k++)
      put_value(f, &col[k], &u, incl, excl, calls, cw[k]);
    fputc('\n', f);
  }
  rp_fit_free(&fit);
  rc = 0;
out:
  free(v);
  free(e);
  free(map);
  return rc;
}

int rp_load_counters(rp_profile *p, const char *path, const rp_opts *o,
                     sp_fmt_err *err) {
  sp_fmt_ctr *t;
  int64_t n;
  if (sp_fmt_ctr_read(path, &t, &n, err) != 0)
    return -1;
  int rc = 0;
  for (int64_t i = 0; i < n; i++) {
    if (rc == 0 && rp_rank_selected(o, t[i].rank)) {
      sp_fmt_ctr *g = realloc(p->ctr, (size_t)(p->nctr + 1) * sizeof *g);
      if (!g) {
        sp_fmt_err_set(err, "%s: out of memory", path);
        rc = -1;
      } else {
        p->ctr = g;
        p->ctr[p->nctr++] = t[i];
        continue;
      }
    }
    sp_fmt_ctr_free(&t[i]);
  }
  free(t);
  return rc;
}
