/* h5_write.c - the schema-2 HDF5 writer (docs/format-hdf5.md), through
 * HDF5: events stream into chunked, growing datasets one whole chunk at a
 * time; the small per-row index is kept in memory and written at close.
 * Reserved events, written without HDF5, are h5_write_raw.c's. */
#include "sp_common.h"
#include "sp_h5.h"
#include "sp_h5w.h"
#include "sp_hash.h"
#include "sp_profile.h"
#include "sp_rank.h"
#include "sp_stats.h"
#include "sp_tmp.h"
#include "sp_util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Events are gathered in a batch of 1 Mi calls per column (8 MiB, the
 * writer's event memory) and written as whole 64 Ki-element (512 KiB)
 * chunks, which bypass HDF5's chunk cache. A profile smaller than one
 * chunk gets a single chunk of its exact size: a chunk is allocated whole
 * on disk, and per-rank files are often tiny. The chunks are compressed:
 * a reader's default chunk cache (1 MiB a dataset, in HDF5 and h5py) holds
 * one whole, so rows that share a chunk inflate it once (2 MiB chunks made
 * sp-import of such files 3-4 times slower, each row inflating again). */
#define EV_BATCH ((int64_t)1 << 20)
#define EV_CHUNK ((int64_t)1 << 16)
#define ROW_CHUNK 65536
/* zlib level of the events' chunks, after HDF5's shuffle filter: a tight
 * loop's 16 bytes a call become 0.6-0.9 (level 1; 4 and 6 save a third
 * more at 10-30% more time), the write then costs about 3 times as long
 * (bench_compact, SP_FORMAT=h5). */
#ifndef EV_DEFLATE
#define EV_DEFLATE 1
#endif
/* Rows with at least this many calls in memory skip the batch. */
#define EV_DIRECT ((int64_t)1 << 12)
#define META_MAX 60000
/* A list of more strings than this is a dataset of /metadata, not an
 * attribute: an attribute's 16-byte references must fit in 64 KiB. */
#define META_LIST_ATTR_MAX 2048
#define TRUNC_MARK "...[truncated]"

void sp__h5w_fail(sp_fmt_err *err, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sp_fmt_err_vat(err, path, -1, fmt, ap);
  va_end(ap);
}

/* A write the file driver could not make (a full disk) is the reason for
 * any failure after it; HDF5 itself never sees it (h5_vfd.c). */
int sp__h5w_sunk(sp_fmt_h5w *w, sp_fmt_err *err) {
  if (!w->sink.err)
    return 0;
  H5Eclear2(H5E_DEFAULT);
  sp__h5w_fail(err, w->path, "cannot write %s: %s", w->tmp,
               strerror(w->sink.err));
  return -1;
}

void sp__h5w_h5fail(sp_fmt_h5w *w, sp_fmt_err *err, const char *what) {
  char why[256];
  if (sp__h5w_sunk(w, err))
    return;
  sp__h5_reason(why, sizeof why);
  sp__h5w_fail(err, w->path, "cannot write HDF5 %s: %s", what, why);
}

/* deflate: a zlib level for HDF5's shuffle and deflate filters (built in:
 * stock h5py reads them), 0 for none. */
static hid_t make_ds(hid_t loc, const char *name, hid_t ftype, hsize_t n,
                     hsize_t chunk, int deflate) {
  hsize_t dims = n, maxd = H5S_UNLIMITED;
  hid_t sp = H5Screate_simple(1, &dims, &maxd);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hid_t ds = -1;
  /* No fill pass over fresh chunks; HDF5 refuses that for strings. */
  int fixed = H5Tis_variable_str(ftype) <= 0;
  if (deflate > 0 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0)
    deflate = 0;
  if (sp >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, 1, &chunk) >= 0 &&
      (!fixed || H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0) &&
      (deflate <= 0 || (H5Pset_shuffle(dcpl) >= 0 &&
                        H5Pset_deflate(dcpl, (unsigned)deflate) >= 0)))
    ds = H5Dcreate2(loc, name, ftype, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (sp >= 0)
    H5Sclose(sp);
  if (dcpl >= 0)
    H5Pclose(dcpl);
  return ds;
}

/* A whole dataset written at once from memory (n may be 0). */
static int write_ds(hid_t loc, const char *name, hid_t ftype, hid_t mtype,
                    int64_t n, const void *data) {
  hsize_t chunk = n < 1 ? 1 : (n > ROW_CHUNK ? ROW_CHUNK : (hsize_t)n);
  hid_t ds = make_ds(loc, name, ftype, (hsize_t)n, chunk, 0);
  if (ds < 0)
    return -1;
  herr_t rc = 0;
  if (n > 0)
    rc = H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  if (H5Dclose(ds) < 0)
    rc = -1;
  return rc < 0 ? -1 : 0;
}

static int32_t region_id_valid(sp_fmt_h5w *w, const char *name);

/* Region id of name, added in order of first appearance; -1 = no memory.
 * HDF5 strings here are UTF-8: a name with bytes that are not is stored
 * with them as \xNN. */
static int32_t region_id(sp_fmt_h5w *w, const char *name) {
  int oom;
  char *valid = sp_fmt_utf8_dup(name, &oom);
  if (oom)
    return -1;
  int32_t id = region_id_valid(w, valid ? valid : name);
  free(valid);
  return id;
}

static int32_t region_id_valid(sp_fmt_h5w *w, const char *name) {
  sp__hash_it it;
  int64_t i = sp__hash_first(&w->names, sp__fnv1a(SP__FNV_SEED, name), &it);
  for (; i >= 0; i = sp__hash_next(&w->names, &it))
    if (strcmp(w->regs[i].name, name) == 0)
      return (int32_t)i;
  if (w->nregs >= INT32_MAX - 1)
    return -1;
  if (w->nregs == w->capregs) {
    int64_t cap = w->capregs ? w->capregs * 2 : 64;
    sp__h5w_region *r = realloc(w->regs, (size_t)cap * sizeof *r);
    if (!r)
      return -1;
    w->regs = r;
    w->capregs = cap;
  }
  sp__h5w_region *r = &w->regs[w->nregs];
  r->name = strdup(name);
  if (!r->name)
    return -1;
  r->file = NULL;
  r->line = -1;
  r->last_rank = r->last_thread = INT32_MIN;
  if (sp__hash_add(&w->names, &it, w->nregs) != 0) {
    free(r->name);
    return -1;
  }
  return (int32_t)w->nregs++;
}

int32_t sp__h5w_region_id(sp_fmt_h5w *w, const char *name) {
  return region_id(w, name);
}

static void free_w(sp_fmt_h5w *w) {
  sp__h5w_mpi_free(w);
  for (int64_t i = 0; i < w->nregs; i++) {
    free(w->regs[i].name);
    free(w->regs[i].file);
  }
  free(w->regs);
  sp__hash_free(&w->names);
  free(w->rows);
  free(w->buf_s);
  free(w->buf_e);
  sp_fmt_meta_free(&w->meta);
  if (w->driver >= 0) /* after the file is closed: nothing uses it now */
    H5FDunregister(w->driver);
  free(w->path);
  if (w->tmp)
    sp_fmt_tmp_forget(w->tmp); /* renamed or removed by now */
  free(w->tmp);
  free(w);
}

static void close_handles(sp_fmt_h5w *w) {
  if (w->raw_fd >= 0)
    close(w->raw_fd);
  w->raw_fd = -1;
  if (w->ds_start >= 0)
    H5Dclose(w->ds_start);
  if (w->ds_end >= 0)
    H5Dclose(w->ds_end);
  if (w->file >= 0)
    H5Fclose(w->file);
  w->ds_start = w->ds_end = w->file = -1;
}

/* A writer's state for path, writing to tmp (NULL: a new temporary name
 * beside path); no file yet. */
static sp_fmt_h5w *new_w(const char *path, const char *tmp, sp_fmt_err *err) {
  sp__h5_quiet();
  sp_fmt_h5w *w = calloc(1, sizeof *w);
  char name[PATH_MAX + 64];
  if (!w) {
    sp__h5w_fail(err, path, "out of memory");
    return NULL;
  }
  w->file = w->ds_start = w->ds_end = -1;
  w->driver = -1;
  w->reserved = -1;
  w->raw_fd = -1;
  w->path = strdup(path);
  if (!w->path) {
    sp__h5w_fail(err, path, "out of memory");
    goto bad;
  }
  if (!tmp && sp_fmt_tmp_name(path, name, sizeof name) != 0) {
    sp__h5w_fail(err, path, "path too long");
    goto bad;
  }
  w->tmp = strdup(tmp ? tmp : name);
  if (!w->tmp) {
    sp__h5w_fail(err, path, "out of memory");
    goto bad;
  }
  return w;
bad:
  free_w(w);
  return NULL;
}

/* The file access list every writer uses: errors kept by the sink driver;
 * large datasets (sp-import's reserved events) start on a 256 KiB
 * boundary, so the calls written into them fill whole aligned pieces
 * (import/rows.c); the runtime's chunks are not moved. */
static hid_t writer_fapl(sp_fmt_h5w *w) {
  hid_t fapl = sp__h5_sink_fapl(&w->sink, &w->driver);
  if (fapl >= 0)
    H5Pset_alignment(fapl, (hsize_t)4 << 20, (hsize_t)SP__H5W_PIECE);
  return fapl;
}

sp_fmt_h5w *sp_fmt_h5w_open(const char *path, sp_fmt_err *err) {
  return sp_fmt_h5w_open_as(path, NULL, err);
}

sp_fmt_h5w *sp_fmt_h5w_open_as(const char *path, const char *tmp,
                               sp_fmt_err *err) {
  sp_fmt_h5w *w = new_w(path, tmp, err);
  if (!w)
    return NULL;
  hid_t fapl = writer_fapl(w);
  if (fapl < 0) {
    sp__h5w_h5fail(w, err, "file (driver)");
    goto bad;
  }
  /* Created exclusively, never truncated: opening with O_TRUNC would make
   * ext4 (auto_da_alloc) flush every block of the file on its last close,
   * a cost that grows with the file. Exclusively also means a link
   * planted at the name is never written through (the driver adds
   * O_NOFOLLOW); a name of our own choosing that exists is passed over. */
  for (int i = 0;; i++) {
    if (!tmp)
      sp_fmt_tmp_hold(w->tmp, 0);
    w->sink.open_err = 0;
    w->file = H5Fcreate(w->tmp, H5F_ACC_EXCL, H5P_DEFAULT, fapl);
    /* HDF5 first opens an existing file without creating it, and says
     * it exists without asking the driver again: lstat tells. */
    struct stat st;
    if (w->file >= 0 || tmp || lstat(w->tmp, &st) != 0 ||
        i + 1 == SP_FMT_TMP_TRIES)
      break;
    H5Eclear2(H5E_DEFAULT);
    sp_fmt_tmp_forget(w->tmp);
    char name[PATH_MAX + 64];
    char *next =
        sp_fmt_tmp_name(path, name, sizeof name) == 0 ? strdup(name) : NULL;
    if (!next)
      break;
    free(w->tmp);
    w->tmp = next;
  }
  H5Pclose(fapl);
  if (w->file < 0) {
    if (w->sink.open_err) { /* errno: clearer than HDF5's stack */
      H5Eclear2(H5E_DEFAULT);
      sp__h5w_fail(err, path, "cannot create %s: %s", w->tmp,
                   strerror(w->sink.open_err));
      goto bad;
    }
    sp__h5w_h5fail(w, err, "file");
    goto bad_unlink;
  }
  hid_t g =
      H5Gcreate2(w->file, "events", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) {
    sp__h5w_h5fail(w, err, "group events");
    goto bad_unlink;
  }
  H5Gclose(g); /* its datasets come with the first events (flush_events) */
  return w;
bad_unlink:
  close_handles(w);
  unlink(w->tmp);
bad:
  free_w(w);
  return NULL;
}

sp_fmt_h5w *sp_fmt_h5w_adopt(const char *path, const char *tmp, int64_t n,
                             sp_fmt_err *err) {
  sp_fmt_h5w *w = n >= 0 ? new_w(path, tmp, err) : NULL;
  if (!w) {
    if (n < 0)
      sp__h5w_fail(err, path, "negative number of events");
    unlink(tmp);
    return NULL;
  }
  hid_t fapl = writer_fapl(w);
  if (fapl < 0) {
    sp__h5w_h5fail(w, err, "file (driver)");
    goto bad;
  }
  w->file = H5Fopen(tmp, H5F_ACC_RDWR, fapl);
  H5Pclose(fapl);
  if (w->file < 0) {
    if (w->sink.open_err) {
      H5Eclear2(H5E_DEFAULT);
      sp__h5w_fail(err, path, "cannot open %s: %s", tmp,
                   strerror(w->sink.open_err));
    } else
      sp__h5w_h5fail(w, err, "file (reopen)");
    goto bad;
  }
  w->ds_start = H5Dopen2(w->file, "events/start_times", H5P_DEFAULT);
  w->ds_end = H5Dopen2(w->file, "events/end_times", H5P_DEFAULT);
  hid_t ds[2] = {w->ds_start, w->ds_end};
  for (int i = 0; i < 2; i++) {
    hsize_t dims = 0;
    hid_t sp = ds[i] >= 0 ? H5Dget_space(ds[i]) : -1;
    int ok = sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
             H5Sget_simple_extent_dims(sp, &dims, NULL) == 1 &&
             dims == (hsize_t)n;
    if (sp >= 0)
      H5Sclose(sp);
    if (!ok) {
      sp__h5w_fail(err, path,
                   "%s: events datasets missing or not of %lld "
                   "calls",
                   tmp, (long long)n);
      goto bad;
    }
  }
  w->reserved = n;
  return w;
bad:
  close_handles(w);
  H5Eclear2(H5E_DEFAULT);
  unlink(w->tmp);
  free_w(w);
  return NULL;
}

static int write_events(sp_fmt_h5w *w, const void *starts, const void *ends,
                        int64_t n, sp_fmt_err *err);

/* Writes the batch; creates the event datasets on the first call, sized
 * to the whole profile if this is also the last one (final) and small. */
static int flush_events(sp_fmt_h5w *w, int final, sp_fmt_err *err) {
  if (w->ds_start < 0) {
    hsize_t chunk = (final && w->fill < EV_CHUNK)
                        ? (hsize_t)(w->fill > 0 ? w->fill : 1)
                        : (hsize_t)EV_CHUNK;
    w->ds_start = make_ds(w->file, "events/start_times", H5T_STD_I64LE, 0,
                          chunk, EV_DEFLATE);
    w->ds_end = make_ds(w->file, "events/end_times", H5T_STD_I64LE, 0, chunk,
                        EV_DEFLATE);
    if (w->ds_start < 0 || w->ds_end < 0) {
      sp__h5w_h5fail(w, err, "events datasets");
      return -1;
    }
  }
  if (w->fill == 0)
    return 0;
  if (write_events(w, w->buf_s, w->buf_e, w->fill, err) < 0)
    return -1;
  w->fill = 0;
  return 0;
}

/* Appends n calls from starts[] and ends[] to the event datasets, which
 * exist; chunks wholly covered go from these arrays to the file. */
static int write_events(sp_fmt_h5w *w, const void *starts, const void *ends,
                        int64_t n, sp_fmt_err *err) {
  hsize_t start = (hsize_t)w->written, count = (hsize_t)n;
  hsize_t size = start + count;
  hid_t ds[2] = {w->ds_start, w->ds_end};
  const void *buf[2] = {starts, ends};
  for (int i = 0; i < 2; i++) {
    if (H5Dset_extent(ds[i], &size) < 0) {
      sp__h5w_h5fail(w, err, "events (extend)");
      return -1;
    }
    hid_t fs = H5Dget_space(ds[i]);
    hid_t ms = H5Screate_simple(1, &count, NULL);
    herr_t rc = -1;
    if (fs >= 0 && ms >= 0 &&
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) >=
            0)
      rc = H5Dwrite(ds[i], H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT, buf[i]);
    if (fs >= 0)
      H5Sclose(fs);
    if (ms >= 0)
      H5Sclose(ms);
    if (rc < 0) {
      sp__h5w_h5fail(w, err, "events");
      return -1;
    }
  }
  w->written += n;
  return sp__h5w_sunk(w, err); /* the disk is full: stop here, not at close */
}

int64_t sp_fmt_h5w_events(const sp_fmt_h5w *w) { return w->written + w->fill; }

int sp_fmt_h5w_row(sp_fmt_h5w *w, int32_t rank, const sp_fmt_source *src,
                   const sp_fmt_stats *stats, sp_fmt_err *err) {
  if (w->reserved >= 0 && !stats) {
    sp__h5w_fail(err, w->path, "row of region %s without statistics",
                 src->name);
    return -1;
  }
  if (src->count < 0 || rank < 0 || src->thread < 0) {
    sp__h5w_fail(err, w->path,
                 "negative rank, thread or call count for region %s",
                 src->name);
    return -1;
  }
  if (w->nrows > 0) {
    const sp__h5w_row *p = &w->rows[w->nrows - 1];
    if (rank < p->rank || (rank == p->rank && src->thread < p->thread)) {
      sp__h5w_fail(
          err, w->path,
          "row rank %d thread %d after rank %d thread %d (rows must be "
          "ordered by rank, thread)",
          rank, src->thread, p->rank, p->thread);
      return -1;
    }
  }
  int32_t id = region_id(w, src->name);
  if (id < 0) {
    sp__h5w_fail(err, w->path, "out of memory");
    return -1;
  }
  sp__h5w_region *reg = &w->regs[id];
  if (reg->last_rank == rank && reg->last_thread == src->thread) {
    sp__h5w_fail(err, w->path, "two rows for rank %d thread %d region %s", rank,
                 src->thread, src->name);
    return -1;
  }
  reg->last_rank = rank;
  reg->last_thread = src->thread;
  /* A region is its name: the first known location serves every row. */
  if (!reg->file && src->file && src->file[0]) {
    reg->file = strdup(src->file);
    reg->line = src->line;
  } else if (!reg->file && reg->line < 0 && src->line >= 0) {
    reg->line = src->line;
  }
  if (w->nrows == w->caprows) {
    int64_t cap = w->caprows ? w->caprows * 2 : 256;
    sp__h5w_row *r = realloc(w->rows, (size_t)cap * sizeof *r);
    if (!r) {
      sp__h5w_fail(err, w->path, "out of memory");
      return -1;
    }
    w->rows = r;
    w->caprows = cap;
  }
  sp__h5w_row *row = &w->rows[w->nrows];
  row->region = id;
  row->rank = rank;
  row->thread = src->thread;
  row->offset = w->written + w->fill;
  row->count = src->count;

  if (w->reserved >= 0) { /* the caller puts the calls */
    if (src->count > w->reserved - w->written) {
      sp__h5w_fail(err, w->path, "rows hold more calls than the %lld reserved",
                   (long long)w->reserved);
      return -1;
    }
    row->st = *stats;
    w->written += src->count;
    w->nrows++;
    return 0;
  }
  if (stats) {
    row->st = *stats;
  } else if (sp_fmt_stats_source(src, &row->st) != 0) {
    sp__h5w_fail(err, w->path, "out of memory");
    return -1;
  }
  const int64_t *as, *ae;
  if (src->count >= EV_DIRECT && row->offset + src->count >= EV_CHUNK &&
      sp_fmt_source_arrays(src, &as, &ae)) {
    /* Calls in memory: from the caller's arrays to the file, after what is
     * already batched. Only once the events fill a chunk, so a profile
     * smaller than that still gets its one exact-size chunk. */
    if (flush_events(w, 0, err) < 0 ||
        write_events(w, as, ae, src->count, err) < 0)
      return -1;
  }
  for (int64_t done = w->written + w->fill - row->offset; done < src->count;) {
    if (!w->buf_s && (!(w->buf_s = malloc((size_t)EV_BATCH * 8)) ||
                      !(w->buf_e = malloc((size_t)EV_BATCH * 8)))) {
      sp__h5w_fail(err, w->path, "out of memory");
      return -1;
    }
    int64_t n = src->count - done;
    if (n > EV_BATCH - w->fill)
      n = EV_BATCH - w->fill;
    int64_t *s = w->buf_s + w->fill, *e = w->buf_e + w->fill;
    src->read(src, done, n, s, e);
    w->fill += n;
    done += n;
    if (w->fill == EV_BATCH && flush_events(w, 0, err) < 0)
      return -1;
  }
  w->nrows++;
  return 0;
}

int sp_fmt_h5w_meta(sp_fmt_h5w *w, const sp_fmt_meta *meta, sp_fmt_err *err) {
  sp_fmt_meta_free(&w->meta);
  if (sp_fmt_meta_copy(&w->meta, meta) != 0) {
    sp__h5w_fail(err, w->path, "out of memory");
    return -1;
  }
  return 0;
}

/* HDF5 attributes are limited to 64 KiB; long values keep their first
 * META_MAX bytes (cut on a UTF-8 boundary) and say they were cut. */
static const char *clip(const char *s, char **owned) {
  size_t n = strlen(s);
  *owned = NULL;
  if (n <= META_MAX)
    return s;
  n = META_MAX;
  while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
    n--;
  char *c = malloc(n + sizeof TRUNC_MARK);
  if (!c)
    return NULL;
  memcpy(c, s, n);
  memcpy(c + n, TRUNC_MARK, sizeof TRUNC_MARK);
  *owned = c;
  return c;
}

static int write_attr(hid_t loc, const char *key, hid_t ftype, hid_t mtype,
                      int rank1, hsize_t n, const void *data) {
  if (H5Aexists(loc, key) > 0 && H5Adelete(loc, key) < 0)
    return -1;
  hid_t sp = rank1 ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_SCALAR);
  if (sp < 0)
    return -1;
  hid_t a = H5Acreate2(loc, key, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
  herr_t rc = -1;
  if (a >= 0) {
    rc = (rank1 && n == 0) ? 0 : H5Awrite(a, mtype, data);
    if (H5Aclose(a) < 0)
      rc = -1;
  }
  H5Sclose(sp);
  return rc < 0 ? -1 : 0;
}

/* A long string list (per-rank metadata of a large job) as a 1-D dataset
 * of the metadata group. */
static int write_list_dataset(hid_t loc, const char *key, hid_t str, hsize_t n,
                              const void *data) {
  if (H5Lexists(loc, key, H5P_DEFAULT) > 0 &&
      H5Ldelete(loc, key, H5P_DEFAULT) < 0)
    return -1;
  hid_t sp = H5Screate_simple(1, &n, NULL);
  if (sp < 0)
    return -1;
  hid_t d =
      H5Dcreate2(loc, key, str, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t rc = -1;
  if (d >= 0) {
    rc = H5Dwrite(d, str, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    if (H5Dclose(d) < 0)
      rc = -1;
  }
  H5Sclose(sp);
  return rc < 0 ? -1 : 0;
}

static int write_meta(sp_fmt_h5w *w, hid_t str, sp_fmt_err *err) {
  hid_t g =
      H5Gcreate2(w->file, "metadata", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) {
    sp__h5w_h5fail(w, err, "group metadata");
    return -1;
  }
  int rc = 0;
  for (int64_t i = 0; i < w->meta.n && rc == 0; i++) {
    const sp_fmt_meta_item *it = &w->meta.items[i];
    if (it->type == SP_FMT_META_INT) {
      rc = write_attr(g, it->key, H5T_STD_I64LE, H5T_NATIVE_INT64, 0, 0,
                      &it->i64);
    } else if (it->type == SP_FMT_META_STR) {
      char *owned;
      const char *v = clip(it->str ? it->str : "", &owned);
      rc = v ? write_attr(g, it->key, str, str, 0, 0, &v) : -1;
      free(owned);
    } else {
      int64_t n = it->nstrs > 0 ? it->nstrs : 0;
      const char **v = calloc(n ? (size_t)n : 1, sizeof *v);
      char **owned = calloc(n ? (size_t)n : 1, sizeof *owned);
      rc = (v && owned) ? 0 : -1;
      for (int64_t k = 0; k < n && rc == 0; k++) {
        v[k] = clip(it->strs[k] ? it->strs[k] : "", &owned[k]);
        if (!v[k])
          rc = -1;
      }
      if (rc == 0)
        rc = n > META_LIST_ATTR_MAX
                 ? write_list_dataset(g, it->key, str, (hsize_t)n, v)
                 : write_attr(g, it->key, str, str, 1, (hsize_t)n, v);
      for (int64_t k = 0; owned && k < n; k++)
        free(owned[k]);
      free(owned);
      free(v);
    }
    if (rc != 0) {
      char what[300];
      snprintf(what, sizeof what, "metadata attribute %.200s", it->key);
      sp__h5w_h5fail(w, err, what);
    }
  }
  if (H5Gclose(g) < 0 && rc == 0) {
    sp__h5w_h5fail(w, err, "group metadata");
    rc = -1;
  }
  return rc;
}

static hid_t stats_type(int file) {
  hid_t t = H5Tcreate(H5T_COMPOUND, file ? 88 : sizeof(sp_fmt_stats));
  hid_t i64 = file ? H5T_STD_I64LE : H5T_NATIVE_INT64;
  hid_t f64 = file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE;
  struct {
    const char *name;
    size_t off;
    int dbl;
  } f[] = {
      {"calls", offsetof(sp_fmt_stats, calls), 0},
      {"total_ns", offsetof(sp_fmt_stats, total_ns), 0},
      {"min_ns", offsetof(sp_fmt_stats, min_ns), 0},
      {"max_ns", offsetof(sp_fmt_stats, max_ns), 0},
      {"first_start_ns", offsetof(sp_fmt_stats, first_start_ns), 0},
      {"last_end_ns", offsetof(sp_fmt_stats, last_end_ns), 0},
      {"exclusive_ns", offsetof(sp_fmt_stats, exclusive_ns), 0},
      {"gpu_total_ns", offsetof(sp_fmt_stats, gpu_total_ns), 0},
      {"mean_ns", offsetof(sp_fmt_stats, mean_ns), 1},
      {"std_ns", offsetof(sp_fmt_stats, std_ns), 1},
      {"outer_total_ns", offsetof(sp_fmt_stats, outer_total_ns), 0},
  };
  for (size_t i = 0; t >= 0 && i < sizeof f / sizeof f[0]; i++)
    if (H5Tinsert(t, f[i].name, file ? i * 8 : f[i].off, f[i].dbl ? f64 : i64) <
        0) {
      H5Tclose(t);
      t = -1;
    }
  return t;
}

/* rank_region_index: every column from the rows held in memory. */
static int write_index(sp_fmt_h5w *w, hid_t str, sp_fmt_err *err) {
  int64_t n = w->nrows;
  size_t cnt = n ? (size_t)n : 1;
  hid_t g = H5Gcreate2(w->file, "rank_region_index", H5P_DEFAULT, H5P_DEFAULT,
                       H5P_DEFAULT);
  int32_t *i32 = malloc(cnt * sizeof *i32);
  int64_t *i64 = malloc(cnt * sizeof *i64);
  const char **sv = malloc(cnt * sizeof *sv);
  sp_fmt_stats *st = malloc(cnt * sizeof *st);
  hid_t fst = stats_type(1), mst = stats_type(0);
  int rc = -1;
  const char *what = "rank_region_index";
  if (g < 0 || !i32 || !i64 || !sv || !st || fst < 0 || mst < 0)
    goto out;
#define COL32(NAME, EXPR)                                                      \
  what = "rank_region_index/" NAME;                                            \
  for (int64_t i = 0; i < n; i++)                                              \
    i32[i] = (EXPR);                                                           \
  if (write_ds(g, NAME, H5T_STD_I32LE, H5T_NATIVE_INT32, n, i32) < 0)          \
    goto out;
#define COL64(NAME, EXPR)                                                      \
  what = "rank_region_index/" NAME;                                            \
  for (int64_t i = 0; i < n; i++)                                              \
    i64[i] = (EXPR);                                                           \
  if (write_ds(g, NAME, H5T_STD_I64LE, H5T_NATIVE_INT64, n, i64) < 0)          \
    goto out;
#define COLS(NAME, EXPR)                                                       \
  what = "rank_region_index/" NAME;                                            \
  for (int64_t i = 0; i < n; i++)                                              \
    sv[i] = (EXPR);                                                            \
  if (write_ds(g, NAME, str, str, n, sv) < 0)                                  \
    goto out;
  COL32("region_ids", w->rows[i].region)
  COL32("ranks", w->rows[i].rank)
  COL32("threads", w->rows[i].thread)
  COL64("event_offsets", w->rows[i].offset)
  COL64("event_counts", w->rows[i].count)
  COL32("source_lines", w->regs[w->rows[i].region].line)
  COLS("source_files",
       w->regs[w->rows[i].region].file ? w->regs[w->rows[i].region].file : "")
  COLS("source_texts", "")
  COLS("tags", "")
#undef COL32
#undef COL64
#undef COLS
  what = "rank_region_index/summary_statistics";
  for (int64_t i = 0; i < n; i++)
    st[i] = w->rows[i].st;
  if (write_ds(g, "summary_statistics", fst, mst, n, st) < 0)
    goto out;
  rc = 0;
out:
  if (rc != 0)
    sp__h5w_h5fail(w, err, what);
  if (g >= 0 && H5Gclose(g) < 0 && rc == 0) {
    sp__h5w_h5fail(w, err, "group rank_region_index");
    rc = -1;
  }
  if (fst >= 0)
    H5Tclose(fst);
  if (mst >= 0)
    H5Tclose(mst);
  free(i32);
  free(i64);
  free(sv);
  free(st);
  return rc;
}

static int write_names(sp_fmt_h5w *w, hid_t str, sp_fmt_err *err) {
  hid_t g = H5Gcreate2(w->file, "region_table", H5P_DEFAULT, H5P_DEFAULT,
                       H5P_DEFAULT);
  const char **v = malloc((w->nregs ? (size_t)w->nregs : 1) * sizeof *v);
  int rc = -1;
  if (g >= 0 && v) {
    for (int64_t i = 0; i < w->nregs; i++)
      v[i] = w->regs[i].name;
    rc = write_ds(g, "names", str, str, w->nregs, v);
  }
  if (g >= 0 && H5Gclose(g) < 0)
    rc = -1;
  free(v);
  if (rc != 0)
    sp__h5w_h5fail(w, err, "region_table/names");
  return rc;
}

int sp_fmt_h5w_close(sp_fmt_h5w *w, sp_fmt_err *err) {
  hid_t str = sp__h5_vlen_utf8();
  int64_t schema = SP_FMT_SCHEMA;
  int rc = -1;
  if (str < 0) {
    sp__h5w_h5fail(w, err, "string type");
    goto out;
  }
  if (w->reserved >= 0 && w->written != w->reserved) {
    sp__h5w_fail(err, w->path, "rows hold %lld calls, %lld reserved",
                 (long long)w->written, (long long)w->reserved);
    goto out;
  }
  if (sp__h5w_raw_close(w, err) != 0)
    goto out;
  if ((w->reserved < 0 && flush_events(w, 1, err) < 0) ||
      write_index(w, str, err) < 0 || sp__h5w_mpi_write(w, err) < 0 ||
      write_names(w, str, err) < 0 || write_meta(w, str, err) < 0)
    goto out;
  if (write_attr(w->file, "scope_profiler_schema", H5T_STD_I64LE,
                 H5T_NATIVE_INT64, 0, 0, &schema) < 0) {
    sp__h5w_h5fail(w, err, "attribute scope_profiler_schema");
    goto out;
  }
  H5Dclose(w->ds_start);
  H5Dclose(w->ds_end);
  w->ds_start = w->ds_end = -1;
  herr_t c = H5Fclose(w->file);
  w->file = -1;
  if (c < 0) {
    sp__h5w_h5fail(w, err, "file (close)");
    goto out;
  }
  if (sp__h5w_sunk(w, err)) /* the last writes (superblock, index) failed */
    goto out;
  if (strcmp(w->tmp, w->path) != 0 &&
      sp_fmt_tmp_commit(w->tmp, w->path, err) != 0)
    goto out;
  rc = 0;
out:
  if (str >= 0)
    H5Tclose(str);
  if (rc != 0) {
    close_handles(w);
    unlink(w->tmp);
  }
  free_w(w);
  return rc;
}

void sp_fmt_h5w_abort(sp_fmt_h5w *w) {
  if (!w)
    return;
  close_handles(w);
  H5Eclear2(H5E_DEFAULT);
  unlink(w->tmp);
  free_w(w);
}

/* ---- SP_MODE=profile: statistics and call paths, no events ---- */

static const char *empty_read_name(const sp_fmt_profile *p, int32_t r) {
  return r >= 0 && r < p->nregions ? p->regions[r].name : "<unknown>";
}

static void no_calls(const sp_fmt_source *src, int64_t first, int64_t n,
                     int64_t *starts, int64_t *ends) {
  (void)src, (void)first, (void)n, (void)starts, (void)ends;
}

/* call_paths: one row per path, its parent a row index (-1: none), its
 * statistics as summary_statistics', and the exact sums of squares. */
static int write_paths(sp_fmt_h5w *w, const sp_fmt_profile *p,
                       sp_fmt_err *err) {
  int64_t n = p->npaths;
  size_t cnt = n ? (size_t)n : 1;
  hid_t g =
      H5Gcreate2(w->file, "call_paths", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int32_t *i32 = malloc(cnt * sizeof *i32);
  uint64_t *u64 = malloc(cnt * sizeof *u64);
  sp_fmt_stats *st = malloc(cnt * sizeof *st);
  hid_t fst = stats_type(1), mst = stats_type(0);
  int rc = -1;
  const char *what = "call_paths";
  if (g < 0 || !i32 || !u64 || !st || fst < 0 || mst < 0)
    goto out;
#define PCOL32(NAME, EXPR)                                                     \
  what = "call_paths/" NAME;                                                   \
  for (int64_t i = 0; i < n; i++)                                              \
    i32[i] = (EXPR);                                                           \
  if (write_ds(g, NAME, H5T_STD_I32LE, H5T_NATIVE_INT32, n, i32) < 0)          \
    goto out;
#define PCOLU64(NAME, EXPR)                                                    \
  what = "call_paths/" NAME;                                                   \
  for (int64_t i = 0; i < n; i++)                                              \
    u64[i] = (EXPR);                                                           \
  if (write_ds(g, NAME, H5T_STD_U64LE, H5T_NATIVE_UINT64, n, u64) < 0)         \
    goto out;
  for (int64_t i = 0; i < n; i++) {
    int32_t id = region_id(w, empty_read_name(p, p->paths[i].region));
    if (id < 0) {
      sp__h5w_fail(err, w->path, "out of memory");
      goto fail;
    }
    i32[i] = id;
  }
  what = "call_paths/region_ids";
  if (write_ds(g, "region_ids", H5T_STD_I32LE, H5T_NATIVE_INT32, n, i32) < 0)
    goto out;
  PCOL32("parents", p->paths[i].parent)
  PCOL32("ranks", p->paths[i].rank)
  PCOL32("threads", p->paths[i].thread)
  PCOLU64("sum_squares_hi", (uint64_t)(p->paths[i].s.sq >> 64))
  PCOLU64("sum_squares_lo", (uint64_t)p->paths[i].s.sq)
#undef PCOL32
#undef PCOLU64
  what = "call_paths/statistics";
  for (int64_t i = 0; i < n; i++)
    sp_fmt_psum_stats(&p->paths[i].s, &st[i]);
  if (write_ds(g, "statistics", fst, mst, n, st) < 0)
    goto out;
  rc = 0;
out:
  if (rc != 0)
    sp__h5w_h5fail(w, err, what);
fail:
  if (g >= 0 && H5Gclose(g) < 0 && rc == 0) {
    sp__h5w_h5fail(w, err, "group call_paths");
    rc = -1;
  }
  if (fst >= 0)
    H5Tclose(fst);
  if (mst >= 0)
    H5Tclose(mst);
  free(i32);
  free(u64);
  free(st);
  return rc;
}

int sp_fmt_h5_write_profile(const char *path, const char *tmp,
                            const sp_fmt_profile *p, const sp_fmt_meta *meta,
                            sp_fmt_err *err) {
  return sp_fmt_h5_write_profile_ctr(path, tmp, p, meta, NULL, 0, err);
}

int sp_fmt_h5_write_profile_ctr(const char *path, const char *tmp,
                                const sp_fmt_profile *p,
                                const sp_fmt_meta *meta, const sp_fmt_ctr *ctr,
                                int64_t nctr, sp_fmt_err *err) {
  sp_fmt_prow *rows = NULL;
  int64_t nrows = sp_fmt_profile_rows(p, &rows);
  sp_fmt_meta m = {0};
  if (nrows < 0 || sp_fmt_meta_copy(&m, meta) != 0 ||
      sp_fmt_meta_set_str(&m, "mode", "profile") != 0) {
    free(rows);
    sp_fmt_meta_free(&m);
    sp__h5w_fail(err, path, "out of memory");
    return -1;
  }
  sp_fmt_h5w *w = sp_fmt_h5w_open_as(path, tmp, err);
  int rc = w ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < nrows; i++) {
    const sp_fmt_region *g = &p->regions[rows[i].region];
    sp_fmt_source src = {rows[i].thread, g->name, g->file, g->line, 0,
                         no_calls,       NULL,    0};
    sp_fmt_stats st;
    sp_fmt_psum_stats(&rows[i].s, &st);
    rc = sp_fmt_h5w_row(w, rows[i].rank, &src, &st, err);
  }
  if (rc == 0)
    rc = write_paths(w, p, err);
  for (int64_t i = 0; rc == 0 && i < nctr; i++)
    rc = sp_fmt_h5w_counters(w, &ctr[i], err);
  if (rc == 0)
    rc = sp_fmt_h5w_meta(w, &m, err);
  if (w)
    rc = rc ? (sp_fmt_h5w_abort(w), -1) : sp_fmt_h5w_close(w, err);
  free(rows);
  sp_fmt_meta_free(&m);
  return rc;
}
