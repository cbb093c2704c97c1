/* import_gen.c - writes the inputs of the sp-import test: rank 0 as a
 * per-rank .h5, rank 1 as .spt v1 big-endian, rank 2 as .spt v3, plus
 * expected.json describing every call, for test_import.py to check. */
#include "sp_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NREG 4
static const char *NAMES[NREG] = {"main", "solve", "io",
                                  "\xc3\xbcnicode region"};

/* Calls of one (thread, region), grown as the scenario is laid out. */
typedef struct {
  int64_t n, starts[64], ends[64];
} calls;

static void add(calls *c, int64_t s, int64_t e) {
  c->starts[c->n] = s;
  c->ends[c->n++] = e;
}

/* Rank r, thread t: K = 3 + r iterations of main { solve, solve { io } },
 * and on thread 1 a call of the unicode region inside main. */
static void lay_out(int rank, int nthreads, calls c[][NREG]) {
  memset(c, 0, sizeof(calls) * (size_t)nthreads * NREG);
  for (int t = 0; t < nthreads; t++) {
    int64_t base = 1000000 * (int64_t)(rank + 1) + 500000 * (int64_t)t;
    for (int i = 0; i < 3 + rank; i++) {
      int64_t s = base + 10000 * (int64_t)i;
      add(&c[t][0], s, s + 9000 + i);
      for (int j = 0; j < 2; j++)
        add(&c[t][1], s + 100 + 3000 * j, s + 2600 + 3000 * j + rank);
      add(&c[t][2], s + 3200, s + 3500 + t);
      if (t == 1)
        add(&c[t][3], s + 7000, s + 7100 + i);
    }
  }
}

static void read_calls(const sp_fmt_source *src, int64_t first, int64_t n,
                       int64_t *starts, int64_t *ends) {
  const calls *c = src->ctx;
  memcpy(starts, c->starts + first, (size_t)n * sizeof *starts);
  memcpy(ends, c->ends + first, (size_t)n * sizeof *ends);
}

/* Sources in row order (thread, then first start: the layout's region
 * order is already first-start order). */
static int64_t sources(int nthreads, calls c[][NREG], const char *const *files,
                       const int *lines, sp_fmt_source *out) {
  int64_t n = 0;
  for (int t = 0; t < nthreads; t++)
    for (int g = 0; g < NREG; g++) {
      if (c[t][g].n == 0)
        continue;
      sp_fmt_source s = {t,         NAMES[g],   files[g], lines[g],
                         c[t][g].n, read_calls, &c[t][g], 0};
      out[n++] = s;
    }
  return n;
}

static void json_rank(FILE *j, int rank, const char *file, int nthreads,
                      calls c[][NREG], const char *const *files,
                      const int *lines, int last) {
  fprintf(j, "  {\"rank\": %d, \"file\": \"%s\", \"blocks\": [\n", rank, file);
  int first = 1;
  for (int t = 0; t < nthreads; t++)
    for (int g = 0; g < NREG; g++) {
      if (c[t][g].n == 0)
        continue;
      fprintf(j, "%s    {\"thread\": %d, \"region\": \"%s\", ",
              first ? "" : ",\n", t, NAMES[g]);
      fprintf(j, "\"file\": \"%s\", \"line\": %d, \"starts\": [",
              files[g] ? files[g] : "", lines[g]);
      for (int64_t k = 0; k < c[t][g].n; k++)
        fprintf(j, "%s%lld", k ? ", " : "", (long long)c[t][g].starts[k]);
      fprintf(j, "], \"ends\": [");
      for (int64_t k = 0; k < c[t][g].n; k++)
        fprintf(j, "%s%lld", k ? ", " : "", (long long)c[t][g].ends[k]);
      fprintf(j, "]}");
      first = 0;
    }
  fprintf(j, "\n  ]}%s\n", last ? "" : ",");
}

static int die(const sp_fmt_err *err) {
  fprintf(stderr, "import_gen: %s\n", err->msg);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: import_gen DIR\n");
    return 2;
  }
  const char *dir = argv[1];
  char path[4096];
  sp_fmt_err err;
  static calls c[2][NREG];
  sp_fmt_source src[2 * NREG];
  /* Rank 0: per-rank .h5, two threads, location of main only. */
  const char *f0[NREG] = {"app.c", NULL, NULL, NULL};
  const int l0[NREG] = {5, -1, -1, -1};
  /* Rank 1: .spt v1 (no locations), one thread, big-endian. */
  const char *f1[NREG] = {NULL, NULL, NULL, NULL};
  const int l1[NREG] = {-1, -1, -1, -1};
  /* Rank 2: .spt v3, two threads; main's location differs from rank 0's
   * (the first one, rank 0's, must win), solve's is only known here. */
  const char *f2[NREG] = {"other.c", "solver.c", NULL, NULL};
  const int l2[NREG] = {7, 42, -1, -1};

  snprintf(path, sizeof path, "%s/expected.json", dir);
  FILE *j = fopen(path, "w");
  if (!j) {
    perror(path);
    return 1;
  }
  fprintf(j, "[\n");

  lay_out(0, 2, c);
  int64_t n = sources(2, c, f0, l0, src);
  snprintf(path, sizeof path, "%s/run_rank00000.h5", dir);
  sp_fmt_h5w *w = sp_fmt_h5w_open(path, &err);
  if (!w)
    return die(&err);
  for (int t = 0, lo = 0; t < 2; t++) {
    int hi = lo;
    while (hi < n && src[hi].thread == t)
      hi++;
    sp_fmt_stats st[NREG];
    if (sp_fmt_stats_thread(src + lo, hi - lo, st, NULL) != 0)
      return 1;
    for (int k = lo; k < hi; k++)
      if (sp_fmt_h5w_row(w, 0, &src[k], &st[k - lo], &err) != 0)
        return die(&err);
    lo = hi;
  }
  sp_fmt_meta meta = {0, NULL};
  const char *mods[3] = {"profile/base", "gcc/12.3.0", "openmpi/4.1"};
  if (sp_fmt_meta_set_str(&meta, "hostname", "node-0") ||
      sp_fmt_meta_set_str(&meta, "label", "from-rank-0") ||
      sp_fmt_meta_set_int(&meta, "omp_num_threads", 2) ||
      sp_fmt_meta_set_int(&meta, "mpi_size", 1) ||
      sp_fmt_meta_set_strlist(&meta, "modules", mods, 3) ||
      sp_fmt_h5w_meta(w, &meta, &err))
    return die(&err);
  sp_fmt_meta_free(&meta);
  if (sp_fmt_h5w_close(w, &err) != 0)
    return die(&err);
  json_rank(j, 0, "run_rank00000.h5", 2, c, f0, l0, 0);

  lay_out(1, 1, c);
  n = sources(1, c, f1, l1, src);
  snprintf(path, sizeof path, "%s/run_rank00001.spt", dir);
  if (sp_fmt_spt_write(path, 1, 1, src, n, 1, &err) != 0)
    return die(&err);
  json_rank(j, 1, "run_rank00001.spt", 1, c, f1, l1, 0);

  lay_out(2, 2, c);
  n = sources(2, c, f2, l2, src);
  snprintf(path, sizeof path, "%s/run_rank00002.spt", dir);
  if (sp_fmt_spt_write(path, 2, 3, src, n, 0, &err) != 0)
    return die(&err);
  json_rank(j, 2, "run_rank00002.spt", 2, c, f2, l2, 1);
  fprintf(j, "]\n");
  return fclose(j) == 0 ? 0 : 1;
}
