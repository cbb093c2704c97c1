/* filter.c - the run-time filter (SP_FILTER): parses the plugin's filter
 * file syntax (docs/plugin.md) and decides, once per region, whether it is
 * recorded; the slow paths of record.c and profile.c ask sp__filter_skip. */
#include "filter.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct rule {
  int include, on_file, line;
  int nalts;
  char *alts; /* the glob (NUL-terminated; one, as the plugin has) */
} rule_t;

struct sp__filter {
  int nrules;
  rule_t *rules;
};

int sp__filter_on;
static sp__filter_t *active;
/* Untouched pages of it cost no memory. */
uint8_t sp__filter_state[SP__MAX_REGIONS];
#define state sp__filter_state

/* ---- globs: LLVM's GlobPattern as the plugin creates it (no brace
 * expansion: '{' and '}' are plain characters): '*', '?', '\' escapes, and
 * [set], [!set] / [^set], whose closing ']' is the first one after the
 * set's first character (so "[]a]" holds ']' and 'a') and inside which
 * nothing is escaped. ---- */

/* The ']' closing the bracket expression whose '[' is at p[-1], or NULL. */
static const char *bracket_end(const char *p) {
  return *p ? strchr(p + 1, ']') : NULL;
}

/* Whether c is in the bracket expression [b, e) (b just past '['). */
static int in_bracket(const char *b, const char *e, unsigned char c) {
  int neg = 0, hit = 0;
  if (*b == '!' || *b == '^') {
    neg = 1;
    b++;
  }
  for (const char *q = b; q < e; q++) {
    unsigned char lo = (unsigned char)*q, hi = lo;
    if (q + 2 < e && q[1] == '-') {
      hi = (unsigned char)q[2];
      q += 2;
    }
    if (c >= lo && c <= hi)
      hit = 1;
  }
  return hit != neg;
}

/* NULL if glob g is well formed, else why not. */
static const char *glob_check(const char *g) {
  for (const char *p = g; *p; p++) {
    if (*p == '\\') {
      if (!p[1])
        return "stray '\\' at the end";
      p++;
    } else if (*p == '[') {
      const char *e = bracket_end(p + 1);
      if (!e)
        return "unmatched '['";
      const char *q = p + 1;
      if (*q == '!' || *q == '^')
        q++;
      for (; q < e; q++)
        if (q + 2 < e && q[1] == '-') {
          if ((unsigned char)q[2] < (unsigned char)q[0])
            return "bad range in bracket expression";
          q += 2;
        }
      p = e;
    }
  }
  return NULL;
}

/* One checked glob against s. */
static int match_one(const char *g, const char *s) {
  for (; *g; g++) {
    if (*g == '*') {
      while (g[1] == '*')
        g++;
      if (!g[1])
        return 1;
      for (const char *t = s; *t; t++)
        if (match_one(g + 1, t))
          return 1;
      return match_one(g + 1, s + strlen(s));
    }
    if (!*s)
      return 0;
    if (*g == '[') {
      const char *e = bracket_end(g + 1);
      if (!in_bracket(g + 1, e, (unsigned char)*s))
        return 0;
      g = e;
    } else if (*g == '\\') {
      if (*++g != *s)
        return 0;
    } else if (*g != '?' && *g != *s) {
      return 0;
    }
    s++;
  }
  return !*s;
}

/* The rule's copy of glob g, checked: its count of globs (1), or -1 with
 * why. */
static int expand(const char *g, char **out, size_t *outlen, const char **why) {
  if ((*why = glob_check(g)) != NULL)
    return -1;
  *outlen = strlen(g) + 1;
  if (!(*out = malloc(*outlen))) {
    *why = "out of memory";
    return -1;
  }
  memcpy(*out, g, *outlen);
  return 1;
}

static int rule_match(const rule_t *r, const char *s) {
  const char *a = r->alts;
  for (int i = 0; i < r->nalts; i++, a += strlen(a) + 1)
    if (match_one(a, s))
      return 1;
  return 0;
}

/* ---- the file ---- */

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}

static int fail(char *err, size_t errlen, const char *path, int line,
                const char *fmt, ...) {
  char why[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  snprintf(err, errlen, "%s:%d: %s", path, line, why);
  return -1;
}

/* One trimmed line l (NUL-terminated, writable) into f. */
static int parse_line(sp__filter_t *f, char *l, const char *path, int lineno,
                      char *err, size_t errlen) {
  char *rest = strchr(l, ' ');
  if (rest) {
    *rest++ = '\0';
    while (is_space(*rest))
      rest++;
  } else {
    rest = l + strlen(l);
  }
  if (strcmp(l, "min-instructions") == 0) {
    /* Counted by the plugin at compile time: checked, then ignored. */
    char *q = rest;
    unsigned long long v = 0;
    for (; *q >= '0' && *q <= '9'; q++)
      if ((v = v * 10 + (unsigned)(*q - '0')) > 0xffffffffull)
        break;
    if (!*rest || *q)
      return fail(err, errlen, path, lineno,
                  "min-instructions needs a non-negative integer, got '%s'",
                  rest);
    return 0;
  }
  int include = strcmp(l, "include") == 0;
  if (!include && strcmp(l, "exclude") != 0)
    return fail(err, errlen, path, lineno,
                "unknown directive '%s' (expected include, exclude or "
                "min-instructions)",
                l);
  char *glob = strchr(rest, ' ');
  if (glob) {
    *glob++ = '\0';
    while (is_space(*glob))
      glob++;
  } else {
    glob = rest + strlen(rest);
  }
  int on_file = strcmp(rest, "file") == 0;
  if (!on_file && strcmp(rest, "function") != 0)
    return fail(err, errlen, path, lineno,
                "expected 'function' or 'file' after '%s', got '%s'", l, rest);
  if (!*glob)
    return fail(err, errlen, path, lineno, "missing glob after '%s %s'", l,
                rest);
  char *alts;
  size_t len;
  const char *why;
  int n = expand(glob, &alts, &len, &why);
  if (n < 0)
    return fail(err, errlen, path, lineno, "bad glob '%s': %s", glob, why);
  rule_t *nr = realloc(f->rules, (size_t)(f->nrules + 1) * sizeof *nr);
  if (!nr) {
    free(alts);
    return fail(err, errlen, path, lineno, "out of memory");
  }
  f->rules = nr;
  f->rules[f->nrules++] = (rule_t){include, on_file, lineno, n, alts};
  return 0;
}

sp__filter_t *sp__filter_parse(const char *path, const char *text, size_t len,
                               char *err, size_t errlen) {
  sp__filter_t *f = calloc(1, sizeof *f);
  char *copy = malloc(len + 1);
  if (!f || !copy) {
    free(f);
    free(copy);
    fail(err, errlen, path, 0, "out of memory");
    return NULL;
  }
  memcpy(copy, text, len);
  copy[len] = '\0';
  int lineno = 0;
  char *p = copy;
  for (char *end = copy + len; p <= end; lineno++) {
    char *nl = memchr(p, '\n', (size_t)(end - p));
    char *e = nl ? nl : end;
    *e = '\0';
    char *l = p;
    while (is_space(*l))
      l++;
    char *t = e;
    while (t > l && is_space(t[-1]))
      *--t = '\0';
    p = e + 1;
    if (!*l || *l == '#')
      continue;
    if (parse_line(f, l, path, lineno + 1, err, errlen) != 0) {
      free(copy);
      sp__filter_free(f);
      return NULL;
    }
  }
  free(copy);
  return f;
}

void sp__filter_free(sp__filter_t *f) {
  if (!f)
    return;
  for (int i = 0; i < f->nrules; i++)
    free(f->rules[i].alts);
  free(f->rules);
  free(f);
}

int sp__filter_decide(const sp__filter_t *f, const char *name,
                      const char *file) {
  const rule_t *last = NULL;
  for (int i = 0; i < f->nrules; i++) {
    const rule_t *r = &f->rules[i];
    if (rule_match(r, r->on_file ? (file ? file : "") : (name ? name : "")))
      last = r;
  }
  return !last || last->include;
}

void sp__filter_load(const char *path) {
  char err[1024];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    sp__warn("%s: cannot read filter file: %s; SP_FILTER ignored, recording "
             "every region",
             path, strerror(errno));
    return;
  }
  size_t cap = 4096, len = 0;
  char *text = malloc(cap);
  for (;;) {
    if (!text)
      break;
    if (len == cap) {
      char *t = realloc(text, cap *= 2);
      if (!t) {
        free(text);
        text = NULL;
        break;
      }
      text = t;
    }
    ssize_t r = read(fd, text + len, cap - len);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      int e = errno;
      close(fd);
      free(text);
      sp__warn("%s: cannot read filter file: %s; SP_FILTER ignored, "
               "recording every region",
               path, strerror(e));
      return;
    }
    if (r == 0)
      break;
    len += (size_t)r;
  }
  close(fd);
  if (!text) {
    sp__warn("%s: out of memory reading the filter file; SP_FILTER ignored",
             path);
    return;
  }
  sp__filter_t *f = sp__filter_parse(path, text, len, err, sizeof err);
  free(text);
  if (!f) {
    sp__warn("%s; SP_FILTER ignored, recording every region", err);
    return;
  }
  if (f->nrules == 0) {
    sp__filter_free(f);
    return;
  }
  __atomic_store_n(&active, f, __ATOMIC_RELEASE);
  __atomic_store_n(&sp__filter_on, 1, __ATOMIC_RELEASE);
}

int sp__filter_skip(int32_t id) {
  if ((uint32_t)id >=
      (uint32_t)atomic_load_explicit(&sp__nregions, memory_order_acquire))
    return 0;
  uint8_t s = __atomic_load_n(&state[id], __ATOMIC_RELAXED);
  if (SP_LIKELY(s))
    return s == 2;
  sp__region_t *r = sp__region_get(id);
  if (!r || r->kind != 0)
    s = 1; /* OpenMP constructs are not functions: never filtered */
  else if (!r->name)
    return 0; /* an address region sp__filter_addr has not seen */
  else
    s = sp__filter_decide(__atomic_load_n(&active, __ATOMIC_ACQUIRE), r->name,
                          r->file)
            ? 1
            : 2;
  __atomic_store_n(&state[id], s, __ATOMIC_RELAXED);
  return s == 2;
}

void sp__filter_addr(int32_t id, const void *fn) {
  if ((uint32_t)id >= SP__MAX_REGIONS ||
      __atomic_load_n(&state[id], __ATOMIC_RELAXED))
    return;
  /* The cost of the symbol lookup falls on the first call of an address
   * only; two threads racing here decide alike. */
  char *name = sp__symbol_name(fn);
  uint8_t s =
      sp__filter_decide(__atomic_load_n(&active, __ATOMIC_ACQUIRE), name, NULL)
          ? 1
          : 2;
  free(name);
  __atomic_store_n(&state[id], s, __ATOMIC_RELAXED);
}
