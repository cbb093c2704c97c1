/* symbolize.c - names of address regions from object files: a function's
 * symbol, an OpenMP construct's place; and the tools' pass over a stream's
 * address regions, each object's file checked against its build-id. */
#include "sp_sym.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const construct[SP_FMT_OMP_COUNT] = {
    "omp ?",
    "omp parallel",
    "omp implicit task",
    "omp for",
    "omp sections",
    "omp single",
    "omp workshare",
    "omp distribute",
    "omp taskloop",
    "omp scope",
    "omp masked",
    "omp barrier",
    "omp barrier (implicit)",
    "omp barrier (implementation)",
    "omp barrier (teams)",
    "omp taskwait",
    "omp taskgroup",
    "omp task",
    "omp critical",
    "omp lock",
    "omp ordered",
    "omp barrier (implicit)",
};

const char *sp_fmt_omp_construct(int32_t kind) {
  int32_t k = kind & ~(SP_FMT_OMP_AT_FORK | SP_FMT_OMP_IN);
  return k > 0 && k < SP_FMT_OMP_COUNT ? construct[k] : construct[0];
}

char *sp_fmt_sym_func(const sp_fmt_elf *e, uint64_t a, int load) {
  const char *name = sp_fmt_elf_func(e, a, NULL);
  return name ? sp_fmt_demangle(name, load) : NULL;
}

int sp_fmt_sym_omp(const sp_fmt_elf *e, uint64_t bias, uint64_t addr,
                   int32_t kind, int load, char **name, char **file,
                   int *line) {
  int32_t k = kind & ~(SP_FMT_OMP_AT_FORK | SP_FMT_OMP_IN);
  const char *what = sp_fmt_omp_construct(kind);
  char *func = NULL, where[512];
  uint64_t off = 0;
  *name = *file = NULL;
  *line = -1;
  /* The call that starts a parallel region names the region, its
   * implicit tasks and its end barrier, from the call's own arguments;
   * its row gives at most the file. Any other construct: the row of the
   * call it returns from (one byte before its return address). */
  int fork = k == SP_FMT_OMP_PARALLEL || k == SP_FMT_OMP_IMPLICIT_TASK ||
             k == SP_FMT_OMP_BARRIER_PAR || (kind & SP_FMT_OMP_AT_FORK);
  if (kind & SP_FMT_OMP_IN)
    fork = 0;
  if (addr && e && fork)
    sp_fmt_elf_fork(e, addr - bias, file, line);
  if (addr && e && !*file) {
    uint64_t a = addr - 1 - bias, lo = 0;
    const char *sym = sp_fmt_elf_func(e, a, &lo);
    if (sym) {
      func = sp_fmt_demangle(sym, load);
      off = a - lo;
    }
    sp_fmt_elf_line(e, a, sym ? lo : 0, file, line);
    if (fork || (kind & SP_FMT_OMP_IN))
      *line = -1;
  }
  const char *base = *file ? strrchr(*file, '/') : NULL;
  base = base ? base + 1 : *file;
  if (!addr)
    snprintf(where, sizeof where, "?");
  else if (*file && *line > 0)
    snprintf(where, sizeof where, "%s:%d", base, *line);
  else if (*file)
    snprintf(where, sizeof where, "%s", base); /* the line is unknown */
  else if (func)
    snprintf(where, sizeof where, "%s+0x%lx", func, (unsigned long)(off + 1));
  else
    snprintf(where, sizeof where, "0x%lx", (unsigned long)addr);
  free(func);
  size_t n = strlen(what) + strlen(where) + 4;
  if (!(*name = malloc(n))) {
    free(*file);
    *file = NULL;
    return -1;
  }
  snprintf(*name, n, "%s @ %s", what, where);
  if (*line <= 0)
    *line = -1;
  return 0;
}

/* "ab12..." of n bytes, into out (2n + 1 bytes at most cap). */
static void hex(const unsigned char *b, size_t n, char *out, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < n && k + 3 <= cap; i++, k += 2)
    snprintf(out + k, 3, "%02x", b[i]);
  out[k] = 0;
}

/* Appends one line to *warn; -1 when out of memory. */
static int warn_add(char **warn, const char *line) {
  size_t had = *warn ? strlen(*warn) : 0, n = strlen(line);
  char *w = realloc(*warn, had + n + 2);
  if (!w)
    return -1;
  if (had)
    w[had++] = '\n';
  memcpy(w + had, line, n + 1);
  *warn = w;
  return 0;
}

/* The file of object o, if it is the one the process loaded (its build-id
 * matches, when one was recorded); else NULL and why in why. */
static sp_fmt_elf *open_obj(const sp_fmt_sym_obj *o, char *why, size_t cap) {
  sp_fmt_elf *e = sp_fmt_elf_open(o->path);
  if (!e) {
    snprintf(why, cap, "%s", strerror(errno));
    return NULL;
  }
  if (!o->nbuild_id)
    return e;
  unsigned char bid[64];
  size_t n = sp_fmt_elf_build_id(e, bid, sizeof bid);
  if (n == o->nbuild_id && n <= sizeof bid && memcmp(bid, o->build_id, n) == 0)
    return e;
  char want[130], got[130];
  hex(o->build_id, o->nbuild_id < 64 ? o->nbuild_id : 64, want, sizeof want);
  hex(bid, n < sizeof bid ? n : sizeof bid, got, sizeof got);
  if (n)
    snprintf(why, cap, "build-id %s, the run's was %s (rebuilt?)", got, want);
  else
    snprintf(why, cap, "no build-id, the run's was %s", want);
  sp_fmt_elf_close(e);
  return NULL;
}

int sp_fmt_symbolize(const sp_fmt_sym_obj *objs, int64_t nobjs,
                     sp_fmt_sym_addr *v, int64_t n, int load, char **warn) {
  *warn = NULL;
  for (int64_t k = 0; k < nobjs; k++) {
    int64_t uses = 0;
    for (int64_t i = 0; i < n; i++)
      uses += v[i].obj == k && !v[i].name;
    if (!uses)
      continue;
    const sp_fmt_sym_obj *o = &objs[k];
    char why[400];
    sp_fmt_elf *e = open_obj(o, why, sizeof why);
    if (!e) {
      char line[PATH_MAX + 512];
      snprintf(line, sizeof line, "%s: %s; %lld region%s keep%s %s address%s",
               o->path, why, (long long)uses, uses == 1 ? "" : "s",
               uses == 1 ? "s" : "", uses == 1 ? "its" : "their",
               uses == 1 ? "" : "es");
      if (warn_add(warn, line) != 0)
        return -1;
      continue;
    }
    for (int64_t i = 0; i < n; i++) {
      sp_fmt_sym_addr *r = &v[i];
      if (r->obj != k || r->name)
        continue;
      r->line = -1;
      if (r->kind) {
        if (sp_fmt_sym_omp(e, o->bias, r->addr, r->kind, load, &r->name,
                           &r->file, &r->line) != 0) {
          sp_fmt_elf_close(e);
          return -1;
        }
      } else {
        r->name = sp_fmt_sym_func(e, r->addr - o->bias, load);
      }
    }
    sp_fmt_elf_close(e);
  }
  return 0;
}
