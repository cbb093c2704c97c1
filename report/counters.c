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

static int by_entry(const void *a, const void *b) {
  const rp_ctr_entry *x = a, *y = b;
  if (x->name != y->name)
    return x->name < y->name ? -1 : 1;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return x->thread < y->thread ? -1 : (x->thread > y->thread);
}

static int name_of(const rp_ctrs *u, const char *s) {
  for (int i = 0; i < u->n; i++)
    if (!strcmp(u->names[i], s))
      return i;
  return -1;
}

static int derivable(const rp_ctrs *u, const derived *d) {
  return name_of(u, d->num) >= 0 &&
         (!strcmp(d->den, "calls") || name_of(u, d->den) >= 0);
}

/* The columns --counters[=LIST] asks for into u->col; -1 with err set. */
static int columns(const rp_profile *p, const char *spec, rp_ctrs *u,
                   sp_fmt_err *err) {
  rp_ctr_col *c = u->col;
  int *nc = &u->ncol;
  *nc = 0;
  if (!spec || !*spec) { /* every counter, then what derives from them */
    for (int i = 0; i < u->n && *nc < RP_CTR_MAX; i++, ++*nc)
      c[*nc] = (rp_ctr_col){i, 0, -1, "", 0};
    for (int d = 0; d < NDERIVED && *nc < RP_CTR_MAX; d++)
      if (derivable(u, &DERIVED[d]))
        c[(*nc)++] = (rp_ctr_col){-1, 0, d, "", 0};
  } else {
    const char *s = spec;
    while (*s && *nc < RP_CTR_MAX) {
      size_t len = strcspn(s, ",");
      char tok[64];
      if (len == 0 || len >= sizeof tok) {
        sp_fmt_err_set(err, "%s: --counters: empty or long column in '%s'",
                       p->label, spec);
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
                   i ? ", " : "", u->names[i]);
        sp_fmt_err_set(err,
                       "%s: --counters: no column '%s' (counters: %s, each "
                       "also as NAME:excl; derived: ipc, miss-rate, "
                       "branch-miss-rate, faults/call)",
                       p->label, tok, have);
        return -1;
      }
      c[(*nc)++] = (rp_ctr_col){k, excl, d, "", 0};
    }
  }
  for (int i = 0; i < *nc; i++) {
    if (c[i].d >= 0)
      snprintf(c[i].title, sizeof c[i].title, "%s", DERIVED[c[i].d].name);
    else
      snprintf(c[i].title, sizeof c[i].title, "%s%s", u->names[c[i].k],
               c[i].excl ? ":excl" : "");
    int l = (int)strlen(c[i].title);
    c[i].w = l > 12 ? l : 12;
  }
  return 0;
}

int rp_ctrs_open(rp_ctrs *u, const rp_profile *p, const char *spec,
                 sp_fmt_err *err) {
  memset(u, 0, sizeof *u);
  if (!p->nctr) {
    sp_fmt_err_set(err,
                   "%s: no counters in the profile (record with "
                   "SP_COUNTERS=..., see docs/runtime.md)",
                   p->label);
    return -1;
  }
  int64_t ne = 0;
  for (int64_t t = 0; t < p->nctr; t++)
    ne += p->ctr[t].nrows;
  u->map = calloc((size_t)p->nctr * SP_FMT_CTR_MAX, sizeof *u->map);
  u->e = malloc((ne ? (size_t)ne : 1) * sizeof *u->e);
  if (!u->map || !u->e) {
    rp_ctrs_free(u);
    sp_fmt_err_set(err, "%s: out of memory", p->label);
    return -1;
  }
  for (int64_t t = 0; t < p->nctr; t++) {
    const sp_fmt_ctr *c = &p->ctr[t];
    for (int j = 0; j < c->n; j++) {
      int k = name_of(u, c->names[j]);
      if (k < 0 && u->n < RP_CTR_MAX) {
        k = u->n++;
        memcpy(u->names[k], c->names[j], SP_FMT_CTR_NAME);
      }
      u->map[t * SP_FMT_CTR_MAX + j] = k < 0 ? 0 : k;
    }
    for (int64_t r = 0; r < c->nrows; r++) {
      int32_t name = rp_name_find(p, c->region[r]);
      if (name >= 0)
        u->e[u->ne++] =
            (rp_ctr_entry){name, c->rank, c->thread[r], (int32_t)t, r};
    }
  }
  qsort(u->e, (size_t)u->ne, sizeof *u->e, by_entry);
  if (columns(p, spec, u, err) != 0) {
    rp_ctrs_free(u);
    return -1;
  }
  return 0;
}

void rp_ctrs_free(rp_ctrs *u) {
  free(u->e);
  free(u->map);
  u->e = NULL;
  u->map = NULL;
}

int64_t rp_ctrs_first(const rp_ctrs *u, int32_t name, int32_t rank,
                      int32_t thread) {
  rp_ctr_entry key = {name, rank < 0 ? INT32_MIN : rank,
                      thread < 0 ? INT32_MIN : thread, 0, 0};
  int64_t lo = 0, hi = u->ne;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (by_entry(&u->e[mid], &key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int64_t rp_ctrs_sum(const rp_ctrs *u, const rp_profile *p, int32_t name,
                    int32_t rank, int32_t thread, rp_ctr_sum *s) {
  memset(s, 0, sizeof *s);
  int64_t rows = 0;
  for (int64_t i = rp_ctrs_first(u, name, rank, thread);
       i < u->ne && u->e[i].name == name; i++) {
    const rp_ctr_entry *e = &u->e[i];
    if ((rank >= 0 && e->rank != rank) || (thread >= 0 && e->thread != thread))
      break;
    const sp_fmt_ctr *t = &p->ctr[e->t];
    const int *map = u->map + (size_t)e->t * SP_FMT_CTR_MAX;
    for (int j = 0; j < t->n; j++) {
      s->incl[map[j]] += t->incl[e->r * t->n + j];
      s->excl[map[j]] += t->excl[e->r * t->n + j];
    }
    s->calls += t->calls[e->r];
    rows++;
  }
  return rows;
}

void rp_ctrs_titles(const rp_ctrs *u, FILE *f) {
  for (int i = 0; i < u->ncol; i++)
    fprintf(f, " %*s", u->col[i].w, u->col[i].title);
}

void rp_ctrs_values(const rp_ctrs *u, FILE *f, const rp_ctr_sum *s) {
  for (int i = 0; i < u->ncol; i++) {
    const rp_ctr_col *c = &u->col[i];
    int w = c->w;
    if (!s) {
      fprintf(f, " %*s", w, "-");
      continue;
    }
    if (c->d < 0) {
      fprintf(f, " %*lld", w, (long long)(c->excl ? s->excl : s->incl)[c->k]);
      continue;
    }
    const derived *d = &DERIVED[c->d];
    double num = (double)s->incl[name_of(u, d->num)];
    double den = !strcmp(d->den, "calls") ? (double)s->calls
                                          : (double)s->incl[name_of(u, d->den)];
    if (den <= 0)
      fprintf(f, " %*s", w, "-");
    else if (d->percent)
      fprintf(f, " %*.2f%%", w - 1, 100.0 * num / den);
    else
      fprintf(f, " %*.3f", w, num / den);
  }
}

int rp_print_counters(const rp_profile *p, const rp_opts *o, FILE *f,
                      sp_fmt_err *err) {
  rp_ctrs u;
  if (rp_ctrs_open(&u, p, o->counters, err) != 0)
    return -1;
  rp_agg *v = NULL;
  int64_t n = 0;
  int rc = -1;
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
  rp_ctrs_titles(&u, f);
  fputc('\n', f);
  rp_ctr_sum s;
  char b[32];
  for (int64_t i = 0; i < n; i++) {
    const rp_agg *a = &v[i];
    rp_fit_put(f, &fit, a->name);
    if (o->by)
      fprintf(f, " %5d", a->rank);
    if (o->by == RP_BY_THREAD)
      fprintf(f, " %6d", a->thread);
    rp_ctrs_sum(&u, p, a->name, a->rank, a->thread, &s);
    fprintf(f, " %10lld %10s", (long long)a->calls,
            rp_time((double)a->total, b, sizeof b));
    rp_ctrs_values(&u, f, &s);
    fputc('\n', f);
  }
  rp_fit_free(&fit);
  rc = 0;
out:
  free(v);
  rp_ctrs_free(&u);
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
