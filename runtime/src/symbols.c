/* symbols.c - names for __cyg_profile regions: the function symbol that
 * contains an address, from the object's full .symtab (so static functions
 * are found too), else the dynamic table, demangled when the program has a
 * C++ runtime; and where an OpenMP construct's code pointer is. Runs off the
 * hot path only (the writer thread, finalize). */
#include "internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
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

static object_t *objects;

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

static object_t *object_for(const void *addr) {
  struct find_ctx c = {.addr = (uintptr_t)addr};
  dl_iterate_phdr(find_object, &c);
  if (!c.found)
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

char *sp__symbol_name(const void *addr) {
  object_t *o = object_for(addr);
  const char *name = NULL;
  if (o)
    name = lookup(o, (uintptr_t)addr - o->bias);
  if (!name) {
    Dl_info info;
    if (dladdr(addr, &info) && info.dli_sname && info.dli_saddr == addr)
      name = info.dli_sname;
  }
  if (name)
    return demangle(name);
  char buf[64];
  snprintf(buf, sizeof buf, "0x%lx", (unsigned long)(uintptr_t)addr);
  return strdup(buf);
}

int sp__symbol_where(const void *addr, int flags, char **file, int *line,
                     char **func, uintptr_t *off) {
  *file = *func = NULL;
  *line = -1;
  *off = 0;
  object_t *o = object_for(addr);
  if (!o)
    return -1;
  uintptr_t a = (uintptr_t)addr - o->bias;
  const sym_t *s = lookup_sym(o, a);
  if (s) {
    *func = demangle(s->name);
    *off = a - s->lo;
  }
  if (o->map)
    sp__lines_find(o->map, o->map_size, a, s ? s->lo : 0, flags, file, line);
  return *file || *func ? 0 : -1;
}
