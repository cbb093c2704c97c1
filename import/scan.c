/* scan.c - learns which ranks each input holds without reading events, so
 * rank collisions are caught before anything is written. */
#include "sp_import.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Rank from a .spt header (magic, version, rank: 16 bytes). Anything odd
 * is left to the full reader, whose message names the byte offset. */
static int spt_rank(const char *path, int32_t *rank, sp_fmt_err *err) {
  unsigned char b[16];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? pread(fd, b, sizeof b, 0) : -1;
  if (fd >= 0)
    close(fd);
  if (n == (ssize_t)sizeof b && memcmp(b, SP_FMT_MAGIC, 8) == 0) {
    uint32_t v, r;
    memcpy(&v, b + 8, 4);
    memcpy(&r, b + 12, 4);
    if (!(v >= 1 && v <= 0xffff)) { /* the other byte order */
      v = __builtin_bswap32(v);
      r = __builtin_bswap32(r);
    }
    if (v >= 1 && v <= SP_FMT_SPT_MAX_VERSION && (int32_t)r >= 0) {
      *rank = (int32_t)r;
      return 0;
    }
  }
  sp_fmt_rank full;
  if (sp_fmt_spt_read(path, &full, err) != 0)
    return -1;
  *rank = full.rank;
  sp_fmt_rank_free(&full);
  return 0;
}

static int by_rank(const void *a, const void *b) {
  const sp_imp_claim *x = a, *y = b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return x->input < y->input ? -1 : (x->input > y->input);
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return x < y ? -1 : (x > y);
}

static int push(sp_imp_claim **v, int64_t *n, int64_t *cap, int32_t rank,
                int64_t input) {
  if (*n == *cap) {
    int64_t c = *cap ? *cap * 2 : 64;
    sp_imp_claim *p = realloc(*v, (size_t)c * sizeof *p);
    if (!p)
      return -1;
    *v = p;
    *cap = c;
  }
  (*v)[(*n)++] = (sp_imp_claim){rank, input};
  return 0;
}

int sp__imp_scan(const sp_imp_inputs *in, sp_imp_claim **claims,
                 int64_t *nclaims, sp_fmt_err *err) {
  sp_imp_claim *v = NULL;
  int64_t n = 0, cap = 0;
  for (int64_t i = 0; i < in->n; i++) {
    const char *path = in->v[i].path;
    int rc = 0;
    if (in->v[i].kind == SP_IMP_SPT) {
      int32_t rank;
      rc = spt_rank(path, &rank, err);
      if (rc == 0 && push(&v, &n, &cap, rank, i) != 0)
        rc = -2;
    } else {
      sp_fmt_h5_summary s;
      rc = sp_fmt_h5_read_summary(path, &s, err);
      /* A merged file holds a rank in several rows; claim each once. */
      int32_t *rk = rc == 0 ? malloc((size_t)(s.nrows + 1) * sizeof *rk) : NULL;
      if (rc == 0 && !rk)
        rc = -2;
      for (int64_t k = 0; rc == 0 && k < s.nrows; k++)
        rk[k] = s.rows[k].rank;
      if (rc == 0)
        qsort(rk, (size_t)s.nrows, sizeof *rk, cmp_i32);
      for (int64_t k = 0; rc == 0 && k < s.nrows; k++)
        if ((k == 0 || rk[k] != rk[k - 1]) && push(&v, &n, &cap, rk[k], i))
          rc = -2;
      free(rk);
      if (rc != -1)
        sp_fmt_h5_summary_free(&s);
    }
    if (rc == -2)
      sp_fmt_err_set(err, "%s: out of memory", path);
    if (rc != 0) {
      free(v);
      return -1;
    }
  }
  qsort(v, (size_t)n, sizeof *v, by_rank);
  for (int64_t k = 1; k < n; k++)
    if (v[k].rank == v[k - 1].rank) {
      sp_fmt_err_set(err, "%s: rank %d is also in %s", in->v[v[k].input].path,
                     v[k].rank, in->v[v[k - 1].input].path);
      free(v);
      return -1;
    }
  *claims = v;
  *nclaims = n;
  return 0;
}
