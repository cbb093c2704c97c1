/* env.c - what the environment says about this process: its rank, the
 * size of its job, and the output file name. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse_nonneg(const char *s, int *out) {
  if (!s || !*s)
    return 0;
  char *end;
  long v = strtol(s, &end, 10);
  if (*end || v < 0 || v > 99999)
    return 0;
  *out = (int)v;
  return 1;
}

static int first_of(const char *const *names, int *out) {
  for (; *names; names++)
    if (parse_nonneg(getenv(*names), out))
      return 1;
  return 0;
}

int sp__rank_from_env(void) {
  static const char *const names[] = {
      "OMPI_COMM_WORLD_RANK", "PMI_RANK",     "PMIX_RANK",
      "MV2_COMM_WORLD_RANK",  "SLURM_PROCID", NULL};
  static int warned;
  int r;
  const char *own = getenv("SP_RANK");
  if (parse_nonneg(own, &r))
    return r;
  int found = first_of(names, &r);
  if (own && *own && !warned) {
    warned = 1;
    sp__warn("SP_RANK=%s is not a rank (0-99999); using %d", own,
             found ? r : 0);
  }
  return found ? r : -1;
}

int sp__size_from_env(void) {
  static const char *const names[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                      "MV2_COMM_WORLD_SIZE", "SLURM_NTASKS",
                                      NULL};
  int r;
  return first_of(names, &r) && r > 0 ? r : -1;
}

int sp__output_path(const char *prefix, int rank, const char *ext, char *out,
                    size_t size) {
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
  int w = snprintf(out + n, size - n, "_rank%05d%s", rank, ext);
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
