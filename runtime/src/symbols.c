/* symbols.c - names of address regions while the program runs: the
 * loaded object holding an address (dl_iterate_phdr, and what a dlclose
 * takes away), then its file read by the format library's ELF reader
 * (format/elf_sym.c, the rules the tools use too). Runs off the hot path
 * only (the writer thread, finalize, the program's dlclose). */
#include "internal.h"
#include "sp_sym.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct object {
  struct object *next;
  uintptr_t bias; /* load address - link-time address */
  char path[PATH_MAX];
  sp_fmt_elf *img; /* NULL: its file could not be read */
} object_t;

/* The objects whose tables were read, and a dlclose's view of what was
 * loaded before it: both guarded by sym_lock. Recursive, as naming an
 * OpenMP region while retiring comes back through sp__symbol_where. */
static object_t *objects;
static pthread_mutex_t sym_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

void sp__symbols_lock(void) { pthread_mutex_lock(&sym_lock); }
void sp__symbols_unlock(void) { pthread_mutex_unlock(&sym_lock); }

/* One loaded object: its bias, the span of its PT_LOAD segments and its
 * file. A dlclose's list stays visible to object_for until the regions of
 * the objects it unloaded are named, so they are named from their files. */
typedef struct loaded {
  uintptr_t bias, lo, hi;
  char *path;
  int gone;
} loaded_t;

typedef struct snapshot {
  struct snapshot *next;
  loaded_t *v;
  size_t n, cap;
  unsigned long long subs; /* dlpi_subs: objects unloaded so far */
  int failed;
} snapshot_t;

static snapshot_t *closing; /* dlclose calls under way, innermost first */

struct find_ctx {
  uintptr_t addr;
  uintptr_t bias;
  char path[PATH_MAX];
  int found;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct find_ctx *c = data;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (c->addr >= lo && c->addr < lo + ph->p_memsz) {
      c->bias = info->dlpi_addr;
      const char *name = info->dlpi_name;
      if (!name || !*name)
        name = "/proc/self/exe";
      snprintf(c->path, sizeof c->path, "%s", name);
      c->found = 1;
      return 1;
    }
  }
  return 0;
}

/* An object being closed that held addr (sym_lock held). */
static int find_closing(struct find_ctx *c) {
  for (snapshot_t *s = closing; s; s = s->next)
    for (size_t i = 0; i < s->n; i++)
      if (c->addr >= s->v[i].lo && c->addr < s->v[i].hi) {
        c->bias = s->v[i].bias;
        snprintf(c->path, sizeof c->path, "%s", s->v[i].path);
        return c->found = 1;
      }
  return 0;
}

/* The object holding addr, its tables read (sym_lock held). */
static object_t *object_for(const void *addr) {
  struct find_ctx c = {.addr = (uintptr_t)addr};
  dl_iterate_phdr(find_object, &c);
  if (!c.found && !find_closing(&c))
    return NULL;
  for (object_t *o = objects; o; o = o->next)
    if (o->bias == c.bias && strcmp(o->path, c.path) == 0)
      return o;
  object_t *o = calloc(1, sizeof *o);
  if (!o)
    return NULL;
  o->bias = c.bias;
  memcpy(o->path, c.path, sizeof o->path);
  o->img = sp_fmt_elf_open(o->path);
  o->next = objects;
  objects = o;
  return o;
}

/* The demangled symbol table name of addr, or NULL (sym_lock held). */
static char *table_name(const void *addr) {
  object_t *o = object_for(addr);
  return o ? sp_fmt_sym_func(o->img, (uintptr_t)addr - o->bias, 0) : NULL;
}

static char *hex_name(const void *addr) {
  char buf[64];
  snprintf(buf, sizeof buf, "0x%lx", (unsigned long)(uintptr_t)addr);
  return strdup(buf);
}

char *sp__symbol_name(const void *addr) {
  pthread_mutex_lock(&sym_lock);
  char *name = table_name(addr);
  pthread_mutex_unlock(&sym_lock);
  if (name)
    return name;
  /* Outside the lock: dladdr waits for the loader's lock, which a thread
   * in dlclose holds while it may be waiting for ours. */
  Dl_info info;
  if (dladdr(addr, &info) && info.dli_sname && info.dli_saddr == addr) {
    name = sp_fmt_demangle(info.dli_sname, 0);
    if (name)
      return name;
  }
  return hex_name(addr);
}

/* Stores name (malloc'd, freed here) as r's unless another thread named r
 * first. The copy kept lives in the registry's arena, as sp_region's names
 * do: never freed, and no heap block the program's leak checker reports. */
static void set_name(sp__region_t *r, char *name) {
  if (!name)
    return;
  size_t n = strlen(name) + 1;
  sp__registry_lock();
  char *kept = sp__arena_alloc(n);
  sp__registry_unlock();
  if (kept)
    memcpy(kept, name, n);
  free(name);
  const char *none = NULL;
  if (kept)
    __atomic_compare_exchange_n(&r->name, &none, kept, 0, __ATOMIC_RELEASE,
                                __ATOMIC_RELAXED);
}

void sp__region_name(sp__region_t *r) {
  if (__atomic_load_n(&r->name, __ATOMIC_ACQUIRE) ||
      SP__TEST_CFG(test_no_symbols, 0))
    return;
  if (r->kind) {
    pthread_mutex_lock(&sym_lock); /* against a dlclose naming it */
    if (!__atomic_load_n(&r->name, __ATOMIC_ACQUIRE))
      sp__ompt_name(r);
    pthread_mutex_unlock(&sym_lock);
    return;
  }
  set_name(r, sp__symbol_name(r->addr));
}

/* ---- dlclose: name the regions of what goes, then retire them ---- */
static int snap_add(struct dl_phdr_info *info, size_t size, void *data) {
  snapshot_t *s = data;
  if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
    s->subs = info->dlpi_subs;
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    uintptr_t a = info->dlpi_addr + ph->p_vaddr;
    if (a < lo)
      lo = a;
    if (a + ph->p_memsz > hi)
      hi = a + ph->p_memsz;
  }
  if (lo >= hi)
    return 0;
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    loaded_t *v = realloc(s->v, cap * sizeof *v);
    if (!v) {
      s->failed = 1;
      return 1;
    }
    s->v = v;
    s->cap = cap;
  }
  const char *name =
      info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
  loaded_t *l = &s->v[s->n];
  if (!(l->path = strdup(name))) {
    s->failed = 1;
    return 1;
  }
  l->bias = info->dlpi_addr;
  l->lo = lo;
  l->hi = hi;
  l->gone = 0;
  s->n++;
  return 0;
}

static void snap_free(snapshot_t *s) {
  for (size_t i = 0; i < s->n; i++)
    free(s->v[i].path);
  free(s->v);
  free(s);
}

void *sp__dl_closing(void) {
  snapshot_t *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  dl_iterate_phdr(snap_add, s);
  if (s->failed) {
    snap_free(s);
    return NULL;
  }
  pthread_mutex_lock(&sym_lock);
  s->next = closing;
  closing = s;
  pthread_mutex_unlock(&sym_lock);
  return s;
}

static const loaded_t *gone_at(const snapshot_t *s, uintptr_t a) {
  for (size_t i = 0; i < s->n; i++)
    if (s->v[i].gone && a >= s->v[i].lo && a < s->v[i].hi)
      return &s->v[i];
  return NULL;
}

/* Names and retires the regions of the objects that went, forgets them in
 * every thread's cache and drops their tables (sym_lock held). */
static void retire(snapshot_t *s) {
  int32_t n = atomic_load_explicit(&sp__nregions, memory_order_acquire);
  for (int32_t id = 0; id < n; id++) {
    sp__region_t *r = sp__region_get(id);
    if (!r->addr || __atomic_load_n(&r->gone, __ATOMIC_RELAXED) ||
        !gone_at(s, (uintptr_t)r->addr))
      continue;
    if (!__atomic_load_n(&r->name, __ATOMIC_ACQUIRE)) {
      if (r->kind) {
        sp__ompt_name(r);
      } else {
        char *name = table_name(r->addr);
        set_name(r, name ? name : hex_name(r->addr));
      }
    }
    __atomic_store_n(&r->gone, 1, __ATOMIC_RELEASE);
  }
  for (size_t i = 0; i < s->n; i++)
    if (s->v[i].gone)
      sp__obj_gone(s->v[i].bias, s->v[i].lo);
  /* A thread's own cache is its alone but for this: an entry of a closed
   * object is cleared, so its next call looks the address up again. */
  for (sp__thread_t *t = atomic_load(&sp__threads); t; t = t->next)
    for (unsigned h = 0; h < 256; h++) {
      const void *fn = __atomic_load_n(&t->cyg_cache[h].fn, __ATOMIC_RELAXED);
      if (fn && gone_at(s, (uintptr_t)fn))
        __atomic_store_n(&t->cyg_cache[h].fn, NULL, __ATOMIC_RELAXED);
    }
  for (object_t **p = &objects; *p;) {
    object_t *o = *p;
    int drop = 0;
    for (size_t i = 0; i < s->n && !drop; i++)
      drop = s->v[i].gone && s->v[i].bias == o->bias &&
             strcmp(s->v[i].path, o->path) == 0;
    if (!drop) {
      p = &o->next;
      continue;
    }
    *p = o->next;
    sp_fmt_elf_close(o->img);
    free(o);
  }
}

struct live_ctx {
  const loaded_t *l;
  int live;
  unsigned long long subs;
};

static int is_live(struct dl_phdr_info *info, size_t size, void *data) {
  struct live_ctx *c = data;
  if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
    c->subs = info->dlpi_subs;
  const char *name =
      info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
  if (c->l && info->dlpi_addr == c->l->bias && strcmp(name, c->l->path) == 0)
    c->live = 1;
  return c->live;
}

void sp__dl_closed(void *before, int closed) {
  snapshot_t *s = before;
  if (!s)
    return;
  struct live_ctx c = {0};
  dl_iterate_phdr(is_live, &c); /* the unload count only */
  int any = 0;
  if (closed && c.subs != s->subs)
    for (size_t i = 0; i < s->n; i++) {
      struct live_ctx one = {.l = &s->v[i]};
      dl_iterate_phdr(is_live, &one);
      any |= s->v[i].gone = !one.live;
    }
  pthread_mutex_lock(&sym_lock);
  if (any)
    retire(s);
  for (snapshot_t **p = &closing; *p; p = &(*p)->next)
    if (*p == s) {
      *p = s->next;
      break;
    }
  pthread_mutex_unlock(&sym_lock);
  snap_free(s);
}

int sp__symbol_fork(const void *ret, char **file, int *line) {
  *file = NULL;
  *line = -1;
  pthread_mutex_lock(&sym_lock);
  object_t *o = object_for(ret);
  int rc =
      o ? sp_fmt_elf_fork(o->img, (uintptr_t)ret - o->bias, file, line) : -1;
  pthread_mutex_unlock(&sym_lock);
  return rc;
}

int sp__symbol_omp(const void *addr, int32_t kind, char **name, char **file,
                   int *line) {
  pthread_mutex_lock(&sym_lock);
  object_t *o = addr ? object_for(addr) : NULL;
  int rc = sp_fmt_sym_omp(o ? o->img : NULL, o ? o->bias : 0, (uintptr_t)addr,
                          kind, 0, name, file, line);
  pthread_mutex_unlock(&sym_lock);
  return rc;
}
