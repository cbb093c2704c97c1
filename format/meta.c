/* meta.c - run metadata (key -> string, integer or string list) as deep
 * copies, so a rank's metadata outlives whatever it was read from. */
#include "sp_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void item_clear(sp_fmt_meta_item *it) {
  free(it->str);
  for (int64_t i = 0; i < it->nstrs; i++)
    free(it->strs[i]);
  free(it->strs);
  it->str = NULL;
  it->strs = NULL;
  it->nstrs = 0;
  it->i64 = 0;
}

/* The item for key, emptied, or a new one at the end; NULL when out of
 * memory. Setting a key again replaces its value in place, keeping order. */
static sp_fmt_meta_item *slot(sp_fmt_meta *m, const char *key) {
  for (int64_t i = 0; i < m->n; i++)
    if (strcmp(m->items[i].key, key) == 0) {
      item_clear(&m->items[i]);
      return &m->items[i];
    }
  char *k = strdup(key);
  sp_fmt_meta_item *items =
      k ? realloc(m->items, (size_t)(m->n + 1) * sizeof *items) : NULL;
  if (!items) {
    free(k);
    return NULL;
  }
  m->items = items;
  sp_fmt_meta_item *it = &items[m->n++];
  memset(it, 0, sizeof *it);
  it->key = k;
  return it;
}

/* A failed set leaves the key present with an empty string list, never a
 * half-built value. */
int sp_fmt_meta_set_str(sp_fmt_meta *m, const char *key, const char *value) {
  char *v = strdup(value ? value : "");
  sp_fmt_meta_item *it = v ? slot(m, key) : NULL;
  if (!it) {
    free(v);
    return -1;
  }
  it->type = SP_FMT_META_STR;
  it->str = v;
  return 0;
}

int sp_fmt_meta_set_int(sp_fmt_meta *m, const char *key, int64_t value) {
  sp_fmt_meta_item *it = slot(m, key);
  if (!it)
    return -1;
  it->type = SP_FMT_META_INT;
  it->i64 = value;
  return 0;
}

int sp_fmt_meta_set_strlist(sp_fmt_meta *m, const char *key,
                            const char *const *values, int64_t n) {
  if (n < 0)
    return -1;
  char **v = calloc((size_t)n + 1, sizeof *v);
  if (!v)
    return -1;
  for (int64_t i = 0; i < n; i++) {
    v[i] = strdup(values[i] ? values[i] : "");
    if (!v[i]) {
      for (int64_t j = 0; j < i; j++)
        free(v[j]);
      free(v);
      return -1;
    }
  }
  sp_fmt_meta_item *it = slot(m, key);
  if (!it) {
    for (int64_t i = 0; i < n; i++)
      free(v[i]);
    free(v);
    return -1;
  }
  it->type = SP_FMT_META_STRLIST;
  it->strs = v;
  it->nstrs = n;
  return 0;
}

const sp_fmt_meta_item *sp_fmt_meta_get(const sp_fmt_meta *m, const char *key) {
  for (int64_t i = 0; m && i < m->n; i++)
    if (strcmp(m->items[i].key, key) == 0)
      return &m->items[i];
  return NULL;
}

int sp_fmt_meta_copy(sp_fmt_meta *dst, const sp_fmt_meta *src) {
  sp_fmt_meta tmp = {0, NULL};
  for (int64_t i = 0; src && i < src->n; i++) {
    const sp_fmt_meta_item *it = &src->items[i];
    int rc = it->type == SP_FMT_META_STR
                 ? sp_fmt_meta_set_str(&tmp, it->key, it->str)
             : it->type == SP_FMT_META_INT
                 ? sp_fmt_meta_set_int(&tmp, it->key, it->i64)
                 : sp_fmt_meta_set_strlist(
                       &tmp, it->key, (const char *const *)it->strs, it->nstrs);
    if (rc) {
      sp_fmt_meta_free(&tmp);
      return -1;
    }
  }
  sp_fmt_meta_free(dst);
  *dst = tmp;
  return 0;
}

void sp_fmt_meta_free(sp_fmt_meta *m) {
  if (!m)
    return;
  for (int64_t i = 0; i < m->n; i++) {
    item_clear(&m->items[i]);
    free(m->items[i].key);
  }
  free(m->items);
  m->items = NULL;
  m->n = 0;
}

int sp_fmt_utf8_len(const unsigned char *p) {
  int n = *p < 0x80                 ? 1
          : *p >= 0xc2 && *p < 0xe0 ? 2
          : *p >= 0xe0 && *p < 0xf0 ? 3
          : *p >= 0xf0 && *p < 0xf5 ? 4
                                    : 0;
  /* The second byte's range after E0, ED, F0 and F4 is what keeps out
   * overlong forms, surrogates and code points past U+10FFFF, which
   * strict decoders (Python's, XML parsers) refuse. */
  unsigned lo = *p == 0xe0 ? 0xa0 : *p == 0xf0 ? 0x90 : 0x80;
  unsigned hi = *p == 0xed ? 0x9f : *p == 0xf4 ? 0x8f : 0xbf;
  if (n > 1 && (p[1] < lo || p[1] > hi))
    return 0;
  for (int i = 2; i < n; i++)
    if ((p[i] & 0xc0) != 0x80)
      return 0;
  return n;
}

char *sp_fmt_utf8_dup(const char *s, int *oom) {
  *oom = 0;
  const unsigned char *p = (const unsigned char *)s;
  size_t bad = 0, n = 0;
  while (p[n]) {
    int k = sp_fmt_utf8_len(p + n);
    bad += k == 0;
    n += k ? (size_t)k : 1;
  }
  if (!bad)
    return NULL;
  char *d = malloc(n + 3 * bad + 1);
  if (!d) {
    *oom = 1;
    return NULL;
  }
  size_t at = 0;
  for (size_t i = 0; i < n;) {
    int k = sp_fmt_utf8_len(p + i);
    if (k == 0) {
      snprintf(d + at, 5, "\\x%02x", p[i]);
      at += 4;
      i++;
    } else {
      memcpy(d + at, p + i, (size_t)k);
      at += (size_t)k;
      i += (size_t)k;
    }
  }
  d[at] = '\0';
  return d;
}
