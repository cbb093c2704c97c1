/* sp_stream.h - the layout of the .spts stream: the append-only file a
 * process's calls go to while it runs. One definition for the runtime that
 * writes it (from signal handlers too) and the reader in format/, whose
 * API ends this header. */
#ifndef SP_STREAM_H
#define SP_STREAM_H

#include "sp_rank.h"

#include <stddef.h>
#include <stdint.h>

#define SP_STREAM_MAGIC "SPSTREAM" /* 8 bytes, no NUL */
/* 2: may hold ZCALLS records; readers read 1 and 2. The runtime writes 1
 * (which older readers read too) with SP_STREAM_COMPACT=0, when it writes
 * no ZCALLS record. */
#define SP_STREAM_VERSION                                                      \
  2 /* MPI and COMM records: readers before them                               \
       stop there, as at a torn tail */
#define SP_STREAM_BOM 0x01020304u
#define SP_STREAM_EXT ".spts"

/* At offset 0, 32 bytes. Every field after the magic is in the writer's
 * byte order, which bom tells. */
typedef struct sp_stream_header {
  char magic[8];
  uint32_t version;  /* SP_STREAM_VERSION */
  uint32_t bom;      /* SP_STREAM_BOM as the writer stores it */
  int32_t rank;      /* as known when the stream was created */
  int32_t pid;       /* the process that wrote it */
  uint32_t clock;    /* SP_STREAM_CLOCK_* */
  uint32_t reserved; /* 0 */
} sp_stream_header;

enum {
  SP_STREAM_CLOCK_NS = 0,  /* stamps are CLOCK_MONOTONIC ns */
  SP_STREAM_CLOCK_TSC = 1, /* stamps are TSC ticks; clock records map them */
};

/* Record types. The high half is a tag, so zeroed or stray bytes never
 * read as a record. */
#define SP_STREAM_TAG 0x53500000u
enum {
  SP_STREAM_REGION = SP_STREAM_TAG | 1,    /* a region id's name and place */
  SP_STREAM_CALLS = SP_STREAM_TAG | 2,     /* calls [first, first+count) */
  SP_STREAM_ENDS = SP_STREAM_TAG | 3,      /* ends of calls written open */
  SP_STREAM_CLOCK = SP_STREAM_TAG | 4,     /* a (stamp, CLOCK_MONOTONIC) pair */
  SP_STREAM_META = SP_STREAM_TAG | 5,      /* one metadata key and value */
  SP_STREAM_STOP = SP_STREAM_TAG | 6,      /* the process stopped recording */
  SP_STREAM_PATHS = SP_STREAM_TAG | 7,     /* profile mode: call paths */
  SP_STREAM_FRAMES = SP_STREAM_TAG | 8,    /* profile mode: calls still open */
  SP_STREAM_ZCALLS = SP_STREAM_TAG | 9,    /* CALLS with varint deltas */
  SP_STREAM_PSNAP = SP_STREAM_TAG | 10,    /* profile mode: a snapshot ends */
  SP_STREAM_MPI = SP_STREAM_TAG | 11,      /* MPI calls' messages and bytes */
  SP_STREAM_COMM = SP_STREAM_TAG | 12,     /* an MPI communicator's members */
  SP_STREAM_COUNTERS = SP_STREAM_TAG | 13, /* SP_COUNTERS: sums per region */
  /* code addresses and their objects: a range of their own, apart from
   * the numbers above */
  SP_STREAM_MAP = SP_STREAM_TAG | 0x20,  /* a loaded object of addresses */
  SP_STREAM_ADDR = SP_STREAM_TAG | 0x21, /* a region that is an address */
};

/* Every record starts with this head; size counts the head and is a
 * multiple of 8, so every record (and every payload) is 8-byte aligned. */
typedef struct sp_stream_rec {
  uint32_t type;  /* SP_STREAM_* */
  uint32_t size;  /* bytes of the whole record, >= 16 */
  uint64_t check; /* sp_stream_check(type, size, payload) */
} sp_stream_rec;

/* SP_STREAM_REGION: then name_len bytes of name, file_len bytes of file,
 * zeros up to the next multiple of 8. file_len 0: no source file. */
typedef struct sp_stream_region {
  int32_t id;        /* the process's region id, >= 0 */
  int32_t line;      /* -1: unknown */
  uint32_t name_len; /* >= 1 */
  uint32_t file_len;
  uint64_t addr; /* function address of a -finstrument-functions region,
                   or an OpenMP construct's code address */
} sp_stream_region;

/* SP_STREAM_MAP: a loaded object that address regions fall in, written
 * before the first ADDR record that names it; then build_id_len bytes of
 * its GNU build-id, path_len bytes of its path as loaded, zeros up to the
 * next multiple of 8. The process numbers its objects from 0 in the order
 * of their MAP records. */
typedef struct sp_stream_map {
  int32_t id;            /* the object's number */
  uint32_t build_id_len; /* 0 (none) to SP_STREAM_BUILD_ID_MAX */
  uint32_t path_len;     /* >= 1 */
  uint32_t reserved;     /* 0 */
  uint64_t bias;         /* load address - link-time address */
  uint64_t lo, hi;       /* the span of its loaded segments */
} sp_stream_map;
#define SP_STREAM_BUILD_ID_MAX 64

/* SP_STREAM_ADDR: region is code address addr in object map (a MAP record
 * before it): a -finstrument-functions function (kind 0) or an OpenMP
 * construct's code pointer (its kind, format/sp_sym.h). With
 * SP_STREAM_ADDR_UNNAMED its REGION record's name is only the address
 * (0x...): the process did not name it (a signal ended it first), and a
 * reader names it from the object's file. */
typedef struct sp_stream_addr {
  int32_t region;
  int32_t map;
  int32_t kind;
  uint32_t flags; /* SP_STREAM_ADDR_UNNAMED, or 0 */
  uint64_t addr;
} sp_stream_addr;
#define SP_STREAM_ADDR_UNNAMED 1u

/* SP_STREAM_CALLS: then count pairs. Calls of one (thread, region) are
 * numbered from 0 in start order; a record writes calls first..first+count-1
 * and a later record may write some of them again (then it wins, except
 * that an end of 0 never replaces a known end). */
typedef struct sp_stream_calls {
  int32_t thread; /* the process's thread number, >= 0 */
  int32_t region; /* a region id of a REGION record */
  int64_t first;
  int64_t count;
  int64_t flags; /* SP_STREAM_CALLS_PARTIAL, or 0 */
} sp_stream_calls;

/* Some call in it was not begun (start 0: copied from a buffer a thread
 * may still have been filling, at a signal, exec or finalize) or still
 * open (end 0) when written. Without it every pair has a start and an
 * end, and a reader trusting the writer need not read its calls to index
 * it. */
#define SP_STREAM_CALLS_PARTIAL 1

/* What a writer keeps of each record it appends, for a reader that trusts
 * it (the runtime at finalize): the record's offset and its first
 * SP_STREAM_HINT_HEAD bytes (head, CALLS header, first pair). With them the
 * index needs no read of the file per record, a system call each. */
#define SP_STREAM_HINT_HEAD 64
typedef struct sp_stream_hint {
  int64_t off;
  unsigned char head[SP_STREAM_HINT_HEAD];
} sp_stream_hint;

/* SP_STREAM_ZCALLS: the calls of a CALLS record in fewer bytes. This
 * header, then per call two unsigned LEB128 varints (7 bits a byte, low
 * first, high bit set on every byte but the last): start minus the previous
 * call's start (the first call's: minus base), and end minus start, both
 * modulo 2^64. A stamp that goes back (a start of 0, an end of 0, an end
 * before its start) costs up to 10 bytes and loses nothing. Zeros pad the
 * record to a multiple of 8 (fewer than 8 of them). */
typedef struct sp_stream_zcalls {
  int32_t thread;
  int32_t region;
  int64_t first;
  int64_t count;
  int64_t flags; /* as CALLS */
  uint64_t base; /* the first call's start */
} sp_stream_zcalls;

/* Bytes a ZCALLS record takes at most, head included: a reader decodes
 * one whole, and a larger one is not a record. */
#define SP_STREAM_ZCALLS_MAX ((uint32_t)1 << 20)

/* Bytes a call can take at most in a ZCALLS record. */
#define SP_STREAM_ZMAX 20

/* Encodes n (start, end) pairs at v, from base; 0 when they take more
 * than cap bytes (cap >= 0), else the bytes written to out. */
static inline size_t sp_stream_zencode(const uint64_t *v, size_t n,
                                       uint64_t base, unsigned char *out,
                                       size_t cap) {
  unsigned char *o = out, *lim = out + cap;
  uint64_t prev = base;
  for (size_t i = 0; i < n; i++) {
    if ((size_t)(lim - o) < SP_STREAM_ZMAX) {
      /* near the end: the exact size of this call decides */
      unsigned char tmp[SP_STREAM_ZMAX];
      size_t k = sp_stream_zencode(v + 2 * i, 1, prev, tmp, SP_STREAM_ZMAX);
      if (k > (size_t)(lim - o))
        return 0;
      for (size_t j = 0; j < k; j++)
        o[j] = tmp[j];
      o += k;
      prev = v[2 * i];
      continue;
    }
    uint64_t d = v[2 * i] - prev, e = v[2 * i + 1] - v[2 * i];
    prev = v[2 * i];
    while (d >= 0x80) {
      *o++ = (unsigned char)(d | 0x80);
      d >>= 7;
    }
    *o++ = (unsigned char)d;
    while (e >= 0x80) {
      *o++ = (unsigned char)(e | 0x80);
      e >>= 7;
    }
    *o++ = (unsigned char)e;
  }
  return (size_t)(o - out);
}

/* Decodes n pairs from the len bytes at p into v (start, end interleaved):
 * the bytes read, or -1 when they do not hold n well-formed calls. */
static inline int64_t sp_stream_zdecode(const unsigned char *p, size_t len,
                                        int64_t n, uint64_t base, uint64_t *v) {
  size_t at = 0;
  uint64_t prev = base;
  for (int64_t i = 0; i < n; i++) {
    uint64_t x[2];
    for (int k = 0; k < 2; k++) {
      uint64_t r = 0;
      for (int sh = 0;; sh += 7) {
        if (at >= len || sh > 63)
          return -1;
        unsigned b = p[at++];
        if (sh == 63 && b > 1)
          return -1; /* more than 64 bits */
        r |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80))
          break;
      }
      x[k] = r;
    }
    prev += x[0];
    v[2 * i] = prev;
    v[2 * i + 1] = prev + x[1];
  }
  return (int64_t)at;
}

typedef struct sp_stream_pair {
  uint64_t start; /* 0: the call was not begun yet: not a call */
  uint64_t end;   /* 0: still open when written */
} sp_stream_pair;

/* SP_STREAM_ENDS: an int64 count, then count of these: the end of a call
 * that an earlier CALLS record wrote while it was open. */
typedef struct sp_stream_end {
  int32_t thread;
  int32_t region;
  int64_t index;
  uint64_t end;
} sp_stream_end;

/* SP_STREAM_CLOCK: stamps map linearly onto CLOCK_MONOTONIC through the
 * first and the last clock record of the stream. */
typedef struct sp_stream_clock {
  uint64_t stamp;
  int64_t mono_ns;
} sp_stream_clock;

/* SP_STREAM_META: then key_len bytes of key, value_len bytes of value (a
 * string; none for an integer), zeros up to a multiple of 8. A later record
 * of the same key replaces an earlier one. */
typedef struct sp_stream_meta {
  uint32_t kind; /* 's' string, 'i' integer */
  uint32_t key_len;
  uint32_t value_len;
  uint32_t reserved;
  int64_t ival; /* 'i' */
} sp_stream_meta;

/* SP_STREAM_STOP: calls still open at the end of the stream ended no later
 * than the last stamp the stream holds. cause: 0 = finalize (or an exec),
 * SP_STREAM_STOP_MPI_ABORT = saved at an MPI_Abort of this rank or of
 * another rank of its node, else the signal number that ended the process. */
#define SP_STREAM_STOP_MPI_ABORT (-1)
typedef struct sp_stream_stop {
  uint64_t stamp;
  int32_t cause;
  uint32_t reserved;
} sp_stream_stop;

/* SP_STREAM_MPI: this header, then count 32-byte slots of one thread, in
 * the order its MPI calls made them: each message one sp_stream_mpislot,
 * followed by one sp_stream_mpiext when it needs more than a send does. */
typedef struct sp_stream_mpi {
  int32_t thread; /* as in CALLS records */
  uint32_t reserved;
  int64_t count; /* slots */
} sp_stream_mpi;

/* What one MPI call sent or received (a call may make two: MPI_Sendrecv).
 * 32 bytes hold what a send needs, which the layer writes in place with a
 * few stores; other messages add an ext slot only when they must. */
typedef struct sp_stream_mpislot {
  uint64_t start; /* the call's start stamp: with (thread, region), which
                     call of the calls records it belongs to */
  int64_t bytes;  /* sent (kinds SEND, ISEND, COLL, WAITSEND) or received
                     (RECV, IRECV, WAITRECV) by this rank */
  int32_t region; /* the call's region id */
  int32_t peer;   /* partner's MPI_COMM_WORLD rank; SP_MPI_NONE,
                     SP_MPI_ANY (a receive not completed yet) */
  int32_t tag;    /* -1 for collectives */
  uint32_t kind;  /* SP_MPI_K_* in bits 0-6; SP_MPI_SLOT_EXT: an ext slot
                     follows; the communicator (below) in bits 8-31 */
} sp_stream_mpislot;
#define SP_MPI_SLOT_EXT 0x80u
#define SP_MPI_SLOT_KIND(k) ((int32_t)((k)&0x7fu))
#define SP_MPI_SLOT_COMM(k) ((int32_t)((k) >> 8))
#define SP_MPI_SLOT_COMMS (1 << 24) /* communicators a slot can name */

/* The rest of a message whose fields differ from a send's defaults: a
 * completion's origin, a collective's root or received bytes, a
 * communicator of SP_MPI_SLOT_COMMS or more. */
typedef struct sp_stream_mpiext {
  uint64_t origin;       /* a completion: the start stamp of the call that
                            began the request (MPI_Irecv); 0 = none */
  int64_t other;         /* bytes the other way (a collective's received) */
  int32_t origin_region; /* that call's region id; -1 = none */
  int32_t root;          /* world rank of a rooted collective's root, or -1 */
  int32_t comm;          /* the process's communicator number (COMM records);
                            0 = MPI_COMM_WORLD */
  uint32_t kind;         /* 0: never a message's first slot */
} sp_stream_mpiext;

enum {
  SP_MPI_K_SEND = 1,     /* blocking send (any mode), MPI_Sendrecv's send */
  SP_MPI_K_ISEND = 2,    /* nonblocking send, counted when started */
  SP_MPI_K_RECV = 3,     /* blocking receive, MPI_Sendrecv's receive */
  SP_MPI_K_IRECV = 4,    /* nonblocking receive posted (no bytes yet) */
  SP_MPI_K_WAITRECV = 5, /* a nonblocking receive completed (wait, test):
                            source, tag and bytes from its status */
  SP_MPI_K_COLL = 6,     /* a collective (blocking or nonblocking) */
  SP_MPI_K_WAITSEND = 7, /* a nonblocking send completed (wait, test):
                            partner and tag of its start, no bytes (the
                            start counted them) */
  SP_MPI_K_MAX = 7
};
#define SP_MPI_NONE (-1) /* no partner: MPI_PROC_NULL, a collective */
#define SP_MPI_ANY (-2)  /* MPI_ANY_SOURCE, until its status tells */

/* SP_STREAM_COMM: this header, then size int32 MPI_COMM_WORLD ranks (the
 * communicator's ranks in order; an intercommunicator's remote group),
 * zeros up to a multiple of 8. A later record of an id replaces it. */
typedef struct sp_stream_comm {
  int32_t id; /* as sp_stream_mpiext.comm */
  int32_t size;
} sp_stream_comm;

/* SP_STREAM_PATHS and SP_STREAM_FRAMES (SP_MODE=profile): this header,
 * then count nodes or frames, items [first, first + count) of the thread's
 * total. A later record of the same thread and item replaces an earlier
 * one; a FRAMES record with first 0 starts the thread's open calls anew. */
typedef struct sp_stream_profile {
  int32_t thread;
  uint32_t reserved;
  int64_t first, count, total;
} sp_stream_profile;

/* SP_STREAM_PSNAP: the PATHS and FRAMES records since the previous PSNAP
 * (or STOP) form one snapshot of the profile, taken when the record was
 * written: a reader takes them in only here, so a snapshot cut short (the
 * process killed while writing it) leaves the previous one whole. A
 * stream with no PSNAP record takes every PATHS and FRAMES record. */
typedef struct sp_stream_psnap {
  uint64_t stamp; /* when its FRAMES were read: open calls end no sooner */
  uint64_t seq;   /* snapshots written by the process before this one */
} sp_stream_psnap;

/* SP_STREAM_COUNTERS (SP_COUNTERS): sums of one thread's counters per
 * region. This header, then ncounters names of SP_STREAM_CTR_NAME bytes
 * each (zero-padded, at least one zero), then nrows rows, each an
 * sp_stream_ctr_row followed by ncounters inclusive and ncounters
 * exclusive uint64 sums. Every record of a stream names the same
 * counters. A row of a later record replaces the same (thread, region)
 * row of an earlier one: sums run from the thread's first call. Written
 * after the STOP record, so a reader that predates the type loses nothing
 * else. */
#define SP_STREAM_CTR_NAME 32
#define SP_STREAM_CTR_MAX 32
typedef struct sp_stream_counters {
  int32_t thread;     /* the process's thread number, >= 0 */
  uint32_t ncounters; /* 1..SP_STREAM_CTR_MAX */
  int64_t nrows;
} sp_stream_counters;

typedef struct sp_stream_ctr_row {
  int32_t region; /* a region id of a REGION record */
  uint32_t reserved;
  uint64_t calls; /* calls that ended */
} sp_stream_ctr_row;

/* One call path of a thread: node 0 is the thread's root (region -1); a
 * node's parent has a lower index. Stamps and sums in raw clock units;
 * sq_hi:sq_lo is the 128-bit sum of squared durations. */
typedef struct sp_stream_pnode {
  int32_t parent; /* -1 for the root */
  int32_t region; /* a region id of a REGION record; -1 for the root */
  uint64_t calls, total, excl, min, max, sq_lo, sq_hi, first, last;
  int32_t cache[2]; /* the writer's own: ignored */
  uint64_t outer;   /* total of the calls no call of the region encloses */
  uint32_t open;    /* calls open when written (FRAMES has them) */
  uint32_t seq;     /* the writer's own: ignored */
} sp_stream_pnode;

/* A call still open, outermost first: it counts in node from start on;
 * child is the time of the calls that ended directly inside it. flags:
 * 1 past the path bound (its time belongs to its caller), 2 nesting too
 * deep, 4 inherited at fork: none of them is a call of node. */
typedef struct sp_stream_pframe {
  int32_t node, region;
  uint32_t flags, reserved;
  uint64_t start, child;
} sp_stream_pframe;

/* Record check: over the payload as 64-bit words in the file's byte order
 * (a reader of the other order swaps each word first), seeded with type and
 * size. Cheap (one multiply per word, four lanes) and enough to tell a torn
 * or zero-filled tail from a record. Incremental: a payload may be fed in
 * pieces, each but the last a multiple of four words. */
typedef struct sp_stream_checker {
  uint64_t a, b, c, d, n;
} sp_stream_checker;

static inline uint64_t sp_stream_rotl(uint64_t x, int r) {
  return (x << r) | (x >> (64 - r));
}

static inline void sp_stream_check_begin(sp_stream_checker *k, uint32_t type,
                                         uint32_t size) {
  k->a = 0x9E3779B97F4A7C15ull ^ (((uint64_t)type << 32) | size);
  k->b = 0xC2B2AE3D27D4EB4Full;
  k->c = 0x165667B19E3779F9ull;
  k->d = 0x27D4EB2F165667C5ull;
  k->n = 0;
}

static inline void sp_stream_check_add(sp_stream_checker *k, const uint64_t *w,
                                       size_t nwords, int swap) {
  const uint64_t m = 0xff51afd7ed558ccdull;
  uint64_t a = k->a, b = k->b, c = k->c, d = k->d;
  size_t i = 0;
  for (; i + 4 <= nwords; i += 4) {
    uint64_t w0 = w[i], w1 = w[i + 1], w2 = w[i + 2], w3 = w[i + 3];
    if (swap) {
      w0 = __builtin_bswap64(w0), w1 = __builtin_bswap64(w1);
      w2 = __builtin_bswap64(w2), w3 = __builtin_bswap64(w3);
    }
    a = sp_stream_rotl((a ^ w0) * m, 29);
    b = sp_stream_rotl((b ^ w1) * m, 29);
    c = sp_stream_rotl((c ^ w2) * m, 29);
    d = sp_stream_rotl((d ^ w3) * m, 29);
  }
  for (; i < nwords; i++)
    a = sp_stream_rotl((a ^ (swap ? __builtin_bswap64(w[i]) : w[i])) * m, 29);
  k->a = a, k->b = b, k->c = c, k->d = d;
  k->n += nwords;
}

/* A multiply carries a change only upward: the rotation after each one, and
 * the rotations that combine the lanes, let a change in any bit of any word
 * reach every bit of the result. */
static inline uint64_t sp_stream_check_end(const sp_stream_checker *k) {
  uint64_t h = k->a ^ sp_stream_rotl(k->b, 17) ^ sp_stream_rotl(k->c, 31) ^
               sp_stream_rotl(k->d, 47) ^ k->n;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

static inline uint64_t sp_stream_check_words(uint32_t type, uint32_t size,
                                             const uint64_t *w, size_t nwords,
                                             int swap) {
  sp_stream_checker k;
  sp_stream_check_begin(&k, type, size);
  sp_stream_check_add(&k, w, nwords, swap);
  return sp_stream_check_end(&k);
}

/* The check of a record whose payload (size - 16 bytes) is at payload. */
static inline uint64_t sp_stream_check(uint32_t type, uint32_t size,
                                       const void *payload) {
  return sp_stream_check_words(type, size, (const uint64_t *)payload,
                               (size - sizeof(sp_stream_rec)) / 8, 0);
}

/* ---- the reader (format/stream_read.c; rules: docs/format.md) ------------ */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_fmt_stream sp_fmt_stream;

/* Flags of sp_fmt_stream_open. */
/* The caller wrote it (the runtime at finalize): no record checks, and
 * CALLS records not marked partial are not read while indexing (every call
 * in them has a start and an end; no stamp later than the last CLOCK or
 * STOP record). */
#define SP_FMT_STREAM_TRUST 1
/* Regions the process left as code addresses (ADDR records marked
 * unnamed) are named from their objects' files (format/sp_sym.h), each
 * file checked against the build-id its MAP record holds; an object whose
 * file is missing or another leaves its regions as they are (the address,
 * the object's path as their file) and says so in one line of
 * sp_fmt_stream_warnings. */
#define SP_FMT_STREAM_SYMBOLS 2
/* With SP_FMT_STREAM_SYMBOLS: C++ names are demangled even when the
 * process has no C++ runtime, by loading libstdc++ (the tools). */
#define SP_FMT_STREAM_SYMBOLS_LOAD 4

/* Indexes the stream at path: every complete record up to the first one
 * that is cut short or fails its check (the torn tail, then ignored). Keeps
 * the file open; memory grows with the number of records, never with the
 * number of calls. A file that is not a stream, or whose header is torn,
 * is an error. */
int sp_fmt_stream_open(const char *path, int flags, sp_fmt_stream **out,
                       sp_fmt_err *err);

/* sp_fmt_stream_open, SP_FMT_STREAM_TRUST, given what the writer kept of
 * its first nhint records (offsets ascending, sp_stream.h): their heads
 * come from memory, the other bytes from the file. */
struct sp_stream_hint;
int sp_fmt_stream_open_hinted(const char *path, int flags,
                              const struct sp_stream_hint *hint, int64_t nhint,
                              sp_fmt_stream **out, sp_fmt_err *err);

typedef struct sp_fmt_stream_info {
  int32_t rank, pid;
  int64_t size;        /* bytes in the file */
  int64_t torn_offset; /* where the torn tail starts; -1 = none */
  int32_t stopped;     /* a STOP record was read */
  int32_t stop_cause;  /* of the last one: 0 finalize, -1 MPI_Abort, else a
                        * signal (SP_STREAM_STOP in sp_stream.h) */
  int64_t calls;       /* calls the sources hold */
  int64_t open_calls;  /* of them, calls without an end (closed at the
                          stream's last stamp) */
  int64_t dropped;     /* calls written with start 0 (not calls) */
  int32_t threads;     /* distinct threads with calls */
  char torn_what[160]; /* why the record at torn_offset is not complete */
} sp_fmt_stream_info;

void sp_fmt_stream_get_info(const sp_fmt_stream *s, sp_fmt_stream_info *info);

/* The stream's COUNTERS records as one table (sp_ctr.h): rows per (thread,
 * region name), threads numbered as the sources (trace) or the profile's
 * threads (profile mode) number them. 0 with out->n 0 when the stream has
 * none; -1 when out of memory. */
struct sp_fmt_ctr;
int sp_fmt_stream_counters(sp_fmt_stream *s, struct sp_fmt_ctr *out);

/* SP_FMT_STREAM_SYMBOLS' lines ('\n'-separated, no prefix), or NULL. */
const char *sp_fmt_stream_warnings(const sp_fmt_stream *s);
/* Each of those lines on stderr as "PROG: warning: LINE". */
void sp_fmt_stream_put_warnings(const sp_fmt_stream *s, const char *prog);
const sp_fmt_meta *sp_fmt_stream_meta(const sp_fmt_stream *s);

/* The stream's calls as sources, one per (thread, region name): threads
 * renumbered from 0 in order of the writer's thread numbers, sources
 * ordered by thread then first start, calls in start order and in CLOCK_-
 * MONOTONIC ns: what sp_fmt_spt_write and the statistics take. Their read()
 * reads the file (fastest forwards; they share one buffer, so one thread
 * at a time); a failed read makes sp_fmt_stream_failed non-zero and gives
 * calls of 0. Valid until sp_fmt_stream_close. */
int64_t sp_fmt_stream_nsources(const sp_fmt_stream *s);
const sp_fmt_source *sp_fmt_stream_sources(const sp_fmt_stream *s);
int sp_fmt_stream_failed(const sp_fmt_stream *s); /* errno of a read, or 0 */
void sp_fmt_stream_close(sp_fmt_stream *s);

/* The stream's MPI records (MPI and COMM) into out (empty): stamps in ns,
 * threads numbered as the sources'. 0, or -1 with err set (out empty). */
int sp_fmt_stream_mpi(sp_fmt_stream *s, sp_fmt_mpi *out, sp_fmt_err *err);

/* Reads a whole stream into memory, as sp_fmt_spt_read reads a .spt. */
int sp_fmt_stream_read(const char *path, sp_fmt_rank *out, sp_fmt_err *err);

/* 1 if the first bytes of the file at path are the stream magic. */
int sp_fmt_is_stream(const char *path);

/* The one-line warning the tools print for a stream read (no prefix, no
 * newline): "<path>: rank R recovered from a stream: N calls (K left
 * open), <how it ended>[; torn tail ignored from byte T]". */
void sp_fmt_stream_describe(const sp_fmt_stream_info *info, const char *path,
                            char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* SP_STREAM_H */
