/* fuzz_spt.c - libFuzzer target for the .spt reader: any input must parse
 * or fail with a message, never crash; a file of the same bytes (read
 * through the header window, indexed, its calls streamed) must say the
 * same; what parses goes through the statistics too, since the importer
 * feeds parsed files to them. */
#include "sp_format.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The message without its "<name>: " prefix. */
static const char *after_name(const char *msg, const char *name) {
  size_t n = strlen(name);
  if (strncmp(msg, name, n) != 0 || strncmp(msg + n, ": ", 2) != 0)
    abort();
  return msg + n + 2;
}

/* The same bytes as a file: sp_fmt_spt_read and sp_fmt_spt_index agree
 * with the parse in memory (rc, message, counts, offsets, calls), and each
 * indexed block's calls stream back equal. */
static void same_as_file(const uint8_t *data, size_t size, int rc,
                         const sp_fmt_rank *m, const char *msg) {
  static int fd = -1;
  static char path[64];
  if (fd < 0) {
    fd = memfd_create("fuzz_spt", 0);
    if (fd < 0)
      abort();
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  }
  if (ftruncate(fd, 0) != 0 ||
      (size && pwrite(fd, data, size, 0) != (ssize_t)size))
    abort();
  sp_fmt_rank r, x;
  sp_fmt_err er, ex;
  if (sp_fmt_spt_read(path, &r, &er) != rc ||
      sp_fmt_spt_index(path, &x, &ex) != rc)
    abort();
  if (rc != 0) {
    if (strcmp(after_name(er.msg, path), after_name(msg, "fuzz")) != 0 ||
        strcmp(after_name(ex.msg, path), after_name(msg, "fuzz")) != 0)
      abort();
    return;
  }
  if (r.nblocks != m->nblocks || x.nblocks != m->nblocks ||
      r.nregions != m->nregions || x.foreign_order != m->foreign_order)
    abort();
  int failed = 0;
  for (int64_t i = 0; i < m->nblocks; i++) {
    const sp_fmt_block *b = &m->blocks[i], *xb = &x.blocks[i];
    if (r.blocks[i].count != b->count || xb->count != b->count ||
        xb->file_offset != b->file_offset)
      abort();
    if (b->count == 0)
      continue;
    size_t bytes = (size_t)b->count * 8;
    if (memcmp(r.blocks[i].starts, b->starts, bytes) != 0 ||
        memcmp(r.blocks[i].ends, b->ends, bytes) != 0)
      abort();
    int64_t *s = malloc(bytes), *e = malloc(bytes);
    if (s && e) {
      sp_fmt_spt_calls c;
      sp_fmt_spt_calls_init(&c, fd, &x, xb, &failed);
      sp_fmt_source src = {0};
      src.ctx = &c;
      sp_fmt_spt_calls_read(&src, 0, b->count, s, e);
      if (failed || memcmp(s, b->starts, bytes) != 0 ||
          memcmp(e, b->ends, bytes) != 0)
        abort();
    }
    free(s);
    free(e);
  }
  sp_fmt_rank_free(&r);
  sp_fmt_rank_free(&x);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sp_fmt_rank r;
  sp_fmt_err err;
  err.msg[0] = 0;
  int rc = sp_fmt_spt_parse(data, size, "fuzz", &r, &err);
  same_as_file(data, size, rc, &r, err.msg);
  if (rc != 0) {
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
