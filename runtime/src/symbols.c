/* symbols.c - names for __cyg_profile regions: the function symbol that
 * contains an address, from the object's full .symtab (so static functions
 * are found too), else the dynamic table, demangled when the program has a
 * C++ runtime; and where an OpenMP construct's code pointer is. Runs off the
 * hot path only (the writer thread, finalize, the program's dlclose). */
#include "internal.h"

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

typedef struct sym {
  uintptr_t lo, hi; /* link-time addresses [lo, hi) */
  const char *name;
} sym_t;

typedef struct object {
  struct object *next;
  uintptr_t bias; /* load address - link-time address */
  char path[PATH_MAX];
  void *map;
  size_t map_size;
  sym_t *syms;
  size_t nsyms;
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

static int sym_cmp(const void *a, const void *b) {
  const sym_t *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Collects STT_FUNC symbols of one symbol table section. */
static void add_table(object_t *o, const Elf64_Ehdr *eh, const Elf64_Shdr *sh,
                      size_t size) {
  if (sh->sh_link >= eh->e_shnum || sh->sh_entsize != sizeof(Elf64_Sym) ||
      sh->sh_offset + sh->sh_size > size)
    return;
  const Elf64_Shdr *strsh =
      (const Elf64_Shdr *)((const char *)eh + eh->e_shoff) + sh->sh_link;
  if (strsh->sh_offset + strsh->sh_size > size)
    return;
  const char *strtab = (const char *)eh + strsh->sh_offset;
  const Elf64_Sym *s = (const Elf64_Sym *)((const char *)eh + sh->sh_offset);
  size_t n = sh->sh_size / sizeof(Elf64_Sym);
  sym_t *grown = realloc(o->syms, (o->nsyms + n) * sizeof(sym_t));
  if (!grown)
    return;
  o->syms = grown;
  for (size_t i = 0; i < n; i++) {
    if (ELF64_ST_TYPE(s[i].st_info) != STT_FUNC || s[i].st_shndx == SHN_UNDEF ||
        s[i].st_name >= strsh->sh_size)
      continue;
    sym_t *d = &o->syms[o->nsyms++];
    d->lo = s[i].st_value;
    d->hi = s[i].st_value + (s[i].st_size ? s[i].st_size : 1);
    d->name = strtab + s[i].st_name;
  }
}

static void load_symbols(object_t *o) {
  int fd = open(o->path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0)
    return;
  if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
    close(fd);
    return;
  }
  void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED)
    return;
  o->map = map;
  o->map_size = (size_t)st.st_size;
  const Elf64_Ehdr *eh = map;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > o->map_size)
    return;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)((const char *)map + eh->e_shoff);
  int have_symtab = 0;
  for (unsigned i = 0; i < eh->e_shnum; i++)
    if (sh[i].sh_type == SHT_SYMTAB) {
      add_table(o, eh, &sh[i], o->map_size);
      have_symtab = 1;
    }
  if (!have_symtab)
    for (unsigned i = 0; i < eh->e_shnum; i++)
      if (sh[i].sh_type == SHT_DYNSYM)
        add_table(o, eh, &sh[i], o->map_size);
  qsort(o->syms, o->nsyms, sizeof(sym_t), sym_cmp);
}

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
  load_symbols(o);
  o->next = objects;
  objects = o;
  return o;
}

static const sym_t *lookup_sym(object_t *o, uintptr_t a) {
  size_t lo = 0, hi = o->nsyms;
  while (lo < hi) { /* last symbol with start <= a */
    size_t mid = lo + (hi - lo) / 2;
    if (o->syms[mid].lo <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return NULL;
  /* Aliases share a start; prefer one whose range holds a. */
  for (size_t i = lo; i-- > 0 && o->syms[i].lo == o->syms[lo - 1].lo;)
    if (a < o->syms[i].hi)
      return &o->syms[i];
  return NULL;
}

static const char *lookup(object_t *o, uintptr_t a) {
  const sym_t *s = lookup_sym(o, a);
  return s ? s->name : NULL;
}

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* Fortran module procedures: gfortran's __<module>_MOD_<proc> and Flang's
 * _QM<module>P<proc> become <module>::<proc>; Flang's _QP<proc> becomes
 * <proc>. Returns NULL for anything else. */
static char *fortran_name(const char *name) {
  char buf[512];
  const char *mod = NULL, *sep = NULL, *proc = NULL;
  if (strncmp(name, "__", 2) == 0 && (sep = strstr(name + 2, "_MOD_"))) {
    mod = name + 2;
    proc = sep + 5;
  } else if (strncmp(name, "_QM", 3) == 0 && (sep = strchr(name + 3, 'P')) &&
             sep[1]) {
    mod = name + 3;
    proc = sep + 1;
  } else if (strncmp(name, "_QP", 3) == 0 && name[3]) {
    return strdup(name + 3);
  }
  if (!mod || sep == mod || !*proc)
    return NULL;
  snprintf(buf, sizeof buf, "%.*s::%s", (int)(sep - mod), mod, proc);
  return strdup(buf);
}

static char *demangle(const char *name) {
  char *f = fortran_name(name);
  if (f)
    return f;
  static demangle_fn fn;
  static int looked;
  if (!looked) {
    /* Only a program that has a C++ runtime has C++ names to demangle. */
    fn = (demangle_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    looked = 1;
  }
  if (fn && name[0] == '_' && name[1] == 'Z') {
    int status = 0;
    char *d = fn(name, NULL, NULL, &status);
    if (d && status == 0)
      return d;
    free(d);
  }
  return strdup(name);
}

/* The demangled symbol table name of addr, or NULL (sym_lock held). */
static char *table_name(const void *addr) {
  object_t *o = object_for(addr);
  const char *name = o ? lookup(o, (uintptr_t)addr - o->bias) : NULL;
  return name ? demangle(name) : NULL;
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
    pthread_mutex_lock(&sym_lock); /* demangle's lookup of __cxa_demangle */
    name = demangle(info.dli_sname);
    pthread_mutex_unlock(&sym_lock);
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
  if (__atomic_load_n(&r->name, __ATOMIC_ACQUIRE))
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
    if (o->map)
      munmap(o->map, o->map_size);
    free(o->syms);
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

int sp__symbol_where(const void *addr, char **file, int *line, char **func,
                     uintptr_t *off) {
  *file = *func = NULL;
  *line = -1;
  *off = 0;
  pthread_mutex_lock(&sym_lock);
  object_t *o = object_for(addr);
  if (!o) {
    pthread_mutex_unlock(&sym_lock);
    return -1;
  }
  uintptr_t a = (uintptr_t)addr - o->bias;
  const sym_t *s = lookup_sym(o, a);
  if (s) {
    *func = demangle(s->name);
    *off = a - s->lo;
  }
  if (o->map)
    sp__lines_find(o->map, o->map_size, a, s ? s->lo : 0, file, line);
  pthread_mutex_unlock(&sym_lock);
  return *file || *func ? 0 : -1;
}

/* ---- a parallel region's call: the location it passes ----
 * OMPT gives a parallel region the return address of the call that starts
 * it (__kmpc_fork_call(ident, argc, outlined, ...)); after optimisation
 * the row of that address may hold another statement's line, and the
 * outlined function's first row is the first statement of its body. The
 * call's own first argument does not move: the location record ident_t,
 * whose psource ";file;function;line;column;;" holds the directive's line
 * (Clang with debug information, Flang always). It is found from the
 * instruction that loads it before the call. */
/* The bytes of the object's file at link-time address a, in an allocated
 * section (executable ones if exec); *avail: how many follow in it. */
static const unsigned char *file_bytes(const object_t *o, uintptr_t a, int exec,
                                       size_t *avail) {
  const Elf64_Ehdr *eh = o->map;
  if (!eh || o->map_size < sizeof *eh ||
      memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff > o->map_size ||
      (o->map_size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
    return NULL;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)((const char *)eh + eh->e_shoff);
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_PROGBITS || !(sh[i].sh_flags & SHF_ALLOC) ||
        (exec && !(sh[i].sh_flags & SHF_EXECINSTR)) ||
        sh[i].sh_offset > o->map_size ||
        sh[i].sh_size > o->map_size - sh[i].sh_offset || a < sh[i].sh_addr ||
        a - sh[i].sh_addr >= sh[i].sh_size)
      continue;
    *avail = (size_t)(sh[i].sh_size - (a - sh[i].sh_addr));
    return (const unsigned char *)eh + sh[i].sh_offset + (a - sh[i].sh_addr);
  }
  return NULL;
}

static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p) {
  return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* A pointer stored at link-time address a: the file's value, or, where
 * the file holds 0 there, the addend of its relative relocation. */
static uintptr_t stored_ptr(const object_t *o, uintptr_t a) {
  size_t n;
  const unsigned char *p = file_bytes(o, a, 0, &n);
  if (!p || n < 8)
    return 0;
  uint64_t v = rd64(p);
  if (v)
    return (uintptr_t)v;
  const Elf64_Ehdr *eh = o->map;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)((const char *)eh + eh->e_shoff);
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_RELA || sh[i].sh_entsize != sizeof(Elf64_Rela) ||
        sh[i].sh_offset > o->map_size ||
        sh[i].sh_size > o->map_size - sh[i].sh_offset)
      continue;
    const Elf64_Rela *r =
        (const Elf64_Rela *)((const char *)eh + sh[i].sh_offset);
    for (size_t k = 0; k < sh[i].sh_size / sizeof *r; k++) {
      uint32_t t = (uint32_t)ELF64_R_TYPE(r[k].r_info);
      if (r[k].r_offset == a && (t == 8 /* R_X86_64_RELATIVE */ ||
                                 t == 1027 /* R_AARCH64_RELATIVE */))
        return (uintptr_t)r[k].r_addend;
    }
  }
  return 0;
}

/* The code of the call whose return address is ret: the bytes from at most
 * CALL_WINDOW before its first byte (a call with many arguments stores
 * them on the stack between the loads of its first ones and the call) (not
 * before its function's start lo) to it. */
#define CALL_WINDOW 512
typedef struct callsite {
  const unsigned char *code; /* the byte at link-time address start */
  uintptr_t start, call;     /* the window's start, the call's first byte */
} callsite_t;

#if defined(__x86_64__)
/* call rel32, or call *disp32(%rip) (-fno-plt) */
static int call_at(const object_t *o, uintptr_t ret, uintptr_t lo,
                   callsite_t *c) {
  size_t n;
  uintptr_t from = ret - lo > CALL_WINDOW + 6 ? ret - CALL_WINDOW - 6 : lo;
  const unsigned char *p = file_bytes(o, from, 1, &n);
  if (!p || n < ret - from || ret - from < 6)
    return 0;
  const unsigned char *end = p + (ret - from);
  if (end[-5] == 0xe8)
    c->call = ret - 5;
  else if (end[-6] == 0xff && end[-5] == 0x15)
    c->call = ret - 6;
  else
    return 0;
  c->code = p;
  c->start = from;
  return 1;
}

/* Whether the instruction at p[i] (before len) loads register *reg: by lea
 * disp32(%rip) or mov $imm32 (1, the value in *v), or by a move from
 * another register (2, *reg becomes that one). reg: x86's numbers. */
static int x86_load(const unsigned char *p, size_t i, size_t len, uintptr_t at,
                    int *reg, uintptr_t *v) {
  int r = *reg, x = r >= 8, lo3 = r & 7;
  unsigned rex = p[i];
  if (i + 7 <= len && rex == (0x48u | (unsigned)x << 2) && p[i + 1] == 0x8d &&
      p[i + 2] == (0x05 | lo3 << 3)) {
    *v = at + 7 + (uintptr_t)(intptr_t)(int32_t)rd32(p + i + 3);
    return 1;
  }
  if (!x && i + 5 <= len && p[i] == 0xb8 + lo3) {
    *v = rd32(p + i + 1);
    return 1;
  }
  if (x && i + 6 <= len && p[i] == 0x41 && p[i + 1] == 0xb8 + lo3) {
    *v = rd32(p + i + 2);
    return 1;
  }
  if (i + 7 <= len && rex == (0x48u | (unsigned)x) && p[i + 1] == 0xc7 &&
      p[i + 2] == (0xc0 | lo3)) {
    *v = (uintptr_t)(intptr_t)(int32_t)rd32(p + i + 3);
    return 1;
  }
  if (i + 3 <= len && (rex & 0xf8) == 0x48 && (p[i + 2] & 0xc0) == 0xc0) {
    int mreg = (rex & 4 ? 8 : 0) | ((p[i + 2] >> 3) & 7);
    int mrm = (rex & 1 ? 8 : 0) | (p[i + 2] & 7);
    if (p[i + 1] == 0x89 && mrm == r && mreg != r) {
      *reg = mreg;
      return 2;
    }
    if (p[i + 1] == 0x8b && mreg == r && mrm != r) {
      *reg = mrm;
      return 2;
    }
  }
  return 0;
}

/* The address the instructions before the call load into argument
 * register reg (x86 number: 2 rdx, 7 rdi), the nearest load to the call
 * that ok accepts (the bytes are read backwards, so some "loads" are the
 * inside of other instructions: ok tells), followed through register
 * moves (a loop, or calls before it with the same argument, keep it in
 * another register). While
 * the register is one a call may change, the scan stops at an earlier call
 * into this object: what comes before it loads another call's arguments.
 * 0 if none. */
static uintptr_t x86_arg(const object_t *o, const callsite_t *c, int reg,
                         int (*ok)(const object_t *, uintptr_t)) {
  const unsigned char *p = c->code;
  size_t len = c->call - c->start;
  for (size_t i = len; i-- > 0;) {
    uintptr_t v = 0;
    int k = x86_load(p, i, len, c->start + i, &reg, &v);
    if (k == 1 && ok(o, v))
      return v;
    int saved = reg == 3 || reg == 5 || reg >= 12; /* callee-saved */
    if (k == 0 && !saved && i + 5 <= len && p[i] == 0xe8) {
      size_t n;
      uintptr_t t =
          c->start + i + 5 + (uintptr_t)(intptr_t)(int32_t)rd32(p + i + 1);
      if (file_bytes(o, t, 1, &n))
        return 0;
    }
  }
  return 0;
}
#elif defined(__aarch64__)
/* bl imm26 */
static int call_at(const object_t *o, uintptr_t ret, uintptr_t lo,
                   callsite_t *c) {
  size_t n;
  uintptr_t from = ret - lo > CALL_WINDOW + 4 ? ret - CALL_WINDOW - 4 : lo;
  from += (ret - from) & 3;
  const unsigned char *p = file_bytes(o, from, 1, &n);
  if (!p || n < ret - from || ret - from < 4 ||
      (rd32(p + (ret - from) - 4) & 0xfc000000u) != 0x94000000u)
    return 0;
  c->code = p;
  c->start = from;
  c->call = ret - 4;
  return 1;
}

/* The address adrp and add (one or more: GCC adds a section anchor's
 * offset, then the object's) load into argument register reg (x0) before
 * the call, the nearest load to it, followed through register moves (mov
 * reg, xM), if ok accepts it; 0 if another instruction writes it first.
 * While the register is one a call may change (x0-x18), the scan stops at
 * an earlier bl. 0 if none. */
static uintptr_t a64_arg(const object_t *o, const callsite_t *c, int reg,
                         int (*ok)(const object_t *, uintptr_t)) {
  uintptr_t add = 0; /* what the adds after the adrp add */
  for (size_t i = (c->call - c->start) / 4; i-- > 0;) {
    uint32_t in = rd32(c->code + 4 * i);
    if ((in & 0xfc000000u) == 0x94000000u && reg <= 18)
      return 0;
    if ((in & 0x1f) != (uint32_t)reg || ((in >> 26) & 7) == 5)
      continue; /* writes go to bits 0-4; branches write no register */
    if (((in >> 25) & 5) == 4 && !(in & (1u << 22)) &&
        ((in >> 24) & 0x3b) != 0x18)
      continue; /* a store (not a load, nor a literal load) */
    if ((in & 0xffe0ffe0u) == 0xaa0003e0u) { /* orr xd, xzr, xm */
      reg = (int)((in >> 16) & 31);
      if (reg == 31)
        return 0;
    } else if ((in & 0xff800000u) == 0x91000000u) { /* add xd, xn, #imm */
      uintptr_t imm = (in >> 10) & 0xfff;
      add += in & (1u << 22) ? imm << 12 : imm;
      reg = (int)((in >> 5) & 31);
      if (reg == 31)
        return 0;                                   /* sp */
    } else if ((in & 0x9f000000u) == 0x90000000u) { /* adrp xd, page */
      uint64_t imm = ((uint64_t)((in >> 5) & 0x7ffff) << 2) | ((in >> 29) & 3);
      int64_t off = (int64_t)(imm << 43) >> 31; /* sign-extend 21, << 12 */
      uintptr_t pc = c->start + 4 * i;
      uintptr_t v = (pc & ~(uintptr_t)0xfff) + (uintptr_t)off + add;
      return ok(o, v) ? v : 0;
    } else {
      return 0; /* written otherwise (a load from the stack, ...) */
    }
  }
  return 0;
}
#endif

/* psource of an ident_t at a (its 4th field, after four int32): a string
 * ";file;function;line;column;;" in o, or NULL. */
static const char *psource(const object_t *o, uintptr_t a) {
  size_t n;
  uintptr_t s = stored_ptr(o, a + 16);
  const char *p = s ? (const char *)file_bytes(o, s, 0, &n) : NULL;
  if (!p || *p != ';' || !memchr(p, 0, n < 4096 ? n : 4096))
    return NULL;
  return p;
}

static int is_ident(const object_t *o, uintptr_t a) {
  return psource(o, a) != NULL;
}

/* The line of psource's third field; 0 if none. */
static int psource_line(const char *p) {
  for (int f = 0; f < 2 && p; f++)
    p = strchr(p + 1, ';');
  if (!p)
    return 0;
  long v = strtol(p + 1, NULL, 10);
  return v > 0 && v <= INT32_MAX ? (int)v : 0;
}

int sp__symbol_fork(const void *ret, char **file, int *line) {
  *file = NULL;
  *line = -1;
  pthread_mutex_lock(&sym_lock);
  object_t *o = object_for(ret);
  if (!o || !o->map) {
    pthread_mutex_unlock(&sym_lock);
    return -1;
  }
  uintptr_t a = (uintptr_t)ret - o->bias;
  const sym_t *s = lookup_sym(o, a - 1);
  uintptr_t lo = s ? s->lo : 0;
  uintptr_t id = 0;
  callsite_t c;
#if defined(__x86_64__)
  if (call_at(o, a, lo, &c))
    id = x86_arg(o, &c, 7, is_ident);
#elif defined(__aarch64__)
  if (call_at(o, a, lo, &c))
    id = a64_arg(o, &c, 0, is_ident);
#else
  (void)c;
#endif
  const char *ps = id ? psource(o, id) : NULL;
  int pl = ps ? psource_line(ps) : 0;
  /* The file: psource's when it names one (Flang's says "FIRModule"),
   * else that of the call's row (whose line may be another's). */
  const char *pf = ps ? ps + 1 : NULL, *pe = pf ? strchr(pf, ';') : NULL;
  if (pl > 0 && pe && memchr(pf, '.', (size_t)(pe - pf)) &&
      (*file = malloc((size_t)(pe - pf) + 1)) != NULL) {
    memcpy(*file, pf, (size_t)(pe - pf));
    (*file)[pe - pf] = 0;
  }
  if (!*file) {
    int ignored;
    sp__lines_find(o->map, o->map_size, a - 1, lo, file, &ignored);
  }
  if (*file && pl > 0)
    *line = pl;
  pthread_mutex_unlock(&sym_lock);
  return *file ? 0 : -1;
}
