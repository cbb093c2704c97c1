/* spt_mpi.c - a .spt's MPI messages, kept beside it in "<name>.spt.mpi"
 * (the .spt's own layout has no room for them): written, and read back
 * with every count, index and the checksum checked (docs/format.md). */
#include "sp_common.h"
#include "sp_spt.h"
#include "sp_stream.h"
#include "sp_tmp.h"
#include "sp_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEAD 64     /* magic, version, rank, .spt size, three counts, lost */
#define MSG 64      /* one message */
#define MAXLEN 4096 /* a name's bytes: the regions' own limit is lower */

int sp_fmt_spt_mpi_path(const char *spt, char *buf, size_t size) {
  int n = snprintf(buf, size, "%s.mpi", spt);
  return n > 0 && (size_t)n < size ? 0 : -1;
}

static uint64_t fnv(const unsigned char *p, size_t n) {
  uint64_t h = SP__FNV_SEED;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

static void put64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

static void put32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

static uint32_t get32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

int sp_fmt_spt_mpi_write(const char *path, int32_t rank, int64_t spt_size,
                         const sp_fmt_mpi *m, int64_t lost, sp_fmt_err *err) {
  size_t n = HEAD + 8 + (size_t)m->nmsgs * MSG;
  for (int64_t i = 0; i < m->nnames; i++)
    n += 4 + strlen(m->names[i]);
  for (int64_t i = 0; i < m->ncomms; i++)
    n += 8 + 4 * (size_t)m->comms[i].size;
  unsigned char *b = calloc(n, 1);
  if (!b) {
    sp_fmt_err_set(err, "%s: out of memory", path);
    return -1;
  }
  memcpy(b, SP_FMT_SPT_MPI_MAGIC, 8);
  put32(b + 8, SP_FMT_SPT_MPI_VERSION);
  put32(b + 12, (uint32_t)rank);
  put64(b + 16, (uint64_t)spt_size);
  put64(b + 24, (uint64_t)m->nnames);
  put64(b + 32, (uint64_t)m->ncomms);
  put64(b + 40, (uint64_t)m->nmsgs);
  put64(b + 48, (uint64_t)lost);
  size_t at = HEAD;
  for (int64_t i = 0; i < m->nnames; i++) {
    size_t l = strlen(m->names[i]);
    put32(b + at, (uint32_t)l);
    memcpy(b + at + 4, m->names[i], l);
    at += 4 + l;
  }
  for (int64_t i = 0; i < m->ncomms; i++) {
    const sp_fmt_mpicomm *c = &m->comms[i];
    put32(b + at, (uint32_t)c->id);
    put32(b + at + 4, (uint32_t)c->size);
    at += 8;
    for (int32_t k = 0; k < c->size; k++, at += 4)
      put32(b + at, (uint32_t)c->members[k]);
  }
  for (int64_t i = 0; i < m->nmsgs; i++, at += MSG) {
    const sp_fmt_mpimsg *g = &m->msgs[i];
    put64(b + at, (uint64_t)g->start_ns);
    put64(b + at + 8, (uint64_t)g->origin_ns);
    const int32_t v[8] = {g->thread, g->region, g->origin_region, g->kind,
                          g->peer,   g->tag,    g->comm,          g->root};
    for (int k = 0; k < 8; k++)
      put32(b + at + 16 + 4 * k, (uint32_t)v[k]);
    put64(b + at + 48, (uint64_t)g->sent);
    put64(b + at + 56, (uint64_t)g->recvd);
  }
  put64(b + at, fnv(b, at));
  char tmp[4096];
  int fd = sp_fmt_tmp_create(path, tmp, sizeof tmp, err);
  if (fd < 0) {
    free(b);
    return -1;
  }
  int rc = sp__pwrite_full(fd, b, n, 0, NULL);
  int e = errno;
  if (close(fd) != 0 && rc == 0)
    rc = -1, e = errno;
  free(b);
  if (rc != 0) {
    sp_fmt_tmp_discard(tmp);
    sp_fmt_err_set(err, "%s: %s", path, strerror(e ? e : EIO));
    return -1;
  }
  return sp_fmt_tmp_commit(tmp, path, err);
}

/* The reader's place in the image: what is left from at, and the one line
 * that says where it went wrong. */
typedef struct {
  const unsigned char *b;
  size_t n, at;
  const char *path;
  sp_fmt_err *err;
} rd;

static int need(rd *r, size_t k, const char *what) {
  if (r->n - r->at >= k)
    return 0;
  sp_fmt_err_set(r->err, "%s: offset %zu: truncated in %s (%zu bytes)", r->path,
                 r->n, what, r->n);
  return -1;
}

static int bad(rd *r, size_t at, const char *what, long long v) {
  sp_fmt_err_set(r->err, "%s: offset %zu: %s (%lld)", r->path, at, what, v);
  return -1;
}

/* A count at offset off: at most what the bytes left can hold, each item
 * taking at least each bytes. */
static int count(rd *r, size_t off, size_t each, int64_t *out) {
  int64_t v = (int64_t)get64(r->b + off);
  if (v < 0)
    return bad(r, off, "a negative count", v);
  if ((uint64_t)v > (r->n - HEAD) / each) {
    sp_fmt_err_set(r->err,
                   "%s: offset %zu: truncated, or the count at offset %zu "
                   "(%lld) is wrong",
                   r->path, r->n, off, (long long)v);
    return -1;
  }
  *out = v;
  return 0;
}

static int parse(rd *r, int32_t rank, int64_t spt_size, sp_fmt_mpi *m,
                 int64_t *lost) {
  if (need(r, HEAD, "the header") != 0)
    return -1;
  if (memcmp(r->b, SP_FMT_SPT_MPI_MAGIC, 8) != 0) {
    sp_fmt_err_set(r->err, "%s: offset 0: not a .spt.mpi file (bad magic)",
                   r->path);
    return -1;
  }
  if (get32(r->b + 8) != SP_FMT_SPT_MPI_VERSION)
    return bad(r, 8, "unsupported version", get32(r->b + 8));
  if ((int32_t)get32(r->b + 12) != rank)
    return bad(r, 12, "the rank is not its .spt's", (int32_t)get32(r->b + 12));
  if ((int64_t)get64(r->b + 16) != spt_size)
    return bad(r, 16, "written beside a .spt of another size",
               (long long)get64(r->b + 16));
  int64_t nn, nc, nm;
  if (count(r, 24, 4, &nn) != 0 || count(r, 32, 8, &nc) != 0 ||
      count(r, 40, MSG, &nm) != 0)
    return -1;
  *lost = (int64_t)get64(r->b + 48);
  r->at = HEAD;
  m->names = calloc((size_t)nn + 1, sizeof *m->names);
  m->comms = calloc((size_t)nc + 1, sizeof *m->comms);
  m->msgs = malloc(((size_t)nm + 1) * sizeof *m->msgs);
  if (!m->names || !m->comms || !m->msgs) {
    sp_fmt_err_set(r->err, "%s: out of memory", r->path);
    return -1;
  }
  for (; m->nnames < nn; m->nnames++) {
    if (need(r, 4, "a name") != 0)
      return -1;
    uint32_t l = get32(r->b + r->at);
    if (l == 0 || l > MAXLEN)
      return bad(r, r->at, "a name's length", l);
    r->at += 4;
    if (need(r, l, "a name") != 0)
      return -1;
    char *s = malloc(l + 1);
    if (!s) {
      sp_fmt_err_set(r->err, "%s: out of memory", r->path);
      return -1;
    }
    memcpy(s, r->b + r->at, l);
    s[l] = 0;
    for (uint32_t k = 0; k < l;) {
      int c = sp_fmt_utf8_len((const unsigned char *)s + k);
      if (c == 0 || s[k] == 0) {
        free(s);
        return bad(r, r->at + k, "a name that is not UTF-8 text", l);
      }
      k += (uint32_t)c;
    }
    m->names[m->nnames] = s;
    r->at += l;
  }
  for (; m->ncomms < nc; m->ncomms++) {
    if (need(r, 8, "a communicator") != 0)
      return -1;
    sp_fmt_mpicomm *c = &m->comms[m->ncomms];
    c->id = (int32_t)get32(r->b + r->at);
    int32_t size = (int32_t)get32(r->b + r->at + 4);
    if (c->id < 0 || (m->ncomms > 0 && c->id <= c[-1].id))
      return bad(r, r->at, "a communicator's id out of order", c->id);
    if (size < 0)
      return bad(r, r->at + 4, "a communicator's size", size);
    r->at += 8;
    if (need(r, (size_t)size * 4, "a communicator's members") != 0)
      return -1;
    if (!(c->members = malloc((size_t)size * 4 + 4))) {
      sp_fmt_err_set(r->err, "%s: out of memory", r->path);
      return -1;
    }
    c->size = size;
    for (int32_t k = 0; k < size; k++, r->at += 4)
      c->members[k] = (int32_t)get32(r->b + r->at);
  }
  for (; m->nmsgs < nm; m->nmsgs++, r->at += MSG) {
    if (need(r, MSG, "a message") != 0)
      return -1;
    const unsigned char *p = r->b + r->at;
    sp_fmt_mpimsg *g = &m->msgs[m->nmsgs];
    g->start_ns = (int64_t)get64(p);
    g->origin_ns = (int64_t)get64(p + 8);
    int32_t v[8];
    for (int k = 0; k < 8; k++)
      v[k] = (int32_t)get32(p + 16 + 4 * k);
    g->thread = v[0], g->region = v[1], g->origin_region = v[2];
    g->kind = v[3], g->peer = v[4], g->tag = v[5], g->comm = v[6];
    g->root = v[7];
    g->sent = (int64_t)get64(p + 48);
    g->recvd = (int64_t)get64(p + 56);
    if (g->thread < 0)
      return bad(r, r->at + 16, "a message's thread", g->thread);
    if (g->region < -1 || g->region >= nn)
      return bad(r, r->at + 20, "a message's region", g->region);
    if (g->origin_region < -1 || g->origin_region >= nn)
      return bad(r, r->at + 24, "a message's origin region", g->origin_region);
    if (g->kind < 1 || g->kind > SP_MPI_K_MAX)
      return bad(r, r->at + 28, "a message's kind", g->kind);
    if (g->sent < 0 || g->recvd < 0)
      return bad(r, r->at + 48, "a message's bytes",
                 (long long)(g->sent < 0 ? g->sent : g->recvd));
  }
  if (need(r, 8, "the checksum") != 0)
    return -1;
  if (get64(r->b + r->at) != fnv(r->b, r->at)) {
    sp_fmt_err_set(r->err,
                   "%s: offset %zu: the checksum does not match the bytes "
                   "before it",
                   r->path, r->at);
    return -1;
  }
  r->at += 8;
  if (r->at != r->n)
    return bad(r, r->at, "bytes after the checksum", (long long)(r->n - r->at));
  return 0;
}

int sp_fmt_spt_mpi_exists(const char *spt) {
  char side[4096];
  struct stat st;
  return sp_fmt_spt_mpi_path(spt, side, sizeof side) == 0 &&
         stat(side, &st) == 0;
}

int sp_fmt_spt_mpi_read(const char *spt, int32_t rank, sp_fmt_mpi *m,
                        int64_t *lost, sp_fmt_err *err) {
  memset(m, 0, sizeof *m);
  *lost = 0;
  char path[4096];
  struct stat sst;
  if (sp_fmt_spt_mpi_path(spt, path, sizeof path) != 0) {
    sp_fmt_err_set(err, "%.900s.mpi: name too long", spt);
    return -1;
  }
  if (stat(spt, &sst) != 0) {
    sp_fmt_err_set(err, "%s: %s", spt, strerror(errno));
    return -1;
  }
  int64_t spt_size = (int64_t)sst.st_size;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT)
      return 0;
    sp_fmt_err_set(err, "%s: %s", path, strerror(errno));
    return -1;
  }
  struct stat st;
  unsigned char *b = NULL;
  int rc = -1;
  if (fstat(fd, &st) != 0) {
    sp_fmt_err_set(err, "%s: %s", path, strerror(errno));
  } else if (!(b = malloc((size_t)st.st_size + 1))) {
    sp_fmt_err_set(err, "%s: out of memory", path);
  } else {
    size_t got = 0;
    if (sp__pread_full(fd, b, (size_t)st.st_size, 0, &got) != 0 && errno) {
      sp_fmt_err_set(err, "%s: offset %zu: %s", path, got, strerror(errno));
    } else {
      rd r = {b, got, 0, path, err};
      rc = parse(&r, rank, spt_size, m, lost);
    }
  }
  close(fd);
  free(b);
  if (rc != 0) {
    sp_fmt_mpi_free(m);
    return -1;
  }
  return 1;
}
