/* stream_writer.h - builds .spts stream images in memory for tests, the
 * importer's test inputs, the fuzzer's seeds and the bench, in either byte
 * order, with sp_stream.h's layout and check. */
#ifndef SP_STREAM_WRITER_H
#define SP_STREAM_WRITER_H

#include "sp_stream.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sw {
  unsigned char *b;
  size_t n, cap;
  int be;          /* 1: big-endian, else little-endian */
  int z;           /* 1: calls as ZCALLS records, header version 2 */
  size_t rec;      /* offset of the record being built */
  size_t ends[64]; /* offset after each record, for cutting tests */
  int nrec;
} sw;

static inline void sw_put(sw *w, const void *p, size_t n) {
  if (w->n + n > w->cap) {
    size_t cap = w->cap ? w->cap : 4096;
    while (cap < w->n + n)
      cap *= 2;
    unsigned char *b = realloc(w->b, cap);
    if (!b)
      abort();
    w->b = b;
    w->cap = cap;
  }
  memcpy(w->b + w->n, p, n);
  w->n += n;
}

static inline void sw_u32(sw *w, uint32_t u) {
  unsigned char x[4];
  for (int i = 0; i < 4; i++)
    x[w->be ? 3 - i : i] = (unsigned char)(u >> (8 * i));
  sw_put(w, x, 4);
}

static inline void sw_u64(sw *w, uint64_t u) {
  unsigned char x[8];
  for (int i = 0; i < 8; i++)
    x[w->be ? 7 - i : i] = (unsigned char)(u >> (8 * i));
  sw_put(w, x, 8);
}

static inline void sw_set64(sw *w, size_t at, uint64_t u) {
  for (int i = 0; i < 8; i++)
    w->b[at + (size_t)(w->be ? 7 - i : i)] = (unsigned char)(u >> (8 * i));
}

static inline void sw_set32(sw *w, size_t at, uint32_t u) {
  for (int i = 0; i < 4; i++)
    w->b[at + (size_t)(w->be ? 3 - i : i)] = (unsigned char)(u >> (8 * i));
}

/* The header, version and byte-order mark as given. */
static inline void sw_header_as(sw *w, uint32_t version, uint32_t bom,
                                int32_t rank, int32_t pid, uint32_t clock) {
  w->n = 0;
  w->nrec = 0;
  sw_put(w, SP_STREAM_MAGIC, 8);
  sw_u32(w, version);
  sw_u32(w, bom);
  sw_u32(w, (uint32_t)rank);
  sw_u32(w, (uint32_t)pid);
  sw_u32(w, clock);
  sw_u32(w, 0);
}

/* Version 1 unless w->z: what a writer of CALLS records only writes. */
static inline void sw_header(sw *w, int32_t rank, int32_t pid, uint32_t clock) {
  sw_header_as(w, w->z ? SP_STREAM_VERSION : 1, SP_STREAM_BOM, rank, pid,
               clock);
}

static inline void sw_begin(sw *w, uint32_t type) {
  w->rec = w->n;
  sw_u32(w, type);
  sw_u32(w, 0); /* size, set by sw_end */
  sw_u64(w, 0); /* check, set by sw_end */
}

/* Pads to 8 bytes, sets size and check (over the payload's words in the
 * file's byte order: a big-endian image is swapped on this machine). */
static inline void sw_end(sw *w) {
  static const unsigned char zero[8];
  if (w->n % 8)
    sw_put(w, zero, 8 - w->n % 8);
  uint32_t size = (uint32_t)(w->n - w->rec);
  uint32_t type = 0;
  for (int i = 0; i < 4; i++)
    type |= (uint32_t)w->b[w->rec + (size_t)(w->be ? 3 - i : i)] << (8 * i);
  sw_set32(w, w->rec + 4, size);
  uint64_t *words = malloc(size);
  if (!words)
    abort();
  memcpy(words, w->b + w->rec + 16, size - 16);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  int swap = w->be;
#else
  int swap = !w->be;
#endif
  sw_set64(w, w->rec + 8,
           sp_stream_check_words(type, size, words, (size - 16) / 8, swap));
  free(words);
  if (w->nrec < 64)
    w->ends[w->nrec++] = w->n;
}

/* The check of the record at at made right again after its bytes were
 * changed (its size as it says). */
static inline void sw_reseal(sw *w, size_t at) {
  uint32_t size = 0, type = 0;
  for (int i = 0; i < 4; i++) {
    type |= (uint32_t)w->b[at + (size_t)(w->be ? 3 - i : i)] << (8 * i);
    size |= (uint32_t)w->b[at + 4 + (size_t)(w->be ? 3 - i : i)] << (8 * i);
  }
  uint64_t *words = malloc(size);
  if (!words)
    abort();
  memcpy(words, w->b + at + 16, size - 16);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  int swap = w->be;
#else
  int swap = !w->be;
#endif
  sw_set64(w, at + 8,
           sp_stream_check_words(type, size, words, (size - 16) / 8, swap));
  free(words);
}

static inline void sw_region(sw *w, int32_t id, int32_t line, const char *name,
                             const char *file, uint64_t addr) {
  sw_begin(w, SP_STREAM_REGION);
  sw_u32(w, (uint32_t)id);
  sw_u32(w, (uint32_t)line);
  sw_u32(w, (uint32_t)strlen(name));
  sw_u32(w, file ? (uint32_t)strlen(file) : 0);
  sw_u64(w, addr);
  sw_put(w, name, strlen(name));
  if (file)
    sw_put(w, file, strlen(file));
  sw_end(w);
}

/* count pairs, start and end interleaved: a CALLS record, or with w->z a
 * ZCALLS record (its first start as base). */
static inline void sw_calls(sw *w, int32_t thread, int32_t region,
                            int64_t first, int64_t count,
                            const uint64_t *pairs) {
  sw_begin(w, w->z ? SP_STREAM_ZCALLS : SP_STREAM_CALLS);
  sw_u32(w, (uint32_t)thread);
  sw_u32(w, (uint32_t)region);
  sw_u64(w, (uint64_t)first);
  sw_u64(w, (uint64_t)count);
  /* Partial when a start or an end is 0, as the runtime marks them. */
  uint64_t flags = 0;
  for (int64_t i = 0; i < count; i++)
    flags |= pairs[2 * i] == 0 || pairs[2 * i + 1] == 0
                 ? SP_STREAM_CALLS_PARTIAL
                 : 0;
  sw_u64(w, flags);
  if (w->z) {
    uint64_t base = count ? pairs[0] : 0;
    sw_u64(w, base);
    size_t cap = (size_t)count * SP_STREAM_ZMAX;
    unsigned char *v = malloc(cap + 1);
    if (!v)
      abort();
    size_t len = sp_stream_zencode(pairs, (size_t)count, base, v, cap);
    sw_put(w, v, len);
    free(v);
  } else {
    for (int64_t i = 0; i < 2 * count; i++)
      sw_u64(w, pairs[i]);
  }
  sw_end(w);
}

static inline void sw_ends(sw *w, int64_t n, const sp_stream_end *e) {
  sw_begin(w, SP_STREAM_ENDS);
  sw_u64(w, (uint64_t)n);
  for (int64_t i = 0; i < n; i++) {
    sw_u32(w, (uint32_t)e[i].thread);
    sw_u32(w, (uint32_t)e[i].region);
    sw_u64(w, (uint64_t)e[i].index);
    sw_u64(w, e[i].end);
  }
  sw_end(w);
}

static inline void sw_clock(sw *w, uint64_t stamp, int64_t mono) {
  sw_begin(w, SP_STREAM_CLOCK);
  sw_u64(w, stamp);
  sw_u64(w, (uint64_t)mono);
  sw_end(w);
}

static inline void sw_meta(sw *w, const char *key, const char *str,
                           int64_t ival) {
  sw_begin(w, SP_STREAM_META);
  sw_u32(w, str ? 's' : 'i');
  sw_u32(w, (uint32_t)strlen(key));
  sw_u32(w, str ? (uint32_t)strlen(str) : 0);
  sw_u32(w, 0);
  sw_u64(w, (uint64_t)ival);
  sw_put(w, key, strlen(key));
  if (str)
    sw_put(w, str, strlen(str));
  sw_end(w);
}

static inline void sw_stop(sw *w, uint64_t stamp, int32_t cause) {
  sw_begin(w, SP_STREAM_STOP);
  sw_u64(w, stamp);
  sw_u32(w, (uint32_t)cause);
  sw_u32(w, 0);
  sw_end(w);
}

/* A COUNTERS record: k names, n rows of (region, calls, k inclusive, k
 * exclusive) given as 2 + 2k words each, the first word the region. */
static inline void sw_counters(sw *w, int32_t thread, uint32_t k,
                               const char *const *names, int64_t n,
                               const uint64_t *rows) {
  sw_begin(w, SP_STREAM_COUNTERS);
  sw_u32(w, (uint32_t)thread);
  sw_u32(w, k);
  sw_u64(w, (uint64_t)n);
  for (uint32_t i = 0; i < k; i++) {
    char name[SP_STREAM_CTR_NAME] = {0};
    memcpy(name, names[i], strlen(names[i]));
    sw_put(w, name, sizeof name);
  }
  for (int64_t r = 0; r < n; r++) {
    const uint64_t *x = rows + (size_t)r * (2 + 2 * k);
    sw_u32(w, (uint32_t)x[0]);
    sw_u32(w, 0);
    for (uint32_t j = 1; j < 2 + 2 * k; j++)
      sw_u64(w, x[j]);
  }
  sw_end(w);
}

/* An MPI record of thread: n 32-byte slots given as 4 words each, (start,
 * bytes, region | peer << 32, tag | kind << 32) for a message's first
 * slot, (origin, other, origin_region | root << 32, comm) for an ext. */
static inline void sw_mpi(sw *w, int32_t thread, int64_t n,
                          const uint64_t *slots) {
  sw_begin(w, SP_STREAM_MPI);
  sw_u32(w, (uint32_t)thread);
  sw_u32(w, 0);
  sw_u64(w, (uint64_t)n);
  for (const uint64_t *x = slots; x < slots + 4 * n; x += 4) {
    sw_u64(w, x[0]);
    sw_u64(w, x[1]);
    for (int j = 2; j < 4; j++) {
      sw_u32(w, (uint32_t)x[j]);
      sw_u32(w, (uint32_t)(x[j] >> 32));
    }
  }
  sw_end(w);
}

static inline int sw_save(const sw *w, const char *path, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return -1;
  size_t n = len ? fwrite(w->b, 1, len, f) : 0;
  return fclose(f) == 0 && n == len ? 0 : -1;
}

#endif /* SP_STREAM_WRITER_H */
