/* fuzz_spt.c - libFuzzer target for the .spt reader: any input must parse
 * or fail with a message, never crash; what parses goes through the
 * statistics too, since the importer feeds parsed files to them. */
#include "sp_format.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sp_fmt_rank r;
  sp_fmt_err err;
  err.msg[0] = 0;
  if (sp_fmt_spt_parse(data, size, "fuzz", &r, &err) != 0) {
    /* Every failure says where: "fuzz: offset N: ...". */
    if (strncmp(err.msg, "fuzz: offset ", 13) != 0)
      abort();
    return 0;
  }
  sp_fmt_source *srcs = malloc((size_t)r.nblocks * sizeof *srcs + 1);
  sp_fmt_stats *st = malloc((size_t)r.nblocks * sizeof *st + 1);
  if (srcs && st) {
    sp_fmt_rank_sources(&r, srcs);
    /* Blocks of one thread are not adjacent in general; group them. */
    sp_fmt_source *one = malloc((size_t)r.nblocks * sizeof *one + 1);
    for (int64_t i = 0; one && i < r.nblocks; i++) {
      int64_t k = 0;
      int seen = 0;
      for (int64_t j = 0; j < i; j++)
        seen |= srcs[j].thread == srcs[i].thread;
      if (seen)
        continue;
      for (int64_t j = i; j < r.nblocks; j++)
        if (srcs[j].thread == srcs[i].thread)
          one[k++] = srcs[j];
      sp_fmt_nesting nest;
      sp_fmt_stats_thread(one, k, st, &nest);
    }
    free(one);
  }
  free(srcs);
  free(st);
  sp_fmt_rank_free(&r);
  return 0;
}
