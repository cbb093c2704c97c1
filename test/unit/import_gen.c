/* import_gen.c - writes the inputs of the sp-import test: rank 0 as a
 * per-rank .h5, rank 1 as .spt v1 big-endian, rank 2 as .spt v3, plus
 * expected.json describing every call, for test_import.py to check; with
 * --stream, rank 0 as .spt and rank 1 as a torn .spts stream instead. */
#include "sp_format.h"
#include "stream_writer.h"

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

static void read_pairs(const sp_fmt_source *src, int64_t first, int64_t n,
                       int64_t *starts, int64_t *ends) {
  const int64_t *v = src->ctx;
  for (int64_t i = 0; i < n; i++) {
    starts[i] = v[2 * (first + i)];
    ends[i] = v[2 * (first + i) + 1];
  }
}

/* Rank 0 as a .spt, rank 1 as a stream that a signal ended, with a torn
 * tail: two ids named "solve" on one thread, an open call, an ENDS, a
 * dropped call, writer threads 3 and 9 (rows' threads 0 and 1). The
 * expected rows are what the stream's rules make of it. */
static int stream_case(const char *dir) {
  char path[4096];
  sp_fmt_err err;
  static const int64_t main0[] = {100, 900}, solve0[] = {200, 400};
  sp_fmt_source src[2] = {
      {0, "main", "app.c", 3, 1, read_pairs, main0, 0},
      {0, "solve", NULL, -1, 1, read_pairs, solve0, 0},
  };
  snprintf(path, sizeof path, "%s/job_rank00000.spt", dir);
  if (sp_fmt_spt_write(path, 0, 2, src, 2, 0, &err) != 0)
    return die(&err);
  sw w = {0};
  sw_header(&w, 1, 4321, SP_STREAM_CLOCK_NS);
  sw_region(&w, 0, 5, "main", "main.c", 0);
  sw_region(&w, 1, -1, "solve", NULL, 0);
  sw_region(&w, 2, 42, "solve", "solver.c", 0);
  sw_region(&w, 3, -1, "io", NULL, 0);
  sw_meta(&w, "hostname", "stream-node", 0);
  sw_meta(&w, "omp_num_threads", NULL, 4);
  static const uint64_t m3[] = {1000, 0}, s1[] = {1100, 1200, 1300, 1400},
                        s2[] = {1250, 1290}, io3[] = {1150, 1160, 0, 0},
                        m9[] = {1010, 0}, io9[] = {1020, 1030};
  const sp_stream_end e9[] = {{9, 0, 0, 1900}};
  sw_calls(&w, 3, 0, 0, 1, m3);
  sw_calls(&w, 3, 1, 0, 2, s1);
  sw_calls(&w, 9, 0, 0, 1, m9);
  sw_calls(&w, 3, 2, 0, 1, s2);
  sw_calls(&w, 3, 3, 0, 2, io3);
  sw_calls(&w, 9, 3, 0, 1, io9);
  sw_ends(&w, 1, e9);
  sw_stop(&w, 2000, 11);
  size_t torn = w.n;
  sw_calls(&w, 9, 3, 1, 1, io9); /* cut short below */
  snprintf(path, sizeof path, "%s/job_rank00001.spts", dir);
  if (sw_save(&w, path, w.n - 10) != 0) {
    perror(path);
    return 1;
  }
  free(w.b);
  snprintf(path, sizeof path, "%s/expected.json", dir);
  FILE *j = fopen(path, "w");
  if (!j) {
    perror(path);
    return 1;
  }
  fprintf(j,
          "{\"torn\": %zu, \"ranks\": [\n"
          "  {\"rank\": 0, \"blocks\": [\n"
          "    {\"thread\": 0, \"region\": \"main\", \"file\": \"app.c\", "
          "\"line\": 3, \"starts\": [100], \"ends\": [900]},\n"
          "    {\"thread\": 0, \"region\": \"solve\", \"file\": \"\", "
          "\"line\": -1, \"starts\": [200], \"ends\": [400]}]},\n"
          "  {\"rank\": 1, \"blocks\": [\n"
          "    {\"thread\": 0, \"region\": \"main\", \"file\": \"main.c\", "
          "\"line\": 5, \"starts\": [1000], \"ends\": [2000]},\n"
          "    {\"thread\": 0, \"region\": \"solve\", \"file\": "
          "\"solver.c\", \"line\": 42, \"starts\": [1100, 1250, 1300], "
          "\"ends\": [1200, 1290, 1400]},\n"
          "    {\"thread\": 0, \"region\": \"io\", \"file\": \"\", "
          "\"line\": -1, \"starts\": [1150], \"ends\": [1160]},\n"
          "    {\"thread\": 1, \"region\": \"main\", \"file\": \"main.c\", "
          "\"line\": 5, \"starts\": [1010], \"ends\": [1900]},\n"
          "    {\"thread\": 1, \"region\": \"io\", \"file\": \"\", "
          "\"line\": -1, \"starts\": [1020], \"ends\": [1030]}]}\n"
          "]}\n",
          torn);
  return fclose(j) == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--stream") == 0)
    return stream_case(argv[2]);
  if (argc != 2) {
    fprintf(stderr, "usage: import_gen [--stream] DIR\n");
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
