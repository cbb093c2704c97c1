/* make_corpus_stream.c - writes the stream fuzzer's seed corpus: small
 * valid .spts streams of every record kind in both byte orders and both
 * clocks, with calls as CALLS and as ZCALLS records, and a few torn or
 * broken ones. Build and run from the top:
 *   cc -Iformat -Itest/unit test/fuzz/make_corpus_stream.c -o /tmp/mk &&
 *   /tmp/mk test/fuzz/corpus_stream */
#include "stream_writer.h"

#include <stdio.h>

static const char *dir;

static void save(const sw *w, size_t len, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (sw_save(w, path, len) != 0) {
    perror(path);
    exit(1);
  }
}

/* Every record kind: two ids of one name, an id without REGION, calls
 * overwritten, dropped and left open, ENDS, rank and metadata, a stop. */
static void full(sw *w, int be, uint32_t clock) {
  w->be = be;
  sw_header(w, 3, 77, clock);
  sw_region(w, 0, 10, "main", "main.c", 0);
  sw_region(w, 1, -1, "kernel", NULL, 0x401000);
  sw_region(w, 2, 7, "kernel", "k.c", 0x402000);
  sw_meta(w, "hostname", "node-1", 0);
  sw_clock(w, 100, 1000);
  static const uint64_t m[] = {110, 0}, k1[] = {120, 130, 140, 0, 0, 0},
                        k2[] = {125, 128}, o[] = {150, 160},
                        again[] = {141, 0, 160, 170};
  const sp_stream_end e[] = {{5, 1, 1, 145}, {5, 0, 0, 400}};
  sw_calls(w, 5, 0, 0, 1, m);
  sw_calls(w, 5, 1, 0, 3, k1);
  sw_calls(w, 5, 2, 0, 1, k2);
  sw_calls(w, 2, 9, 0, 1, o);
  sw_ends(w, 2, e);
  sw_calls(w, 5, 1, 1, 2, again);
  sw_meta(w, "rank", NULL, 4);
  sw_clock(w, 500, 1400);
  sw_stop(w, 450, 11);
}

/* full's stream with COUNTERS records after its STOP: two threads, a row
 * written twice (the later wins), a region id without REGION. */
static void counters(sw *w, int be) {
  full(w, be, SP_STREAM_CLOCK_NS);
  static const char *const names[] = {"page-faults", "context-switches"};
  static const uint64_t t5[] = {0, 1, 10, 2, 4, 2,  /* main */
                                1, 3, 6,  0, 6, 0}, /* kernel, id 1 */
      t2[] = {9, 1, 1, 1, 1, 1},                    /* no REGION */
      again[] = {1, 4, 8, 1, 8, 1};                 /* kernel, later */
  sw_counters(w, 5, 2, names, 2, t5);
  sw_counters(w, 2, 2, names, 1, t2);
  sw_counters(w, 5, 2, names, 1, again);
}

/* full's stream with MPI records: a send (one slot), a completed receive
 * and a collective (an ext slot each), a communicator past what a slot
 * names, then a slot whose ext is missing. */
static void mpi(sw *w, int be) {
  full(w, be, SP_STREAM_CLOCK_NS);
#define W(lo, hi) ((uint64_t)(uint32_t)(lo) | (uint64_t)(uint32_t)(hi) << 32)
  static const uint64_t m[] = {
      120, 64, W(1, 3),   W(7, 1 | 2 << 8), /* send to 3 on comm 2 */
      130, 40, W(1, 2),   W(9, 5 | 0x80),   /* a receive completed */
      120, 0,  W(1, -1),  0,                /* its origin */
      140, 8,  W(0, -1),  W(-1, 6 | 0x80),  /* a collective */
      0,   24, W(-1, 1),  0,                /* its root 1, 24 received */
      150, 4,  W(1, 0),   W(3, 1 | 0x80),   /* a send */
      0,   0,  W(-1, -1), 1 << 24,          /* on comm 2^24 */
      160, 4,  W(1, 0),   W(3, 1 | 0x80)};  /* its ext missing */
#undef W
  sw_mpi(w, 5, 8, m);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_corpus_stream DIR\n");
    return 2;
  }
  dir = argv[1];
  sw w = {0};
  full(&w, 0, SP_STREAM_CLOCK_NS);
  save(&w, w.n, "full_le.spts");
  save(&w, w.n - 5, "torn_le.spts");
  size_t n = w.n;
  w.b[n - 20] ^= 1;
  save(&w, n, "badcheck_le.spts");
  full(&w, 1, SP_STREAM_CLOCK_NS);
  save(&w, w.n, "full_be.spts");
  full(&w, 0, SP_STREAM_CLOCK_TSC);
  save(&w, w.n, "tsc_le.spts");
  full(&w, 1, SP_STREAM_CLOCK_TSC);
  save(&w, w.n, "tsc_be.spts");
  sw_header(&w, 0, 1, 0);
  save(&w, w.n, "empty.spts");
  save(&w, 20, "short_header.spts");
  static const uint64_t c[] = {1, 2};
  sw_calls(&w, 0, 0, 0, 1, c);
  sw_set64(&w, 32 + 16 + 16, (uint64_t)1 << 60);
  save(&w, w.n, "huge_count.spts");
  sw_header_as(&w, 3, SP_STREAM_BOM, 0, 1, 0);
  save(&w, w.n, "version3.spts");
  /* Calls as ZCALLS records (version 2), in both orders, and torn. */
  w.z = 1;
  full(&w, 0, SP_STREAM_CLOCK_NS);
  save(&w, w.n, "zcalls_le.spts");
  save(&w, w.n - 13, "zcalls_torn_le.spts");
  full(&w, 1, SP_STREAM_CLOCK_TSC);
  save(&w, w.n, "zcalls_tsc_be.spts");
  /* Counters per region after the STOP record, in both orders, torn. */
  w.z = 0;
  counters(&w, 0);
  save(&w, w.n, "counters_le.spts");
  save(&w, w.n - 9, "counters_torn_le.spts");
  counters(&w, 1);
  save(&w, w.n, "counters_be.spts");
  /* Messages of MPI calls, in both orders. */
  mpi(&w, 0);
  save(&w, w.n, "mpi_le.spts");
  mpi(&w, 1);
  save(&w, w.n, "mpi_be.spts");
  free(w.b);
  return 0;
}
