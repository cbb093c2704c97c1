/* inputs.c - sp-import's input discovery: files named explicitly, and
 * directories searched (not recursively) for per-rank output. */
#include "sp_import.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Per-rank names only (as sp_finalize writes them), so a merged profile
 * lying beside them is not swallowed by the next import. */
static int per_rank_name(const char *name) {
  return fnmatch("*.spt", name, 0) == 0 ||
         fnmatch("*_rank[0-9]*.h5", name, 0) == 0;
}

static int add(sp_imp_inputs *in, const char *path, const struct stat *st,
               sp_fmt_err *err) {
  for (int64_t i = 0; i < in->n; i++)
    if (in->v[i].dev == st->st_dev && in->v[i].ino == st->st_ino)
      return 0; /* the same file, spelled differently: read once */
  if (in->n == in->cap) {
    int64_t cap = in->cap ? in->cap * 2 : 16;
    sp_imp_input *v = realloc(in->v, (size_t)cap * sizeof *v);
    if (!v)
      goto oom;
    in->v = v;
    in->cap = cap;
  }
  sp_imp_input *x = &in->v[in->n];
  if (!(x->path = strdup(path)))
    goto oom;
  x->dev = st->st_dev;
  x->ino = st->st_ino;
  x->kind = sp_fmt_is_h5(path) ? SP_IMP_H5 : SP_IMP_SPT;
  in->n++;
  return 0;
oom:
  sp_fmt_err_set(err, "%s: out of memory", path);
  return -1;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_dir(sp_imp_inputs *in, const char *dir, sp_fmt_err *err) {
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
    sp_fmt_err_set(err, "%s: directory holds no *.spt or *_rank<N>.h5 files",
                   dir);
    rc = -1;
  }
  return rc;
}

int sp__imp_find(char *const *args, int nargs, sp_imp_inputs *out,
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
    } else {
      rc = add(out, args[i], &st, err); /* named: always read */
    }
    if (rc != 0) {
      sp__imp_inputs_free(out);
      return -1;
    }
  }
  return 0;
}

void sp__imp_inputs_free(sp_imp_inputs *in) {
  for (int64_t i = 0; i < in->n; i++)
    free(in->v[i].path);
  free(in->v);
  memset(in, 0, sizeof *in);
}
