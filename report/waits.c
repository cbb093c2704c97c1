/* waits.c - wait states for --mpi: late sender, the time a receive (or the
 * wait or test that completed it) spent before its message's send began;
 * late receiver, the time a blocking send that ended only after its
 * receive was posted spent before that; sends and receives paired as MPI
 * matches them (per sender, receiver, tag and communicator, in the order
 * they were sent and posted); and the time
 * a blocking collective spent before its last rank arrived, the k-th
 * collective on a communicator being the same one on each of its ranks. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

typedef struct snd {
  int32_t src, dst, tag;
  uint64_t key; /* the communicator, by its members */
  int64_t at;   /* the send's start */
  int32_t rix;  /* the call that waited for it: rank index, thread, name id
                   and start (a blocking send itself, or the wait or test
                   that completed an MPI_Isend); rix -1: none (not
                   recorded, or a call that receives too) */
  int32_t thread, name;
  int64_t wait;
} snd;

typedef struct rcv {
  int32_t src, dst, tag;
  uint64_t key;
  int64_t at;   /* posted: the receive's start, or its MPI_Irecv's */
  int64_t wait; /* the start of the call that waited for it */
  int32_t rix;  /* rank index in p->ranks */
  int32_t thread;
  int32_t name; /* that call's name id */
} rcv;

/* One waiting call's share: a call that completed several messages
 * (MPI_Waitall) waited for the latest of them, once. */
typedef struct wt {
  int32_t rix, thread, name;
  int64_t wait, late;
} wt;

static int by_wt(const void *a, const void *b) {
  const wt *x = a, *y = b;
  if (x->rix != y->rix)
    return x->rix < y->rix ? -1 : 1;
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  if (x->name != y->name)
    return x->name < y->name ? -1 : 1;
  return (x->wait > y->wait) - (x->wait < y->wait);
}

static int by_snd(const void *a, const void *b) {
  const snd *x = a, *y = b;
  if (x->src != y->src)
    return x->src < y->src ? -1 : 1;
  if (x->dst != y->dst)
    return x->dst < y->dst ? -1 : 1;
  if (x->tag != y->tag)
    return x->tag < y->tag ? -1 : 1;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return (x->at > y->at) - (x->at < y->at);
}

static int by_rcv(const void *a, const void *b) {
  const rcv *x = a, *y = b;
  snd p = {x->src, x->dst, x->tag, x->key, x->at, -1, 0, 0, 0},
      q = {y->src, y->dst, y->tag, y->key, y->at, -1, 0, 0, 0};
  return by_snd(&p, &q);
}

/* A communicator's key: its members in order (a hash), the same on every
 * rank that belongs to it; none known: one of this rank's own. */
static uint64_t comm_key(const sp_fmt_mpi *m, int32_t rank, int32_t id) {
  for (int64_t i = 0; i < m->ncomms; i++)
    if (m->comms[i].id == id) {
      uint64_t h = 1469598103934665603ull ^ (uint64_t)m->comms[i].size;
      for (int32_t k = 0; k < m->comms[i].size; k++)
        h = (h ^ (uint32_t)m->comms[i].members[k]) * 1099511628211ull;
      return h;
    }
  return ((uint64_t)(uint32_t)rank << 32 | (uint32_t)id) *
         0x9E3779B97F4A7C15ull;
}

/* The end of the call of name id on rank p->ranks[rix], thread t, that
 * started at start; -1 when the calls were not read. */
static int64_t call_end(const rp_profile *p, int32_t rix, int32_t t,
                        int32_t name, int64_t start) {
  for (int64_t i = 0; i < p->nthreads; i++) {
    const rp_thread *th = &p->threads[i];
    if (th->rank != p->ranks[rix] || th->thread != t)
      continue;
    for (int64_t j = 0; j < th->nsrc; j++) {
      if (th->name[j] != name)
        continue;
      const sp_fmt_block *b = th->blk[j];
      int64_t lo = 0, hi = b->count;
      while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (b->starts[mid] < start)
          lo = mid + 1;
        else
          hi = mid;
      }
      if (lo < b->count && b->starts[lo] == start)
        return b->ends[lo];
    }
  }
  return -1;
}

/* A blocking send whose call also receives (MPI_Sendrecv: the layer puts
 * its receive right after its send) waits for both at once: its wait is
 * the receive's, counted as late sender. */
static int sends_only(const sp_fmt_mpi *m, int64_t i) {
  const sp_fmt_mpimsg *g = &m->msgs[i], *h = i + 1 < m->nmsgs ? g + 1 : NULL;
  return !(h && h->kind == 3 && h->start_ns == g->start_ns &&
           h->thread == g->thread && h->region == g->region);
}

/* A send's completion (SP_MPI_K_WAITSEND) by the MPI_Isend it completed:
 * thread, that call's start and region. */
typedef struct done {
  int32_t thread, origin_region, region;
  int64_t origin, start;
} done;

static int by_done(const void *a, const void *b) {
  const done *x = a, *y = b;
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  if (x->origin != y->origin)
    return x->origin < y->origin ? -1 : 1;
  return (x->origin_region > y->origin_region) -
         (x->origin_region < y->origin_region);
}

/* One entry per waiting call, the most it waited (sorted by by_wt). */
static int64_t per_call(wt *w, int64_t n) {
  qsort(w, (size_t)n, sizeof *w, by_wt);
  int64_t out = 0;
  for (int64_t k = 0; k < n;) {
    int64_t most = 0, e = k;
    for (; e < n && by_wt(&w[e], &w[k]) == 0; e++)
      most = w[e].late > most ? w[e].late : most;
    w[out] = w[k];
    w[out++].late = most;
    k = e;
  }
  return out;
}

/* This rank's sends into s (from *ns on): a blocking send waits in itself,
 * an MPI_Isend in the call that completed it. */
static int rank_sends(const rp_profile *p, const sp_fmt_mpi *m, int32_t me,
                      int64_t rix, snd *s, int64_t *ns) {
  int64_t nd = 0;
  for (int64_t i = 0; i < m->nmsgs; i++)
    nd += m->msgs[i].kind == 7;
  done *d = malloc((size_t)nd * sizeof *d + 1);
  if (!d)
    return -1;
  nd = 0;
  for (int64_t i = 0; i < m->nmsgs; i++) {
    const sp_fmt_mpimsg *g = &m->msgs[i];
    if (g->kind == 7 && g->origin_ns >= 0 && g->region >= 0)
      d[nd++] = (done){g->thread, g->origin_region, g->region, g->origin_ns,
                       g->start_ns};
  }
  qsort(d, (size_t)nd, sizeof *d, by_done);
  for (int64_t i = 0; i < m->nmsgs; i++) {
    const sp_fmt_mpimsg *g = &m->msgs[i];
    if (g->peer < 0 || (g->kind != 1 && g->kind != 2))
      continue;
    int32_t name = -1, region = g->region;
    int64_t wait = g->start_ns;
    if (g->kind == 2) {
      done x = {g->thread, g->region, 0, g->start_ns, 0};
      const done *y = bsearch(&x, d, (size_t)nd, sizeof *d, by_done);
      region = y ? y->region : -1;
      wait = y ? y->start : 0;
    } else if (!sends_only(m, i)) {
      region = -1;
    }
    if (rix >= 0 && region >= 0)
      name = rp_name_find(p, m->names[region]);
    s[(*ns)++] = (snd){me,          g->peer,
                       g->tag,      comm_key(m, me, g->comm),
                       g->start_ns, name >= 0 ? (int32_t)rix : -1,
                       g->thread,   name,
                       wait};
  }
  free(d);
  return 0;
}

int rp_late_sender(const rp_profile *p, int64_t *late, int64_t *lrecv) {
  int64_t ns = 0, nr = 0;
  for (int64_t k = 0; k < p->nmpi; k++)
    for (int64_t i = 0; i < p->mpi[k].mpi.nmsgs; i++) {
      int32_t kind = p->mpi[k].mpi.msgs[i].kind;
      ns += kind == 1 || kind == 2;
      nr += kind == 3 || kind == 5;
    }
  snd *s = malloc((size_t)ns * sizeof *s + 1);
  rcv *r = malloc((size_t)nr * sizeof *r + 1);
  wt *w = malloc((size_t)nr * sizeof *w + 1);
  wt *v = malloc((size_t)ns * sizeof *v + 1);
  int rc = s && r && w && v ? 0 : -1;
  ns = nr = 0;
  for (int64_t k = 0; rc == 0 && k < p->nmpi; k++) {
    const sp_fmt_mpi *m = &p->mpi[k].mpi;
    int32_t me = p->mpi[k].rank;
    int64_t rix = rp_rank_index(p, me);
    rc = rank_sends(p, m, me, rix, s, &ns);
    for (int64_t i = 0; rc == 0 && i < m->nmsgs; i++) {
      const sp_fmt_mpimsg *g = &m->msgs[i];
      if (g->peer < 0 || rix < 0 || g->region < 0 ||
          !(g->kind == 3 || (g->kind == 5 && g->origin_ns >= 0)))
        continue;
      int32_t name = rp_name_find(p, m->names[g->region]);
      if (name < 0)
        continue;
      r[nr++] = (rcv){g->peer,
                      me,
                      g->tag,
                      comm_key(m, me, g->comm),
                      g->kind == 3 ? g->start_ns : g->origin_ns,
                      g->start_ns,
                      (int32_t)rix,
                      g->thread,
                      name};
    }
  }
  if (rc != 0) {
    free(s);
    free(r);
    free(w);
    free(v);
    return -1;
  }
  qsort(s, (size_t)ns, sizeof *s, by_snd);
  qsort(r, (size_t)nr, sizeof *r, by_rcv);
  /* the k-th receive of a (sender, receiver, tag, communicator) matches
   * its k-th send: MPI's messages do not overtake one another */
  int64_t nw = 0, nv = 0;
  int64_t i = 0, j = 0;
  while (i < ns && j < nr) {
    snd a = {r[j].src, r[j].dst, r[j].tag, r[j].key, 0, -1, 0, 0, 0};
    snd b = s[i];
    b.at = 0;
    int c = by_snd(&b, &a);
    if (c < 0) {
      i++;
      continue;
    }
    if (c > 0) {
      j++;
      continue;
    }
    const rcv *x = &r[j];
    if (s[i].at > x->wait) {
      int64_t end = call_end(p, x->rix, x->thread, x->name, x->wait);
      if (end >= x->wait)
        w[nw++] = (wt){x->rix, x->thread, x->name, x->wait,
                       (s[i].at < end ? s[i].at : end) - x->wait};
    }
    /* late receiver: the call that waited for the send ended after the
     * receive was posted, so the send could not complete before
     * (synchronous, or too big to buffer) */
    const snd *y = &s[i];
    if (y->rix >= 0 && x->at > y->wait) {
      int64_t end = call_end(p, y->rix, y->thread, y->name, y->wait);
      if (end > x->at)
        v[nv++] = (wt){y->rix, y->thread, y->name, y->wait, x->at - y->wait};
    }
    i++, j++;
  }
  /* A call that completed several messages waited for the latest of them,
   * once; one that waited for both a send and a receive (MPI_Waitall of
   * both) counts late sender first and late receiver beyond it: both run
   * from the call's start. */
  nw = per_call(w, nw);
  nv = per_call(v, nv);
  for (int64_t k = 0, e = 0; k < nv; k++) {
    while (e < nw && by_wt(&w[e], &v[k]) < 0)
      e++;
    if (e < nw && by_wt(&w[e], &v[k]) == 0)
      v[k].late = v[k].late > w[e].late ? v[k].late - w[e].late : 0;
  }
  for (int64_t k = 0; k < nw; k++)
    late[(size_t)w[k].name * (size_t)p->nranks + (size_t)w[k].rix] += w[k].late;
  for (int64_t k = 0; k < nv; k++)
    lrecv[(size_t)v[k].name * (size_t)p->nranks + (size_t)v[k].rix] +=
        v[k].late;
  free(w);
  free(v);
  free(s);
  free(r);
  return 0;
}

typedef struct col {
  uint64_t key; /* the communicator */
  int64_t seq;  /* its k-th blocking collective on this rank */
  int64_t at;   /* start */
  int32_t rix, thread, name;
} col;

static int by_col(const void *a, const void *b) {
  const col *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  if (x->seq != y->seq)
    return x->seq < y->seq ? -1 : 1;
  return (x->at > y->at) - (x->at < y->at);
}

/* A nonblocking collective (MPI_Ibarrier, MPI_Iallreduce, ...) starts the
 * operation; its wait is elsewhere: left out. So is a neighbourhood
 * collective (MPI_Neighbor_*), which waits for its neighbours only, not
 * for the communicator's last rank (the file does not say which they
 * are); every rank leaves it out alike, so the k-th of the others still
 * pairs. */
static int blocking_coll(const char *name) {
  return !(name[0] == 'M' && name[1] == 'P' && name[2] == 'I' &&
           name[3] == '_' && name[4] == 'I' && name[5] >= 'a' &&
           name[5] <= 'z') &&
         strncmp(name, "MPI_Neighbor_", 13) != 0;
}

int rp_coll_wait(const rp_profile *p, int64_t *wait) {
  int64_t n = 0;
  for (int64_t k = 0; k < p->nmpi; k++)
    for (int64_t i = 0; i < p->mpi[k].mpi.nmsgs; i++)
      n += p->mpi[k].mpi.msgs[i].kind == 6;
  col *c = malloc((size_t)n * sizeof *c + 1);
  if (!c)
    return -1;
  n = 0;
  for (int64_t k = 0; k < p->nmpi; k++) {
    const sp_fmt_mpi *m = &p->mpi[k].mpi;
    int32_t me = p->mpi[k].rank;
    int64_t rix = rp_rank_index(p, me), first = n;
    for (int64_t i = 0; rix >= 0 && i < m->nmsgs; i++) {
      const sp_fmt_mpimsg *g = &m->msgs[i];
      if (g->kind != 6 || g->region < 0 || !blocking_coll(m->names[g->region]))
        continue;
      int32_t name = rp_name_find(p, m->names[g->region]);
      if (name < 0)
        continue;
      c[n++] = (col){comm_key(m, me, g->comm),
                     0,
                     g->start_ns,
                     (int32_t)rix,
                     g->thread,
                     name};
    }
    /* numbered per communicator in start order (one thread calls a
     * communicator's collectives at a time) */
    qsort(c + first, (size_t)(n - first), sizeof *c, by_col);
    for (int64_t i = first; i < n; i++)
      c[i].seq = i > first && c[i - 1].key == c[i].key ? c[i - 1].seq + 1 : 0;
  }
  qsort(c, (size_t)n, sizeof *c, by_col);
  for (int64_t i = 0; i < n;) {
    int64_t e = i, last = c[i].at;
    for (; e < n && c[e].key == c[i].key && c[e].seq == c[i].seq; e++)
      last = c[e].at > last ? c[e].at : last;
    for (int64_t k = i; e - i > 1 && k < e; k++) {
      int64_t end = call_end(p, c[k].rix, c[k].thread, c[k].name, c[k].at);
      if (end < c[k].at)
        continue;
      wait[(size_t)c[k].name * (size_t)p->nranks + (size_t)c[k].rix] +=
          (last < end ? last : end) - c[k].at;
    }
    i = e;
  }
  free(c);
  return 0;
}
