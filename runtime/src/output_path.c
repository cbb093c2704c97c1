/* output_path.c - the names of the output: the prefix expanded into the
 * rank's file and stream names, and the finished file put in place. */
#include "internal.h"
#include "sp_format.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* prefix with %p, %h and %% expanded into out; its length, or -1. */
static long expand(const char *prefix, char *out, size_t size) {
  size_t n = 0;
  char host[256];
  for (const char *p = prefix; *p; p++) {
    char tmp[300];
    const char *add = tmp;
    if (p[0] == '%' && p[1] == 'p') {
      snprintf(tmp, sizeof tmp, "%ld", (long)getpid());
      p++;
    } else if (p[0] == '%' && p[1] == 'h') {
      if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "unknown");
      host[sizeof host - 1] = 0;
      snprintf(tmp, sizeof tmp, "%s", host);
      p++;
    } else if (p[0] == '%' && p[1] == '%') {
      tmp[0] = '%', tmp[1] = 0;
      p++;
    } else {
      tmp[0] = *p, tmp[1] = 0;
    }
    size_t k = strlen(add);
    if (n + k >= size)
      return -1;
    memcpy(out + n, add, k);
    n += k;
  }
  return (long)n;
}

int sp__output_path(const char *prefix, int rank, const char *ext, char *out,
                    size_t size) {
  long e = expand(prefix, out, size);
  size_t n = (size_t)e;
  int w = e < 0 ? -1 : snprintf(out + n, size - n, "_rank%05d%s", rank, ext);
  return (w < 0 || (size_t)w >= size - n) ? -1 : 0;
}

int sp__output_job_path(const char *prefix, const char *ext, char *out,
                        size_t size) {
  long e = expand(prefix, out, size);
  size_t n = (size_t)e;
  int w = e < 0 ? -1 : snprintf(out + n, size - n, "%s", ext);
  return (w < 0 || (size_t)w >= size - n) ? -1 : 0;
}

int sp__stream_set_path(int rank) {
  char ext[32];
  snprintf(ext, sizeof ext, ".%ld", (long)getpid());
  sp__rank_guess = rank;
  if (sp__output_path(sp__cfg.prefix, rank, ext, sp__stream_base,
                      sizeof sp__stream_base) != 0) {
    sp__stream_base[0] = 0;
    return -1;
  }
  return 0;
}

/* A short name beside path for the finished file until it is placed:
 * short, so a prefix near the file-name limit still works. */
int sp__private_name(const char *path, char *out, size_t size) {
  const char *slash = strrchr(path, '/');
  int dir = slash ? (int)(slash - path + 1) : 0;
  int n = snprintf(out, size, "%.*s.sp-%ld.tmp", dir, path, (long)getpid());
  return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* The message of a failed write names the file the user knows: the final
 * name, not the private one it was being written under. */
void sp__rename_in_msg(char *msg, size_t size, const char *tmp,
                       const char *path) {
  char *at = strstr(msg, tmp);
  if (!at)
    return;
  char rest[sizeof((sp_fmt_err *)0)->msg];
  snprintf(rest, sizeof rest, "%s", at + strlen(tmp));
  snprintf(at, size - (size_t)(at - msg), "%s%s", path, rest);
}

/* Puts the finished file at path without ever replacing, silently, a file
 * another process wrote there while this one ran (two runs sharing a
 * prefix without %p): that one is kept, this profile goes beside it under
 * a name with the pid, and one line says so. A file from before this run
 * (the last run's) is replaced, as always. */
int sp__place(const char *tmp, const char *path, int rank, char *placed,
              size_t size) {
  if (placed)
    snprintf(placed, size, "%s", path);
  if (link(tmp, path) == 0)
    return unlink(tmp), 0;
  int e = errno;
  struct stat st;
  if (e == EEXIST && stat(path, &st) == 0 &&
      (st.st_mtim.tv_sec > sp__start_real.tv_sec ||
       (st.st_mtim.tv_sec == sp__start_real.tv_sec &&
        st.st_mtim.tv_nsec >= sp__start_real.tv_nsec))) {
    char alt[PATH_MAX + 64], ext[32];
    snprintf(ext, sizeof ext, ".%ld%s", (long)getpid(),
             sp__cfg.format_h5 ? ".h5" : ".spt");
    if (sp__output_path(sp__cfg.prefix, rank, ext, alt, sizeof alt) == 0 &&
        rename(tmp, alt) == 0) {
      if (placed)
        snprintf(placed, size, "%s", alt);
      sp__warn("warning: %s was written by another process while this one "
               "ran; this profile is %s (put %%p in SP_OUTPUT)",
               path, alt);
      return 0;
    }
    e = errno;
  } else if (rename(tmp, path) == 0) { /* older file, or no hard links */
    return 0;
  } else {
    e = errno;
  }
  sp__warn("error: %s: %s (the calls are kept in %s)", path, strerror(e),
           sp__stream_path);
  return -1;
}
