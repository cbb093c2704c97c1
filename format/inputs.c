/* inputs.c - the tools' input discovery: files named explicitly, and
 * directories searched (not recursively) for per-rank output; the MPI
 * messages found by name beside a .spt. */
#include "sp_common.h"
#include "sp_h5.h"
#include "sp_inputs.h"
#include "sp_spt.h"
#include "sp_stream.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Per-rank names only (as sp_finalize writes them, and the stream a
 * process writes while it runs), so a merged profile lying beside them is
 * not swallowed by the next import. */
static int per_rank_name(const char *name) {
  return fnmatch("*.spt", name, 0) == 0 || fnmatch("*.spts", name, 0) == 0 ||
         fnmatch("*_rank[0-9]*.h5", name, 0) == 0;
}

static int add(sp_fmt_inputs *in, const char *path, const struct stat *st,
               sp_fmt_err *err) {
  if (in->n == in->cap) {
    int64_t cap = in->cap ? in->cap * 2 : 16;
    sp_fmt_input *v = realloc(in->v, (size_t)cap * sizeof *v);
    if (!v)
      goto oom;
    in->v = v;
    in->cap = cap;
  }
  sp_fmt_input *x = &in->v[in->n];
  if (!(x->path = strdup(path)))
    goto oom;
  x->dev = (uint64_t)st->st_dev;
  x->ino = (uint64_t)st->st_ino;
  in->n++;
  return 0;
oom:
  sp_fmt_err_set(err, "%s: out of memory", path);
  return -1;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_dir(sp_fmt_inputs *in, const char *dir, sp_fmt_err *err) {
  DIR *d = opendir(dir);
  if (!d) {
    sp_fmt_err_set(err, "%s: %s", dir, strerror(errno));
    return -1;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  struct dirent *e;
  while (rc == 0 && (e = readdir(d))) {
    if (!per_rank_name(e->d_name))
      continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      char **v = realloc(names, cap * sizeof *v);
      if (!v) {
        rc = -1;
        break;
      }
      names = v;
    }
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    int slash = dir[0] && dir[strlen(dir) - 1] == '/';
    if (!(names[n] = malloc(len)))
      rc = -1;
    else
      snprintf(names[n++], len, "%s%s%s", dir, slash ? "" : "/", e->d_name);
  }
  closedir(d);
  if (rc != 0)
    sp_fmt_err_set(err, "%s: out of memory", dir);
  if (n > 1) /* names is NULL when nothing matched; qsort's must not be */
    qsort(names, n, sizeof *names, by_name);
  size_t found = 0;
  for (size_t i = 0; rc == 0 && i < n; i++) {
    struct stat st;
    if (stat(names[i], &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    found++;
    rc = add(in, names[i], &st, err);
  }
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
  if (rc == 0 && found == 0) {
    sp_fmt_err_set(err,
                   "%s: directory holds no *.spt, *.spts or *_rank<N>.h5 "
                   "files (was the program linked with -lscopeprof, and "
                   "SP_OUTPUT set to write here?)",
                   dir);
    rc = -1;
  }
  return rc;
}

static const sp_fmt_inputs *sort_in; /* qsort has no context in C11 */

static int by_file(const void *a, const void *b) {
  const sp_fmt_input *x = &sort_in->v[*(const int64_t *)a],
                     *y = &sort_in->v[*(const int64_t *)b];
  if (x->dev != y->dev)
    return x->dev < y->dev ? -1 : 1;
  if (x->ino != y->ino)
    return x->ino < y->ino ? -1 : 1;
  return *(const int64_t *)a < *(const int64_t *)b ? -1 : 1;
}

/* The same file, however spelled (device and inode), is read once: the
 * first mention is kept, in argument order. Sorting keeps this fast for
 * tens of thousands of ranks. */
static int dedup(sp_fmt_inputs *in, sp_fmt_err *err) {
  int64_t *ix = malloc((in->n ? (size_t)in->n : 1) * sizeof *ix);
  char *drop = calloc(in->n ? (size_t)in->n : 1, 1);
  if (!ix || !drop) {
    free(ix);
    free(drop);
    sp_fmt_err_set(err, "%s: out of memory", in->n ? in->v[0].path : "-");
    return -1;
  }
  for (int64_t i = 0; i < in->n; i++)
    ix[i] = i;
  sort_in = in;
  qsort(ix, (size_t)in->n, sizeof *ix, by_file);
  for (int64_t k = 1; k < in->n; k++)
    if (in->v[ix[k]].dev == in->v[ix[k - 1]].dev &&
        in->v[ix[k]].ino == in->v[ix[k - 1]].ino)
      drop[ix[k]] = 1;
  int64_t n = 0;
  for (int64_t i = 0; i < in->n; i++) {
    if (drop[i]) {
      free(in->v[i].path);
      continue;
    }
    in->v[n] = in->v[i];
    /* By content, not name: an explicitly named file may be called
     * anything. Whatever is neither HDF5 nor a stream goes to the .spt
     * reader, whose message then says what is wrong with it; but a
     * broken *.spts to the stream reader, whose message fits it. */
    const char *p = in->v[n].path;
    size_t len = strlen(p);
    int spts = len >= 5 && strcmp(p + len - 5, ".spts") == 0;
    in->v[n].kind = sp_fmt_is_h5(p)               ? SP_FMT_INPUT_H5
                    : spts || sp_fmt_is_stream(p) ? SP_FMT_INPUT_STREAM
                                                  : SP_FMT_INPUT_SPT;
    n++;
  }
  in->n = n;
  free(ix);
  free(drop);
  return 0;
}

int sp_fmt_inputs_find(char *const *args, int nargs, sp_fmt_inputs *out,
                       sp_fmt_err *err) {
  memset(out, 0, sizeof *out);
  for (int i = 0; i < nargs; i++) {
    struct stat st;
    int rc;
    if (stat(args[i], &st) != 0) {
      sp_fmt_err_set(err, "%s: %s", args[i], strerror(errno));
      rc = -1;
    } else if (S_ISDIR(st.st_mode)) {
      rc = add_dir(out, args[i], err);
    } else if (!S_ISREG(st.st_mode)) {
      /* A FIFO or a device would block or never end. */
      sp_fmt_err_set(err, "%s: not a regular file", args[i]);
      rc = -1;
    } else {
      rc = add(out, args[i], &st, err); /* named: always read */
    }
    if (rc != 0) {
      sp_fmt_inputs_free(out);
      return -1;
    }
  }
  if (dedup(out, err) != 0) {
    sp_fmt_inputs_free(out);
    return -1;
  }
  return 0;
}

void sp_fmt_inputs_free(sp_fmt_inputs *in) {
  for (int64_t i = 0; i < in->n; i++)
    free(in->v[i].path);
  free(in->v);
  memset(in, 0, sizeof *in);
}

int64_t sp_fmt_claims_drop_empty(void *claims, int64_t n, size_t size,
                                 sp_fmt_claim_fn *view, const sp_fmt_inputs *in,
                                 const char *tool) {
  char *v = claims;
  int64_t kept = 0;
  for (int64_t a = 0, b; a < n; a = b) {
    sp_fmt_claim_view first, c;
    view(v + (size_t)a * size, &first);
    int64_t full = -1;
    for (b = a; b < n; b++) {
      view(v + (size_t)b * size, &c);
      if (c.rank != first.rank)
        break;
      if (!c.empty && full < 0)
        full = b;
    }
    for (int64_t k = a; k < b; k++) {
      view(v + (size_t)k * size, &c);
      if (b - a > 1 && c.empty && (full >= 0 || k > a)) {
        sp_fmt_claim_view holder;
        view(v + (size_t)(full >= 0 ? full : a) * size, &holder);
        fprintf(stderr,
                "%s: warning: %s: rank %d recorded no calls; left out (rank "
                "%d is in %s)\n",
                tool, in->v[c.input].path, c.rank, c.rank,
                in->v[holder.input].path);
        continue;
      }
      if (kept != k)
        memmove(v + (size_t)kept * size, v + (size_t)k * size, size);
      kept++;
    }
  }
  return kept;
}

int sp_fmt_inputs_spt_mpi(const sp_fmt_inputs *in) {
  for (int64_t i = 0; i < in->n; i++)
    if (in->v[i].kind == SP_FMT_INPUT_SPT &&
        sp_fmt_spt_mpi_exists(in->v[i].path))
      return 1;
  return 0;
}

int sp_fmt_spt_mpi_take(const char *spt, int32_t rank, int any,
                        const char *tool, sp_fmt_mpi *m) {
  sp_fmt_err e = {{0}};
  int64_t lost;
  int got = sp_fmt_spt_mpi_read(spt, rank, m, &lost, &e);
  if (got == 0 && any)
    sp_fmt_err_set(&e,
                   "%.900s.mpi: offset 0: missing (other .spt inputs have "
                   "theirs)",
                   spt);
  if (got < 0 || (got == 0 && any))
    fprintf(stderr,
            "%s: warning: %s; rank %d's calls read without its MPI "
            "messages\n",
            tool, e.msg, rank);
  return got > 0;
}
