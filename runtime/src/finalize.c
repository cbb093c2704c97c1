/* finalize.c - sp_finalize: stops recording, closes what is still open,
 * names address regions, and streams every (thread, region) block into
 * the rank's .spt or .h5 through the format library. */
#include "internal.h"
#include "sp_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One output block: the calls of one final region on one thread, either
 * straight from the recording chunks or, when several region ids ended up
 * with one name (two static functions called alike), merged into arrays. */
typedef struct block {
  int32_t thread; /* compacted thread number */
  int32_t region; /* final region index */
  int64_t count;
  int64_t first_start;
  const sp__buf_t *buf;   /* chunk source, or NULL */
  int64_t *starts, *ends; /* merged source (ns), or NULL */
  /* read cursor over the chunk list */
  const sp__chunk_t *cur_chunk;
  int64_t cur_first, cur_pos;
} block_t;

typedef struct final_region {
  char *name;
  const char *file;
  int line;
} final_region_t;

static uint64_t fin_now;

static uint64_t chunk_used(const sp__buf_t *b, const sp__chunk_t *c) {
  return c == b->tail ? (uint64_t)(b->cur - c->data) : c->cap;
}

static int64_t buf_count(const sp__buf_t *b) {
  int64_t n = 0;
  for (const sp__chunk_t *c = b->head; c; c = c->next)
    n += (int64_t)chunk_used(b, c);
  return n;
}

static void pair_ns(const sp__pair_t *p, int64_t *s, int64_t *e) {
  *s = sp__clock_ns(p->start);
  /* end 0: a call another thread was still inside when finalize ran. */
  *e = sp__clock_ns(p->end ? p->end : fin_now);
  if (*e < *s)
    *e = *s;
}

static void block_read(const sp_fmt_source *src, int64_t first, int64_t n,
                       int64_t *starts, int64_t *ends) {
  block_t *b = (block_t *)src->ctx;
  if (b->starts) {
    memcpy(starts, b->starts + first, (size_t)n * sizeof(int64_t));
    memcpy(ends, b->ends + first, (size_t)n * sizeof(int64_t));
    return;
  }
  if (!b->cur_chunk || first != b->cur_first) { /* restart from the head */
    b->cur_chunk = b->buf->head;
    b->cur_pos = 0;
    b->cur_first = 0;
    while (b->cur_first < first) {
      int64_t left = (int64_t)chunk_used(b->buf, b->cur_chunk) - b->cur_pos;
      int64_t skip = first - b->cur_first < left ? first - b->cur_first : left;
      b->cur_pos += skip;
      b->cur_first += skip;
      if (b->cur_pos == (int64_t)chunk_used(b->buf, b->cur_chunk)) {
        b->cur_chunk = b->cur_chunk->next;
        b->cur_pos = 0;
      }
    }
  }
  for (int64_t i = 0; i < n;) {
    const sp__chunk_t *c = b->cur_chunk;
    int64_t used = (int64_t)chunk_used(b->buf, c);
    int64_t take = used - b->cur_pos < n - i ? used - b->cur_pos : n - i;
    for (int64_t k = 0; k < take; k++)
      pair_ns(&c->data[b->cur_pos + k], &starts[i + k], &ends[i + k]);
    i += take;
    b->cur_pos += take;
    b->cur_first += take;
    if (b->cur_pos == used) {
      b->cur_chunk = c->next;
      b->cur_pos = 0;
    }
  }
}

static int cmp_name(const void *a, const void *b) {
  const final_region_t *const *x = a, *const *y = b;
  int c = strcmp((*x)->name, (*y)->name);
  return c ? c : (*x < *y ? -1 : *x > *y);
}

static int cmp_block(const void *a, const void *b) {
  const block_t *x = a, *y = b;
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  if (x->first_start != y->first_start)
    return x->first_start < y->first_start ? -1 : 1;
  return x->region < y->region ? -1 : x->region > y->region;
}

static int cmp_thread(const void *a, const void *b) {
  const sp__thread_t *const *x = a, *const *y = b;
  return (*x)->index < (*y)->index ? -1 : (*x)->index > (*y)->index;
}

typedef struct pairs {
  int64_t s, e;
} pairs_t;

static int cmp_pairs(const void *a, const void *b) {
  const pairs_t *x = a, *y = b;
  if (x->s != y->s)
    return x->s < y->s ? -1 : 1;
  return x->e > y->e ? -1 : x->e < y->e;
}

/* Folds block src into dst (same thread, same final name). */
static int merge_into(block_t *dst, const sp__buf_t *src) {
  int64_t n1 = dst->count, n2 = buf_count(src), n = n1 + n2;
  pairs_t *p = malloc((size_t)(n ? n : 1) * sizeof *p);
  int64_t *s = malloc((size_t)(n ? n : 1) * sizeof *s);
  int64_t *e = malloc((size_t)(n ? n : 1) * sizeof *e);
  if (!p || !s || !e) {
    free(p), free(s), free(e);
    return -1;
  }
  sp_fmt_source tmp = {.count = n1, .ctx = dst, .read = block_read};
  block_read(&tmp, 0, n1, s, e);
  block_t other = {.buf = src, .count = n2};
  tmp.ctx = &other;
  block_read(&tmp, 0, n2, s + n1, e + n1);
  for (int64_t i = 0; i < n; i++)
    p[i] = (pairs_t){s[i], e[i]};
  qsort(p, (size_t)n, sizeof *p, cmp_pairs);
  for (int64_t i = 0; i < n; i++)
    s[i] = p[i].s, e[i] = p[i].e;
  free(p);
  free(dst->starts);
  free(dst->ends);
  dst->starts = s;
  dst->ends = e;
  dst->count = n;
  dst->first_start = n ? s[0] : 0;
  dst->buf = NULL;
  return 0;
}

static int write_h5(const char *path, int rank, sp_fmt_source *src, int64_t n,
                    sp_fmt_err *err) {
  sp_fmt_meta meta = {0};
  sp__metadata_collect(&meta);
  int rc = sp__write_h5(path, rank, src, n, &meta, err);
  sp_fmt_meta_free(&meta);
  return rc;
}

static int write_output(void) {
  int32_t nreg = atomic_load(&sp__nregions);
  final_region_t *fr = calloc((size_t)(nreg ? nreg : 1), sizeof *fr);
  final_region_t **order = calloc((size_t)(nreg ? nreg : 1), sizeof *order);
  int32_t *final_of = calloc((size_t)(nreg ? nreg : 1), sizeof *final_of);
  int rc = SP_ENOMEM;
  block_t *blocks = NULL;
  sp_fmt_source *src = NULL;
  int64_t nblocks = 0, cap = 0;
  sp__thread_t **threads = NULL;
  if (!fr || !order || !final_of)
    goto out;

  /* Final names: address regions are named now, and ids sharing a name
   * become one region whose location is the first one registered. */
  for (int32_t id = 0; id < nreg; id++) {
    sp__region_t *r = sp__region_get(id);
    fr[id].name = r->name ? strdup(r->name) : sp__symbol_name(r->addr);
    fr[id].file = r->file;
    fr[id].line = r->line;
    if (!fr[id].name)
      goto out;
    order[id] = &fr[id];
  }
  qsort(order, (size_t)nreg, sizeof *order, cmp_name);
  int32_t nfinal = 0;
  final_region_t *canon = NULL;
  for (int32_t i = 0; i < nreg; i++) {
    if (!canon || strcmp(canon->name, order[i]->name) != 0) {
      canon = order[i];
      nfinal++;
    } else if (!canon->file && order[i]->file) {
      canon->file = order[i]->file;
      canon->line = order[i]->line;
    }
    final_of[order[i] - fr] = (int32_t)(canon - fr);
  }

  /* Blocks, threads numbered by first recording among those with calls. */
  int nth = 0;
  for (sp__thread_t *t = atomic_load(&sp__threads); t; t = t->next)
    nth++;
  threads = calloc((size_t)(nth ? nth : 1), sizeof *threads);
  if (!threads)
    goto out;
  nth = 0;
  for (sp__thread_t *t = atomic_load(&sp__threads); t; t = t->next)
    threads[nth++] = t;
  qsort(threads, (size_t)nth, sizeof *threads, cmp_thread);
  int32_t out_thread = 0;
  for (int i = 0; i < nth; i++) {
    sp__thread_t *t = threads[i];
    int64_t before = nblocks;
    for (int32_t id = 0; id < nreg; id++) {
      sp__buf_t *b = sp__buf_peek(t, id);
      int64_t count = b && b->head ? buf_count(b) : 0;
      if (count == 0)
        continue;
      int32_t f = final_of[id];
      block_t *dup = NULL;
      if (f != id)
        for (int64_t k = before; k < nblocks; k++)
          if (blocks[k].region == f)
            dup = &blocks[k];
      if (dup) {
        if (merge_into(dup, b) != 0)
          goto out;
        continue;
      }
      if (nblocks == cap) {
        cap = cap ? cap * 2 : 256;
        block_t *g = realloc(blocks, (size_t)cap * sizeof *g);
        if (!g)
          goto out;
        blocks = g;
      }
      block_t *nb = &blocks[nblocks++];
      memset(nb, 0, sizeof *nb);
      nb->thread = out_thread;
      nb->region = f;
      nb->buf = b;
      nb->count = count;
      nb->first_start = sp__clock_ns(b->head->data[0].start);
    }
    if (nblocks > before)
      out_thread++;
  }
  qsort(blocks, (size_t)nblocks, sizeof *blocks, cmp_block);
  src = calloc((size_t)(nblocks ? nblocks : 1), sizeof *src);
  if (!src)
    goto out;
  for (int64_t i = 0; i < nblocks; i++) {
    final_region_t *r = &fr[blocks[i].region];
    src[i] = (sp_fmt_source){.thread = blocks[i].thread,
                             .name = r->name,
                             .file = r->file,
                             .line = r->file ? r->line : -1,
                             .count = blocks[i].count,
                             .read = block_read,
                             .ctx = &blocks[i]};
  }

  int rank = sp__rank_from_env(), mrank = -1, msize = -1;
  if (rank < 0 && sp__mpi_rank(&mrank, &msize) == 0) {
    rank = mrank;
    sp__mpi_size = msize;
  }
  if (rank < 0)
    rank = 0;
  char path[PATH_MAX + 32];
  if (sp__output_path(sp__cfg.prefix, rank, sp__cfg.format_h5 ? ".h5" : ".spt",
                      path, sizeof path) != 0) {
    sp__warn("error: output name from prefix '%s' is too long", sp__cfg.prefix);
    rc = SP_EIO;
    goto out;
  }
  sp_fmt_err err = {{0}};
  int wrc = sp__cfg.format_h5
                ? write_h5(path, rank, src, nblocks, &err)
                : sp_fmt_spt_write(path, rank, out_thread > 1 ? 3 : 2, src,
                                   nblocks, 0, &err);
  if (wrc != 0) {
    sp__warn("error: %s", err.msg[0] ? err.msg : path);
    rc = SP_EIO;
  } else {
    sp__debug("wrote %s (%lld blocks, %d threads, %d regions)", path,
              (long long)nblocks, out_thread, nfinal);
    rc = SP_OK;
  }
out:
  if (rc == SP_ENOMEM)
    sp__warn("error: out of memory while writing the profile");
  for (int64_t i = 0; i < nblocks; i++)
    free(blocks[i].starts), free(blocks[i].ends);
  free(blocks);
  free(src);
  free(threads);
  if (fr)
    for (int32_t id = 0; id < nreg; id++)
      free(fr[id].name);
  free(fr);
  free(order);
  free(final_of);
  return rc;
}

/* at_exit: 1 when the exit handler runs it, 0 for the program's own call. */
int sp__finalize(int at_exit) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  static int result;
  pthread_mutex_lock(&lock);
  int st = atomic_load(&sp__state);
  if (st == SP__UNINIT) {
    sp__ensure_init();
    st = atomic_load(&sp__state);
  }
  if (st != SP__RUNNING) { /* done before, disabled, or a forked child */
    pthread_mutex_unlock(&lock);
    return st == SP__FINALIZED ? result : SP_OK;
  }
  sp__set_active(0);
  atomic_store(&sp__state, SP__FINALIZED);
  fin_now = sp__now();
  sp__clock_end();

  uint64_t open = 0, mism = 0, above = 0, unmatched = 0, dropped = 0,
           invalid = 0;
  for (sp__thread_t *t = atomic_load(&sp__threads); t; t = t->next) {
    while (t->depth > 0) { /* still open: they end now */
      sp__frame_t *f = &t->stack[--t->depth];
      if (f->slot) {
        f->slot->end = fin_now;
        open++;
      }
    }
    mism += t->n_mismatch, above += t->n_closed_above;
    unmatched += t->n_unmatched, dropped += t->n_dropped;
    invalid += t->n_invalid;
  }
  result = write_output();
  /* An explicit sp_finalize() from inside instrumented functions (main)
   * finds their calls open: expected, so said only when verbose. */
  if (open && at_exit)
    sp__warn("%llu region(s) still open at finalize (closed at finalize time)",
             (unsigned long long)open);
  else if (open)
    sp__debug("%llu region(s) still open at sp_finalize() (closed then)",
              (unsigned long long)open);
  if (mism)
    sp__warn("%llu sp_end call(s) did not match the innermost open region "
             "(%llu region(s) opened above them were closed with them)",
             (unsigned long long)mism, (unsigned long long)above);
  if (unmatched)
    sp__warn("%llu sp_end call(s) with no matching open region were ignored",
             (unsigned long long)unmatched);
  if (dropped)
    sp__warn("%llu call(s) not recorded (out of memory or nesting deeper "
             "than %u)",
             (unsigned long long)dropped, SP__STACK_MAX);
  if (invalid)
    sp__warn("%llu call(s) with an invalid region id were ignored",
             (unsigned long long)invalid);
  pthread_mutex_unlock(&lock);
  return result;
}

SP_API int sp_finalize(void) { return sp__finalize(0); }
