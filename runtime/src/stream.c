/* stream.c - appending records to the rank's .spts stream. Everything here
 * is async-signal-safe (open, write, no allocation, no locks), because a
 * signal handler uses it as well as the writer thread and finalize; the
 * token says which of them may append. */
#include "counters.h"
#include "internal.h"
#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

char sp__stream_path[PATH_MAX + 64];
char sp__stream_base[PATH_MAX + 64];
int32_t sp__rank_guess;
int sp__stream_fd = -1;
int sp__stream_errno;
int sp__stream_blame;
_Atomic int sp__stream_complete;
_Atomic uint64_t sp__lost_calls;
static int64_t good_size; /* bytes of whole records in the file */
/* The heads of the records written, in order from the first (finalize's
 * index then reads no head from the file), or fewer: none after a failed
 * write, whose tail the file may still hold. One mapping, touched as it
 * fills: 72 bytes a record, a thousandth of the records' bytes. */
#define SP__HINTS ((int64_t)(4 << 20) / (int64_t)sizeof(sp_stream_hint))
static sp_stream_hint *hints;
static int64_t nhints;
static int hints_off;                   /* no more: a write failed */
static _Atomic int32_t regions_written; /* REGION records for ids below */
static int32_t maps_written;            /* MAP records for objects below */
static _Atomic int token;
static unsigned char recbuf[1 << 16]; /* one record at a time (token) */

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int sp__token_take(int who, int wait_ms) {
  /* Waits, within bounds, for a writer's current write to finish: a writer
   * stuck on a dead file system must not hang the process. A handler then
   * takes the token anyway; nobody waits for a handler, which never gives
   * it back. */
  int64_t until = now_ns() + (int64_t)wait_ms * 1000000;
  for (;;) {
    int cur = SP__TOKEN_FREE;
    if (atomic_compare_exchange_strong(&token, &cur, who))
      return 1;
    if (cur == SP__TOKEN_HANDLER)
      return 0;
    if (now_ns() >= until) {
      if (who != SP__TOKEN_HANDLER)
        return 0;
      atomic_store(&token, who);
      return 1;
    }
    sched_yield();
  }
}

int sp__stream_acquire(int wait_ms) {
  /* Whether the stream is open is known only under the token, which
   * another thread (the writer, or MPI_Abort's listener) may hold: the
   * metadata is gathered (once; a lock per batch after that) whatever. */
  sp__stream_meta_prepare();
  sp__stream_resolve();
  return sp__token_take(SP__TOKEN_WRITER, wait_ms);
}

void sp__token_give(void) {
  int w = SP__TOKEN_WRITER;
  atomic_compare_exchange_strong(&token, &w, SP__TOKEN_FREE);
}

/* Appends iov whole or not at all: a failed write is cut back to the last
 * whole record, so the stream stays readable (and later writes may still
 * succeed once space frees up). */
/* The heads of the records in iov (each entry one record, past the
 * file's header) into the hints after the last, without counting them. */
static int64_t keep_heads(const struct iovec *iov, int n) {
  if (hints_off || !hints)
    return 0;
  int64_t at = good_size, k = 0;
  for (int i = 0; i < n && nhints + k < SP__HINTS; i++) {
    if (at >= (int64_t)sizeof(sp_stream_header)) {
      sp_stream_hint *h = &hints[nhints + k++];
      size_t len = iov[i].iov_len < SP_STREAM_HINT_HEAD ? iov[i].iov_len
                                                        : SP_STREAM_HINT_HEAD;
      h->off = at;
      memcpy(h->head, iov[i].iov_base, len);
    }
    at += (int64_t)iov[i].iov_len;
  }
  return k;
}

const sp_stream_hint *sp__stream_hints(int64_t *n) {
  *n = hints ? nhints : 0;
  return hints;
}

/* The hints' memory, outside signal handlers (mmap is not on the list of
 * async-signal-safe calls); without it there are none. */
static void map_hints(void) {
  if (hints)
    return;
  void *m =
      mmap(NULL, (size_t)SP__HINTS * sizeof *hints, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  hints = m == MAP_FAILED ? NULL : m;
}

/* Writes iov; recs: the records it holds, one entry each (for the hints). */
static int put_recs(struct iovec *iov, int n, const struct iovec *recs,
                    int nrecs) {
  if (sp__stream_fd < 0)
    return -1;
  size_t total = 0;
  for (int i = 0; i < n; i++)
    total += iov[i].iov_len;
  int64_t kept = keep_heads(recs, nrecs);
  size_t done = 0;
  while (n > 0) {
    ssize_t w = writev(sp__stream_fd, iov, n > 1024 ? 1024 : n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      if (!sp__stream_errno)
        sp__stream_errno = w < 0 ? errno : ENOSPC;
      if (done && ftruncate(sp__stream_fd, good_size) != 0)
        sp__stream_errno = errno;
      hints_off = 1;
      return -1;
    }
    done += (size_t)w;
    while (n > 0 && (size_t)w >= iov->iov_len) {
      w -= (ssize_t)iov->iov_len;
      iov++, n--;
    }
    if (n > 0) {
      iov->iov_base = (char *)iov->iov_base + w;
      iov->iov_len -= (size_t)w;
    }
  }
  good_size += (int64_t)total;
  nhints += kept;
  return 0;
}

static int put(struct iovec *iov, int n) { return put_recs(iov, n, iov, n); }
int sp__stream_put(struct iovec *iov, int n) { return put(iov, n); }

/* Writes the record built in recbuf: head, then `len` payload bytes. */
static int put_rec(uint32_t type, size_t len) {
  size_t size = (sizeof(sp_stream_rec) + len + 7) & ~(size_t)7;
  if (size > sizeof recbuf)
    return -1;
  memset(recbuf + sizeof(sp_stream_rec) + len, 0,
         size - sizeof(sp_stream_rec) - len);
  sp_stream_rec *r = (sp_stream_rec *)(void *)recbuf;
  r->type = type;
  r->size = (uint32_t)size;
  r->check = sp_stream_check(type, r->size, recbuf + sizeof *r);
  struct iovec iov = {recbuf, size};
  return put(&iov, 1);
}

static unsigned char *payload(void) { return recbuf + sizeof(sp_stream_rec); }

/* mkdir -p of path's directory, as LLVM's profile runtime does; the first
 * directory that could not be made goes to failed (errno kept), so a
 * failure says why rather than that the file's directory is missing. */
static int make_dirs(const char *path, char *failed, size_t size) {
  char dir[sizeof sp__stream_path];
  size_t n = strlen(path);
  if (n >= sizeof dir)
    return 0;
  memcpy(dir, path, n + 1);
  int err = 0;
  for (size_t i = 1; i < n; i++)
    if (dir[i] == '/') {
      dir[i] = 0;
      if (mkdir(dir, 0777) != 0 && errno != EEXIST && !err && i < size) {
        err = errno;
        memcpy(failed, dir, i + 1);
      }
      dir[i] = '/';
    }
  return err;
}

/* Decimal digits of v into out (at least width of them); their count. */
static size_t put_num(char *out, uint64_t v, int width) {
  char tmp[24];
  int n = 0;
  do
    tmp[n++] = (char)('0' + v % 10);
  while ((v /= 10) || n < width);
  for (int i = 0; i < n; i++)
    out[i] = tmp[n - 1 - i];
  return (size_t)n;
}

/* <dir>/sp<pid>_rank<NNNNN>: the stream's base when the long one does not
 * fit; 1 if it changed. */
static int short_base(void) {
  char *slash = strrchr(sp__stream_base, '/');
  size_t at = slash ? (size_t)(slash - sp__stream_base + 1) : 0;
  if (strncmp(sp__stream_base + at, "sp", 2) == 0 &&
      at + 40 > strlen(sp__stream_base))
    return 0; /* already short */
  if (at + 40 > sizeof sp__stream_base)
    return 0;
  char *p = sp__stream_base + at;
  memcpy(p, "sp", 2);
  p += 2;
  p += put_num(p, (uint64_t)getpid(), 1);
  memcpy(p, "_rank", 5);
  p += 5;
  p += put_num(p, (uint64_t)(sp__rank_guess < 0 ? 0 : sp__rank_guess), 5);
  *p = 0;
  return 1;
}

int sp__stream_clock(void) {
  sp_stream_clock c;
  int64_t mono;
  sp__clock_point(&c.stamp, &mono);
  c.mono_ns = mono;
  memcpy(payload(), &c, sizeof c);
  return put_rec(SP_STREAM_CLOCK, sizeof c);
}

static int meta(uint32_t kind, const char *key, const char *v, int64_t i) {
  sp_stream_meta m = {kind, (uint32_t)strlen(key), v ? (uint32_t)strlen(v) : 0,
                      0, i};
  size_t room = sizeof recbuf - sizeof(sp_stream_rec) - sizeof m - 8;
  if (m.key_len > 256)
    return -1;
  if (m.key_len + m.value_len > room)
    m.value_len = (uint32_t)(room - m.key_len);
  unsigned char *p = payload();
  memcpy(p, &m, sizeof m);
  memcpy(p + sizeof m, key, m.key_len);
  if (m.value_len && v) /* an integer has none (GCC 12 cannot tell) */
    memcpy(p + sizeof m + m.key_len, v, m.value_len);
  return put_rec(SP_STREAM_META, sizeof m + m.key_len + m.value_len);
}

int sp__stream_meta_int(const char *key, int64_t v) {
  return meta('i', key, NULL, v);
}
int sp__stream_meta_str(const char *key, const char *v) {
  return meta('s', key, v, 0);
}

int sp__stream_open(int normal) {
  if (sp__stream_fd >= 0)
    return 0;
  if (!sp__stream_base[0])
    return -1;
  static char failed[sizeof sp__stream_path]; /* token held; small stack */
  int mkdir_err = make_dirs(sp__stream_base, failed, sizeof failed);
  char path[sizeof sp__stream_path];
  size_t n = strlen(sp__stream_base), e = sizeof SP_STREAM_EXT;
  if (n + 4 + e > sizeof path)
    return -1;
  /* Never another process's stream (a stale one with our pid): take the
   * next free name. */
  for (int k = 0; k < 100; k++) {
    memcpy(path, sp__stream_base, n);
    size_t at = n;
    if (k) {
      path[at++] = '.';
      path[at++] = (char)('0' + k / 10);
      path[at++] = (char)('0' + k % 10);
    }
    memcpy(path + at, SP_STREAM_EXT, e);
    sp__stream_fd =
        open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (sp__stream_fd >= 0 || errno != EEXIST)
      break;
  }
  if (sp__stream_fd < 0 && errno == ENAMETOOLONG && short_base()) {
    /* A prefix near the file-name limit: the final name may fit where
     * the stream's longer one does not. */
    return sp__stream_open(normal);
  }
  if (sp__stream_fd < 0) {
    int err = errno;
    if (!sp__stream_errno) {
      if (err == ENOENT && mkdir_err) { /* the directory, and why */
        memcpy(sp__stream_path, failed, strlen(failed) + 1);
        sp__stream_errno = mkdir_err;
        sp__stream_blame = 1;
      } else if (err == EEXIST) { /* every name of this stream taken */
        memcpy(sp__stream_path, sp__stream_base, n);
        memcpy(sp__stream_path + n, SP_STREAM_EXT, e);
        sp__stream_errno = EEXIST;
        sp__stream_blame = 2;
      } else {
        sp__stream_errno = err;
      }
    }
    return -1;
  }
  memcpy(sp__stream_path, path, strlen(path) + 1);
  good_size = 0;
  nhints = 0;
  hints_off = 0;
  if (normal)
    map_hints();
  sp_stream_header h = {{0},
                        sp__cfg.stream_compact ? SP_STREAM_VERSION : 1,
                        SP_STREAM_BOM,
                        sp__rank_guess,
                        (int32_t)getpid(),
                        sp__clock_tsc ? SP_STREAM_CLOCK_TSC
                                      : SP_STREAM_CLOCK_NS,
                        0};
  memcpy(h.magic, SP_STREAM_MAGIC, 8);
  struct iovec iov = {&h, sizeof h};
  if (put(&iov, 1) != 0) { /* no header: nothing a reader could use */
    close(sp__stream_fd);
    sp__stream_fd = -1;
    unlink(path);
    return -1;
  }
  sp_stream_clock c0;
  sp__clock_origin(&c0.stamp, &c0.mono_ns);
  memcpy(payload(), &c0, sizeof c0);
  put_rec(SP_STREAM_CLOCK, sizeof c0);
  sp__stream_clock();
  sp__stream_meta_int("pid", (int64_t)getpid());
  sp__stream_meta_int("start_time_ns", sp__start_time_ns());
  sp__stream_meta_str("timestamp", sp__start_timestamp);
  if (sp__cfg.label[0])
    sp__stream_meta_str("label", sp__cfg.label);
  if (normal)
    sp__stream_meta_full();
  return 0;
}

/* Name for an address region nobody resolved: 0x<hex>, as the symbol
 * lookup names a function it cannot find. */
static size_t hex_name(char *out, uintptr_t a) {
  char tmp[20];
  int n = 0;
  do
    tmp[n++] = "0123456789abcdef"[a & 15];
  while ((a >>= 4) && n < 16);
  out[0] = '0', out[1] = 'x';
  for (int i = 0; i < n; i++)
    out[2 + i] = tmp[n - 1 - i];
  return (size_t)n + 2;
}

/* Names of address regions not yet written, from the symbol tables: slow
 * (the tables are read), so done before the token is taken. Not in a
 * signal handler. */
void sp__stream_resolve(void) {
  int32_t n = atomic_load_explicit(&sp__nregions, memory_order_acquire);
  for (int32_t id =
           atomic_load_explicit(&regions_written, memory_order_relaxed);
       id < n; id++) {
    sp__region_t *r = sp__region_get(id);
    sp__obj_note(id); /* one registered just now may have none yet */
    if (!__atomic_load_n(&r->name, __ATOMIC_ACQUIRE))
      sp__region_name(r);
  }
}

/* Out of line and not cloned: specialised for the staging block's
 * constant size (inlined, or a constprop clone), GCC 12 warns of an
 * iteration the loop never makes. */
#if defined(__GNUC__) && !defined(__clang__)
#define SP__NOCLONE __attribute__((noclone))
#else
#define SP__NOCLONE
#endif
static __attribute__((noinline)) SP__NOCLONE void
feed(sp_stream_checker *k, const uint64_t *w, size_t n) {
  sp_stream_check_add(k, w, n, 0);
}

/* The check of a payload held in pieces: fed through a staging block,
 * since sp_stream_check_add takes whole groups of four words but the last. */
static uint64_t check_pieces(uint32_t type, uint32_t size,
                             const struct iovec *v, int n) {
  static uint64_t stage[512]; /* token held: one writer at a time */
  sp_stream_checker k;
  sp_stream_check_begin(&k, type, size);
  size_t fill = 0;
  for (int i = 0; i < n; i++)
    for (size_t at = 0; at < v[i].iov_len;) {
      size_t take = v[i].iov_len - at;
      if (take > sizeof stage - fill)
        take = sizeof stage - fill;
      memcpy((char *)stage + fill, (const char *)v[i].iov_base + at, take);
      fill += take, at += take;
      if (fill == sizeof stage) {
        feed(&k, stage, sizeof stage / 8);
        fill = 0;
      }
    }
  feed(&k, stage, fill / 8);
  return sp_stream_check_end(&k);
}

/* A REGION record, its name and file whole whatever their length: those
 * that do not fit recbuf are written from where they are. */
static int put_region(const sp_stream_region *g, const char *name,
                      const char *file) {
  size_t len = sizeof *g + g->name_len + g->file_len;
  if (sizeof(sp_stream_rec) + len + 7 <= sizeof recbuf) {
    unsigned char *p = payload();
    memcpy(p, g, sizeof *g);
    memcpy(p + sizeof *g, name, g->name_len);
    if (g->file_len)
      memcpy(p + sizeof *g + g->name_len, file, g->file_len);
    return put_rec(SP_STREAM_REGION, len);
  }
  size_t size = (sizeof(sp_stream_rec) + len + 7) & ~(size_t)7;
  if (size > UINT32_MAX)
    return -1;
  static const char zeros[8];
  struct iovec v[5] = {
      {recbuf, sizeof(sp_stream_rec)},
      {(void *)g, sizeof *g},
      {(void *)name, g->name_len},
      {(void *)file, g->file_len},
      {(void *)zeros, size - sizeof(sp_stream_rec) - len},
  };
  sp_stream_rec *r = (sp_stream_rec *)(void *)recbuf;
  r->type = SP_STREAM_REGION;
  r->size = (uint32_t)size;
  r->check = check_pieces(r->type, r->size, v + 1, 4);
  /* The hint's copy of the head: recbuf as the file will hold it (the
   * name is longer than the head). */
  memcpy(recbuf + sizeof *r, g, sizeof *g);
  memcpy(recbuf + sizeof *r + sizeof *g, name,
         SP_STREAM_HINT_HEAD - sizeof *r - sizeof *g);
  struct iovec whole = {recbuf, size};
  return put_recs(v, 5, &whole, 1);
}

/* MAP records of the objects up to n (objects.c), those not written yet:
 * read from memory noted earlier, so a signal handler writes them too. */
static int put_maps(int32_t n) {
  for (; maps_written < n; maps_written++) {
    const sp__obj_t *o = sp__obj_get(maps_written);
    if (!o)
      return -1;
    sp_stream_map m = {maps_written,
                       o->nbuild_id,
                       (uint32_t)strlen(o->path),
                       0,
                       (uint64_t)o->bias,
                       (uint64_t)o->lo,
                       (uint64_t)o->hi};
    size_t len = sizeof m + m.build_id_len + m.path_len;
    if (sizeof(sp_stream_rec) + len + 7 > sizeof recbuf)
      return -1; /* a path longer than PATH_MAX is not noted */
    unsigned char *p = payload();
    memcpy(p, &m, sizeof m);
    memcpy(p + sizeof m, o->build_id, m.build_id_len);
    memcpy(p + sizeof m + m.build_id_len, o->path, m.path_len);
    if (put_rec(SP_STREAM_MAP, len) != 0)
      return -1;
  }
  return 0;
}

/* The ADDR record of address region r (id), after its object's MAP.
 * Version 1 streams (SP_STREAM_COMPACT=0, for readers before version 2)
 * hold none. */
static int put_addr(int32_t id, const sp__region_t *r, int unnamed) {
  int32_t obj = __atomic_load_n(&r->obj, __ATOMIC_ACQUIRE) - 1;
  if (obj < 0 || !sp__cfg.stream_compact)
    return 0;
  if (put_maps(obj + 1) != 0)
    return -1;
  sp_stream_addr a = {id, obj, r->kind, unnamed ? SP_STREAM_ADDR_UNNAMED : 0,
                      (uint64_t)(uintptr_t)r->addr};
  memcpy(payload(), &a, sizeof a);
  return put_rec(SP_STREAM_ADDR, sizeof a);
}

int sp__stream_regions(void) {
  int32_t n = atomic_load_explicit(&sp__nregions, memory_order_acquire);
  for (int32_t id;
       (id = atomic_load_explicit(&regions_written, memory_order_relaxed)) < n;
       atomic_store_explicit(&regions_written, id + 1, memory_order_relaxed)) {
    sp__region_t *r = sp__region_get(id);
    const char *name = __atomic_load_n(&r->name, __ATOMIC_ACQUIRE);
    int unnamed = !name;
    sp_stream_region g = {id, r->file ? r->line : -1, 0, 0,
                          (uint64_t)(uintptr_t)r->addr};
    char hex[24];
    if (name) {
      g.name_len = (uint32_t)strlen(name);
    } else {
      g.name_len = (uint32_t)hex_name(hex, (uintptr_t)r->addr);
      name = hex;
    }
    g.file_len = r->file ? (uint32_t)strlen(r->file) : 0;
    if (put_region(&g, name, r->file) != 0 ||
        (r->addr && put_addr(id, r, unnamed) != 0))
      return -1;
  }
  return 0;
}

/* Calls a chunk holds now, and its record head set to match (its check
 * too unless nocheck: a chunk that goes out as a ZCALLS record needs
 * none). Payload of a calls chunk: the calls header, then the pairs. */
static int64_t seal(sp__chunk_t *c, int nocheck) {
  int64_t n = sp__chunk_count(c);
  if (n <= 0)
    return n;
  if (c->kind == SP__CH_ENDS) {
    memcpy(c->payload, &n, 8);
    c->rec.type = SP_STREAM_ENDS;
    c->rec.size = (uint32_t)(sizeof(sp_stream_rec) + 8 +
                             (size_t)n * sizeof(sp_stream_end));
  } else {
    /* A call still open in it makes it partial: a trusting reader counts
     * those (the writer's pass is over memory the check reads anyway). */
    const sp__pair_t *p = SP__PAIRS(c);
    uint64_t open = 0;
    for (int64_t i = 0; i < n; i++)
      open |= p[i].end == 0;
    SP__CALLS(c)->count = n;
    SP__CALLS(c)->flags |= open ? SP_STREAM_CALLS_PARTIAL : 0;
    c->rec.type = SP_STREAM_CALLS;
    c->rec.size = (uint32_t)(sizeof(sp_stream_rec) + sizeof(sp_stream_calls) +
                             (size_t)n * sizeof(sp__pair_t));
  }
  if (!nocheck)
    c->rec.check = sp_stream_check(c->rec.type, c->rec.size, c->payload);
  return n;
}

/* Where ZCALLS records are built: one for the writer thread and finalize,
 * one for a signal handler, which may take the token from a writer stuck
 * in a write of the other's bytes. Fixed, never allocated (a handler uses
 * it); its pages are touched only once used. A batch of records goes out
 * in one writev, so the scratch holds several: 4 of the largest chunks. */
typedef struct zscratch {
  size_t fill;
  unsigned char b[256 << 10];
} zscratch;
static zscratch zs[2];

static zscratch *zs_mine(void) {
  return &zs[atomic_load_explicit(&token, memory_order_relaxed) ==
             SP__TOKEN_HANDLER];
}

/* Bytes of the CALLS record of n calls. */
static size_t calls_size(int64_t n) {
  return sizeof(sp_stream_rec) + sizeof(sp_stream_calls) +
         (size_t)n * sizeof(sp__pair_t);
}

/* The calls header h and n pairs at v as a ZCALLS record at z->b +
 * z->fill, which has room for calls_size(n) bytes: its size, or 0 when it
 * would not be smaller than the CALLS record. The encoding is the writer's
 * one pass over the pairs (about 1 ns a call here), and saves the file
 * 4-8 times their bytes on tight loops. */
static size_t zrecord(zscratch *z, const sp_stream_calls *h,
                      const sp__pair_t *v, int64_t n) {
  size_t plain = calls_size(n);
  size_t head = sizeof(sp_stream_rec) + sizeof(sp_stream_zcalls);
  if (n <= 0 || plain > SP_STREAM_ZCALLS_MAX || z->fill + plain > sizeof z->b)
    return 0;
  unsigned char *r = z->b + z->fill;
  /* At most the pairs' bytes less 8, so that padded it stays smaller. */
  size_t len = sp_stream_zencode((const uint64_t *)(const void *)v, (size_t)n,
                                 v[0].start, r + head, plain - head - 8);
  if (len == 0)
    return 0;
  size_t size = (head + len + 7) & ~(size_t)7;
  memset(r + head + len, 0, size - head - len);
  sp_stream_zcalls zh = {h->thread, h->region, h->first,
                         n,         h->flags,  v[0].start};
  memcpy(r + sizeof(sp_stream_rec), &zh, sizeof zh);
  sp_stream_rec rec = {SP_STREAM_ZCALLS, (uint32_t)size, 0};
  rec.check = sp_stream_check(rec.type, rec.size, r + sizeof rec);
  memcpy(r, &rec, sizeof rec);
  z->fill += size;
  return size;
}

/* Writes the k records of iov (calls of them: counted lost on failure);
 * the scratch is free again. */
static int put_batch(struct iovec *iov, int *k, int64_t *calls, zscratch *z) {
  int rc = 0;
  if (*k && put(iov, *k) != 0) {
    atomic_fetch_add(&sp__lost_calls, (uint64_t)*calls);
    rc = -1;
  }
  *k = 0;
  *calls = 0;
  z->fill = 0;
  return rc;
}

int sp__stream_chunks(sp__chunk_t **cs, int n) {
  struct iovec iov[64];
  int k = 0, rc = 0;
  int64_t calls = 0;
  zscratch *z = zs_mine();
  z->fill = 0;
  for (int i = 0; i < n; i++) {
    int compact = cs[i]->kind == SP__CH_CALLS && sp__cfg.stream_compact;
    int64_t c = seal(cs[i], compact);
    if (c <= 0)
      continue;
    if (k == 64 || (compact && z->fill + calls_size(c) > sizeof z->b))
      rc |= put_batch(iov, &k, &calls, z);
    size_t zl = compact ? zrecord(z, SP__CALLS(cs[i]), SP__PAIRS(cs[i]), c) : 0;
    if (compact && !zl) /* as CALLS after all: it needs its check */
      cs[i]->rec.check =
          sp_stream_check(cs[i]->rec.type, cs[i]->rec.size, cs[i]->payload);
    if (cs[i]->kind == SP__CH_CALLS)
      calls += c;
    iov[k].iov_base = zl ? (void *)(z->b + z->fill - zl) : (void *)&cs[i]->rec;
    iov[k].iov_len = zl ? zl : cs[i]->rec.size;
    k++;
  }
  rc |= put_batch(iov, &k, &calls, z);
  return rc;
}

/* A chunk its thread may still be filling: copied out word by word with
 * atomic loads, so the record checked is the record written. */
static int copy_out(sp__chunk_t *c, int64_t n) {
  size_t head = c->kind == SP__CH_ENDS ? 8 : sizeof(sp_stream_calls);
  size_t item =
      c->kind == SP__CH_ENDS ? sizeof(sp_stream_end) : sizeof(sp__pair_t);
  size_t len = head + (size_t)n * item;
  if (sizeof(sp_stream_rec) + len > sizeof recbuf)
    return -1;
  unsigned char *p = payload();
  if (c->kind == SP__CH_ENDS) {
    memcpy(p, &n, 8);
  } else {
    sp_stream_calls h = *SP__CALLS(c);
    h.count = n;
    h.flags = SP_STREAM_CALLS_PARTIAL;
    memcpy(p, &h, sizeof h);
  }
  const uint64_t *from = (const uint64_t *)(void *)(c->payload + head);
  uint64_t *to = (uint64_t *)(void *)(p + head);
  for (size_t i = 0; i < (size_t)n * item / 8; i++)
    to[i] = __atomic_load_n(&from[i], __ATOMIC_RELAXED);
  if (c->kind == SP__CH_CALLS && sp__cfg.stream_compact) {
    zscratch *z = zs_mine();
    z->fill = 0;
    size_t zl = zrecord(z, (const sp_stream_calls *)(void *)p,
                        (const sp__pair_t *)(void *)(p + head), n);
    if (zl) {
      struct iovec iov = {z->b, zl};
      return put(&iov, 1);
    }
  }
  return put_rec(c->kind == SP__CH_ENDS ? SP_STREAM_ENDS : SP_STREAM_CALLS,
                 len);
}

static void snap_one(sp__chunk_t *c, void *arg) {
  int *rc = arg;
  int64_t n = sp__chunk_count(c);
  if (n <= 0)
    return;
  int bad = __atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == SP__CH_QUEUED
                ? sp__stream_chunks(&c, 1)
                : copy_out(c, n);
  if (bad) {
    if (c->kind == SP__CH_CALLS)
      atomic_fetch_add(&sp__lost_calls, (uint64_t)n);
    *rc = -1;
  }
}

int sp__stream_snapshot(void) {
  int rc = 0;
  sp__pool_walk(snap_one, &rc);
  return rc;
}

int64_t sp__stream_size(void) { return good_size; }

/* len bytes at *off of in appended to out through recbuf; 0 or -1. */
static int copy_bytes(int in, int out, int64_t *off, int64_t len) {
  while (len > 0) {
    size_t want = len < (int64_t)sizeof recbuf ? (size_t)len : sizeof recbuf;
    ssize_t r = pread(in, recbuf, want, (off_t)*off);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    for (ssize_t done = 0; done < r;) {
      ssize_t w = write(out, recbuf + done, (size_t)(r - done));
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return -1;
      done += w;
    }
    *off += r, len -= r;
  }
  return 0;
}

/* The stream's records that a snapshot does not supersede (all but PATHS,
 * FRAMES, PSNAP and the CLOCK records after the first two) from in into
 * out; the bytes written, or -1. */
static int64_t copy_kept(int in, int out, int64_t size) {
  int64_t off = 0, kept = 0;
  if (copy_bytes(in, out, &off, (int64_t)sizeof(sp_stream_header)) != 0)
    return -1;
  kept = off;
  int clocks = 0;
  while (off + (int64_t)sizeof(sp_stream_rec) <= size) {
    sp_stream_rec h;
    if (pread(in, &h, sizeof h, (off_t)off) != (ssize_t)sizeof h ||
        h.size < sizeof h || off + h.size > size)
      return -1;
    int keep = h.type != SP_STREAM_PATHS && h.type != SP_STREAM_FRAMES &&
               h.type != SP_STREAM_PSNAP &&
               (h.type != SP_STREAM_CLOCK || clocks++ < 2);
    if (!keep) {
      off += h.size;
      continue;
    }
    if (copy_bytes(in, out, &off, h.size) != 0)
      return -1;
    kept += h.size;
  }
  return kept;
}

int sp__stream_compact(int (*snapshot)(void)) {
  char tmp[sizeof sp__stream_path + 8];
  size_t n = strlen(sp__stream_path);
  if (sp__stream_fd < 0 || n + 5 > sizeof tmp)
    return -1;
  memcpy(tmp, sp__stream_path, n);
  memcpy(tmp + n, ".new", 5);
  int in = open(sp__stream_path, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return -1;
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    close(in);
    return -1;
  }
  int old = sp__stream_fd, old_errno = sp__stream_errno, old_off = hints_off;
  int64_t old_size = good_size, old_nhints = nhints;
  int64_t kept = copy_kept(in, fd, good_size);
  close(in);
  int rc = -1;
  if (kept > 0) {
    /* The new file's records are not in the hints: finalize reads their
     * heads from the file (a profile's stream is small). */
    sp__stream_fd = fd;
    good_size = kept;
    hints_off = 1;
    nhints = 0;
    /* Renamed over the stream only once whole: a kill before leaves the
     * old stream (and the .new file), after it the new one. */
    rc = snapshot() == 0 && rename(tmp, sp__stream_path) == 0 ? 0 : -1;
  }
  if (rc == 0) {
    /* The stream's descriptor number stays: now the new file's. */
    if (dup2(fd, old) == old) {
      close(fd);
      fd = old;
    } else {
      close(old);
    }
    sp__stream_fd = fd;
    return 0;
  }
  close(fd);
  unlink(tmp);
  sp__stream_fd = old;
  good_size = old_size;
  sp__stream_errno = old_errno;
  hints_off = old_off;
  nhints = old_nhints;
  return -1;
}

int sp__stream_flush(int cause, int normal) {
  /* A process that recorded nothing (a shell exec'ing the program under
   * LD_PRELOAD) leaves no stream behind. */
  if (sp__stream_fd < 0 && atomic_load(&sp__nregions) == 0)
    return 0;
  if (sp__stream_open(normal) != 0 || sp__stream_regions() != 0 ||
      sp__stream_snapshot() != 0 || sp__mpi_msgs_stream() != 0 ||
      sp__prof_stream() != 0 || sp__stream_clock() != 0)
    return -1;
  /* The counters after the STOP record: a reader that predates them takes
   * them for a torn tail, and loses nothing else. */
  if (sp__stream_stop(cause) != 0)
    return -1;
  return sp__cnt_stream();
}

int sp__stream_stop(int cause) {
  sp_stream_stop s = {sp__now(), cause, 0};
  memcpy(payload(), &s, sizeof s);
  return put_rec(SP_STREAM_STOP, sizeof s);
}

/* A child of fork: the parent's stream is the parent's. */
void sp__stream_after_fork(void) {
  if (sp__stream_fd >= 0)
    close(sp__stream_fd);
  sp__stream_fd = -1;
  sp__stream_errno = 0;
  sp__stream_blame = 0;
  good_size = 0;
  nhints = 0;
  hints_off = 0;
  atomic_store(&regions_written, 0);
  maps_written = 0;
  atomic_store(&token, SP__TOKEN_FREE);
  atomic_store(&sp__lost_calls, 0);
  atomic_store(&sp__stream_complete, 0);
}
