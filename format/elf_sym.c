/* elf_sym.c - an ELF file on disk mapped for the names of its code
 * addresses: function symbols (.symtab, else .dynsym), the build-id note,
 * demangling, and where an OpenMP parallel region's call is (its ident_t,
 * decoded from the x86-64 or aarch64 instructions before the call). */
#include "sp_elf.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct sym {
  uint64_t lo, hi; /* link-time addresses [lo, hi) */
  const char *name;
} sym_t;

struct sp_fmt_elf {
  const void *map; /* NULL: nothing to find */
  size_t size;
  sym_t *syms;
  size_t nsyms;
  int machine; /* e_machine */
};

static int sym_cmp(const void *a, const void *b) {
  const sym_t *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The file's header and section table, if they are those of a 64-bit ELF
 * that fits the mapping. */
static const Elf64_Shdr *sections(const void *map, size_t size,
                                  const Elf64_Ehdr **ehp) {
  const Elf64_Ehdr *eh = map;
  if (!eh || size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff > size ||
      (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
    return NULL;
  *ehp = eh;
  return (const Elf64_Shdr *)((const char *)map + eh->e_shoff);
}

/* Collects STT_FUNC symbols of one symbol table section. */
static void add_table(sp_fmt_elf *o, const Elf64_Ehdr *eh,
                      const Elf64_Shdr *sh) {
  size_t size = o->size;
  if (sh->sh_link >= eh->e_shnum || sh->sh_entsize != sizeof(Elf64_Sym) ||
      sh->sh_offset > size || sh->sh_size > size - sh->sh_offset)
    return;
  const Elf64_Shdr *strsh =
      (const Elf64_Shdr *)((const char *)eh + eh->e_shoff) + sh->sh_link;
  if (strsh->sh_offset > size || strsh->sh_size > size - strsh->sh_offset)
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
        s[i].st_name >= strsh->sh_size ||
        !memchr(strtab + s[i].st_name, 0, strsh->sh_size - s[i].st_name))
      continue;
    sym_t *d = &o->syms[o->nsyms++];
    d->lo = s[i].st_value;
    d->hi = s[i].st_value + (s[i].st_size ? s[i].st_size : 1);
    d->name = strtab + s[i].st_name;
  }
}

sp_fmt_elf *sp_fmt_elf_open(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  struct stat st;
  sp_fmt_elf *o = calloc(1, sizeof *o);
  if (!o || fstat(fd, &st) != 0) {
    int e = errno;
    free(o);
    close(fd);
    errno = o ? e : ENOMEM;
    return NULL;
  }
  if ((size_t)st.st_size >= sizeof(Elf64_Ehdr)) {
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      o->map = map;
      o->size = (size_t)st.st_size;
    }
  }
  close(fd);
  const Elf64_Ehdr *eh;
  const Elf64_Shdr *sh = sections(o->map, o->size, &eh);
  if (!sh)
    return o;
  o->machine = eh->e_machine;
  int have_symtab = 0;
  for (unsigned i = 0; i < eh->e_shnum; i++)
    if (sh[i].sh_type == SHT_SYMTAB) {
      add_table(o, eh, &sh[i]);
      have_symtab = 1;
    }
  if (!have_symtab)
    for (unsigned i = 0; i < eh->e_shnum; i++)
      if (sh[i].sh_type == SHT_DYNSYM)
        add_table(o, eh, &sh[i]);
  if (o->nsyms)
    qsort(o->syms, o->nsyms, sizeof(sym_t), sym_cmp);
  return o;
}

void sp_fmt_elf_close(sp_fmt_elf *e) {
  if (!e)
    return;
  if (e->map)
    munmap((void *)(uintptr_t)e->map, e->size);
  free(e->syms);
  free(e);
}

/* The GNU build-id note among the notes of one section. */
static size_t note_build_id(const unsigned char *p, size_t n,
                            unsigned char *out, size_t cap) {
  while (n >= 12) {
    uint32_t nsz, dsz, type;
    memcpy(&nsz, p, 4);
    memcpy(&dsz, p + 4, 4);
    memcpy(&type, p + 8, 4);
    size_t na = ((size_t)nsz + 3) & ~(size_t)3,
           da = ((size_t)dsz + 3) & ~(size_t)3;
    if (na > n - 12 || da > n - 12 - na)
      return 0;
    if (type == NT_GNU_BUILD_ID && nsz == 4 && memcmp(p + 12, "GNU", 4) == 0) {
      memcpy(out, p + 12 + na, dsz < cap ? dsz : cap);
      return dsz;
    }
    p += 12 + na + da;
    n -= 12 + na + da;
  }
  return 0;
}

size_t sp_fmt_elf_build_id(const sp_fmt_elf *e, unsigned char *out,
                           size_t cap) {
  const Elf64_Ehdr *eh;
  const Elf64_Shdr *sh = e ? sections(e->map, e->size, &eh) : NULL;
  for (unsigned i = 0; sh && i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_NOTE || sh[i].sh_offset > e->size ||
        sh[i].sh_size > e->size - sh[i].sh_offset)
      continue;
    size_t n = note_build_id((const unsigned char *)e->map + sh[i].sh_offset,
                             (size_t)sh[i].sh_size, out, cap);
    if (n)
      return n;
  }
  return 0;
}

static const sym_t *lookup_sym(const sp_fmt_elf *o, uint64_t a) {
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

const char *sp_fmt_elf_func(const sp_fmt_elf *e, uint64_t a, uint64_t *lo) {
  const sym_t *s = e ? lookup_sym(e, a) : NULL;
  if (lo)
    *lo = s ? s->lo : 0;
  return s ? s->name : NULL;
}

int sp_fmt_elf_line(const sp_fmt_elf *e, uint64_t a, uint64_t lo, char **file,
                    int *line) {
  *file = NULL;
  *line = -1;
  if (!e || !e->map)
    return -1;
  return sp__fmt_elf_lines(e->map, e->size, a, lo, file, line);
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

char *sp_fmt_demangle(const char *name, int load) {
  char *f = fortran_name(name);
  if (f)
    return f;
  if (name[0] == '_' && name[1] == 'Z') {
    /* Looked up each time: the library keeps no state, and names are few.
     * Only a program that has a C++ runtime has C++ names; a tool (load)
     * brings libstdc++ in for them. */
    demangle_fn fn =
        (demangle_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!fn && load) {
      void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
      fn = h ? (demangle_fn)(uintptr_t)dlsym(h, "__cxa_demangle") : NULL;
    }
    int status = 0;
    char *d = fn ? fn(name, NULL, NULL, &status) : NULL;
    if (d && status == 0)
      return d;
    free(d);
  }
  return strdup(name);
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
static const unsigned char *file_bytes(const sp_fmt_elf *o, uintptr_t a,
                                       int exec, size_t *avail) {
  const Elf64_Ehdr *eh = o->map;
  if (!eh || o->size < sizeof *eh ||
      memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff > o->size ||
      (o->size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
    return NULL;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)((const char *)eh + eh->e_shoff);
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_PROGBITS || !(sh[i].sh_flags & SHF_ALLOC) ||
        (exec && !(sh[i].sh_flags & SHF_EXECINSTR)) ||
        sh[i].sh_offset > o->size ||
        sh[i].sh_size > o->size - sh[i].sh_offset || a < sh[i].sh_addr ||
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
static uintptr_t stored_ptr(const sp_fmt_elf *o, uintptr_t a) {
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
        sh[i].sh_offset > o->size || sh[i].sh_size > o->size - sh[i].sh_offset)
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

/* x86-64: call rel32, or call *disp32(%rip) (-fno-plt) */
static int x86_call_at(const sp_fmt_elf *o, uintptr_t ret, uintptr_t lo,
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
static uintptr_t x86_arg(const sp_fmt_elf *o, const callsite_t *c, int reg,
                         int (*ok)(const sp_fmt_elf *, uintptr_t)) {
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
/* aarch64: bl imm26 */
static int a64_call_at(const sp_fmt_elf *o, uintptr_t ret, uintptr_t lo,
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
static uintptr_t a64_arg(const sp_fmt_elf *o, const callsite_t *c, int reg,
                         int (*ok)(const sp_fmt_elf *, uintptr_t)) {
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

/* psource of an ident_t at a (its 4th field, after four int32): a string
 * ";file;function;line;column;;" in o, or NULL. */
static const char *psource(const sp_fmt_elf *o, uintptr_t a) {
  size_t n;
  uintptr_t s = stored_ptr(o, a + 16);
  const char *p = s ? (const char *)file_bytes(o, s, 0, &n) : NULL;
  if (!p || *p != ';' || !memchr(p, 0, n < 4096 ? n : 4096))
    return NULL;
  return p;
}

static int is_ident(const sp_fmt_elf *o, uintptr_t a) {
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

int sp_fmt_elf_fork(const sp_fmt_elf *o, uint64_t ret, char **file, int *line) {
  *file = NULL;
  *line = -1;
  if (!o || !o->map)
    return -1;
  uintptr_t a = (uintptr_t)ret;
  const sym_t *s = lookup_sym(o, a - 1);
  uintptr_t lo = s ? s->lo : 0;
  uintptr_t id = 0;
  callsite_t c;
  /* The file's machine, not the reader's: a tool may read another's. */
  if (o->machine == EM_X86_64 && x86_call_at(o, a, lo, &c))
    id = x86_arg(o, &c, 7, is_ident);
  else if (o->machine == EM_AARCH64 && a64_call_at(o, a, lo, &c))
    id = a64_arg(o, &c, 0, is_ident);
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
    sp__fmt_elf_lines(o->map, o->size, a - 1, lo, file, &ignored);
  }
  if (*file && pl > 0)
    *line = pl;
  return *file ? 0 : -1;
}
