/* export_otf2.c - an OTF2 archive (Score-P's trace format: Vampir,
 * otf2-print, the otf2 Python module): a location per (rank, thread), an
 * enter and a leave event per call, the MPI calls' messages and
 * collectives with their communicators, regions with their source
 * location, the run's metadata as properties; built in a temporary
 * directory. */
#include "report.h"
#include "sp_tmp.h"
#include "sp_util.h"

#include <otf2/otf2.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOREF UINT32_MAX

typedef struct {
  const rp_profile *p;
  const rp_opts *o;
  OTF2_Archive *ar;
  OTF2_EvtWriter *w; /* the thread's being walked */
  int64_t cur;       /* its index in p->threads, -1 before the first */
  uint64_t last;     /* its last stamp written */
  uint64_t *nev;     /* events per thread */
  char *opened;      /* per thread: its event writer was made */
  uint32_t *region;  /* region ref per profile name, NOREF = unused */
  int32_t *byref;    /* profile name per region ref */
  uint32_t nregions;
  int64_t lo, hi; /* the calls kept: those that overlap [lo, hi] */
  /* Strings of the definitions, each once: ref = index. */
  char **strs;
  uint32_t nstrs, capstrs;
  sp__hash ix;
  const char *dir;
  sp_fmt_err *err;  /* x's own messages: the walk says "stopped" after them */
  int failed;       /* err holds what stopped the export */
  rp_mpievents mpi; /* the MPI calls' events (none: nev 0) */
} otf2x;

/* OTF2 reports an error through this before returning its code, and
 * also where it then goes on as if nothing had happened: a failed write
 * of an event file is reported here, yet closing the archive returns
 * success over a cut file. So any report fails the export; the first one
 * (the file and its errno) is kept for the message, nothing is printed. */
static char otf2_msg[512];
static OTF2_ErrorCode otf2_code;

static OTF2_ErrorCode on_error(void *ud, const char *file, uint64_t line,
                               const char *fn, OTF2_ErrorCode code,
                               const char *fmt, va_list va) {
  (void)ud, (void)file, (void)line, (void)fn;
  if (!otf2_msg[0]) {
    vsnprintf(otf2_msg, sizeof otf2_msg, fmt, va);
    otf2_msg[strcspn(otf2_msg, "\n")] = 0;
    otf2_code = code;
  }
  return code;
}

static int otf2_fail(otf2x *x, OTF2_ErrorCode code, const char *what) {
  if (!x->failed && otf2_msg[0])
    sp_fmt_err_set(x->err, "%s: OTF2 %s: %s (%s)", x->dir, what, otf2_msg,
                   OTF2_Error_GetDescription(otf2_code));
  else if (!x->failed)
    sp_fmt_err_set(x->err, "%s: OTF2 %s: %s", x->dir, what,
                   OTF2_Error_GetDescription(code));
  x->failed = 1;
  return -1;
}

static int oom(otf2x *x) {
  if (!x->failed)
    sp_fmt_err_set(x->err, "%s: out of memory", x->p->label);
  x->failed = 1;
  return -1;
}

/* s with each byte that starts no UTF-8 character as U+FFFD (readers
 * decode OTF2's strings as UTF-8), malloc'ed; NULL when out of memory. */
static char *utf8_copy(const char *s) {
  size_t n = 0;
  for (const unsigned char *c = (const unsigned char *)s; *c;) {
    int k = sp_fmt_utf8_len(c);
    n += k ? (size_t)k : 3;
    c += k ? k : 1;
  }
  char *d = malloc(n + 1), *o = d;
  for (const unsigned char *c = (const unsigned char *)s; d && *c;) {
    int k = sp_fmt_utf8_len(c);
    if (k) {
      memcpy(o, c, (size_t)k);
      o += k, c += k;
    } else {
      memcpy(o, "\xef\xbf\xbd", 3);
      o += 3, c++;
    }
  }
  if (d)
    *o = 0;
  return d;
}

/* The ref of string s (made valid UTF-8), defined once; NOREF when out of
 * memory. */
static uint32_t str_ref(otf2x *x, const char *raw) {
  char *s = utf8_copy(raw);
  if (!s)
    return NOREF;
  sp__hash_it it;
  uint64_t h = sp__fnv1a(SP__FNV_SEED, s);
  for (int64_t i = sp__hash_first(&x->ix, h, &it); i >= 0;
       i = sp__hash_next(&x->ix, &it))
    if (strcmp(x->strs[i], s) == 0) {
      free(s);
      return (uint32_t)i;
    }
  if (x->nstrs == x->capstrs) {
    uint32_t c = x->capstrs ? 2 * x->capstrs : 256;
    char **v = realloc(x->strs, (size_t)c * sizeof *v);
    if (!v) {
      free(s);
      return NOREF;
    }
    x->strs = v;
    x->capstrs = c;
  }
  if (sp__hash_add(&x->ix, &it, x->nstrs) != 0) {
    free(s);
    return NOREF;
  }
  x->strs[x->nstrs] = s;
  return x->nstrs++;
}

/* Score-P's numbering: the thread in the high half, the rank in the low. */
static uint64_t location_ref(const rp_thread *t) {
  return (uint64_t)(uint32_t)t->thread << 32 | (uint32_t)t->rank;
}

static int kept(const otf2x *x, const rp_call *c) {
  return c->end >= x->lo && c->start <= x->hi;
}

/* Makes thread i's event writer the current one, closing the last. */
static int switch_to(otf2x *x, int64_t i) {
  if (x->w) {
    OTF2_EvtWriter_GetNumberOfEvents(x->w, &x->nev[x->cur]);
    OTF2_ErrorCode e = OTF2_Archive_CloseEvtWriter(x->ar, x->w);
    x->w = NULL;
    if (e != OTF2_SUCCESS)
      return otf2_fail(x, e, "writing events");
  }
  x->cur = i;
  x->last = 0;
  if (i < 0)
    return 0;
  x->opened[i] = 1;
  if (!(x->w =
            OTF2_Archive_GetEvtWriter(x->ar, location_ref(&x->p->threads[i]))))
    return otf2_fail(x, OTF2_ERROR_PROCESSED_WITH_FAULTS, "event writer");
  return 0;
}

/* One event's stamp, checked: OTF2's are unsigned and a location's must
 * not go back in time. */
static int stamp(otf2x *x, const rp_thread *t, const rp_call *c, int64_t ts) {
  if (ts < 0 || (uint64_t)ts < x->last) {
    sp_fmt_err_set(
        x->err, "%s: rank %d thread %d: call of %s from %lld to %lld: %s",
        x->p->label, t->rank, t->thread, x->p->names[c->name],
        (long long)c->start, (long long)c->end,
        ts < 0 ? "OTF2 holds no stamp below 0" : "it ends before it starts");
    x->failed = 1;
    return -1;
  }
  x->last = (uint64_t)ts;
  return 0;
}

static const OTF2_CollectiveOp coll_op[RP_NCOLL] = {
    OTF2_COLLECTIVE_OP_BARRIER,
    OTF2_COLLECTIVE_OP_BCAST,
    OTF2_COLLECTIVE_OP_GATHER,
    OTF2_COLLECTIVE_OP_GATHERV,
    OTF2_COLLECTIVE_OP_SCATTER,
    OTF2_COLLECTIVE_OP_SCATTERV,
    OTF2_COLLECTIVE_OP_ALLGATHER,
    OTF2_COLLECTIVE_OP_ALLGATHERV,
    OTF2_COLLECTIVE_OP_ALLTOALL,
    OTF2_COLLECTIVE_OP_ALLTOALLV,
    OTF2_COLLECTIVE_OP_ALLTOALLW,
    OTF2_COLLECTIVE_OP_ALLREDUCE,
    OTF2_COLLECTIVE_OP_REDUCE,
    OTF2_COLLECTIVE_OP_REDUCE_SCATTER,
    OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK,
    OTF2_COLLECTIVE_OP_SCAN,
    OTF2_COLLECTIVE_OP_EXSCAN};

/* Call c's MPI events on thread i, as Score-P places them: sends,
 * requests and a collective's begin right after its enter (at its start),
 * receives and a collective's end right before its leave (at its end). */
static OTF2_ErrorCode mpi_events(otf2x *x, int64_t i, const rp_call *c,
                                 int at_end) {
  int64_t end, k = rp_mpi_events_of(&x->mpi, i, c->start, c->name, &end);
  OTF2_ErrorCode e = OTF2_SUCCESS;
  uint64_t ts = (uint64_t)(at_end ? c->end : c->start);
  for (; e == OTF2_SUCCESS && k < end; k++) {
    const rp_mpiev *v = &x->mpi.ev[k];
    if ((v->kind >= RP_MPIEV_RECV) != at_end)
      continue;
    switch (v->kind) {
    case RP_MPIEV_SEND:
      e = OTF2_EvtWriter_MpiSend(x->w, NULL, ts, v->peer, v->comm, v->tag,
                                 v->sent);
      break;
    case RP_MPIEV_ISEND:
      e = OTF2_EvtWriter_MpiIsend(x->w, NULL, ts, v->peer, v->comm, v->tag,
                                  v->sent, v->request);
      break;
    case RP_MPIEV_IRECV_REQ:
      e = OTF2_EvtWriter_MpiIrecvRequest(x->w, NULL, ts, v->request);
      break;
    case RP_MPIEV_COLL_BEGIN:
      e = OTF2_EvtWriter_MpiCollectiveBegin(x->w, NULL, ts);
      break;
    case RP_MPIEV_RECV:
      e = OTF2_EvtWriter_MpiRecv(x->w, NULL, ts, v->peer, v->comm, v->tag,
                                 v->recvd);
      break;
    case RP_MPIEV_IRECV:
      e = OTF2_EvtWriter_MpiIrecv(x->w, NULL, ts, v->peer, v->comm, v->tag,
                                  v->recvd, v->request);
      break;
    case RP_MPIEV_ISEND_DONE:
      e = OTF2_EvtWriter_MpiIsendComplete(x->w, NULL, ts, v->request);
      break;
    default:
      e = OTF2_EvtWriter_MpiCollectiveEnd(
          x->w, NULL, ts, coll_op[v->coll], v->comm,
          v->peer == UINT32_MAX ? OTF2_UNDEFINED_UINT32 : v->peer, v->sent,
          v->recvd);
      break;
    }
  }
  return e;
}

static int on_open(void *ctx, const rp_thread *t, rp_call *c,
                   const rp_call *parent) {
  (void)parent;
  otf2x *x = ctx;
  if (!kept(x, c))
    return 0;
  int64_t i = t - x->p->threads;
  if (i != x->cur && switch_to(x, i) != 0)
    return 1;
  if (x->region[c->name] == NOREF) {
    x->byref[x->nregions] = c->name;
    x->region[c->name] = x->nregions++;
  }
  if (stamp(x, t, c, c->start) != 0)
    return 1;
  OTF2_ErrorCode e =
      OTF2_EvtWriter_Enter(x->w, NULL, (uint64_t)c->start, x->region[c->name]);
  if (e == OTF2_SUCCESS && x->mpi.nev)
    e = mpi_events(x, i, c, 0);
  return e == OTF2_SUCCESS ? 0 : otf2_fail(x, e, "writing events") != 0;
}

static int on_close(void *ctx, const rp_thread *t, const rp_call *c) {
  otf2x *x = ctx;
  if (!kept(x, c))
    return 0;
  if (stamp(x, t, c, c->end) != 0)
    return 1;
  OTF2_ErrorCode e = OTF2_SUCCESS;
  if (x->mpi.nev)
    e = mpi_events(x, t - x->p->threads, c, 1);
  if (e == OTF2_SUCCESS)
    e = OTF2_EvtWriter_Leave(x->w, NULL, (uint64_t)c->end, x->region[c->name]);
  return e == OTF2_SUCCESS ? 0 : otf2_fail(x, e, "writing events") != 0;
}

/* The OpenMP construct a region of the runtime's OMPT names stands for
 * ("omp barrier @ f.c:3"), for Vampir's grouping by role. */
static OTF2_RegionRole omp_role(const char *name) {
  static const struct {
    const char *word;
    OTF2_RegionRole role;
  } roles[] = {{"parallel", OTF2_REGION_ROLE_PARALLEL},
               {"barrier", OTF2_REGION_ROLE_BARRIER},
               {"critical", OTF2_REGION_ROLE_CRITICAL},
               {"single", OTF2_REGION_ROLE_SINGLE},
               {"masked", OTF2_REGION_ROLE_MASTER},
               {"ordered", OTF2_REGION_ROLE_ORDERED},
               {"for", OTF2_REGION_ROLE_LOOP},
               {"distribute", OTF2_REGION_ROLE_LOOP},
               {"taskloop", OTF2_REGION_ROLE_LOOP},
               {"sections", OTF2_REGION_ROLE_SECTIONS},
               {"workshare", OTF2_REGION_ROLE_WORKSHARE},
               {"task", OTF2_REGION_ROLE_TASK},
               {"implicit", OTF2_REGION_ROLE_TASK},
               {"taskwait", OTF2_REGION_ROLE_TASK_WAIT}};
  const char *w = name + 4;
  size_t n = strcspn(w, " ");
  for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++)
    if (strlen(roles[i].word) == n && !strncmp(w, roles[i].word, n))
      return roles[i].role;
  return OTF2_REGION_ROLE_CODE;
}

/* Wall-clock nanoseconds at stamp ts, from the metadata's start time
 * (ISO-8601, to the second) and the clock's stamp then; OTF2's "undefined"
 * when either is missing. */
static uint64_t realtime(const sp_fmt_meta *m, int64_t ts) {
  const sp_fmt_meta_item *iso = sp_fmt_meta_get(m, "timestamp");
  const sp_fmt_meta_item *t0 = sp_fmt_meta_get(m, "start_time_ns");
  if (!iso || iso->type != SP_FMT_META_STR || !t0 ||
      t0->type != SP_FMT_META_INT)
    return OTF2_UNDEFINED_TIMESTAMP;
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  const char *end = strptime(iso->str, "%Y-%m-%dT%H:%M:%S%z", &tm);
  if (!end || *end)
    return OTF2_UNDEFINED_TIMESTAMP;
  long off = tm.tm_gmtoff;
  time_t utc = timegm(&tm);
  int64_t ns;
  if (utc == (time_t)-1 ||
      __builtin_mul_overflow((int64_t)utc - off, (int64_t)1000000000, &ns) ||
      __builtin_add_overflow(ns, rp_sub(ts, t0->i64), &ns) || ns < 0)
    return OTF2_UNDEFINED_TIMESTAMP;
  return (uint64_t)ns;
}

/* The rank's entry of a per-rank list (rank_ids' order), or NULL. */
static const char *of_rank(const sp_fmt_meta *m, const char *key,
                           int32_t rank) {
  const sp_fmt_meta_item *ids = sp_fmt_meta_get(m, "rank_ids");
  const sp_fmt_meta_item *v = sp_fmt_meta_get(m, key);
  if (!ids || !v || ids->type != SP_FMT_META_STRLIST ||
      v->type != SP_FMT_META_STRLIST || v->nstrs != ids->nstrs)
    return NULL;
  char id[16];
  snprintf(id, sizeof id, "%d", rank);
  for (int64_t i = 0; i < ids->nstrs; i++)
    if (!strcmp(ids->strs[i], id))
      return v->strs[i][0] ? v->strs[i] : NULL;
  return NULL;
}

/* Where rank r ran: its rank_hostname entry, or the hostname of a
 * profile of one rank. */
static const char *host_of(const rp_profile *p, int32_t rank) {
  const char *h = of_rank(&p->meta, "rank_hostname", rank);
  const sp_fmt_meta_item *one = sp_fmt_meta_get(&p->meta, "hostname");
  if (!h && p->nranks == 1 && one && one->type == SP_FMT_META_STR &&
      one->str[0])
    h = one->str;
  return h;
}

/* A per-rank list of sp-import's: "rank_<key>" as long as rank_ids. */
static int per_rank(const sp_fmt_meta *m, const sp_fmt_meta_item *it) {
  const sp_fmt_meta_item *ids = sp_fmt_meta_get(m, "rank_ids");
  return !strncmp(it->key, "rank_", 5) && it->type == SP_FMT_META_STRLIST &&
         ids && ids->type == SP_FMT_META_STRLIST && it->nstrs == ids->nstrs;
}

/* The run's metadata as archive properties "SCOPEPROF::<KEY>" (OTF2 allows
 * [A-Z0-9_] and folds case: other characters become '_'; a key that folds
 * onto an earlier one, and an empty value, which OTF2 reads as removing
 * the property, are left out). Lists: one element a line. The per-rank
 * lists go to the ranks' location groups instead. */
static int properties(otf2x *x) {
  const sp_fmt_meta *m = &x->p->meta;
  for (int64_t i = 0; i < m->n; i++) {
    const sp_fmt_meta_item *it = &m->items[i];
    if (per_rank(m, it) || !rp_meta_exported(x->o, it->key))
      continue;
    char name[512], num[32];
    int len = snprintf(name, sizeof name, "SCOPEPROF::%s", it->key);
    if (len < 0 || (size_t)len >= sizeof name)
      continue;
    for (char *c = name + 11; *c; c++)
      if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
            (*c >= '0' && *c <= '9') || *c == '_'))
        *c = '_';
    char *joined = NULL;
    const char *v = it->str;
    if (it->type == SP_FMT_META_INT) {
      snprintf(num, sizeof num, "%lld", (long long)it->i64);
      v = num;
    } else if (it->type == SP_FMT_META_STRLIST) {
      size_t n = 1;
      for (int64_t k = 0; k < it->nstrs; k++)
        n += strlen(it->strs[k]) + 1;
      if (!(joined = calloc(n, 1)))
        return oom(x);
      for (int64_t k = 0; k < it->nstrs; k++)
        strcat(strcat(joined, k ? "\n" : ""), it->strs[k]);
      v = joined;
    }
    char *u = utf8_copy(v);
    free(joined);
    if (!u)
      return oom(x);
    OTF2_ErrorCode e = OTF2_SUCCESS;
    if (u[0])
      e = OTF2_Archive_SetProperty(x->ar, name, u, false);
    free(u);
    if (e != OTF2_SUCCESS && e != OTF2_ERROR_PROPERTY_EXISTS)
      return otf2_fail(x, e, "property");
    otf2_msg[0] = 0;
  }
  return 0;
}

/* An MPI function's role for a trace viewer's grouping. */
static OTF2_RegionRole mpi_role(const char *name) {
  static const OTF2_RegionRole coll[RP_NCOLL] = {
      OTF2_REGION_ROLE_BARRIER,      OTF2_REGION_ROLE_COLL_ONE2ALL,
      OTF2_REGION_ROLE_COLL_ALL2ONE, OTF2_REGION_ROLE_COLL_ALL2ONE,
      OTF2_REGION_ROLE_COLL_ONE2ALL, OTF2_REGION_ROLE_COLL_ONE2ALL,
      OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_REGION_ROLE_COLL_ALL2ALL,
      OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_REGION_ROLE_COLL_ALL2ALL,
      OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_REGION_ROLE_COLL_ALL2ALL,
      OTF2_REGION_ROLE_COLL_ALL2ONE, OTF2_REGION_ROLE_COLL_ALL2ALL,
      OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_REGION_ROLE_COLL_OTHER,
      OTF2_REGION_ROLE_COLL_OTHER};
  int k = rp_coll_of(name);
  if (k >= 0)
    return coll[k];
  static const char *const p2p[] = {
      "Send",   "Ssend",    "Bsend",   "Rsend",
      "Recv",   "Sendrecv", "Isend",   "Issend",
      "Ibsend", "Irsend",   "Irecv",   "Sendrecv_replace",
      "Wait",   "Waitall",  "Waitany", "Waitsome",
      "Test",   "Testall",  "Testany", "Testsome",
      "Probe",  "Iprobe",   "Mprobe",  "Mrecv"};
  for (size_t i = 0; i < sizeof p2p / sizeof p2p[0]; i++)
    if (!strcmp(name + 4, p2p[i]))
      return OTF2_REGION_ROLE_POINT2POINT;
  return OTF2_REGION_ROLE_FUNCTION;
}

/* The MPI definitions the events name: one group of the ranks' first
 * locations (an event's partner is an index into it, through its
 * communicator), a group per communicator of its members' world ranks, and
 * the communicators. */
static OTF2_ErrorCode mpi_definitions(otf2x *x, OTF2_GlobalDefWriter *g,
                                      uint32_t locs, const uint32_t *cname) {
  const rp_mpicomm *w = &x->mpi.comms[0];
  int64_t n = w->size;
  uint64_t *m = malloc((size_t)(n ? n : 1) * sizeof *m);
  if (!m)
    return OTF2_ERROR_MEM_ALLOC_FAILED;
  for (int64_t r = 0; r < n; r++) /* rank r's thread 0 (location_ref) */
    m[r] = (uint64_t)(uint32_t)r;
  OTF2_ErrorCode e = OTF2_GlobalDefWriter_WriteGroup(
      g, 0, locs, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
      OTF2_GROUP_FLAG_NONE, (uint32_t)n, m);
  for (int64_t k = 0; e == OTF2_SUCCESS && k < x->mpi.ncomms; k++) {
    const rp_mpicomm *c = &x->mpi.comms[k];
    uint64_t *cm = c->size > n ? realloc(m, (size_t)c->size * sizeof *m) : m;
    if (!cm) {
      e = OTF2_ERROR_MEM_ALLOC_FAILED;
      break;
    }
    m = cm;
    for (int32_t i = 0; i < c->size; i++)
      m[i] = (uint64_t)(uint32_t)c->members[i];
    n = c->size > n ? c->size : n;
    e = OTF2_GlobalDefWriter_WriteGroup(
        g, (uint32_t)k + 1, cname[k], OTF2_GROUP_TYPE_COMM_GROUP,
        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)c->size, m);
    if (e == OTF2_SUCCESS)
      e = OTF2_GlobalDefWriter_WriteComm(g, (uint32_t)k, cname[k],
                                         (uint32_t)k + 1, OTF2_UNDEFINED_COMM,
                                         OTF2_COMM_FLAG_NONE);
  }
  free(m);
  return e;
}

/* Every definition, once the events are written (their counts are in the
 * locations'): clock, strings, system tree, ranks, threads, regions. */
static int definitions(otf2x *x) {
  const rp_profile *p = x->p;
  const sp_fmt_meta *m = &p->meta;
  int64_t nr = p->nranks;
  uint32_t *lg_name = malloc((size_t)(nr ? nr : 1) * sizeof *lg_name);
  uint32_t *lg_node = malloc((size_t)(nr ? nr : 1) * sizeof *lg_node);
  uint32_t *loc_name =
      malloc((size_t)(p->nthreads ? p->nthreads : 1) * sizeof *loc_name);
  uint32_t *rname = malloc((x->nregions ? x->nregions : 1) * sizeof *rname);
  uint32_t *rfile = malloc((x->nregions ? x->nregions : 1) * sizeof *rfile);
  /* System tree: the root, then one node per distinct host (its string's
   * ref says which node: hosts[k] is node k + 1). */
  uint32_t *hosts = malloc((size_t)(nr ? nr : 1) * sizeof *hosts);
  uint32_t *cname = NULL;
  int64_t nhosts = 0;
  char buf[64];
  int rc = -1;
  uint32_t empty = str_ref(x, ""), machine = str_ref(x, "machine"),
           node = str_ref(x, "node");
  if (!lg_name || !lg_node || !loc_name || !rname || !rfile || !hosts ||
      empty == NOREF || machine == NOREF || node == NOREF)
    goto oom;
  for (int64_t i = 0; i < nr; i++) {
    snprintf(buf, sizeof buf, "rank %d", p->ranks[i]);
    if ((lg_name[i] = str_ref(x, buf)) == NOREF)
      goto oom;
    const char *h = host_of(p, p->ranks[i]);
    lg_node[i] = 0;
    if (!h)
      continue;
    uint32_t hs = str_ref(x, h);
    if (hs == NOREF)
      goto oom;
    int64_t k = 0;
    while (k < nhosts && hosts[k] != hs)
      k++;
    if (k == nhosts)
      hosts[nhosts++] = hs;
    lg_node[i] = (uint32_t)k + 1;
  }
  for (int64_t i = 0; i < p->nthreads; i++) {
    snprintf(buf, sizeof buf, "thread %d", p->threads[i].thread);
    if ((loc_name[i] = str_ref(x, buf)) == NOREF)
      goto oom;
  }
  for (uint32_t r = 0; r < x->nregions; r++) {
    int32_t n = x->byref[r];
    rname[r] = str_ref(x, p->names[n]);
    rfile[r] = p->files[n] ? str_ref(x, p->files[n]) : 0;
    if (rname[r] == NOREF || rfile[r] == NOREF)
      goto oom;
    if (!p->files[n])
      rfile[r] = OTF2_UNDEFINED_STRING; /* the same value as NOREF */
  }
  /* The MPI communicators' names, and their groups'. */
  cname = malloc((size_t)(x->mpi.ncomms + 1) * sizeof *cname);
  uint32_t locs = str_ref(x, "MPI ranks");
  if (!cname || locs == NOREF)
    goto oom;
  for (int64_t k = 0; k < x->mpi.ncomms; k++) {
    if (k)
      snprintf(buf, sizeof buf, "MPI communicator %lld", (long long)k);
    if ((cname[k] = str_ref(x, k ? buf : "MPI_COMM_WORLD")) == NOREF)
      goto oom;
  }
  /* The per-rank lists' names: the key without "rank_". */
  for (int64_t i = 0; i < m->n; i++)
    if (per_rank(m, &m->items[i]) && strcmp(m->items[i].key, "rank_ids") &&
        str_ref(x, m->items[i].key + 5) == NOREF)
      goto oom;
  for (int64_t i = 0; i < m->n; i++)
    if (per_rank(m, &m->items[i]))
      for (int64_t k = 0; k < m->items[i].nstrs; k++)
        if (str_ref(x, m->items[i].strs[k]) == NOREF)
          goto oom;

  OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(x->ar);
  if (!g) {
    rc = otf2_fail(x, OTF2_ERROR_PROCESSED_WITH_FAULTS, "definitions");
    goto out;
  }
  int64_t lo = p->span_lo <= p->span_hi ? p->span_lo : 0;
  int64_t len = p->span_lo <= p->span_hi ? rp_sub(p->span_hi, p->span_lo) : 0;
  OTF2_ErrorCode e = OTF2_GlobalDefWriter_WriteClockProperties(
      g, 1000000000, (uint64_t)lo, (uint64_t)len, realtime(m, lo));
  for (uint32_t s = 0; e == OTF2_SUCCESS && s < x->nstrs; s++)
    e = OTF2_GlobalDefWriter_WriteString(g, s, x->strs[s]);
  if (e == OTF2_SUCCESS)
    e = OTF2_GlobalDefWriter_WriteSystemTreeNode(
        g, 0, machine, machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  for (int64_t k = 0; e == OTF2_SUCCESS && k < nhosts; k++)
    e = OTF2_GlobalDefWriter_WriteSystemTreeNode(g, (uint32_t)k + 1, hosts[k],
                                                 node, 0);
  for (int64_t i = 0; e == OTF2_SUCCESS && i < nr; i++)
    e = OTF2_GlobalDefWriter_WriteLocationGroup(
        g, (uint32_t)p->ranks[i], lg_name[i], OTF2_LOCATION_GROUP_TYPE_PROCESS,
        lg_node[i], OTF2_UNDEFINED_LOCATION_GROUP);
  for (int64_t i = 0; e == OTF2_SUCCESS && i < p->nthreads; i++)
    e = OTF2_GlobalDefWriter_WriteLocation(
        g, location_ref(&p->threads[i]), loc_name[i],
        OTF2_LOCATION_TYPE_CPU_THREAD, x->nev[i], (uint32_t)p->threads[i].rank);
  for (uint32_t r = 0; e == OTF2_SUCCESS && r < x->nregions; r++) {
    int32_t n = x->byref[r];
    const char *name = p->names[n];
    OTF2_Paradigm par = OTF2_PARADIGM_USER;
    OTF2_RegionRole role = OTF2_REGION_ROLE_FUNCTION;
    if (!strncmp(name, "omp ", 4)) {
      par = OTF2_PARADIGM_OPENMP;
      role = omp_role(name);
    } else if (!strncmp(name, "MPI_", 4)) {
      par = OTF2_PARADIGM_MPI; /* the MPI layer's regions */
      role = mpi_role(name);
    }
    int32_t line = p->files[n] && p->lines[n] > 0 ? p->lines[n] : 0;
    e = OTF2_GlobalDefWriter_WriteRegion(g, r, rname[r], rname[r], empty, role,
                                         par, OTF2_REGION_FLAG_NONE, rfile[r],
                                         (uint32_t)line, (uint32_t)line);
  }
  if (e == OTF2_SUCCESS && x->mpi.nev)
    e = mpi_definitions(x, g, locs, cname);
  for (int64_t i = 0; e == OTF2_SUCCESS && i < m->n; i++) {
    const sp_fmt_meta_item *it = &m->items[i];
    if (!per_rank(m, it) || !strcmp(it->key, "rank_ids") ||
        !rp_meta_exported(x->o, it->key))
      continue;
    for (int64_t k = 0; e == OTF2_SUCCESS && k < nr; k++) {
      const char *v = of_rank(m, it->key, p->ranks[k]);
      if (!v)
        continue;
      OTF2_AttributeValue a;
      a.stringRef = str_ref(x, v);
      e = OTF2_GlobalDefWriter_WriteLocationGroupProperty(
          g, (uint32_t)p->ranks[k], str_ref(x, it->key + 5), OTF2_TYPE_STRING,
          a);
    }
  }
  if (e == OTF2_SUCCESS)
    e = OTF2_Archive_CloseGlobalDefWriter(x->ar, g);
  rc = e == OTF2_SUCCESS ? 0 : otf2_fail(x, e, "writing definitions");
  goto out;
oom:
  rc = oom(x);
out:
  free(lg_name);
  free(lg_node);
  free(loc_name);
  free(rname);
  free(rfile);
  free(hosts);
  free(cname);
  return rc;
}

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft,
                                OTF2_LocationRef loc, void *cb, bool final) {
  (void)ud, (void)ft, (void)loc, (void)cb, (void) final;
  return OTF2_FLUSH;
}

static const OTF2_FlushCallbacks flush_cbs = {pre_flush, NULL};

/* OTF2 keeps a writer's chunks in memory until it is closed, unless the
 * allocator says no: then it writes them out (pre_flush), frees them all
 * and asks again. An event writer gets POOL chunks, reused after each
 * flush, so a location of any length costs POOL chunks; the definitions'
 * buffers are small and grow as they need. (No post_flush callback: no
 * BufferFlush records among the events.) */
enum { POOL = 16 };

typedef struct {
  int64_t used, n, cap;
  void **chunk;
} pool;

static void *pool_alloc(void *ud, OTF2_FileType ft, OTF2_LocationRef loc,
                        void **per, uint64_t size) {
  (void)ud, (void)loc;
  pool *b = *per;
  if (!b && !(b = *per = calloc(1, sizeof *b)))
    return NULL;
  if (b->used < b->n)
    return b->chunk[b->used++];
  if (ft == OTF2_FILETYPE_EVENTS && b->n == POOL)
    return NULL;
  if (b->n == b->cap) {
    int64_t c = b->cap ? 2 * b->cap : POOL;
    void **v = realloc(b->chunk, (size_t)c * sizeof *v);
    if (!v)
      return NULL;
    b->chunk = v;
    b->cap = c;
  }
  void *m = malloc(size);
  if (!m)
    return NULL;
  b->chunk[b->n++] = m;
  b->used = b->n;
  return m;
}

static void pool_free_all(void *ud, OTF2_FileType ft, OTF2_LocationRef loc,
                          void **per, bool final) {
  (void)ud, (void)ft, (void)loc;
  pool *b = *per;
  if (!b)
    return;
  b->used = 0;
  if (final) {
    for (int64_t i = 0; i < b->n; i++)
      free(b->chunk[i]);
    free(b->chunk);
    free(b);
    *per = NULL;
  }
}

static const OTF2_MemoryCallbacks memory_cbs = {pool_alloc, pool_free_all};

/* Events, then local and global definitions and properties, into the
 * archive x->ar. */
static int write_archive(otf2x *x, sp_fmt_err *walk_err) {
  const rp_profile *p = x->p;
  OTF2_ErrorCode e = OTF2_Archive_SetFlushCallbacks(x->ar, &flush_cbs, NULL);
  if (e == OTF2_SUCCESS)
    e = OTF2_Archive_SetMemoryCallbacks(x->ar, &memory_cbs, NULL);
  if (e == OTF2_SUCCESS)
    e = OTF2_Archive_SetSerialCollectiveCallbacks(x->ar);
  if (e == OTF2_SUCCESS)
    e = OTF2_Archive_SetCreator(x->ar,
                                "sp-report (ScopeProf) " SP_VERSION_STRING);
  const char *h = p->nranks ? host_of(p, p->ranks[0]) : NULL;
  char *label = utf8_copy(p->label), *host = h ? utf8_copy(h) : NULL;
  if (!label || (h && !host)) {
    free(label);
    free(host);
    return oom(x);
  }
  if (e == OTF2_SUCCESS)
    e = OTF2_Archive_SetDescription(x->ar, label);
  if (e == OTF2_SUCCESS && host)
    e = OTF2_Archive_SetMachineName(x->ar, host);
  free(label);
  free(host);
  if (e == OTF2_SUCCESS)
    e = OTF2_Archive_OpenEvtFiles(x->ar);
  if (e != OTF2_SUCCESS)
    return otf2_fail(x, e, "archive");
  rp_visitor v = {on_open, on_close, x};
  /* OTF2 readers expect each location's enters and leaves to nest: calls
   * that overlap without nesting stop the export with one line naming
   * both. */
  if (rp_walk(p, x->o, &v, RP_WALK_STRICT, walk_err) != 0)
    return -1;
  if (switch_to(x, -1) != 0)
    return -1;
  /* A thread none of whose calls was kept is still a location, with no
   * events: readers want its (empty) event file. */
  for (int64_t i = 0; i < p->nthreads; i++)
    if (!x->opened[i] && (switch_to(x, i) != 0 || switch_to(x, -1) != 0))
      return -1;
  if ((e = OTF2_Archive_CloseEvtFiles(x->ar)) != OTF2_SUCCESS ||
      (e = OTF2_Archive_OpenDefFiles(x->ar)) != OTF2_SUCCESS)
    return otf2_fail(x, e, "archive");
  for (int64_t i = 0; i < p->nthreads; i++) {
    OTF2_DefWriter *d =
        OTF2_Archive_GetDefWriter(x->ar, location_ref(&p->threads[i]));
    if (!d)
      return otf2_fail(x, OTF2_ERROR_PROCESSED_WITH_FAULTS, "definitions");
    if ((e = OTF2_Archive_CloseDefWriter(x->ar, d)) != OTF2_SUCCESS)
      return otf2_fail(x, e, "definitions");
  }
  if ((e = OTF2_Archive_CloseDefFiles(x->ar)) != OTF2_SUCCESS)
    return otf2_fail(x, e, "definitions");
  if (definitions(x) != 0 || properties(x) != 0)
    return -1;
  return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
                    struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

static int sync_entry(const char *path, const struct stat *st, int flag,
                      struct FTW *ftw) {
  (void)st, (void)ftw;
  int fd = open(path, (flag == FTW_F ? O_RDONLY : O_RDONLY | O_DIRECTORY) |
                          O_CLOEXEC);
  if (fd < 0)
    return -1;
  int rc = fsync(fd);
  close(fd);
  return rc;
}

/* The largest file under the archive (nftw has no user pointer). */
static off_t largest;

static int size_entry(const char *path, const struct stat *st, int type,
                      struct FTW *ftw) {
  (void)path, (void)ftw;
  if (type == FTW_F && st->st_size > largest)
    largest = st->st_size;
  return 0;
}

/* OTF2 does not report every failed write: when the disk fills as it
 * writes a writer's last chunk at close, the close succeeds over a cut
 * event file (and its reader then loops on that file). So after a close
 * that says success: a file as large as the file size limit was cut at
 * it, and a disk with no room for one more chunk (the most OTF2 writes at
 * once) was full when the last chunk went out; either fails the export. */
static int looks_cut(otf2x *x, const char *tmp) {
  largest = 0;
  struct rlimit rl;
  if (nftw(tmp, size_entry, 16, FTW_PHYS) == 0 &&
      getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      (rlim_t)largest >= rl.rlim_cur) {
    sp_fmt_err_set(x->err, "%s: %s", x->dir, strerror(EFBIG));
    x->failed = 1;
    return -1;
  }
  char probe[4300];
  snprintf(probe, sizeof probe, "%s/.room", tmp);
  int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  int e =
      fd < 0 ? errno : posix_fallocate(fd, 0, OTF2_CHUNK_SIZE_EVENTS_DEFAULT);
  if (fd >= 0) {
    close(fd);
    unlink(probe);
  }
  if (e == ENOSPC || e == EDQUOT || e == EFBIG || (fd < 0 && e)) {
    sp_fmt_err_set(x->err, "%s: %s", x->dir, strerror(e));
    x->failed = 1;
    return -1;
  }
  return 0;
}

/* Opens the archive in tmp, writes it, closes it and syncs what it wrote:
 * 0, or -1 with the reason in x->err (OTF2's) or err (the walk's). */
static int write_all(otf2x *x, const char *tmp, sp_fmt_err *err) {
  otf2_msg[0] = 0;
  otf2_code = OTF2_SUCCESS;
  OTF2_ErrorCallback prev = OTF2_Error_RegisterCallback(on_error, NULL);
  int rc = -1;
  x->ar = OTF2_Archive_Open(tmp, "traces", OTF2_FILEMODE_WRITE,
                            OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
                            OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT,
                            OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!x->ar)
    otf2_fail(x, OTF2_ERROR_PROCESSED_WITH_FAULTS, "archive");
  else
    rc = write_archive(x, err);
  if (x->w)
    OTF2_Archive_CloseEvtWriter(x->ar, x->w);
  OTF2_ErrorCode e = x->ar ? OTF2_Archive_Close(x->ar) : OTF2_SUCCESS;
  if (rc == 0 && e != OTF2_SUCCESS)
    rc = otf2_fail(x, e, "closing the archive");
  if (rc == 0 && otf2_msg[0])
    rc = otf2_fail(x, otf2_code, "writing the archive");
  if (rc == 0)
    rc = looks_cut(x, tmp);
  OTF2_Error_RegisterCallback(prev, NULL);
  /* What OTF2 wrote reaches the disk before the name does. */
  if (rc == 0 && nftw(tmp, sync_entry, 16, FTW_PHYS) != 0) {
    sp_fmt_err_set(err, "%s: %s", x->dir, strerror(errno ? errno : EIO));
    rc = -1;
  }
  return rc;
}

/* write_all in a child process: OTF2 3.0 crashes (SIGSEGV in its final
 * fwrite) when the disk fills while it closes a writer, and a library's
 * crash must end in a message and no archive, not in a dead sp-report. The
 * child sends its one-line failure through a pipe. Without a child to
 * be had (fork fails) the archive is written here. */
static int write_isolated(otf2x *x, const char *tmp, int slot,
                          sp_fmt_err *err) {
  int fd[2];
  if (pipe(fd) != 0)
    return write_all(x, tmp, err);
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return write_all(x, tmp, err);
  }
  if (pid == 0) {
    close(fd[0]);
    int rc = write_all(x, tmp, err);
    const sp_fmt_err *why = x->failed ? x->err : err;
    /* One line, under PIPE_BUF: one write. */
    if (rc != 0 && write(fd[1], why->msg, strlen(why->msg)) < 0)
      rc = 1;
    _exit(rc == 0 ? 0 : 1);
  }
  close(fd[1]);
  sp_fmt_tmp_child(slot, (long)pid); /* a signal kills it before removing */
  sp_fmt_err got = {""};
  size_t n = 0;
  ssize_t k;
  while (n < sizeof got.msg - 1 &&
         ((k = read(fd[0], got.msg + n, sizeof got.msg - 1 - n)) > 0 ||
          (k < 0 && errno == EINTR)))
    n += k > 0 ? (size_t)k : 0;
  got.msg[n] = 0;
  close(fd[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  sp_fmt_tmp_child(slot, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return 0;
  if (WIFSIGNALED(status))
    sp_fmt_err_set(err,
                   "%s: the OTF2 library died of signal %d (%s) while "
                   "writing the archive; nothing was written (a full disk?)",
                   x->dir, WTERMSIG(status), strsignal(WTERMSIG(status)));
  else
    *err = n ? got : (sp_fmt_err){"OTF2 archive: failed"};
  return -1;
}

/* 1 if dir is a directory holding nothing. */
static int empty_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      n++;
  closedir(d);
  return n == 0;
}

int rp_export_otf2(const rp_profile *p, const rp_opts *o, const char *dir,
                   sp_fmt_err *err) {
  /* The archive's directory, named without trailing slashes (its
   * temporary sits beside it). An existing one is taken only when empty:
   * an earlier archive is never overwritten nor mixed into. */
  char path[4096], tmp[4200];
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/')
    n--;
  if (n >= sizeof path) {
    sp_fmt_err_set(err, "%s: name too long", dir);
    return -1;
  }
  memcpy(path, dir, n);
  path[n] = 0;
  struct stat st;
  if (lstat(path, &st) == 0 && !(S_ISDIR(st.st_mode) && empty_dir(path))) {
    sp_fmt_err_set(err,
                   "%s: exists%s (an OTF2 archive is written into a new "
                   "or empty directory)",
                   dir, S_ISDIR(st.st_mode) ? " and is not empty" : "");
    return -1;
  }
  if (p->span_lo < 0 && p->span_lo <= p->span_hi) {
    sp_fmt_err_set(err, "%s: stamps below 0 (%lld): OTF2's stamps are unsigned",
                   p->label, (long long)p->span_lo);
    return -1;
  }
  /* mkdir never follows a link; a name that exists (planted, or left by
   * another process) is passed over for the next. */
  for (int i = 0;; i++) {
    if (sp_fmt_tmp_name(path, tmp, sizeof tmp) != 0) {
      sp_fmt_err_set(err, "%s: name too long", dir);
      return -1;
    }
    if (mkdir(tmp, 0777) == 0)
      break;
    if (errno != EEXIST || i + 1 == SP_FMT_TMP_TRIES) {
      sp_fmt_err_set(err, "%s: %s", dir, strerror(errno));
      return -1;
    }
  }
  /* Held once it is ours: a signal removes what is in it. */
  int slot = sp_fmt_tmp_hold(tmp, 1);
  otf2x x;
  memset(&x, 0, sizeof x);
  x.p = p;
  x.o = o;
  x.cur = -1;
  x.dir = dir;
  sp_fmt_err mine = {""};
  x.err = &mine;
  x.lo = INT64_MIN;
  x.hi = INT64_MAX;
  if (o->win_lo >= 0) {
    /* Calls that overlap the window, whole, on their own stamps. */
    double lo = (double)p->span_lo + o->win_lo * 1e9,
           hi = (double)p->span_lo + o->win_hi * 1e9;
    x.lo = lo < 9.2e18 ? (int64_t)lo : INT64_MAX;
    x.hi = hi < 9.2e18 ? (int64_t)hi : INT64_MAX;
    if (x.lo > p->span_hi) {
      sp_fmt_err_set(err, "%s: the window holds no time of the run", p->label);
      rmdir(tmp);
      sp_fmt_tmp_forget(tmp);
      return -1;
    }
  }
  size_t nt = p->nthreads ? (size_t)p->nthreads : 1;
  size_t nn = p->nnames ? (size_t)p->nnames : 1;
  x.nev = calloc(nt, sizeof *x.nev);
  x.opened = calloc(nt, 1);
  x.region = malloc(nn * sizeof *x.region);
  x.byref = malloc(nn * sizeof *x.byref);
  int rc = -1;
  if (!x.nev || !x.opened || !x.region || !x.byref) {
    oom(&x);
  } else if (rp_mpi_events(p, &x.mpi, err) == 0) {
    memset(x.region, 0xff, nn * sizeof *x.region);
    rc = write_isolated(&x, tmp, slot, err);
  }
  if (x.failed)
    *err = mine;
  if (rc == 0)
    sp_fmt_tmp_test_raise();
  if (rc == 0 && rename(tmp, path) != 0) {
    sp_fmt_err_set(err, "%s: %s", dir, strerror(errno));
    rc = -1;
  }
  if (rc != 0)
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  sp_fmt_tmp_forget(tmp);
  for (uint32_t i = 0; i < x.nstrs; i++)
    free(x.strs[i]);
  free(x.strs);
  sp__hash_free(&x.ix);
  free(x.nev);
  free(x.opened);
  free(x.region);
  free(x.byref);
  rp_mpi_events_free(&x.mpi);
  return rc;
}
