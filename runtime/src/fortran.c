/* fortran.c - the two entry points fortran/scope_profiler.f90 needs beyond
 * the C API: Fortran strings come with a length and trailing blanks. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Copies s[0..n) without its trailing blanks into buf (or a heap copy when
 * it does not fit); returns the copy, or NULL for an empty string and, with
 * *nomem set, when the heap copy failed. */
static char *trimmed(const char *s, size_t n, char *buf, size_t size,
                     int *nomem) {
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\0'))
    n--;
  if (n == 0)
    return NULL;
  char *d = n < size ? buf : malloc(n + 1);
  if (!d) {
    *nomem = 1;
    return NULL;
  }
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

SP_API int sp__f_init(const char *prefix, size_t n) {
  char buf[1024];
  int nomem = 0;
  char *p = trimmed(prefix, n, buf, sizeof buf, &nomem);
  int rc = nomem ? SP_ENOMEM : sp_init(p);
  if (p != buf)
    free(p);
  return rc;
}

/* The id, or the SP_E* code of sp_region_at (SP_EINVAL for a blank name). */
SP_API int sp__f_region_at(const char *name, size_t nlen, const char *file,
                           size_t flen, int line) {
  char nbuf[512], fbuf[1024];
  int nomem = 0;
  char *n = trimmed(name, nlen, nbuf, sizeof nbuf, &nomem);
  char *f = trimmed(file, flen, fbuf, sizeof fbuf, &nomem);
  int id = nomem ? SP_ENOMEM : sp_region_at(n, f, f ? line : -1);
  if (n != nbuf)
    free(n);
  if (f != fbuf)
    free(f);
  return id;
}
