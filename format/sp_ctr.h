/* sp_ctr.h - counters per region (SP_COUNTERS): one rank's inclusive and
 * exclusive sums per (thread, region), as the stream, the .h5 file's
 * rank<N>/likwid group and the tools hold them (format/ctr.c). */
#ifndef SP_CTR_H
#define SP_CTR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_FMT_CTR_MAX 32  /* counters in one table */
#define SP_FMT_CTR_NAME 32 /* bytes of a counter's name, its NUL included */

typedef struct sp_fmt_ctr {
  int32_t rank;
  int32_t n; /* counters */
  char names[SP_FMT_CTR_MAX][SP_FMT_CTR_NAME];
  int64_t nrows, cap;
  int32_t *thread;
  char **region;        /* the region's name (owned) */
  int64_t *calls;       /* calls that ended */
  int64_t *incl, *excl; /* nrows x n, row after row */
} sp_fmt_ctr;

/* Appends a row (incl and excl: n values each); 0, or -1 out of memory. */
int sp_fmt_ctr_add(sp_fmt_ctr *c, int32_t thread, const char *region,
                   int64_t calls, const int64_t *incl, const int64_t *excl);
/* Rows ordered by thread, then region name; rows of one (thread, region)
 * (two region ids of one name) summed into one. */
void sp_fmt_ctr_normalize(sp_fmt_ctr *c);
/* The index of counter name, or -1. */
int sp_fmt_ctr_find(const sp_fmt_ctr *c, const char *name);
void sp_fmt_ctr_free(sp_fmt_ctr *c);

#ifdef __cplusplus
}
#endif
#endif /* SP_CTR_H */
