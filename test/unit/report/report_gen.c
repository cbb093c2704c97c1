/* report_gen.c - writes the hand-built profiles test_report.py checks
 * sp-report against (values worked out by hand in that script). */
#include "sp_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BASE 1000000000LL /* timestamps are absolute, like the runtime's */

typedef struct {
  int32_t thread;
  const char *name, *file;
  int32_t line;
  int n;
  int64_t s[4], e[4];
} blk;

static void rd(const sp_fmt_source *src, int64_t first, int64_t n, int64_t *st,
               int64_t *en) {
  const blk *b = src->ctx;
  for (int64_t i = 0; i < n; i++) {
    st[i] = BASE + b->s[first + i];
    en[i] = BASE + b->e[first + i];
  }
}

static int64_t sources(const blk *b, int n, sp_fmt_source *out) {
  for (int i = 0; i < n; i++) {
    sp_fmt_source s = {.thread = b[i].thread,
                       .name = b[i].name,
                       .file = b[i].file,
                       .line = b[i].line,
                       .count = b[i].n,
                       .read = rd,
                       .ctx = &b[i]};
    out[i] = s;
  }
  return n;
}

static void die(const sp_fmt_err *e) {
  fprintf(stderr, "report_gen: %s\n", e->msg);
  exit(1);
}

static void spt(const char *path, int32_t rank, int version, const blk *b,
                int n) {
  sp_fmt_source s[32];
  sp_fmt_err err;
  sources(b, n, s);
  if (sp_fmt_spt_write(path, rank, version, s, n, 0, &err) != 0)
    die(&err);
}

/* A per-rank .h5 of one thread, rows in first-start order as given. */
static void h5(const char *path, int32_t rank, const blk *b, int n,
               int64_t mpi_size) {
  sp_fmt_source s[16];
  sp_fmt_stats st[16];
  sp_fmt_err err;
  sources(b, n, s);
  if (sp_fmt_stats_thread(s, n, st, NULL) != 0)
    exit(1);
  sp_fmt_h5w *w = sp_fmt_h5w_open(path, &err);
  if (!w)
    die(&err);
  for (int i = 0; i < n; i++)
    if (sp_fmt_h5w_row(w, rank, &s[i], &st[i], &err) != 0)
      die(&err);
  sp_fmt_meta m = {0, NULL};
  if (sp_fmt_meta_set_int(&m, "mpi_size", mpi_size) ||
      sp_fmt_meta_set_str(&m, "label", "gen") || sp_fmt_h5w_meta(w, &m, &err))
    die(&err);
  sp_fmt_meta_free(&m);
  if (sp_fmt_h5w_close(w, &err) != 0)
    die(&err);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: report_gen DIR\n");
    return 2;
  }
  char p[4096];
  const char *d = argv[1];
  /* Profile "a": rank 0 (.spt v3, two threads) and rank 1 (.h5).
   *   r0 t0: main [0,1000] { solve [100,400], solve [500,900] { io [600,700] }
   * } r0 t1: main [0,500] { io [100,200] } r1 t0: main [0,2000] { solve
   * [100,1100], io [1200,1300], io [1400,1600] } */
  blk r0[] = {
      {0, "main", "m.c", 10, 1, {0}, {1000}},
      {0, "solve", "s.c", 20, 2, {100, 500}, {400, 900}},
      {0, "io", NULL, -1, 1, {600}, {700}},
      {1, "main", "m.c", 10, 1, {0}, {500}},
      {1, "io", NULL, -1, 1, {100}, {200}},
  };
  blk r1[] = {
      {0, "main", "m.c", 10, 1, {0}, {2000}},
      {0, "solve", "s.c", 20, 1, {100}, {1100}},
      {0, "io", "io.c", 30, 2, {1200, 1400}, {1300, 1600}},
  };
  snprintf(p, sizeof p, "%s/a/run_rank00000.spt", d);
  spt(p, 0, 3, r0, 5);
  snprintf(p, sizeof p, "%s/a/run_rank00001.h5", d);
  h5(p, 1, r1, 3, 2);

  /* OpenMP: rank 0, four threads (test_report.py works out the values).
   *   t0: main [0,10000] { omp parallel @ a.c:10 [1000,3000] { task
   *       [1100,2900] { work [1200,1600] } }, solve [6000,7000] { parallel
   *       @ a.c:10 [6050,6950] { task [6100,6900] { work [6200,6400] } } },
   *       omp parallel @ b.c:20 [7100,7900] { task @ b.c:20 [7150,7850]
   *       { work [7200,7300] } } }
   *   t1-t3: tasks @ a.c:10 [1150,2950] { work of 800, 1200, 1600 };
   *   t1, t2: tasks @ a.c:10 [6100,6900] { work of 300, 400 } (the second
   *   call, under solve); t1: task @ b.c:20 [7150,7850] { work 300 };
   *   t3: tasks @ a.c:10 [7200,7400] { work [7250,7350] } (inside b.c:20's
   *   parallel call, but another LOC) and [9500,9700] { work [9550,9600] }
   *   (inside no parallel call): both stay roots. */
  const char *PA = "omp parallel @ a.c:10", *TA = "omp implicit task @ a.c:10",
             *PB = "omp parallel @ b.c:20", *TB = "omp implicit task @ b.c:20";
  blk omp[] = {
      {0, "main", "m.c", 1, 1, {0}, {10000}},
      {0, PA, "a.c", 10, 2, {1000, 6050}, {3000, 6950}},
      {0, TA, "a.c", 10, 2, {1100, 6100}, {2900, 6900}},
      {0, "work", "w.c", 5, 3, {1200, 6200, 7200}, {1600, 6400, 7300}},
      {0, "solve", "s.c", 20, 1, {6000}, {7000}},
      {0, PB, "b.c", 20, 1, {7100}, {7900}},
      {0, TB, "b.c", 20, 1, {7150}, {7850}},
      {1, TA, "a.c", 10, 2, {1150, 6100}, {2950, 6900}},
      {1, "work", "w.c", 5, 3, {1200, 6200, 7200}, {2000, 6500, 7500}},
      {1, TB, "b.c", 20, 1, {7150}, {7850}},
      {2, TA, "a.c", 10, 2, {1150, 6100}, {2950, 6900}},
      {2, "work", "w.c", 5, 2, {1200, 6200}, {2400, 6600}},
      {3, TA, "a.c", 10, 3, {1150, 7200, 9500}, {2950, 7400, 9700}},
      {3, "work", "w.c", 5, 3, {1200, 7250, 9550}, {2800, 7350, 9600}},
  };
  snprintf(p, sizeof p, "%s/omp", d);
  mkdir(p, 0755);
  snprintf(p, sizeof p, "%s/omp/run_rank00000.spt", d);
  spt(p, 0, 3, omp, 14);
  /* Rank 1: a worker's task inside rank 0's parallel call by time, but on
   * another rank: a root. */
  blk omp1[] = {{1, TA, "a.c", 10, 1, {1150}, {2950}},
                {1, "work", "w.c", 5, 1, {1200}, {1300}}};
  snprintf(p, sizeof p, "%s/omp_rank1.spt", d);
  spt(p, 1, 3, omp1, 2);

  /* Nested teams: thread 2, a worker of n.c:1's team, opens n.c:2's team
   * with thread 1 as its worker (an encountering thread walked after its
   * worker, were threads walked one after the other). */
  const char *P1 = "omp parallel @ n.c:1", *T1 = "omp implicit task @ n.c:1",
             *P2 = "omp parallel @ n.c:2", *T2 = "omp implicit task @ n.c:2";
  blk nest[] = {
      {0, "main", NULL, -1, 1, {0}, {1000}},
      {0, P1, NULL, -1, 1, {10}, {990}},
      {0, T1, NULL, -1, 1, {20}, {980}},
      {1, T2, NULL, -1, 1, {120}, {880}},
      {1, "work", NULL, -1, 1, {200}, {700}},
      {2, T1, NULL, -1, 1, {30}, {970}},
      {2, P2, NULL, -1, 1, {100}, {900}},
      {2, T2, NULL, -1, 1, {110}, {890}},
      {2, "work", NULL, -1, 1, {200}, {300}},
  };
  snprintf(p, sizeof p, "%s/nest.spt", d);
  spt(p, 0, 3, nest, 9);

  /* Improper nesting: b starts inside a and ends after it. */
  blk bad[] = {{0, "alpha", NULL, -1, 1, {0}, {100}},
               {0, "beta", NULL, -1, 1, {50}, {150}}};
  snprintf(p, sizeof p, "%s/bad.spt", d);
  spt(p, 3, 2, bad, 2);

  /* MPI (--mpi): rank 0 (.spt, two threads), ranks 1 and 2 (.h5).
   *   r0 t0: main [0,10000] { MPI_Init [0,1000], MPI_Barrier [2000,2100],
   *          MPI_Allreduce [3000,3500] { MPI_Send [3100,3200] }, PMPI_Wait
   *          [4000,4200], mpi_helper [5000,5100], my_MPI_sum [6000,6100] }
   *   r0 t1: MPI_Recv [1500,1800]
   *   r1: main [0,9000] { MPI_Init [0,900], MPI_Barrier [1000,2100],
   *       MPI_Allreduce [3000,3300] }
   *   r2: main [0,8000] { MPI_Init [0,1100], MPI_Barrier [1500,2100],
   *       MPI_Allreduce [3000,3400], MPI_Send [3500,3600] } */
  blk m0[] = {
      {0, "main", NULL, -1, 1, {0}, {10000}},
      {0, "MPI_Init", NULL, -1, 1, {0}, {1000}},
      {0, "MPI_Barrier", NULL, -1, 1, {2000}, {2100}},
      {0, "MPI_Allreduce", NULL, -1, 1, {3000}, {3500}},
      {0, "MPI_Send", NULL, -1, 1, {3100}, {3200}},
      {0, "PMPI_Wait", NULL, -1, 1, {4000}, {4200}},
      {0, "mpi_helper", NULL, -1, 1, {5000}, {5100}},
      {0, "my_MPI_sum", NULL, -1, 1, {6000}, {6100}},
      {1, "MPI_Recv", NULL, -1, 1, {1500}, {1800}},
  };
  blk m1[] = {
      {0, "main", NULL, -1, 1, {0}, {9000}},
      {0, "MPI_Init", NULL, -1, 1, {0}, {900}},
      {0, "MPI_Barrier", NULL, -1, 1, {1000}, {2100}},
      {0, "MPI_Allreduce", NULL, -1, 1, {3000}, {3300}},
  };
  blk m2[] = {
      {0, "main", NULL, -1, 1, {0}, {8000}},
      {0, "MPI_Init", NULL, -1, 1, {0}, {1100}},
      {0, "MPI_Barrier", NULL, -1, 1, {1500}, {2100}},
      {0, "MPI_Allreduce", NULL, -1, 1, {3000}, {3400}},
      {0, "MPI_Send", NULL, -1, 1, {3500}, {3600}},
  };
  snprintf(p, sizeof p, "%s/mpi", d);
  mkdir(p, 0755);
  snprintf(p, sizeof p, "%s/mpi/run_rank00000.spt", d);
  spt(p, 0, 3, m0, 9);
  snprintf(p, sizeof p, "%s/mpi/run_rank00001.h5", d);
  h5(p, 1, m1, 4, 3);
  snprintf(p, sizeof p, "%s/mpi/run_rank00002.h5", d);
  h5(p, 2, m2, 5, 3);

  /* A rank that recorded nothing. */
  snprintf(p, sizeof p, "%s/empty.spt", d);
  spt(p, 0, 2, bad, 0);

  /* Strong scaling: the same work on 1 and on 4 ranks (rank 0 shown). */
  blk s1[] = {{0, "main", NULL, -1, 1, {0}, {8000}},
              {0, "solve", NULL, -1, 2, {0, 4000}, {3000, 7000}}};
  blk s4[] = {{0, "main", NULL, -1, 1, {0}, {2000}},
              {0, "solve", NULL, -1, 2, {0, 1000}, {1000, 1500}},
              {0, "io", NULL, -1, 1, {1800}, {1900}}};
  snprintf(p, sizeof p, "%s/s1.h5", d);
  h5(p, 0, s1, 2, 1);
  snprintf(p, sizeof p, "%s/s4.h5", d);
  h5(p, 0, s4, 3, 4);

  /* Names that must be quoted in CSV, JSON and XML; one is not UTF-8. */
  blk odd[] = {
      {0, "\xc3\xbcnicode f<int>(a, \"b\") & c;d", "x\".c", 1, 1, {0}, {100}},
      {0, "bad\xff byte", NULL, -1, 1, {10}, {20}}};
  snprintf(p, sizeof p, "%s/names.spt", d);
  spt(p, 0, 2, odd, 2);

  /* A name with XML's specials, a newline, a byte that is not UTF-8, a
   * control byte, and what looks like UTF-8 but is no XML character
   * (U+FFFE, a surrogate, an overlong form, a code point past U+10FFFF),
   * in a file name with specials too, between neighbours. */
  blk craft[] = {{0, "main", "m.c", 1, 1, {0}, {10000}},
                 {0,
                  "a<b>&c\nd\xff "
                  "e\x01\xef\xbf\xbe\xed\xa0\x80\xe0\x80\x80\xf4\x90\x80\x80z",
                  "f<&>'\".c",
                  7,
                  1,
                  {100},
                  {5000}},
                 {0, "x", NULL, -1, 1, {5000}, {9000}}};
  snprintf(p, sizeof p, "%s/crafted.spt", d);
  spt(p, 0, 3, craft, 3);

  /* More regions than the timeline's palette: sixteen calls side by side
   * in main, region k lasting (16 - k) x 600 ns, every other one with a
   * name too long for its box, and a leaf under the first. */
  static char mname[16][64];
  blk many[18];
  many[0] = (blk){0, "main", "m.c", 1, 1, {0}, {82000}};
  int64_t at = 0;
  for (int k = 0; k < 16; k++) {
    snprintf(mname[k], sizeof mname[k],
             k % 2 ? "r%02d_a_name_much_too_long_for_its_box_in_the_timeline"
                   : "r%02d",
             k);
    many[k + 1] =
        (blk){0, mname[k], "r.c", 100 + k, 1, {at}, {at + (16 - k) * 600}};
    at += (16 - k) * 600;
  }
  many[17] = (blk){0, "leaf", "l.c", 9, 1, {100}, {9000}};
  snprintf(p, sizeof p, "%s/many.spt", d);
  spt(p, 0, 3, many, 18);

  /* Many short calls: even/odd alternate inside one long main, to check
   * that the timeline's rectangles stay bounded. */
  enum { NBIG = 200000 };
  static int64_t ms[1] = {0}, me[1] = {20LL * NBIG};
  static int64_t es[NBIG / 2], ee[NBIG / 2], os[NBIG / 2], oe[NBIG / 2];
  for (int i = 0; i < NBIG / 2; i++) {
    es[i] = 40LL * i;
    ee[i] = es[i] + 10;
    os[i] = 40LL * i + 20;
    oe[i] = os[i] + 10;
  }
  sp_fmt_block big[] = {{0, 0, 1, ms, me, -1, 0},
                        {0, 1, NBIG / 2, es, ee, -1, 0},
                        {0, 2, NBIG / 2, os, oe, -1, 0}};
  sp_fmt_region names[] = {
      {"main", NULL, -1}, {"even", NULL, -1}, {"odd", NULL, -1}};
  sp_fmt_rank r = {
      0, 2, 3, names, 3, big, {0, NULL}, 0, {0, NULL, 0, NULL, 0, NULL}};
  sp_fmt_source bs[3];
  sp_fmt_err err;
  sp_fmt_rank_sources(&r, bs);
  snprintf(p, sizeof p, "%s/big.spt", d);
  if (sp_fmt_spt_write(p, 0, 2, bs, 3, 0, &err) != 0)
    die(&err);
  return 0;
}
