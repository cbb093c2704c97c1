/* env.c - what the environment says about this process: the SP_*
 * settings (env.def), its rank and the size of its job. */
#include "internal.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { KIND_BOOL, KIND_INT, KIND_SIZE, KIND_ENUM, KIND_STRING };

typedef struct env_var {
  const char *name;
  int kind;
  const char *dflt, *accepts;
  size_t off, size; /* the field in sp__config_t */
  uint64_t lo, hi;
} env_var;

static const env_var vars[] = {
#define SP_ENV(name, kind, dflt, field, lo, hi, accepts, help)                 \
  {#name,                                                                      \
   KIND_##kind,                                                                \
   dflt,                                                                       \
   accepts,                                                                    \
   offsetof(sp__config_t, field),                                              \
   sizeof(((sp__config_t *)0)->field),                                         \
   lo,                                                                         \
   hi},
#define SP_ENV_ELSEWHERE(name, dflt, accepts, help)
#include "env.def"
#undef SP_ENV
#undef SP_ENV_ELSEWHERE
};

/* Each field has the type its kind stores (a string: any char array). */
#define KIND_TYPE_BOOL int
#define KIND_TYPE_INT int
#define KIND_TYPE_ENUM int
#define KIND_TYPE_SIZE uint64_t
#define KIND_TYPE_STRING char
#define SP_ENV(name, kind, dflt, field, lo, hi, accepts, help)                 \
  _Static_assert(sizeof(((sp__config_t *)0)->field) ==                         \
                         sizeof(KIND_TYPE_##kind) ||                           \
                     sizeof(KIND_TYPE_##kind) == 1,                            \
                 #name ": field and kind disagree");
#define SP_ENV_ELSEWHERE(name, dflt, accepts, help)
#include "env.def"
#undef SP_ENV
#undef SP_ENV_ELSEWHERE

/* 1/0, true/false, on/off, yes/no, in any case. */
static int parse_bool(const char *s, int *out) {
  static const char *const yes[] = {"1", "true", "on", "yes"};
  static const char *const no[] = {"0", "false", "off", "no"};
  for (int i = 0; i < 4; i++) {
    if (strcasecmp(s, yes[i]) == 0)
      return *out = 1, 1;
    if (strcasecmp(s, no[i]) == 0)
      return *out = 0, 1;
  }
  return 0;
}

static int parse_int(const char *s, long lo, long hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || *end || errno || v < lo || v > hi)
    return 0;
  *out = (int)v;
  return 1;
}

/* Bytes, with an optional K, M or G (powers of 1024); no upper bound
 * check here. */
static int parse_size(const char *s, uint64_t hi, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long n = strtoull(s, &end, 10);
  unsigned shift = 0;
  if (end != s && *end && !end[1]) {
    const char *units = "kKmMgG", *u = strchr(units, *end);
    if (u) {
      shift = 10 * (unsigned)(1 + (u - units) / 2);
      end++;
    }
  }
  if (end == s || *end || errno || s[0] == '-' || n > hi >> shift)
    return 0;
  *out = (uint64_t)n << shift;
  return 1;
}

/* The index of s among the '|'-separated values of accepts, or -1. */
static int parse_enum(const char *s, const char *accepts) {
  size_t n = strlen(s);
  int i = 0;
  for (const char *p = accepts; p; i++) {
    const char *bar = strchr(p, '|');
    size_t k = bar ? (size_t)(bar - p) : strlen(p);
    if (k == n && strncmp(p, s, n) == 0)
      return i;
    p = bar ? bar + 1 : NULL;
  }
  return -1;
}

/* "a|b|c" as "a, b or c". */
static void list_text(const char *accepts, char *out, size_t size) {
  size_t n = 0;
  out[0] = 0;
  for (const char *p = accepts; *p && n + 4 < size; p++) {
    if (*p != '|') {
      out[n++] = *p;
    } else {
      const char *sep = strchr(p + 1, '|') ? ", " : " or ";
      n += (size_t)snprintf(out + n, size - n, "%s", sep);
    }
  }
  out[n < size ? n : size - 1] = 0;
}

/* A byte count as a user would write it: 2M, not 2097152. */
static void size_text(uint64_t v, char *out, size_t size) {
  static const char units[] = "KMG";
  int u = -1;
  while (u < 2 && v && v % 1024 == 0)
    v /= 1024, u++;
  /* No "%.*s" of a conditional pointer: GCC 12's -Wformat crashes on it
   * at -O0. */
  char unit[2] = {u >= 0 ? units[u] : 0, 0};
  snprintf(out, size, "%llu%s", (unsigned long long)v, unit);
}

static void *field(sp__config_t *cfg, const env_var *v) {
  return (char *)cfg + v->off;
}

/* s into v's field; 0 (and the field untouched) if s is not a value of v,
 * -1 if it is a size below the minimum (the field then holds it). */
static int store(sp__config_t *cfg, const env_var *v, const char *s) {
  void *f = field(cfg, v);
  int i;
  switch (v->kind) {
  case KIND_BOOL:
    return parse_bool(s, &i) ? (*(int *)f = i, 1) : 0;
  case KIND_INT:
    return parse_int(s, (long)v->lo, (long)v->hi, &i) ? (*(int *)f = i, 1) : 0;
  case KIND_SIZE: {
    uint64_t b;
    if (!parse_size(s, v->hi, &b))
      return 0;
    *(uint64_t *)f = b < v->lo ? v->lo : b;
    return b < v->lo ? -1 : 1;
  }
  case KIND_ENUM:
    i = parse_enum(s, v->accepts);
    return i >= 0 ? (*(int *)f = i, 1) : 0;
  default:
    snprintf(f, v->size, "%s", s);
    return 1;
  }
}

static const char *const launcher_ranks[] = {
    "OMPI_COMM_WORLD_RANK", "PMI_RANK",     "PMIX_RANK",
    "MV2_COMM_WORLD_RANK",  "SLURM_PROCID", NULL};

static int first_of(const char *const *names, int *out) {
  for (; *names; names++) {
    const char *s = getenv(*names);
    if (s && *s && parse_int(s, 0, 99999, out))
      return 1;
  }
  return 0;
}

/* One line for a value the variable does not take, saying what is used. */
static void warn_invalid(const env_var *v, const char *s, int below) {
  char is_not[256], used[64];
  if (v->kind == KIND_BOOL)
    snprintf(is_not, sizeof is_not, "1/0, true/false, on/off or yes/no");
  else if (v->kind == KIND_SIZE)
    snprintf(is_not, sizeof is_not,
             "a size (bytes, or a number with K, M or G)");
  else if (v->kind == KIND_ENUM)
    list_text(v->accepts, is_not, sizeof is_not);
  else
    snprintf(is_not, sizeof is_not, "%s", v->accepts);
  if (below) {
    size_text(v->lo, used, sizeof used);
    sp__warn("warning: %s=%s is below the minimum; using %s", v->name, s, used);
    return;
  }
  int r;
  if (!*v->dflt) /* unset is "the next source" (only SP_RANK) */
    snprintf(used, sizeof used, "%d", first_of(launcher_ranks, &r) ? r : 0);
  else
    snprintf(used, sizeof used, "%s", v->dflt);
  sp__warn("warning: %s=%s is not %s; using %s", v->name, s, is_not, used);
}

void sp__env_read(sp__config_t *cfg) {
  size_t n = sizeof vars / sizeof vars[0];
  for (size_t i = 0; i < n; i++) {
    if (vars[i].kind == KIND_INT && !*vars[i].dflt)
      *(int *)field(cfg, &vars[i]) = -1;
    else
      store(cfg, &vars[i], vars[i].dflt);
  }
  for (size_t i = 0; i < n; i++) {
    const env_var *v = &vars[i];
    const char *s = getenv(v->name);
    if (s && *s) {
      int rc = store(cfg, v, s);
      if (rc <= 0)
        warn_invalid(v, s, rc < 0);
    }
    if (v->off == offsetof(sp__config_t, enable) && !cfg->enable)
      return;
  }
}

int sp__rank_from_env(void) {
  int r;
  if (sp__cfg.rank >= 0)
    return sp__cfg.rank;
  return first_of(launcher_ranks, &r) ? r : -1;
}

int sp__size_from_env(void) {
  static const char *const names[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                      "MV2_COMM_WORLD_SIZE", "SLURM_NTASKS",
                                      NULL};
  int r;
  return first_of(names, &r) && r > 0 ? r : -1;
}
