/* mpi_events.c - the inputs' MPI messages as a trace export's events: per
 * thread, in call order, each message as what the call begins or ends with
 * (a send, a receive, a request, a collective), partners and roots as
 * ranks of their communicator, and the job's communicators. */
#include "report.h"

#include "sp_stream.h"

#include <stdlib.h>
#include <string.h>

/* The collectives a region's name stands for, by the name without its
 * "MPI_" / "MPI_I" (nonblocking) prefix; RP_COLL_* order. */
static const char *const coll_names[RP_NCOLL] = {
    "Barrier",   "Bcast",          "Gather",
    "Gatherv",   "Scatter",        "Scatterv",
    "Allgather", "Allgatherv",     "Alltoall",
    "Alltoallv", "Alltoallw",      "Allreduce",
    "Reduce",    "Reduce_scatter", "Reduce_scatter_block",
    "Scan",      "Exscan"};

int rp_coll_of(const char *name) {
  if (strncmp(name, "MPI_", 4) && strncmp(name, "PMPI_", 5))
    return -1;
  const char *s = strchr(name, '_') + 1;
  for (int pass = 0; pass < 2; pass++, s++) {
    for (int i = 0; i < RP_NCOLL; i++)
      if (!strcmp(s, coll_names[i]))
        return i;
    if (*s != 'I') /* MPI_Ibcast and the like: the same operation */
      break;
  }
  return -1;
}

/* The communicator with these members (world ranks, in order), added when
 * new: its index, or -1 when out of memory. */
static int64_t comm_of(rp_mpievents *e, const int32_t *m, int32_t n) {
  for (int64_t k = 0; k < e->ncomms; k++)
    if (e->comms[k].size == n &&
        !memcmp(e->comms[k].members, m, (size_t)n * sizeof *m))
      return k;
  rp_mpicomm *v = realloc(e->comms, (size_t)(e->ncomms + 1) * sizeof *v);
  if (!v)
    return -1;
  e->comms = v;
  int32_t *c = malloc((size_t)(n ? n : 1) * sizeof *c);
  if (!c)
    return -1;
  if (n)
    memcpy(c, m, (size_t)n * sizeof *c);
  e->comms[e->ncomms] = (rp_mpicomm){n, c};
  return e->ncomms++;
}

/* World rank w's rank in communicator k; UINT32_MAX when not a member. */
static uint32_t rank_in(const rp_mpievents *e, int64_t k, int32_t w) {
  const rp_mpicomm *c = &e->comms[k];
  if (k == 0)
    return w >= 0 && w < c->size ? (uint32_t)w : UINT32_MAX;
  for (int32_t i = 0; i < c->size; i++)
    if (c->members[i] == w)
      return (uint32_t)i;
  return UINT32_MAX;
}

static int by_call(const void *a, const void *b) {
  const rp_mpiev *x = a, *y = b;
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->name != y->name)
    return x->name < y->name ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The p->threads index of (rank, thread), or -1. */
static int64_t thread_of(const rp_profile *p, int32_t rank, int32_t thread) {
  for (int64_t i = 0; i < p->nthreads; i++)
    if (p->threads[i].rank == rank && p->threads[i].thread == thread)
      return i;
  return -1;
}

/* One message as its events (at most two: a collective's begin and end),
 * appended to e->ev (capacity already there). */
static void add(rp_mpievents *e, const sp_fmt_mpimsg *m, int64_t t,
                int32_t name, int32_t origin, int64_t comm) {
  rp_mpiev v;
  memset(&v, 0, sizeof v);
  v.thread = t;
  v.start = m->start_ns;
  v.name = name;
  v.comm = (uint32_t)comm;
  v.tag = m->tag < 0 ? 0 : (uint32_t)m->tag;
  v.sent = (uint64_t)(m->sent > 0 ? m->sent : 0);
  v.recvd = (uint64_t)(m->recvd > 0 ? m->recvd : 0);
  v.request = (uint64_t)m->start_ns;
  v.peer = m->peer >= 0 ? rank_in(e, comm, m->peer) : UINT32_MAX;
  v.coll = -1;
  switch (m->kind) {
  case SP_MPI_K_SEND:
  case SP_MPI_K_ISEND:
  case SP_MPI_K_RECV:
    if (v.peer == UINT32_MAX) { /* MPI_PROC_NULL, or not in its comm */
      e->skipped += m->peer >= 0;
      return;
    }
    v.kind = m->kind == SP_MPI_K_SEND    ? RP_MPIEV_SEND
             : m->kind == SP_MPI_K_ISEND ? RP_MPIEV_ISEND
                                         : RP_MPIEV_RECV;
    break;
  case SP_MPI_K_IRECV:
    v.kind = RP_MPIEV_IRECV_REQ;
    break;
  case SP_MPI_K_WAITRECV:
    if (v.peer == UINT32_MAX) {
      e->skipped += m->peer >= 0;
      return;
    }
    /* the request is named by the start of the call that posted it */
    v.kind = m->origin_ns >= 0 && origin >= 0 ? RP_MPIEV_IRECV : RP_MPIEV_RECV;
    v.request = (uint64_t)m->origin_ns;
    break;
  case SP_MPI_K_WAITSEND:
    if (m->origin_ns < 0 || origin < 0 || m->peer < 0)
      return;
    v.kind = RP_MPIEV_ISEND_DONE;
    v.request = (uint64_t)m->origin_ns;
    break;
  case SP_MPI_K_COLL:
    v.coll = rp_coll_of(e->names_of[name]);
    if (v.coll < 0)
      return;
    v.peer = m->root >= 0 ? rank_in(e, comm, m->root) : UINT32_MAX;
    v.kind = RP_MPIEV_COLL_BEGIN;
    v.seq = e->nev;
    e->ev[e->nev++] = v;
    v.kind = RP_MPIEV_COLL_END;
    break;
  default:
    return;
  }
  v.seq = e->nev;
  e->ev[e->nev++] = v;
}

int rp_mpi_events(const rp_profile *p, rp_mpievents *e, sp_fmt_err *err) {
  memset(e, 0, sizeof *e);
  e->names_of = (const char *const *)p->names;
  int64_t total = 0;
  for (int64_t r = 0; r < p->nmpi; r++)
    total += p->mpi[r].mpi.nmsgs;
  int64_t world = rp_mpi_size(p);
  for (int64_t i = 0; i < p->nranks; i++)
    world = p->ranks[i] + 1 > world ? p->ranks[i] + 1 : world;
  int32_t *ids = malloc((size_t)(world ? world : 1) * sizeof *ids);
  e->ev = malloc((size_t)(2 * total + 1) * sizeof *e->ev);
  e->off = calloc((size_t)p->nthreads + 1, sizeof *e->off);
  if (!ids || !e->ev || !e->off)
    goto oom;
  for (int64_t w = 0; w < world; w++)
    ids[w] = (int32_t)w;
  if (comm_of(e, ids, (int32_t)world) != 0) /* MPI_COMM_WORLD first */
    goto oom;
  for (int64_t r = 0; r < p->nmpi; r++) {
    const sp_fmt_mpi *m = &p->mpi[r].mpi;
    int32_t rank = p->mpi[r].rank;
    /* the rank's communicator ids as the job's, by their members */
    int64_t *cmap = malloc((size_t)(m->ncomms ? m->ncomms : 1) * sizeof *cmap);
    int32_t *nmap = malloc((size_t)(m->nnames ? m->nnames : 1) * sizeof *nmap);
    if (!cmap || !nmap) {
      free(cmap);
      free(nmap);
      goto oom;
    }
    int bad = 0;
    for (int64_t k = 0; k < m->ncomms; k++)
      if ((cmap[k] = comm_of(e, m->comms[k].members, m->comms[k].size)) < 0)
        bad = 1;
    for (int64_t k = 0; k < m->nnames; k++)
      nmap[k] = rp_name_find(p, m->names[k]);
    for (int64_t k = 0; !bad && k < m->nmsgs; k++) {
      const sp_fmt_mpimsg *g = &m->msgs[k];
      int64_t t = thread_of(p, rank, g->thread);
      int32_t name =
          g->region >= 0 && g->region < m->nnames ? nmap[g->region] : -1;
      int32_t origin = g->origin_region >= 0 && g->origin_region < m->nnames
                           ? nmap[g->origin_region]
                           : -1;
      int64_t c = 0; /* a communicator the rank did not list: the world */
      for (int64_t j = 0; j < m->ncomms; j++)
        if (m->comms[j].id == g->comm)
          c = cmap[j];
      if (t >= 0 && name >= 0)
        add(e, g, t, name, origin, c);
    }
    free(cmap);
    free(nmap);
    if (bad)
      goto oom;
  }
  free(ids);
  ids = NULL;
  qsort(e->ev, (size_t)e->nev, sizeof *e->ev, by_call);
  for (int64_t i = 0; i < e->nev; i++)
    e->off[e->ev[i].thread + 1]++;
  for (int64_t i = 0; i < p->nthreads; i++)
    e->off[i + 1] += e->off[i];
  return 0;
oom:
  free(ids);
  rp_mpi_events_free(e);
  sp_fmt_err_set(err, "%s: out of memory", p->label);
  return -1;
}

int64_t rp_mpi_events_of(const rp_mpievents *e, int64_t thread, int64_t start,
                         int32_t name, int64_t *end) {
  int64_t lo = e->off[thread], hi = e->off[thread + 1];
  while (lo < hi) { /* the first event at or after (start, name) */
    int64_t mid = lo + (hi - lo) / 2;
    const rp_mpiev *v = &e->ev[mid];
    if (v->start < start || (v->start == start && v->name < name))
      lo = mid + 1;
    else
      hi = mid;
  }
  int64_t i = lo;
  while (i < e->off[thread + 1] && e->ev[i].start == start &&
         e->ev[i].name == name)
    i++;
  *end = i;
  return lo;
}

void rp_mpi_events_free(rp_mpievents *e) {
  for (int64_t k = 0; k < e->ncomms; k++)
    free(e->comms[k].members);
  free(e->comms);
  free(e->ev);
  free(e->off);
  memset(e, 0, sizeof *e);
}
