/* bench_stream.c - the runtime's finalize path for a stream: open it
 * (SP_FMT_STREAM_TRUST) and write the final .spt from its sources, timed
 * against `cp` of the same stream in the same run, the two in turns;
 * prints the ratio (cp's time over ours; the goal is >= 0.5).
 * usage: bench_stream DIR [MIB] [ns|tsc|ns-aligned|tsc-aligned] [REPEAT]
 * [nohints] (REPEAT 0: only write the stream, as DIR/bench_rank00000.spts;
 * -aligned adds the MPI clock alignment's META records (an offset and a
 * drift); nohints: index the stream from the file, without the record
 * heads the runtime's writer keeps) */
#include "sp_format.h"
#include "sp_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REC_BYTES 65536
#define PER_REC ((REC_BYTES - 16 - 32) / 16) /* 4093 calls */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* What the runtime's stream writer keeps of each record it writes, and
 * hands to the reader at finalize. */
static sp_stream_hint *hints;
static int64_t nhints, caphints, written;
static int use_hints = 1; /* as the runtime does; "nohints": read them */

static void put_rec(FILE *f, uint32_t type, const void *payload,
                    uint32_t size) {
  sp_stream_rec h = {type, size, sp_stream_check(type, size, payload)};
  if (fwrite(&h, sizeof h, 1, f) != 1 ||
      fwrite(payload, size - 16, 1, f) != 1) {
    perror("bench_stream: write");
    exit(1);
  }
  if (nhints == caphints) {
    caphints = caphints ? 2 * caphints : 1024;
    hints = realloc(hints, (size_t)caphints * sizeof *hints);
    if (!hints)
      exit(1);
  }
  sp_stream_hint *k = &hints[nhints++];
  k->off = written;
  memcpy(k->head, &h, 16);
  memcpy(k->head + 16, payload,
         size - 16 < SP_STREAM_HINT_HEAD - 16 ? size - 16
                                              : SP_STREAM_HINT_HEAD - 16);
  written += size;
}

static void put_meta_int(FILE *f, const char *key, int64_t v) {
  unsigned char buf[128] = {0};
  sp_stream_meta m = {'i', (uint32_t)strlen(key), 0, 0, v};
  memcpy(buf, &m, sizeof m);
  memcpy(buf + sizeof m, key, strlen(key));
  put_rec(f, SP_STREAM_META, buf,
          16 + (uint32_t)((sizeof m + strlen(key) + 7) & ~7u));
}

/* MIB MiB of 64 KiB CALLS records, in this machine's byte order: two
 * threads, each with an outer region (one call per 8 inner ones) and two
 * inner ones, their records interleaved as full buffers would be. */
static void generate(const char *path, int64_t mib, int tsc, int aligned) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    perror(path);
    exit(1);
  }
  sp_stream_header h = {
      {0}, SP_STREAM_VERSION, SP_STREAM_BOM,
      0,   getpid(),          tsc ? SP_STREAM_CLOCK_TSC : SP_STREAM_CLOCK_NS,
      0};
  memcpy(h.magic, SP_STREAM_MAGIC, 8);
  fwrite(&h, sizeof h, 1, f);
  written = sizeof h;
  static const char *names[3] = {"outer", "inner_a", "inner_b"};
  for (int id = 0; id < 3; id++) {
    unsigned char buf[64] = {0};
    sp_stream_region r = {id, 10 + id, (uint32_t)strlen(names[id]), 0, 0};
    memcpy(buf, &r, sizeof r);
    memcpy(buf + sizeof r, names[id], strlen(names[id]));
    uint32_t size = 16 + (uint32_t)((sizeof r + strlen(names[id]) + 7) & ~7u);
    put_rec(f, SP_STREAM_REGION, buf, size);
  }
  sp_stream_clock c0 = {1000, 1000};
  put_rec(f, SP_STREAM_CLOCK, &c0, 32);
  unsigned char *rec = malloc(REC_BYTES);
  int64_t nrec = (mib << 20) / REC_BYTES, next[2][3] = {{0}};
  uint64_t stamp_hi = 0;
  for (int64_t k = 0; k < nrec; k++) {
    int thread = (int)(k % 2), region = (int)(k / 2 % 5);
    region = region == 0 ? 0 : region <= 2 ? 1 : 2; /* outer 1 in 5 */
    sp_stream_calls hdr = {thread, region, next[thread][region], PER_REC, 0};
    memcpy(rec, &hdr, sizeof hdr);
    sp_stream_pair *p = (sp_stream_pair *)(void *)(rec + sizeof hdr);
    for (int i = 0; i < PER_REC; i++) {
      uint64_t n = (uint64_t)(next[thread][region] + i);
      uint64_t base = 2000 + 1000 * n + (uint64_t)thread * 7;
      p[i].start = base + (uint64_t)region * 100;
      p[i].end = p[i].start + (region ? 80 : 900);
      stamp_hi = p[i].end > stamp_hi ? p[i].end : stamp_hi;
    }
    next[thread][region] += PER_REC;
    put_rec(f, SP_STREAM_CALLS, rec, REC_BYTES);
  }
  sp_stream_clock c1 = {stamp_hi + 1, (int64_t)(stamp_hi + 1) / 3 * 2};
  put_rec(f, SP_STREAM_CLOCK, &c1, 32);
  if (aligned) { /* +10 s, drifting by 50 ppm of the run */
    put_meta_int(f, "clock_offset_init_ns", INT64_C(10000000000));
    put_meta_int(f, "clock_sync_init_ns", 1000);
    put_meta_int(f, "clock_offset_fin_ns",
                 INT64_C(10000000000) + c1.mono_ns / 20000);
    put_meta_int(f, "clock_sync_fin_ns", c1.mono_ns);
  }
  free(rec);
  if (fclose(f) != 0) {
    perror(path);
    exit(1);
  }
}

/* CPU seconds (user + system) of this process, or of its waited-for
 * children. */
static double cpu(int who) {
  struct rusage ru;
  getrusage(who, &ru);
  return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
         (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

static double cpu_cp, cpu_ours; /* of the last run */

static int by_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double run_cp(const char *src, const char *dst) {
  sync(); /* no writeback of the last run competing with this one */
  double c0 = cpu(RUSAGE_CHILDREN), t0 = now();
  pid_t pid = fork();
  if (pid == 0) {
    execlp("cp", "cp", src, dst, (char *)NULL);
    _exit(127);
  }
  int status;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    fprintf(stderr, "bench_stream: cp failed\n");
    exit(1);
  }
  double t = now() - t0;
  cpu_cp = cpu(RUSAGE_CHILDREN) - c0;
  return t;
}

/* What the runtime does at normal exit: open trusting the file, write
 * the .spt from the sources. */
static double run_finalize(const char *src, const char *dst, int64_t *calls) {
  sync();
  double c0 = cpu(RUSAGE_SELF), t0 = now();
  sp_fmt_stream *s;
  sp_fmt_err err;
  if (sp_fmt_stream_open_hinted(src, SP_FMT_STREAM_TRUST, hints,
                                use_hints ? nhints : 0, &s, &err) != 0) {
    fprintf(stderr, "bench_stream: %s\n", err.msg);
    exit(1);
  }
  sp_fmt_stream_info in;
  sp_fmt_stream_get_info(s, &in);
  if (sp_fmt_spt_write(dst, in.rank, in.threads > 1 ? 3 : 2,
                       sp_fmt_stream_sources(s), sp_fmt_stream_nsources(s), 0,
                       &err) != 0 ||
      sp_fmt_stream_failed(s)) {
    fprintf(stderr, "bench_stream: %s\n", err.msg);
    exit(1);
  }
  sp_fmt_stream_close(s);
  *calls = in.calls;
  double t = now() - t0;
  cpu_ours = cpu(RUSAGE_SELF) - c0;
  return t;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr,
            "usage: bench_stream DIR [MIB] [ns|tsc|ns-aligned|tsc-aligned] "
            "[REPEAT] [nohints]\n");
    return 2;
  }
  const char *dir = argv[1];
  int64_t mib = argc > 2 ? atoll(argv[2]) : 1024;
  const char *clk = argc > 3 ? argv[3] : "ns";
  int tsc = strncmp(clk, "tsc", 3) == 0, aligned = strstr(clk, "-aligned") != 0;
  int repeat = argc > 4 ? atoi(argv[4]) : 3;
  use_hints = !(argc > 5 && strcmp(argv[5], "nohints") == 0);
  char src[4096], dst_cp[4096], dst_spt[4096];
  snprintf(src, sizeof src, "%s/bench_rank00000.spts", dir);
  snprintf(dst_cp, sizeof dst_cp, "%s/copy.spts", dir);
  snprintf(dst_spt, sizeof dst_spt, "%s/bench_rank00000.spt", dir);
  generate(src, mib, tsc, aligned);
  if (repeat == 0) /* REPEAT 0: leave the stream there for other tools */
    return 0;
  double best_cp = 1e9, best_fin = 1e9;
  double *ratio = calloc((size_t)repeat, sizeof *ratio);
  int64_t calls = 0;
  if (!ratio)
    return 1;
  for (int r = 0; r < repeat; r++) {
    unlink(dst_cp);
    unlink(dst_spt);
    /* Each goes first in every other run: the second may find memory the
     * first just freed, or pay for its writeback. */
    double c, f;
    if (r % 2 == 0) {
      c = run_cp(src, dst_cp);
      unlink(dst_cp);
      f = run_finalize(src, dst_spt, &calls);
    } else {
      f = run_finalize(src, dst_spt, &calls);
      unlink(dst_spt);
      c = run_cp(src, dst_cp);
      unlink(dst_cp);
    }
    best_cp = c < best_cp ? c : best_cp;
    best_fin = f < best_fin ? f : best_fin;
    ratio[r] = c / f; /* cp and ours back to back: the same machine state */
    printf("run %d: cp %.3f s (cpu %.3f), stream -> .spt %.3f s (cpu %.3f), "
           "ratio %.2f\n",
           r, c, cpu_cp, f, cpu_ours, ratio[r]);
  }
  qsort(ratio, (size_t)repeat, sizeof *ratio, by_double);
  double median = repeat % 2 ? ratio[repeat / 2]
                             : (ratio[repeat / 2 - 1] + ratio[repeat / 2]) / 2;
  printf("stream of %lld MiB (%lld calls, %s clock): cp %.3f s, "
         "stream -> .spt %.3f s (best of %d); ratio cp/ours: median %.2f, "
         "of the bests %.2f\n",
         (long long)mib, (long long)calls, clk, best_cp, best_fin, repeat,
         median, best_cp / best_fin);
  free(ratio);
  unlink(src);
  unlink(dst_cp);
  unlink(dst_spt);
  return 0;
}
