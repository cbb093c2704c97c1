/* merge.c - SP_MERGE: the ranks of an MPI job write one schema-2 profile,
 * <prefix>.h5, together at MPI_Finalize, equal to what sp-import makes of
 * their own files; any rank missing, each writes its own file instead.
 *
 * Turns given by rank 0: every rank sends rank 0 its number of calls;
 * rank 0 creates the file under a temporary name with the events reserved
 * (HDF5, in the module, on rank 0 only) and tells each rank the file and
 * where its calls go; rank 0 writes its own calls, then gives the other
 * ranks their turns in rank order, up to SP_MERGE_WRITERS open at once
 * (the places are disjoint), the next as each ends. A rank whose turn it
 * is writes its calls there (plain pwrite, no HDF5) while computing its
 * rows' statistics, and sends rank 0 its rows; rank 0 adds them to the
 * index in rank order (rows that come before an earlier rank's wait for
 * it), as sp-import orders them. The last done, rank 0 writes index and
 * metadata, renames the file into place and tells every rank. Messages go
 * through the MPI layer (sp_mpi_hooks.h: the PMPI names on MPI_COMM_WORLD)
 * with tags of their own (a communicator of our own would need a
 * collective call, which a dead rank would hang).
 *
 * Where every rank could load libscopeprof_h5mpi.so (parallel HDF5), the
 * calls go through it instead: once every rank has answered, rank 0 tells
 * all of them the temporary name and their place, and the ranks create the
 * file and write their calls together (MPI-IO collective writes, rounds of
 * ROUND calls); rank 0 then adopts the file, takes every rank's rows as
 * above (all turns open at once) and finishes it. The collective part has
 * no timeout of ours: it starts only when every rank is known to be alive
 * and willing. */
#include "h5_merge.h"
#include "internal.h"
#include "sp_format.h"
#include "sp_mpi_hooks.h"
#include "sp_profile.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define TAG_UP 32702   /* to rank 0: calls, then each rank's rows' size */
#define TAG_ROWS 32703 /* to rank 0: the rows */
#define TAG_DOWN 32704 /* from rank 0 */

enum { M_COUNT = 1, M_ROWS, M_PLACE, M_TURN, M_DONE, M_ABORT, M_ALIVE };

typedef struct up_msg {
  int64_t kind, value, len; /* M_COUNT: calls (-1: not taking part), the
                               largest file it may write if it can write in
                               parallel (else 0); M_ROWS: 0 or -1
                               (failed), rows' bytes */
  uint64_t host;            /* M_COUNT: its host name's hash */
} up_msg;

typedef struct down_msg {
  int64_t kind, base, at[2]; /* M_PLACE: first call, datasets' offsets (in
                                parallel: all calls, rounds) */
  int64_t par;               /* M_PLACE: 1: write in parallel */
  char path[PATH_MAX + 64];  /* M_PLACE: the file to write into */
} down_msg;

/* Calls per collective write of the parallel way: 8 MiB of each column. */
#define ROUND ((int64_t)1 << 20)

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Waits off the CPU: ranks often share cores, and the rank writing should
 * have them. The pause grows from 50 us to 1 ms and no further, so that a
 * turn given or done is noticed at once against the turn's own length. */
static void nap(int64_t *ns) {
  struct timespec ts = {0, (long)*ns};
  nanosleep(&ts, NULL);
  if (*ns < 1000000)
    *ns *= 2;
}

typedef struct job {
  const sp__mpi_ops *m; /* the MPI layer's */
  int rank, size;       /* in MPI_COMM_WORLD */
  int64_t wait_ns;      /* SP_MERGE_TIMEOUT */
  int64_t alive_at;     /* rank 0: when it last told the waiting ranks */
  char *busy;           /* rank 0: ranks whose turn is open (writing) */
  char *gone;           /* rank 0: ranks that failed to answer */
  char *heard;          /* rank 0: ranks whose count came (alive, waiting) */
} job;

/* Rank 0, waiting: every quarter of the timeout, tells every rank still to
 * hear from it (all but those whose turn is open) that it is alive, so that
 * a rank waiting for its turn behind many others waits for silence, not for
 * the sum of their writes. */
static int send_within(job *j, const void *buf, int len, int dst, int tag);

static void keep_alive(job *j) {
  /* no lists: rank 0 left the merge (sp__merge_at_finalize), none waits */
  if (j->rank != 0 || !j->busy || !j->heard ||
      now_ns() - j->alive_at < j->wait_ns / 4)
    return;
  down_msg d;
  memset(&d, 0, sizeof d);
  d.kind = M_ALIVE;
  for (int r = 1; r < j->size; r++)
    if (!j->busy[r] && j->heard[r] && !j->gone[r])
      send_within(j, &d, (int)offsetof(down_msg, path), r, TAG_DOWN);
  j->alive_at = now_ns();
}

/* Waits at most the timeout for req. A receive keeps the job alive while
 * it waits and is cancelled when the time is up; a send's request is left
 * to MPI then (its receiver may have given up or died). */
static int wait_within(job *j, sp__mpi_req *req, int receiving) {
  int flag = 0;
  int64_t until = now_ns() + j->wait_ns, pause = 50000;
  for (;;) {
    if (j->m->test(req, &flag) != 0)
      return -1;
    if (flag)
      return 0;
    if (now_ns() > until) {
      if (receiving)
        j->m->cancel(req);
      else
        j->m->request_free(req);
      return -1;
    }
    if (receiving)
      keep_alive(j);
    nap(&pause);
  }
}

/* len bytes from src on tag, waiting at most the timeout. */
static int recv_within(job *j, void *buf, int len, int src, int tag) {
  sp__mpi_req req;
  if (j->m->irecv(buf, len, src, tag, &req) != 0)
    return -1;
  return wait_within(j, &req, 1);
}

/* len bytes of buf to dst on tag, waiting at most the timeout for MPI to
 * take them: a message larger than MPI's eager limit waits for its
 * receiver, which may have given up or died. Then the request is left to
 * MPI with a copy of the bytes (never freed: MPI may still read them). */
static int send_within(job *j, const void *buf, int len, int dst, int tag) {
  sp__mpi_req req;
  void *copy = malloc(len > 0 ? (size_t)len : 1);
  if (!copy)
    return -1;
  memcpy(copy, buf, (size_t)len);
  if (j->m->isend(copy, len, dst, tag, &req) != 0) {
    free(copy);
    return -1;
  }
  if (wait_within(j, &req, 0) != 0)
    return -1; /* copy leaked: the request may still hold it */
  free(copy);
  return 0;
}

/* The next message from rank 0 that is not M_ALIVE (each of which starts
 * the timeout again); M_ABORT when none came in time. */
static void recv_down(job *j, down_msg *d) {
  do {
    if (recv_within(j, d, (int)sizeof *d, 0, TAG_DOWN) != 0)
      d->kind = M_ABORT;
  } while (d->kind == M_ALIVE);
}

static void send_down(job *j, int r, int64_t kind) {
  down_msg d;
  memset(&d, 0, sizeof d);
  d.kind = kind;
  send_within(j, &d, (int)offsetof(down_msg, path), r, TAG_DOWN);
}

/* ---- this rank's share ---- */

typedef struct row {
  sp_fmt_source src;
  int64_t first; /* its first call's start: the order key */
  int64_t at;    /* its first call's index in this rank's calls */
} row;

typedef struct share {
  int32_t rank; /* the rank in the file (SP_RANK's, else MPI's) */
  sp_fmt_stream *s;
  row *rows;
  sp_fmt_source *srcs; /* the rows' sources, in order */
  sp_fmt_stats *st;
  int64_t n, calls;
  sp_fmt_meta meta; /* as this rank's own .h5 would hold */
  char *per[SP_FMT_PER_RANK];
  sp_fmt_mpi mpi; /* the MPI layer's messages */
  sp_fmt_ctr ctr; /* SP_COUNTERS' sums (n 0: none) */
} share;

static int by_row(const void *a, const void *b) {
  const row *x = a, *y = b;
  return sp_fmt_row_cmp(&x->src, x->first, &y->src, y->first);
}

static void share_free(share *sh) {
  sp_fmt_stream_close(sh->s);
  free(sh->rows);
  free(sh->srcs);
  free(sh->st);
  sp_fmt_meta_free(&sh->meta);
  sp_fmt_mpi_free(&sh->mpi);
  for (int k = 0; k < SP_FMT_PER_RANK; k++)
    free(sh->per[k]);
  sp_fmt_ctr_free(&sh->ctr);
}

/* The complete stream's rows in schema-2 order (as sp-import orders them)
 * and the metadata this rank's own file would have. */
static int share_open(share *sh, int32_t rank, sp_fmt_err *err) {
  int64_t nhint;
  const sp_stream_hint *hint = sp__stream_hints(&nhint);
  memset(sh, 0, sizeof *sh);
  sh->rank = rank;
  if (sp_fmt_stream_open_hinted(sp__stream_path, SP_FMT_STREAM_TRUST, hint,
                                nhint, &sh->s, err) != 0)
    return -1;
  sp_fmt_stream_info info;
  sp_fmt_stream_get_info(sh->s, &info);
  const sp_fmt_source *src = sp_fmt_stream_sources(sh->s);
  sh->n = sp_fmt_stream_nsources(sh->s);
  size_t cnt = sh->n ? (size_t)sh->n : 1;
  sh->rows = malloc(cnt * sizeof *sh->rows);
  sh->srcs = malloc(cnt * sizeof *sh->srcs);
  sh->st = calloc(cnt, sizeof *sh->st);
  if (!sh->rows || !sh->srcs || !sh->st) {
    sp_fmt_err_set(err, "%s: out of memory", sp__stream_path);
    return -1;
  }
  for (int64_t i = 0; i < sh->n; i++) {
    int64_t first = 0, end;
    if (src[i].count > 0)
      src[i].read(&src[i], 0, 1, &first, &end);
    sh->rows[i] = (row){src[i], first, 0};
  }
  qsort(sh->rows, (size_t)sh->n, sizeof *sh->rows, by_row);
  for (int64_t i = 0; i < sh->n; i++) {
    sh->rows[i].at = sh->calls;
    sh->srcs[i] = sh->rows[i].src;
    sh->calls += sh->rows[i].src.count;
  }
  if (sp_fmt_stream_mpi(sh->s, &sh->mpi, err) != 0)
    return -1;
  sp__rank_meta(&sh->meta, sp_fmt_stream_meta(sh->s), info.open_calls);
  if (sp_fmt_stream_counters(sh->s, &sh->ctr) != 0) {
    sp_fmt_err_set(err, "%s: out of memory", sp__stream_path);
    return -1;
  }
  sh->ctr.rank = rank;
  if (sp_fmt_per_rank_values(&sh->meta, rank, sh->per) != 0) {
    sp_fmt_err_set(err, "%s: out of memory", sp__stream_path);
    return -1;
  }
  return 0;
}

/* -1 with err set if reading the stream failed (its errno, or no
 * progress), else 0. */
static int stream_err(const share *sh, sp_fmt_err *err) {
  int e = sp_fmt_stream_failed(sh->s);
  if (!e)
    return 0;
  sp_fmt_err_set(err, "%s: %s", sp__stream_path,
                 e > 0 ? strerror(e) : "no progress");
  return -1;
}

/* Calls as the statistics read them, written on at their place. */
typedef struct writing {
  const share *sh;
  int fd;
  int64_t base, at[2];
  int failed; /* errno, or -1 */
} writing;

/* Batches end where a call's place is a multiple of 32 Ki calls (256 KiB
 * of timestamps), as sp-import's do: whole aligned pieces of the file. */
#define PIECE ((int64_t)32768)

static int64_t batch_size(void *ctx, int64_t i, int64_t first, int64_t n) {
  const writing *w = ctx;
  int64_t place = w->base + w->sh->rows[i].at + first + n;
  if (first + n < w->sh->rows[i].src.count && n >= PIECE)
    n -= place % PIECE;
  return n;
}

static void batch(void *ctx, int64_t i, int64_t first, int64_t n,
                  const int64_t *starts, const int64_t *ends) {
  writing *w = ctx;
  int64_t call = w->base + w->sh->rows[i].at + first;
  if (w->failed)
    return;
  if (sp_fmt_put_le64(w->fd, w->at[0] + call * 8, starts, n) != 0 ||
      sp_fmt_put_le64(w->fd, w->at[1] + call * 8, ends, n) != 0)
    w->failed = errno ? errno : -1;
}

/* This rank's calls into path at base, and its rows' statistics, in one
 * read of the stream. */
static int share_write(share *sh, const char *path, int64_t base,
                       const int64_t at[2], sp_fmt_err *err) {
  writing w = {sh, -1, base, {at[0], at[1]}, 0};
  if (sh->calls > 0 && (w.fd = open(path, O_WRONLY | O_CLOEXEC)) < 0) {
    sp_fmt_err_set(err, "%s: %s", path, strerror(errno));
    return -1;
  }
  sp_fmt_stats_reader rd = {batch_size, batch, &w};
  int64_t bad = sp_fmt_stats_rank_read(sh->srcs, sh->n, sh->st, NULL, &rd);
  if (w.fd >= 0 && close(w.fd) != 0 && !w.failed)
    w.failed = errno;
  if (bad < 0) {
    sp_fmt_err_set(err, "%s: out of memory", path);
    return -1;
  }
  if (w.failed) {
    sp_fmt_err_set(err, "%s: %s", path,
                   w.failed > 0 ? strerror(w.failed) : "no progress");
    return -1;
  }
  return stream_err(sh, err);
}

/* The parallel way, every rank: the file created together, this rank's
 * calls at base written in `rounds` collective writes of ROUND calls (the
 * same number on every rank, the last ones empty), closed together; then
 * its rows' statistics, from a second read of the stream: the statistics'
 * reader hands out a thread's rows' calls interleaved, and a round needs
 * them in their order in the file. */
static int share_write_par(share *sh, const sp__h5_par_ops *par,
                           const char *tmp, int64_t base, int64_t total,
                           int64_t rounds, sp_fmt_err *err) {
  int64_t t0 = now_ns();
  void *p = par->create(tmp, total, err);
  if (!p)
    return -1;
  int64_t t1 = now_ns();
  int64_t *s = malloc((size_t)ROUND * 16), *e = s ? s + ROUND : NULL;
  int failed = !s;
  if (!s)
    sp_fmt_err_set(err, "%s: out of memory", tmp);
  else if (SP__TEST_CFG(merge_test_fail, 0)) {
    sp_fmt_err_set(err, "%s: SP_MERGE_TEST_FAIL", tmp);
    failed = 1;
  }
  int64_t i = 0, first = 0, done = 0; /* the next call: row i, its first */
  for (int64_t r = 0; r < rounds; r++) {
    int64_t fill = 0;
    while (!failed && fill < ROUND && i < sh->n) {
      const sp_fmt_source *src = &sh->srcs[i];
      int64_t n =
          src->count - first < ROUND - fill ? src->count - first : ROUND - fill;
      if (n > 0)
        src->read(src, first, n, s + fill, e + fill);
      fill += n;
      first += n;
      if (first == src->count)
        i++, first = 0;
    }
    if (!failed && stream_err(sh, err) != 0)
      failed = 1;
    if (failed)
      fill = 0;
    if (par->put(p, base + done, s, e, fill, err) != 0)
      failed = 1;
    done += fill;
  }
  if (!failed && done != sh->calls) {
    sp_fmt_err_set(err, "%s: %lld calls written of %lld", tmp, (long long)done,
                   (long long)sh->calls);
    failed = 1;
  }
  free(s);
  int64_t t2 = now_ns();
  if (par->close(p, failed ? NULL : err) != 0)
    failed = 1;
  if (failed)
    return -1;
  int64_t t3 = now_ns();
  if (sp_fmt_stats_rank_read(sh->srcs, sh->n, sh->st, NULL, NULL) < 0) {
    sp_fmt_err_set(err, "%s: out of memory", tmp);
    return -1;
  }
  if (stream_err(sh, err) != 0)
    return -1;
  if (sh->rank == 0)
    sp__debug("%s: parallel write of rank %d: create %.3f s, %lld rounds "
              "%.3f s, close %.3f s, statistics %.3f s",
              tmp, (int)sh->rank, 1e-9 * (double)(t1 - t0), (long long)rounds,
              1e-9 * (double)(t2 - t1), 1e-9 * (double)(t3 - t2),
              1e-9 * (double)(now_ns() - t3));
  return 0;
}

/* This rank's host name (SP_MERGE_TEST_HOST's in tests), hashed (FNV-1a):
 * rank 0 learns whether the job spans hosts. */
static uint64_t host_hash(void) {
  char name[256] = "";
  if (SP__TEST_CFG(merge_test_host, "")[0])
    snprintf(name, sizeof name, "%s", SP__TEST_CFG(merge_test_host, ""));
  else
    gethostname(name, sizeof name - 1);
  uint64_t h = 14695981039346656037ull;
  for (const char *c = name; *c; c++)
    h = (h ^ (unsigned char)*c) * 1099511628211ull;
  return h;
}

/* The largest file this process may write (RLIMIT_FSIZE). */
static int64_t file_limit(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
      rl.rlim_cur > (rlim_t)INT64_MAX)
    return INT64_MAX;
  return (int64_t)rl.rlim_cur;
}

/* ---- the rows as bytes, rank r to rank 0 ----
 * int32 rank, int64 rows; per rank key a string; per row int32 thread,
 * int32 line, int64 calls, the sp_fmt_stats as they are in memory (the
 * job's ranks run one build of the runtime), its name and file. A string
 * is an int32 length (-1: none) and its bytes. */

typedef struct buf {
  char *p;
  size_t n, cap;
  int oom;
} buf;

static void put(buf *b, const void *p, size_t n) {
  if (b->oom)
    return;
  if (b->n + n > b->cap) {
    size_t cap = (b->cap ? b->cap * 2 : 4096) + n;
    char *q = realloc(b->p, cap);
    if (!q) {
      b->oom = 1;
      return;
    }
    b->p = q;
    b->cap = cap;
  }
  memcpy(b->p + b->n, p, n);
  b->n += n;
}

static void put_str(buf *b, const char *s) {
  int32_t len = s ? (int32_t)strlen(s) : -1;
  put(b, &len, sizeof len);
  if (s)
    put(b, s, (size_t)len);
}

/* SP_COUNTERS' sums: int32 counters (0: none), their names, int64 rows,
 * each int32 thread, int64 calls, region, the inclusive and exclusive
 * sums. */
static void put_counters(buf *b, const sp_fmt_ctr *c) {
  put(b, &c->n, sizeof c->n);
  for (int k = 0; k < c->n; k++)
    put_str(b, c->names[k]);
  put(b, &c->nrows, sizeof c->nrows);
  for (int64_t i = 0; c->n && i < c->nrows; i++) {
    put(b, &c->thread[i], sizeof c->thread[i]);
    put(b, &c->calls[i], sizeof c->calls[i]);
    put_str(b, c->region[i]);
    put(b, c->incl + i * c->n, (size_t)c->n * sizeof *c->incl);
    put(b, c->excl + i * c->n, (size_t)c->n * sizeof *c->excl);
  }
}

static int pack(const share *sh, buf *b) {
  put(b, &sh->rank, sizeof sh->rank);
  put(b, &sh->n, sizeof sh->n);
  for (int k = 0; k < SP_FMT_PER_RANK; k++)
    put_str(b, sh->per[k]);
  for (int64_t i = 0; i < sh->n; i++) {
    const sp_fmt_source *s = &sh->srcs[i];
    put(b, &s->thread, sizeof s->thread);
    put(b, &s->line, sizeof s->line);
    put(b, &s->count, sizeof s->count);
    put(b, &sh->st[i], sizeof sh->st[i]);
    put_str(b, s->name);
    put_str(b, s->file && s->file[0] ? s->file : NULL);
  }
  /* the messages: names, messages as they are (one build on every rank),
   * communicators */
  const sp_fmt_mpi *m = &sh->mpi;
  put(b, &m->nnames, sizeof m->nnames);
  for (int64_t i = 0; i < m->nnames; i++)
    put_str(b, m->names[i]);
  put(b, &m->nmsgs, sizeof m->nmsgs);
  put(b, m->msgs, (size_t)m->nmsgs * sizeof *m->msgs);
  put(b, &m->ncomms, sizeof m->ncomms);
  for (int64_t i = 0; i < m->ncomms; i++) {
    put(b, &m->comms[i].id, sizeof m->comms[i].id);
    put(b, &m->comms[i].size, sizeof m->comms[i].size);
    put(b, m->comms[i].members, (size_t)m->comms[i].size * 4);
  }
  put_counters(b, &sh->ctr); /* after the rows */
  return b->oom ? -1 : 0;
}

typedef struct reader {
  const char *p;
  size_t n, at;
  int bad;
} reader;

static void get(reader *r, void *out, size_t n) {
  if (r->bad || r->n - r->at < n) {
    r->bad = 1;
    memset(out, 0, n);
    return;
  }
  memcpy(out, r->p + r->at, n);
  r->at += n;
}

/* A string of the buffer, copied (NULL: none, or r->bad). */
static char *get_str(reader *r) {
  int32_t len;
  get(r, &len, sizeof len);
  if (r->bad || len < 0)
    return NULL;
  if ((size_t)len > r->n - r->at) {
    r->bad = 1;
    return NULL;
  }
  char *s = malloc((size_t)len + 1);
  if (!s) {
    r->bad = 1;
    return NULL;
  }
  memcpy(s, r->p + r->at, (size_t)len);
  s[len] = 0;
  r->at += (size_t)len;
  return s;
}

/* The messages pack() appended into m; 0, or -1 (r->bad, or no memory:
 * what was read is in m for the caller to free). */
static int get_mpi(reader *r, sp_fmt_mpi *m) {
  memset(m, 0, sizeof *m);
  int64_t n = 0;
  get(r, &n, sizeof n);
  if (r->bad || n < 0 || (size_t)n > r->n - r->at ||
      !(m->names = calloc((size_t)n + 1, sizeof *m->names)))
    return -1;
  for (int64_t i = 0; i < n; i++) {
    if (!(m->names[i] = get_str(r)))
      return -1;
    m->nnames++;
  }
  get(r, &n, sizeof n);
  if (r->bad || n < 0 || (size_t)n > (r->n - r->at) / sizeof *m->msgs ||
      !(m->msgs = malloc((size_t)n * sizeof *m->msgs + 1)))
    return -1;
  get(r, m->msgs, (size_t)n * sizeof *m->msgs);
  m->nmsgs = n;
  for (int64_t i = 0; i < n; i++)
    if (m->msgs[i].region >= m->nnames || m->msgs[i].origin_region >= m->nnames)
      return -1;
  get(r, &n, sizeof n);
  if (r->bad || n < 0 || (size_t)n > r->n - r->at ||
      !(m->comms = calloc((size_t)n + 1, sizeof *m->comms)))
    return -1;
  for (int64_t i = 0; i < n && !r->bad; i++) {
    sp_fmt_mpicomm *c = &m->comms[i];
    get(r, &c->id, sizeof c->id);
    get(r, &c->size, sizeof c->size);
    if (r->bad || c->size < 0 || (size_t)c->size > (r->n - r->at) / 4 ||
        !(c->members = malloc((size_t)c->size * 4 + 4)))
      return -1;
    get(r, c->members, (size_t)c->size * 4);
    m->ncomms++;
  }
  return r->bad ? -1 : 0;
}

/* ---- rank 0 ---- */

typedef struct writer {
  const sp__h5_merge_ops *ops;
  void *w;
  char path[PATH_MAX + 64];
  int32_t *ranks;  /* per MPI rank, its rank in the file */
  char **per;      /* per MPI rank, SP_FMT_PER_RANK values */
  sp_fmt_ctr *ctr; /* per MPI rank, its counters (written at close) */
} writer;

/* A rank's counters from its rows' message into c; 0, or -1 (cut short). */
static int get_counters(reader *rd, sp_fmt_ctr *c) {
  int32_t n = 0;
  int64_t nrows = 0;
  get(rd, &n, sizeof n);
  if (rd->bad || n < 0 || n > SP_FMT_CTR_MAX)
    return -1;
  c->n = n;
  for (int k = 0; k < n; k++) {
    char *s = get_str(rd);
    snprintf(c->names[k], SP_FMT_CTR_NAME, "%s", s ? s : "");
    free(s);
  }
  get(rd, &nrows, sizeof nrows);
  int64_t v[2 * SP_FMT_CTR_MAX];
  for (int64_t i = 0; n && i < nrows && !rd->bad; i++) {
    int32_t thread;
    int64_t calls;
    get(rd, &thread, sizeof thread);
    get(rd, &calls, sizeof calls);
    char *name = get_str(rd);
    get(rd, v, 2 * (size_t)n * sizeof *v);
    if (!rd->bad && name &&
        sp_fmt_ctr_add(c, thread, name, calls, v, v + n) != 0)
      rd->bad = 1;
    free(name);
  }
  return rd->bad ? -1 : 0;
}

/* Rank r's rows (bytes b) into the index, its per-rank values kept. */
static int add_packed(writer *wr, int r, const char *b, size_t n,
                      sp_fmt_err *err) {
  reader rd = {b, n, 0, 0};
  int64_t nrows = 0;
  get(&rd, &wr->ranks[r], sizeof wr->ranks[r]);
  get(&rd, &nrows, sizeof nrows);
  for (int k = 0; k < SP_FMT_PER_RANK; k++)
    wr->per[(size_t)r * SP_FMT_PER_RANK + (size_t)k] = get_str(&rd);
  for (int64_t i = 0; i < nrows && !rd.bad; i++) {
    sp_fmt_source s;
    sp_fmt_stats st;
    memset(&s, 0, sizeof s);
    get(&rd, &s.thread, sizeof s.thread);
    get(&rd, &s.line, sizeof s.line);
    get(&rd, &s.count, sizeof s.count);
    get(&rd, &st, sizeof st);
    char *name = get_str(&rd), *file = get_str(&rd);
    s.name = name;
    s.file = file;
    int rc = !rd.bad && name
                 ? wr->ops->row(wr->w, wr->ranks[r], &s, &st, err)
                 : (sp_fmt_err_set(err, "%s: rank %d sent rows cut short",
                                   wr->path, r),
                    -1);
    free(name);
    free(file);
    if (rc != 0)
      return -1;
  }
  sp_fmt_mpi m = {0, NULL, 0, NULL, 0, NULL};
  if (rd.bad || get_mpi(&rd, &m) != 0 ||
      (get_counters(&rd, &wr->ctr[r]), rd.bad)) {
    sp_fmt_mpi_free(&m);
    sp_fmt_err_set(err, "%s: rank %d sent rows cut short", wr->path, r);
    return -1;
  }
  return wr->ops->mpi(wr->w, wr->ranks[r], &m, err);
}

/* The metadata of the merged file as sp-import makes it: rank 0's, the
 * run's label, mpi_size, and each rank's host and clock as lists. */
static int merged_meta(const writer *wr, const job *j, const share *sh,
                       sp_fmt_meta *m) {
  const char *label = sp__cfg.label;
  const char *slash = strrchr(wr->path, '/');
  char stem[PATH_MAX + 64];
  if (!label[0]) { /* sp-import's default: the output's name, no .h5 */
    snprintf(stem, sizeof stem, "%s", slash ? slash + 1 : wr->path);
    char *dot = strrchr(stem, '.');
    if (dot && dot != stem)
      *dot = 0;
    label = stem;
  }
  return sp_fmt_meta_copy(m, &sh->meta) != 0 ||
                 sp_fmt_meta_set_str(m, "label", label) != 0 ||
                 sp_fmt_meta_set_int(m, "mpi_size", j->size) != 0 ||
                 sp_fmt_per_rank_meta(m, wr->per, wr->ranks, j->size) != 0
             ? -1
             : 0;
}

/* Every other rank's M_COUNT into ups[r], in whatever order they come
 * (a rank that answers is told that rank 0 is alive while the others are
 * awaited); the timeout for all of them together. ups[r].kind stays 0 for
 * a rank that did not answer. 0, or -1 when out of memory. */
static int gather_counts(job *j, up_msg *ups) {
  sp__mpi_req *req = calloc((size_t)j->size, sizeof *req);
  char *done = calloc((size_t)j->size, 1);
  int pending = 0, rc = req && done ? 0 : -1;
  for (int r = 1; rc == 0 && r < j->size; r++) {
    ups[r] = (up_msg){0, -1, 0, 0};
    if (j->m->irecv(&ups[r], (int)sizeof ups[r], r, TAG_UP, &req[r]) == 0)
      pending++;
    else
      done[r] = 1;
  }
  int64_t until = now_ns() + j->wait_ns, pause = 50000;
  while (rc == 0 && pending > 0) {
    for (int r = 1; r < j->size; r++) {
      int flag = 0;
      if (done[r] || j->m->test(&req[r], &flag) != 0 || !flag)
        continue;
      done[r] = 1;
      j->heard[r] = 1;
      pending--;
    }
    if (pending == 0)
      break;
    if (now_ns() > until) {
      for (int r = 1; r < j->size; r++)
        if (!done[r]) {
          j->m->cancel(&req[r]);
          ups[r].kind = 0;
        }
      break;
    }
    keep_alive(j);
    nap(&pause);
  }
  free(req);
  free(done);
  return rc;
}

/* The other ranks' turns, up to SP_MERGE_WRITERS open at once and each
 * next one given as one ends: their calls' places are disjoint, so they
 * write at the same time. Their rows come in any order; each goes into the
 * index in rank order (where its calls are), so a rank's rows that come
 * before an earlier rank's wait in memory (no more than the index itself
 * takes). After a failure no turn is given, but the open ones are waited
 * for (each within the timeout), so that their ranks hear the outcome at
 * once rather than after their own timeout. */
typedef struct turn_state {
  up_msg *ups;      /* per rank, its M_ROWS */
  sp__mpi_req *req; /* per rank, the receive of it */
  int64_t *given;   /* per rank, when its turn began */
  char **held;      /* per rank, rows come before an earlier rank's */
  size_t *held_n;   /* their bytes */
  int next, added;  /* the next rank to get a turn, to go into the index */
  int open, nheld;  /* turns open now; ranks whose rows were held */
  int64_t longest;  /* the longest turn */
} turn_state;

/* Rank r's turn has ended (its M_ROWS came): its rows, into the index or
 * held; every held rank's rows that can now follow. */
static int turn_end(job *j, writer *wr, turn_state *t, int r, int ok,
                    sp_fmt_err *err) {
  up_msg u = t->ups[r];
  j->busy[r] = 0;
  t->open--;
  if (u.kind != M_ROWS || u.len < 0 || u.len > INT32_MAX) {
    if (ok)
      sp_fmt_err_set(err, "%s: rank %d sent no rows", wr->path, r);
    j->gone[r] = 1;
    return -1;
  }
  char *b = malloc(u.len ? (size_t)u.len : 1);
  if (!b || recv_within(j, b, (int)u.len, r, TAG_ROWS) != 0) {
    if (ok)
      sp_fmt_err_set(err, "%s: rank %d: its rows did not come", wr->path, r);
    free(b);
    return -1;
  }
  if (now_ns() - t->given[r] > t->longest)
    t->longest = now_ns() - t->given[r];
  if (!ok) { /* drained: the merge is lost already */
    free(b);
    return -1;
  }
  if (u.value != 0) {
    sp_fmt_err_set(err,
                   "%s: rank %d could not write its calls there: each "
                   "rank writes its own file",
                   wr->path, r);
    free(b);
    return -1;
  }
  if (r != t->added) {
    t->held[r] = b;
    t->held_n[r] = (size_t)u.len;
    t->nheld++;
    return 0;
  }
  int rc = add_packed(wr, r, b, (size_t)u.len, err);
  free(b);
  for (t->added++; rc == 0 && t->added < t->next && t->held[t->added];
       t->added++) {
    rc = add_packed(wr, t->added, t->held[t->added], t->held_n[t->added], err);
    free(t->held[t->added]);
    t->held[t->added] = NULL;
  }
  return rc;
}

static int turns(job *j, writer *wr, int writers, int64_t *longest,
                 sp_fmt_err *err) {
  size_t n = (size_t)j->size;
  turn_state t = {.ups = calloc(n, sizeof *t.ups),
                  .req = calloc(n, sizeof *t.req),
                  .given = calloc(n, sizeof *t.given),
                  .held = calloc(n, sizeof *t.held),
                  .held_n = calloc(n, sizeof *t.held_n),
                  .next = 1,
                  .added = 1,
                  .longest = *longest};
  int ok = t.ups && t.req && t.given && t.held && t.held_n;
  if (!ok)
    sp_fmt_err_set(err, "%s: out of memory", wr->path);
  int64_t pause = 50000;
  while (t.open > 0 || (ok && t.next < j->size)) {
    while (ok && t.open < writers && t.next < j->size) {
      int r = t.next++;
      t.given[r] = now_ns();
      t.ups[r] = (up_msg){0, -1, 0, 0};
      if (!j->gone[r]) {
        send_down(j, r, M_TURN);
        if (j->m->irecv(&t.ups[r], (int)sizeof t.ups[r], r, TAG_UP,
                        &t.req[r]) != 0)
          j->gone[r] = 1;
      }
      if (j->gone[r]) {
        sp_fmt_err_set(err,
                       "%s: rank %d did not write its calls in time "
                       "(SP_MERGE_TIMEOUT): each rank writes its own file",
                       wr->path, r);
        j->gone[r] = 1;
        ok = 0;
        break;
      }
      j->busy[r] = 1;
      t.open++;
    }
    int ended = 0;
    /* Every open turn is a rank from t.added on (those before are in the
     * index). Newest first, and under the test setting only the newest
     * open one is looked at, so rows come out of rank order every time. */
    for (int r = t.next - 1; r >= t.added && t.open > 0; r--) {
      int flag = 0;
      if (!j->busy[r])
        continue;
      if (j->m->test(&t.req[r], &flag) == 0 && flag) {
        if (turn_end(j, wr, &t, r, ok, err) != 0)
          ok = 0;
        ended = 1;
      } else if (now_ns() - t.given[r] > j->wait_ns) {
        j->m->cancel(&t.req[r]);
        if (ok)
          sp_fmt_err_set(err,
                         "%s: rank %d did not write its calls in time "
                         "(SP_MERGE_TIMEOUT): each rank writes its own file",
                         wr->path, r);
        j->busy[r] = 0;
        j->gone[r] = 1;
        t.open--;
        ok = 0;
      }
      if (SP__TEST_CFG(merge_reverse, 0) && (ended || j->busy[r]))
        break;
    }
    if (ended) {
      pause = 50000;
      continue;
    }
    keep_alive(j);
    nap(&pause);
  }
  if (ok && t.added != j->size) {
    sp_fmt_err_set(err, "%s: rows of rank %d missing", wr->path, t.added);
    ok = 0;
  }
  if (ok)
    sp__debug("%s: %d other ranks' turns, up to %d at once; rows of %d "
              "ranks held for an earlier rank's",
              wr->path, j->size - 1, writers, t.nheld);
  *longest = t.longest;
  for (size_t r = 0; t.held && r < n; r++)
    free(t.held[r]);
  free(t.ups);
  free(t.req);
  free(t.given);
  free(t.held);
  free(t.held_n);
  return ok ? 0 : -1;
}

/* Rank 0's side, in phases over one state. ok falls to 0 at the first
 * failure (err says why); the phases after it still tell every rank that
 * answered, so that none waits out its timeout. */
typedef struct lead_state {
  job *j;
  share *sh;
  sp_fmt_err *err;
  const sp__h5_par_ops *par; /* the parallel write, or NULL: turns */
  writer wr;
  int ok;
  int64_t *counts;     /* per rank, its calls */
  int64_t total, most; /* calls of all ranks, of the largest share */
  int64_t limit;       /* the largest file every rank may write */
  int hosts;           /* 2: the ranks span more than one host */
  const char *tmp;     /* the file written under its temporary name */
  char par_tmp[PATH_MAX + 64];
  int64_t at[2]; /* the datasets' offsets (in parallel: all calls, rounds) */
  int64_t t0, t_turns, longest; /* for SP_VERBOSE */
} lead_state;

static void lead_free(lead_state *L) {
  for (size_t i = 0; L->wr.per && i < (size_t)L->j->size * SP_FMT_PER_RANK; i++)
    free(L->wr.per[i]);
  free(L->wr.per);
  for (int r = 0; L->wr.ctr && r < L->j->size; r++)
    sp_fmt_ctr_free(&L->wr.ctr[r]);
  free(L->wr.ctr);
  free(L->wr.ranks);
  free(L->counts);
  free(L->j->gone);
  free(L->j->heard);
  free(L->j->busy);
}

/* The per-rank lists; -1 when not even the job's are there (every rank
 * then times out). */
static int lead_alloc(lead_state *L, int have) {
  job *j = L->j;
  L->counts = calloc((size_t)j->size, sizeof *L->counts);
  L->wr.ranks = calloc((size_t)j->size, sizeof *L->wr.ranks);
  L->wr.per = calloc((size_t)j->size * SP_FMT_PER_RANK, sizeof *L->wr.per);
  L->wr.ctr = calloc((size_t)j->size, sizeof *L->wr.ctr);
  j->gone = calloc((size_t)j->size, 1);
  j->heard = calloc((size_t)j->size, 1);
  j->busy = calloc((size_t)j->size, 1);
  L->ok = have && L->counts && L->wr.ranks && L->wr.per && L->wr.ctr &&
          j->gone && j->heard && j->busy;
  if (have && !L->ok)
    sp_fmt_err_set(L->err, "%s: out of memory", sp__stream_path);
  if (!j->gone || !j->heard || !j->busy) {
    lead_free(L);
    return -1;
  }
  return 0;
}

/* Every rank's M_COUNT: the calls in all, the file limit, the hosts; a
 * rank that does not take part (or did not answer) is gone, and the merge
 * off. */
static void lead_counts(lead_state *L) {
  job *j = L->j;
  if (L->ok && sp__output_job_path(sp__cfg.prefix, ".h5", L->wr.path,
                                   sizeof L->wr.path) != 0) {
    sp_fmt_err_set(L->err, "%s.h5: name too long", sp__cfg.prefix);
    L->ok = 0;
  }
  L->total = L->most = L->ok ? L->sh->calls : 0;
  L->limit = L->par ? file_limit() : 0;
  L->hosts = 1;
  uint64_t host = host_hash();
  up_msg *ups = calloc((size_t)j->size, sizeof *ups);
  if (!ups || gather_counts(j, ups) != 0) {
    sp_fmt_err_set(L->err, "%s: out of memory", L->wr.path);
    L->ok = 0;
  }
  for (int r = 1; ups && r < j->size; r++) {
    up_msg u = ups[r];
    if (u.kind != M_COUNT || u.value < 0) {
      if (L->ok)
        sp_fmt_err_set(L->err,
                       "%s: rank %d %s: each rank writes its own file "
                       "(sp-import merges them)",
                       L->wr.path, r,
                       u.kind == M_COUNT ? "does not take part"
                                         : "did not reach MPI_Finalize in "
                                           "time (SP_MERGE_TIMEOUT)");
      /* gone: no answer, or it declined and listens no more */
      j->gone[r] = 1;
      L->ok = 0;
    }
    L->counts[r] = u.value;
    L->total += u.value > 0 ? u.value : 0;
    L->most = u.value > L->most ? u.value : L->most;
    if (u.kind == M_COUNT && u.len < L->limit)
      L->limit = u.len; /* 0: one rank cannot, so none does */
    if (u.kind == M_COUNT && u.host != host)
      L->hosts = 2;
  }
  free(ups);
}

/* Parallel HDF5 or turns. Parallel HDF5 sets the file's size on every rank
 * as it closes it: a rank that may not write so large a file
 * (RLIMIT_FSIZE) would fail there alone, and HDF5's ranks would then wait
 * in different collective calls for good. The events and 4 MiB for the
 * rest. On one host the ranks' turns are the faster
 * (docs/performance.md): the parallel write there only when asked for. */
static void lead_choose_way(lead_state *L) {
  if (L->par && L->hosts == 1 && sp__cfg.merge_parallel == 0) {
    sp__debug("SP_MERGE: every rank on one host: the ranks take turns "
              "(SP_MERGE_PARALLEL=1: parallel HDF5)");
    L->par = NULL;
  }
  int64_t need = 16 * L->total + ((int64_t)4 << 20);
  if (L->par && L->limit < need) {
    sp__debug("SP_MERGE: a rank may write no file of %lld bytes: no "
              "parallel HDF5",
              (long long)need);
    L->par = NULL;
  }
}

/* The file, under its temporary name: created here for the turns; named
 * only, for the ranks to create together, in parallel. */
static void lead_open(lead_state *L) {
  if (L->ok && !(L->wr.ops = sp__h5_merge(L->wr.path, L->err)))
    L->ok = 0;
  if (L->ok && L->par) {
    if (sp_fmt_tmp_name(L->wr.path, L->par_tmp, sizeof L->par_tmp) != 0) {
      sp_fmt_err_set(L->err, "%s: name too long", L->wr.path);
      L->ok = 0;
    }
    L->tmp = L->par_tmp;
    L->at[0] = L->total;
    L->at[1] = (L->most + ROUND - 1) / ROUND;
  } else if (L->ok && !(L->wr.w = L->wr.ops->open(L->wr.path, L->total, &L->tmp,
                                                  L->at, L->err)))
    L->ok = 0;
}

/* Where each rank's calls go (or M_ABORT to each, the merge off). */
static void lead_places(lead_state *L) {
  job *j = L->j;
  int64_t base = L->ok ? L->sh->calls : 0;
  for (int r = 1; r < j->size; r++) {
    if (j->gone[r])
      continue;
    down_msg d;
    memset(&d, 0, sizeof d);
    d.kind = L->ok ? M_PLACE : M_ABORT;
    if (L->ok) {
      d.base = base;
      d.at[0] = L->at[0];
      d.at[1] = L->at[1];
      d.par = L->par != NULL;
      snprintf(d.path, sizeof d.path, "%s", L->tmp);
      base += L->counts[r];
    }
    /* Short (the path's own length): under MPI's eager limit, taken at
     * once, so that a rank told of the parallel write is not left in it
     * because another could not be told. */
    int len =
        (int)offsetof(down_msg, path) + (L->ok ? (int)strlen(d.path) + 1 : 0);
    if (send_within(j, &d, len, r, TAG_DOWN) != 0)
      j->gone[r] = 1;
  }
}

/* Rank 0's own calls and rows; in parallel, every rank's writes together,
 * then the file is rank 0's. A rank that could not be told its place (the
 * short message was not taken: it died) leaves the ranks that were told in
 * the collective for good, whatever rank 0 does: rank 0 stays out and
 * writes its own file, and ending the job is the MPI library's. */
static void lead_own_turn(lead_state *L) {
  job *j = L->j;
  share *sh = L->sh;
  int64_t turn = now_ns();
  if (L->ok)
    sp__pending_tmp(1, L->tmp);
  if (L->ok && L->par) {
    int gone = 0;
    for (int r = 1; r < j->size; r++)
      gone |= j->gone[r];
    if (gone) {
      sp_fmt_err_set(L->err,
                     "%s: a rank did not take its place: each rank "
                     "writes its own file",
                     L->wr.path);
      L->ok = 0;
    } else if (share_write_par(sh, L->par, L->tmp, 0, L->at[0], L->at[1],
                               L->err) != 0) {
      L->ok = 0;
      unlink(L->tmp);
    } else if (!(L->wr.w =
                     L->wr.ops->adopt(L->wr.path, L->tmp, L->total, L->err)))
      L->ok = 0;
  } else if (L->ok && share_write(sh, L->tmp, 0, L->at, L->err) != 0)
    L->ok = 0;
  if (L->ok)
    sp__test_raise();
  L->longest = now_ns() - turn;
  L->t_turns = now_ns(); /* the other ranks' turns: from rank 0's rows on */
  for (int64_t i = 0; L->ok && i < sh->n; i++)
    if (L->wr.ops->row(L->wr.w, sh->rank, &sh->srcs[i], &sh->st[i], L->err) !=
        0)
      L->ok = 0;
  if (L->ok && L->wr.ops->mpi(L->wr.w, sh->rank, &sh->mpi, L->err) != 0)
    L->ok = 0;
  if (L->ok) {
    L->wr.ranks[0] = sh->rank;
    for (int k = 0; k < SP_FMT_PER_RANK; k++) {
      L->wr.per[k] = sh->per[k];
      sh->per[k] = NULL;
    }
    L->wr.ctr[0] = sh->ctr;
    memset(&sh->ctr, 0, sizeof sh->ctr);
  }
}

/* The other ranks' turns (all at once in parallel: only their rows). */
static void lead_turns(lead_state *L) {
  int writers = L->par                      ? L->j->size
                : sp__cfg.merge_writers > 0 ? sp__cfg.merge_writers
                                            : 1;
  if (L->ok && turns(L->j, &L->wr, writers, &L->longest, L->err) != 0)
    L->ok = 0;
  L->t_turns = now_ns() - L->t_turns;
}

/* Index and metadata, the file into place (or removed), every rank told. */
static void lead_close(lead_state *L) {
  job *j = L->j;
  int64_t t_close = now_ns();
  sp_fmt_meta m = {0};
  if (L->ok && merged_meta(&L->wr, j, L->sh, &m) != 0) {
    sp_fmt_err_set(L->err, "%s: out of memory", L->wr.path);
    L->ok = 0;
  }
  /* every rank's counters, now that no rank writes into the file */
  for (int r = 0; L->ok && L->wr.w && r < j->size; r++)
    if (L->wr.ctr[r].n) {
      L->wr.ctr[r].rank = L->wr.ranks[r];
      L->ok = L->wr.ops->counters(L->wr.w, &L->wr.ctr[r], L->err) == 0;
    }
  if (L->wr.w) {
    if (L->ok)
      L->ok = L->wr.ops->close(L->wr.w, &m, L->err) == 0;
    else
      L->wr.ops->abort(L->wr.w);
  }
  sp__pending_tmp(1, NULL); /* renamed into place, or removed */
  sp_fmt_meta_free(&m);
  for (int r = 1; r < j->size; r++)
    if (!j->gone[r])
      send_down(j, r, L->ok ? M_DONE : M_ABORT);
  if (L->ok)
    sp__debug("wrote %s (%d ranks, %lld calls%s) in %.3f s: other ranks' "
              "turns %.3f s, longest turn %.3f s, index and close %.3f s",
              L->wr.path, j->size, (long long)L->total,
              L->par ? ", parallel HDF5" : "",
              1e-9 * (double)(now_ns() - L->t0), 1e-9 * (double)L->t_turns,
              1e-9 * (double)L->longest, 1e-9 * (double)(now_ns() - t_close));
}

static int lead(job *j, share *sh, int have, const sp__h5_par_ops *par,
                sp_fmt_err *err) {
  lead_state L;
  memset(&L, 0, sizeof L);
  L.j = j;
  L.sh = sh;
  L.err = err;
  L.par = par;
  if (lead_alloc(&L, have) != 0)
    return -1;
  L.t0 = now_ns();
  lead_counts(&L);
  lead_choose_way(&L);
  lead_open(&L);
  lead_places(&L);
  lead_own_turn(&L);
  lead_turns(&L);
  lead_close(&L);
  lead_free(&L);
  return L.ok ? 0 : -1;
}

/* ---- the other ranks ---- */

static int follow(job *j, share *sh, int have, const sp__h5_par_ops *par,
                  sp_fmt_err *err) {
  up_msg u = {M_COUNT, have ? sh->calls : -1, par ? file_limit() : 0,
              host_hash()};
  down_msg d;
  if (send_within(j, &u, (int)sizeof u, 0, TAG_UP) != 0)
    return -1;
  if (!have)
    return -1;
  /* Rank 0 may still be measuring the clocks with a rank that is gone
   * (the timeout, and as long again for the ranks after it) before it
   * gathers the counts and tells this rank it is alive. */
  j->wait_ns *= 3;
  recv_down(j, &d);
  j->wait_ns /= 3;
  if (d.kind != M_PLACE || (d.par && !par))
    return -1;
  int rc = d.par
               ? share_write_par(sh, par, d.path, d.base, d.at[0], d.at[1], err)
               : 0;
  down_msg turn;
  recv_down(j, &turn);
  if (turn.kind != M_TURN)
    return -1;
  if (!d.par)
    rc = share_write(sh, d.path, d.base, d.at, err);
  buf b = {NULL, 0, 0, 0};
  if (rc == 0 && pack(sh, &b) != 0) {
    sp_fmt_err_set(err, "%s: out of memory", sp__stream_path);
    rc = -1;
  }
  u = (up_msg){M_ROWS, rc, rc == 0 ? (int64_t)b.n : 0, 0};
  if (send_within(j, &u, (int)sizeof u, 0, TAG_UP) != 0 ||
      send_within(j, b.p ? b.p : "", (int)u.len, 0, TAG_ROWS) != 0)
    rc = -1;
  free(b.p);
  if (rc != 0)
    return -1;
  recv_down(j, &d);
  return d.kind == M_DONE ? 0 : -1;
}

/* Whether this rank should load the parallel writer: not when told never,
 * nor by default when OpenMPI says that every rank runs on this host
 * (every rank reads the same), which rank 0 would find anyway. */
static int wants_parallel(int size) {
  if (sp__cfg.merge_parallel == 1)
    return 0;
  if (sp__cfg.merge_parallel == 2 || SP__TEST_CFG(merge_test_host, "")[0])
    return 1;
  const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  return !local || atoi(local) != size;
}

/* Whether this process took part in the merge (sp__merge ran). */
static int joined;

int sp__merge(int rank) {
  joined = 1;
  job j;
  memset(&j, 0, sizeof j);
  j.wait_ns = (int64_t)sp__cfg.merge_timeout * 1000000000;
  if (!(j.m = sp__mpi_get()) || j.m->query(&j.rank, &j.size) != 0)
    return -1;
  sp_fmt_err err = {{0}}, why = {{0}};
  share sh;
  int have = share_open(&sh, rank, &err) == 0;
  /* Loaded before the count is sent: rank 0 must know that every rank can
   * write in parallel before any does. */
  const sp__h5_par_ops *par = NULL;
  if (have && wants_parallel(j.size) && !(par = sp__h5_par(&why)))
    sp__debug("SP_MERGE: rank %d: no parallel HDF5: %s", j.rank, why.msg);
  int rc = j.rank == 0 ? lead(&j, &sh, have, par, &err)
                       : follow(&j, &sh, have, par, &err);
  share_free(&sh);
  if (rc != 0 && err.msg[0]) {
    if (j.rank == 0)
      sp__warn("SP_MERGE: %s", err.msg);
    else
      sp__debug("SP_MERGE: rank %d: %s", j.rank, err.msg);
  }
  return rc;
}

void sp__merge_at_finalize(void) {
  if (atomic_load(&sp__state) == SP__RUNNING)
    sp__finalize_as(0, 1);
  if (joined)
    return;
  /* Finalized already (sp_finalize before MPI_Finalize), or its stream
   * could not be completed: this rank wrote its own file or kept its
   * stream; the others learn at once not to wait for it. */
  job j;
  memset(&j, 0, sizeof j);
  if (!(j.m = sp__mpi_get()) || j.m->query(&j.rank, &j.size) != 0)
    return;
  j.wait_ns = (int64_t)sp__cfg.merge_timeout * 1000000000;
  if (j.rank != 0) {
    up_msg u = {M_COUNT, -1, 0, 0};
    send_within(&j, &u, (int)sizeof u, 0, TAG_UP);
    return;
  }
  /* Rank 0: every rank is told, and each writes its own file. */
  for (int r = 1; r < j.size; r++) {
    up_msg u;
    if (recv_within(&j, &u, (int)sizeof u, r, TAG_UP) == 0)
      send_down(&j, r, M_ABORT);
  }
}

/* ---- SP_MODE=profile: each rank sends rank 0 its call paths (a few
 * kilobytes to megabytes: no turns, no events); rank 0 writes the job's
 * file. A rank missing or failing: every rank writes its own file. ---- */

/* This rank's profile from its complete stream, its metadata and per-rank
 * values (as its own file would hold them). */
static int prof_own(int32_t rank, sp_fmt_profile *p, sp_fmt_meta *meta,
                    char **per, sp_fmt_ctr *ctr, sp_fmt_err *err) {
  int64_t nhint;
  const sp_stream_hint *hint = sp__stream_hints(&nhint);
  sp_fmt_stream *s;
  memset(p, 0, sizeof *p);
  if (sp_fmt_stream_open_hinted(sp__stream_path, SP_FMT_STREAM_TRUST, hint,
                                nhint, &s, err) != 0)
    return -1;
  int rc = sp_fmt_stream_profile(s, p) < 0 ? -1 : 0;
  for (int64_t i = 0; i < p->npaths; i++)
    p->paths[i].rank = rank;
  if (rc == 0 && sp_fmt_stream_counters(s, ctr) != 0)
    rc = -1;
  ctr->rank = rank;
  const sp_fmt_meta_item *it =
      sp_fmt_meta_get(sp_fmt_stream_meta(s), "profile_calls_folded");
  sp__rank_meta(meta, sp_fmt_stream_meta(s), p->open_calls);
  if (rc == 0 &&
      (sp_fmt_meta_set_int(meta, "profile_calls_folded", it ? it->i64 : 0) ||
       sp_fmt_meta_set_int(meta, "profile_paths_max", sp__cfg.profile_paths) ||
       sp_fmt_per_rank_values(meta, rank, per) != 0))
    rc = -1;
  sp_fmt_stream_close(s);
  if (rc != 0)
    sp_fmt_err_set(err, "%s: out of memory", sp__stream_path);
  return rc;
}

/* int32 rank; per-rank strings; int64 regions, each name, file, int32
 * line; int64 paths, each sp_fmt_ppath as in memory (one build). */
static int prof_pack(buf *b, int32_t rank, char **per, const sp_fmt_profile *p,
                     const sp_fmt_ctr *ctr) {
  put(b, &rank, sizeof rank);
  for (int k = 0; k < SP_FMT_PER_RANK; k++)
    put_str(b, per[k]);
  put(b, &p->nregions, sizeof p->nregions);
  for (int64_t i = 0; i < p->nregions; i++) {
    put_str(b, p->regions[i].name);
    put_str(b, p->regions[i].file);
    put(b, &p->regions[i].line, sizeof p->regions[i].line);
  }
  put(b, &p->npaths, sizeof p->npaths);
  put(b, p->paths, (size_t)p->npaths * sizeof *p->paths);
  put(b, &p->open_calls, sizeof p->open_calls);
  put_counters(b, ctr);
  return b->oom ? -1 : 0;
}

static int prof_unpack(const char *bytes, size_t n, int32_t *rank, char **per,
                       sp_fmt_profile *p, sp_fmt_ctr *ctr) {
  reader rd = {bytes, n, 0, 0};
  memset(p, 0, sizeof *p);
  get(&rd, rank, sizeof *rank);
  for (int k = 0; k < SP_FMT_PER_RANK; k++)
    per[k] = get_str(&rd);
  int64_t nr = 0, np = 0;
  get(&rd, &nr, sizeof nr);
  if (rd.bad || nr < 0 || (size_t)nr > n / 8)
    return -1;
  p->regions = calloc(nr ? (size_t)nr : 1, sizeof *p->regions);
  if (!p->regions)
    return -1;
  for (int64_t i = 0; i < nr && !rd.bad; i++, p->nregions++) {
    p->regions[i].name = get_str(&rd);
    p->regions[i].file = get_str(&rd);
    get(&rd, &p->regions[i].line, sizeof p->regions[i].line);
    if (!p->regions[i].name)
      rd.bad = 1;
  }
  get(&rd, &np, sizeof np);
  if (rd.bad || np < 0 || (size_t)np > n / sizeof *p->paths)
    return -1;
  p->paths = malloc(np ? (size_t)np * sizeof *p->paths : 1);
  if (!p->paths)
    return -1;
  get(&rd, p->paths, (size_t)np * sizeof *p->paths);
  p->npaths = np;
  get(&rd, &p->open_calls, sizeof p->open_calls);
  for (int64_t i = 0; i < np && !rd.bad; i++)
    if (p->paths[i].region < 0 || p->paths[i].region >= nr ||
        p->paths[i].parent < -1 || p->paths[i].parent >= i)
      rd.bad = 1;
  if (!rd.bad)
    get_counters(&rd, ctr);
  return rd.bad ? -1 : 0;
}

/* Rank 0's side in profile mode, in phases over one state; ok as in
 * lead_state. */
typedef struct prof_state {
  job *j;
  sp_fmt_err *err;
  sp_fmt_profile *all; /* rank 0's profile, every rank's appended */
  sp_fmt_meta *meta;   /* rank 0's metadata, the job's added */
  char path[PATH_MAX + 64];
  int32_t *ranks;  /* per MPI rank, its rank in the file */
  char **per;      /* per MPI rank, SP_FMT_PER_RANK values */
  char *sent;      /* per MPI rank, 1: it answered (and waits for the end) */
  sp_fmt_ctr *ctr; /* per MPI rank, its counters */
  int ok;
} prof_state;

/* Rank r's call paths, appended to all. */
static void prof_take(prof_state *P, int r) {
  up_msg u;
  if (recv_within(P->j, &u, (int)sizeof u, r, TAG_UP) != 0) {
    if (P->ok)
      sp_fmt_err_set(P->err,
                     "%s: rank %d did not answer: each rank writes "
                     "its own file",
                     P->path, r);
    P->ok = 0;
    return;
  }
  if (P->sent)
    P->sent[r] = 1;
  if (u.kind != M_ROWS || u.value != 0 || u.len < 0 || u.len > INT32_MAX) {
    if (P->ok)
      sp_fmt_err_set(
          P->err, "%s: rank %d %s: each rank writes its own file", P->path, r,
          u.kind == M_ROWS ? "could not read its profile" : "takes no part");
    P->ok = 0;
    return;
  }
  char *b = malloc(u.len ? (size_t)u.len : 1);
  sp_fmt_profile p;
  memset(&p, 0, sizeof p);
  if (!b || recv_within(P->j, b, (int)u.len, r, TAG_ROWS) != 0) {
    if (P->ok)
      sp_fmt_err_set(P->err, "%s: rank %d's profile did not come", P->path, r);
    P->ok = 0;
  } else if (P->ok && (prof_unpack(b, (size_t)u.len, &P->ranks[r],
                                   P->per + (size_t)r * SP_FMT_PER_RANK, &p,
                                   &P->ctr[r]) != 0 ||
                       sp_fmt_profile_append(P->all, &p) != 0)) {
    sp_fmt_err_set(P->err, "%s: rank %d sent a profile cut short", P->path, r);
    P->ok = 0;
  }
  sp_fmt_profile_free(&p);
  free(b);
}

/* The job's metadata: label, size, open calls, the per-rank lists. */
static void prof_meta(prof_state *P) {
  if (!P->ok)
    return;
  const char *slash = strrchr(P->path, '/');
  char label[PATH_MAX + 64];
  snprintf(label, sizeof label, "%s",
           sp__cfg.label[0] ? sp__cfg.label
           : slash          ? slash + 1
                            : P->path);
  char *dot = sp__cfg.label[0] ? NULL : strrchr(label, '.');
  if (dot && dot != label)
    *dot = 0;
  if (sp_fmt_meta_set_str(P->meta, "label", label) ||
      sp_fmt_meta_set_int(P->meta, "mpi_size", P->j->size) ||
      sp_fmt_meta_set_int(P->meta, "calls_open_at_exit", P->all->open_calls) ||
      sp_fmt_per_rank_meta(P->meta, P->per, P->ranks, P->j->size) != 0) {
    sp_fmt_err_set(P->err, "%s: out of memory", P->path);
    P->ok = 0;
  }
}

/* The file, under a private name, then into place. */
static void prof_write(prof_state *P) {
  char tmp[PATH_MAX + 64];
  if (P->ok && sp__private_name(P->path, tmp, sizeof tmp) != 0) {
    sp_fmt_err_set(P->err, "%s: name too long", P->path);
    P->ok = 0;
  }
  if (!P->ok)
    return;
  sp__pending_tmp(1, tmp);
  int rc = sp__write_h5_profile(tmp, P->all, P->meta, P->err);
  for (int r = 0; rc == 0 && r < P->j->size; r++)
    if (P->ctr[r].n) {
      P->ctr[r].rank = P->ranks[r];
      rc = sp__write_h5_counters(tmp, &P->ctr[r], P->err);
    }
  if (rc != 0) {
    unlink(tmp);
    P->ok = 0;
  } else if (sp__test_raise(), sp__place(tmp, P->path, 0, NULL, 0) != 0) {
    unlink(tmp);
    P->ok = 0;
  }
  sp__pending_tmp(1, NULL);
}

static int prof_lead(job *j, int32_t rank, int have, sp_fmt_profile *all,
                     sp_fmt_meta *meta, char **per0, sp_fmt_ctr *ctr0,
                     sp_fmt_err *err) {
  prof_state P;
  memset(&P, 0, sizeof P);
  P.j = j;
  P.err = err;
  P.all = all;
  P.meta = meta;
  P.ranks = calloc((size_t)j->size, sizeof *P.ranks);
  P.per = calloc((size_t)j->size * SP_FMT_PER_RANK, sizeof *P.per);
  P.sent = calloc((size_t)j->size, 1);
  P.ctr = calloc((size_t)j->size, sizeof *P.ctr);
  P.ok = have && P.ranks && P.per && P.sent && P.ctr;
  if (!P.ok && have)
    sp_fmt_err_set(err, "%s: out of memory", sp__stream_path);
  if (P.ok &&
      sp__output_job_path(sp__cfg.prefix, ".h5", P.path, sizeof P.path)) {
    sp_fmt_err_set(err, "%s.h5: name too long", sp__cfg.prefix);
    P.ok = 0;
  }
  if (P.ok) {
    P.ranks[0] = rank;
    for (int k = 0; k < SP_FMT_PER_RANK; k++)
      P.per[k] = per0[k], per0[k] = NULL;
    P.ctr[0] = *ctr0;
    memset(ctr0, 0, sizeof *ctr0);
  }
  for (int r = 1; r < j->size; r++)
    prof_take(&P, r);
  prof_meta(&P);
  prof_write(&P);
  for (int r = 1; r < j->size; r++)
    if (P.sent && P.sent[r])
      send_down(j, r, P.ok ? M_DONE : M_ABORT);
  if (P.ok)
    sp__debug("wrote %s (%d ranks, %lld call paths)", P.path, j->size,
              (long long)all->npaths);
  for (size_t i = 0; P.per && i < (size_t)j->size * SP_FMT_PER_RANK; i++)
    free(P.per[i]);
  free(P.per);
  free(P.ranks);
  free(P.sent);
  for (int r = 0; P.ctr && r < j->size; r++)
    sp_fmt_ctr_free(&P.ctr[r]);
  free(P.ctr);
  return P.ok ? 0 : -1;
}

int sp__merge_profile(int rank) {
  joined = 1;
  job j;
  memset(&j, 0, sizeof j);
  j.wait_ns = (int64_t)sp__cfg.merge_timeout * 1000000000;
  if (!(j.m = sp__mpi_get()) || j.m->query(&j.rank, &j.size) != 0)
    return -1;
  sp_fmt_err err = {{0}};
  sp_fmt_profile p;
  sp_fmt_meta meta = {0};
  char *per[SP_FMT_PER_RANK] = {0};
  sp_fmt_ctr ctr;
  memset(&ctr, 0, sizeof ctr);
  int have = prof_own(rank, &p, &meta, per, &ctr, &err) == 0;
  int rc = -1;
  if (j.rank == 0) {
    rc = prof_lead(&j, rank, have, &p, &meta, per, &ctr, &err);
  } else {
    buf b = {NULL, 0, 0, 0};
    int packed = have && prof_pack(&b, rank, per, &p, &ctr) == 0;
    up_msg u = {M_ROWS, packed ? 0 : -1, packed ? (int64_t)b.n : 0, 0};
    if (send_within(&j, &u, (int)sizeof u, 0, TAG_UP) == 0 &&
        (!packed ||
         send_within(&j, b.p ? b.p : "", (int)u.len, 0, TAG_ROWS) == 0)) {
      down_msg d;
      recv_down(&j, &d);
      rc = packed && d.kind == M_DONE ? 0 : -1;
    }
    free(b.p);
  }
  sp_fmt_profile_free(&p);
  sp_fmt_meta_free(&meta);
  sp_fmt_ctr_free(&ctr);
  for (int k = 0; k < SP_FMT_PER_RANK; k++)
    free(per[k]);
  if (rc != 0 && err.msg[0]) {
    if (j.rank == 0)
      sp__warn("SP_MERGE: %s", err.msg);
    else
      sp__debug("SP_MERGE: rank %d: %s", j.rank, err.msg);
  }
  return rc;
}
