/* meta.c - run metadata (key -> string, integer or string list) as deep
 * copies, so a rank's metadata outlives whatever it was read from. */
#include "sp_common.h"
#include "sp_rank.h"

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

const char *const sp_fmt_per_rank_keys[SP_FMT_PER_RANK] = {
    "hostname",
    "clock_sync_method",
    "clock_offset_init_ns",
    "clock_rtt_init_ns",
    "clock_sync_init_ns",
    "clock_offset_fin_ns",
    "clock_rtt_fin_ns",
    "clock_sync_fin_ns",
    "clock_sync_init_failed",
    "clock_sync_fin_failed"};

int sp_fmt_per_rank_values(const sp_fmt_meta *m, int32_t rank, char **out) {
  const sp_fmt_meta_item *ids = sp_fmt_meta_get(m, "rank_ids");
  int64_t at = -1;
  char num[24];
  snprintf(num, sizeof num, "%d", rank);
  for (int64_t i = 0;
       ids && ids->type == SP_FMT_META_STRLIST && i < ids->nstrs && at < 0; i++)
    if (ids->strs[i] && strcmp(ids->strs[i], num) == 0)
      at = i;
  for (int k = 0; k < SP_FMT_PER_RANK; k++) {
    char key[80];
    snprintf(key, sizeof key, "rank_%s", sp_fmt_per_rank_keys[k]);
    const sp_fmt_meta_item *l = at >= 0 ? sp_fmt_meta_get(m, key) : NULL;
    const char *v = NULL;
    out[k] = NULL;
    if (l && l->type == SP_FMT_META_STRLIST && at < l->nstrs) {
      v = l->strs[at] && l->strs[at][0] ? l->strs[at] : NULL;
    } else if (at < 0) {
      const sp_fmt_meta_item *it = sp_fmt_meta_get(m, sp_fmt_per_rank_keys[k]);
      if (it && it->type == SP_FMT_META_INT)
        snprintf(num, sizeof num, "%lld", (long long)it->i64);
      v = !it                           ? NULL
          : it->type == SP_FMT_META_STR ? it->str
          : it->type == SP_FMT_META_INT ? num
                                        : NULL;
    }
    if (v && !(out[k] = strdup(v)))
      return -1;
  }
  return 0;
}

int sp_fmt_per_rank_meta(sp_fmt_meta *m, char *const *per, const int32_t *ranks,
                         int64_t n) {
  const char **v = calloc(n > 0 ? (size_t)n : 1, sizeof *v);
  char(*ids)[16] = calloc(n > 0 ? (size_t)n : 1, sizeof *ids);
  int rc = v && ids ? 0 : -1, any = 0;
  for (int k = 0; rc == 0 && k < SP_FMT_PER_RANK; k++) {
    int64_t nr = 0, have = 0;
    for (int64_t c = 0; c < n; c++) {
      const char *x = per[(size_t)c * SP_FMT_PER_RANK + (size_t)k];
      if (c > 0 && ranks[c - 1] == ranks[c]) {
        if (!v[nr - 1][0] && x)
          v[nr - 1] = x, have = 1;
        continue;
      }
      have |= x != NULL;
      v[nr++] = x ? x : "";
    }
    if (!have)
      continue;
    char key[80];
    snprintf(key, sizeof key, "rank_%s", sp_fmt_per_rank_keys[k]);
    rc = sp_fmt_meta_set_strlist(m, key, v, nr);
    any = 1;
  }
  if (rc == 0 && any) {
    int64_t nr = 0;
    for (int64_t c = 0; c < n; c++)
      if (c == 0 || ranks[c - 1] != ranks[c]) {
        snprintf(ids[nr], sizeof ids[nr], "%d", ranks[c]);
        v[nr] = ids[nr];
        nr++;
      }
    rc = sp_fmt_meta_set_strlist(m, "rank_ids", v, nr);
  }
  free(v);
  free(ids);
  return rc;
}
