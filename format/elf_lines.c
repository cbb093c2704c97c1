/* elf_lines.c - file:line of a code address from an ELF image's DWARF
 * line table (.debug_line, versions 2 to 5), so OpenMP constructs are
 * named by where they are in the source. */
#include "sp_elf.h"

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct span {
  const unsigned char *p, *end;
} span_t;

typedef struct sect {
  const unsigned char *data;
  size_t size;
} sect_t;

/* Every read checks the bounds: a malformed table ends the search. */
static int rd_u(span_t *s, size_t n, uint64_t *v) {
  if ((size_t)(s->end - s->p) < n)
    return -1;
  uint64_t x = 0;
  for (size_t i = 0; i < n; i++) /* DWARF in an x86/aarch64 ELF: little */
    x |= (uint64_t)s->p[i] << (8 * i);
  s->p += n;
  *v = x;
  return 0;
}

static int rd_uleb(span_t *s, uint64_t *v) {
  uint64_t x = 0;
  for (unsigned shift = 0; s->p < s->end; shift += 7) {
    unsigned char b = *s->p++;
    if (shift < 64)
      x |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = x;
      return 0;
    }
  }
  return -1;
}

static int rd_sleb(span_t *s, int64_t *v) {
  int64_t x = 0;
  unsigned shift = 0;
  unsigned char b = 0x80;
  while ((b & 0x80) && s->p < s->end) {
    b = *s->p++;
    if (shift < 64)
      x |= (int64_t)((uint64_t)(b & 0x7f) << shift);
    shift += 7;
  }
  if (b & 0x80)
    return -1;
  if (shift < 64 && (b & 0x40))
    x |= (int64_t)(~(uint64_t)0 << shift);
  *v = x;
  return 0;
}

static const char *rd_str(span_t *s) {
  const unsigned char *z = memchr(s->p, 0, (size_t)(s->end - s->p));
  if (!z)
    return NULL;
  const char *r = (const char *)s->p;
  s->p = z + 1;
  return r;
}

static const char *str_at(const sect_t *sec, uint64_t off) {
  if (!sec->data || off >= sec->size ||
      !memchr(sec->data + off, 0, sec->size - off))
    return NULL;
  return (const char *)sec->data + off;
}

enum {
  FORM_block = 0x09,
  FORM_data1 = 0x0b,
  FORM_data2 = 0x05,
  FORM_data4 = 0x06,
  FORM_data8 = 0x07,
  FORM_data16 = 0x1e,
  FORM_string = 0x08,
  FORM_strp = 0x0e,
  FORM_line_strp = 0x1f,
  FORM_udata = 0x0f,
  LNCT_path = 1,
  LNCT_directory_index = 2,
};

/* One attribute of a version 5 directory or file entry: a string (*str)
 * or a number (*num). */
static int rd_form(span_t *s, uint64_t form, int off64, const sect_t *str,
                   const sect_t *line_str, const char **strv, uint64_t *num) {
  uint64_t v = 0;
  *strv = NULL;
  switch (form) {
  case FORM_string:
    return (*strv = rd_str(s)) ? 0 : -1;
  case FORM_strp:
  case FORM_line_strp:
    if (rd_u(s, off64 ? 8 : 4, &v))
      return -1;
    *strv = str_at(form == FORM_strp ? str : line_str, v);
    return 0;
  case FORM_udata:
    return rd_uleb(s, num);
  case FORM_data1:
    return rd_u(s, 1, num);
  case FORM_data2:
    return rd_u(s, 2, num);
  case FORM_data4:
    return rd_u(s, 4, num);
  case FORM_data8:
    return rd_u(s, 8, num);
  case FORM_data16:
    if ((size_t)(s->end - s->p) < 16)
      return -1;
    s->p += 16;
    return 0;
  case FORM_block:
    if (rd_uleb(s, &v) || (uint64_t)(s->end - s->p) < v)
      return -1;
    s->p += v;
    return 0;
  default: /* strx and the rest need other sections: give up on the unit */
    return -1;
  }
}

#define MAX_ENTRIES 4096

typedef struct unit {
  int version;
  const char *dirs[MAX_ENTRIES];
  const char *files[MAX_ENTRIES];
  uint64_t file_dir[MAX_ENTRIES];
  size_t ndirs, nfiles;
} unit_t;

/* Version 5 directory or file table: formats, then entries. */
static int rd_entries5(span_t *s, int off64, const sect_t *str,
                       const sect_t *line_str, const char **names,
                       uint64_t *dirs, size_t *n) {
  uint64_t nfmt, fmt[32][2], count;
  if (rd_u(s, 1, &nfmt) || nfmt > 32)
    return -1;
  for (uint64_t i = 0; i < nfmt; i++)
    if (rd_uleb(s, &fmt[i][0]) || rd_uleb(s, &fmt[i][1]))
      return -1;
  if (rd_uleb(s, &count))
    return -1;
  *n = 0;
  for (uint64_t e = 0; e < count; e++) {
    const char *name = NULL;
    uint64_t dir = 0;
    for (uint64_t i = 0; i < nfmt; i++) {
      const char *sv;
      uint64_t num = 0;
      if (rd_form(s, fmt[i][1], off64, str, line_str, &sv, &num))
        return -1;
      if (fmt[i][0] == LNCT_path)
        name = sv;
      else if (fmt[i][0] == LNCT_directory_index)
        dir = num;
    }
    if (e < MAX_ENTRIES) {
      names[e] = name;
      if (dirs)
        dirs[e] = dir;
      *n = e + 1;
    }
  }
  return 0;
}

/* "dir/file" of file index f of the unit, malloc'd; NULL if unknown. */
static char *file_path(const unit_t *u, uint64_t f) {
  if (u->version < 5) {
    if (f == 0)
      return NULL;
    f--; /* version 2-4 files count from 1 */
  }
  if (f >= u->nfiles || !u->files[f])
    return NULL;
  const char *name = u->files[f], *dir = NULL;
  uint64_t d = u->file_dir[f];
  if (name[0] != '/') {
    if (u->version < 5)
      dir = d >= 1 && d - 1 < u->ndirs ? u->dirs[d - 1] : NULL;
    else
      dir = d < u->ndirs ? u->dirs[d] : NULL;
  }
  size_t n = strlen(name) + (dir ? strlen(dir) + 1 : 0) + 1;
  char *out = malloc(n);
  if (out)
    snprintf(out, n, "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
  return out;
}

/* Flang's line tables (files of these suffixes) need the rules of
 * sp__lines_find; Clang's and the rest are read as they are. */
static int is_fortran(const char *path) {
  static const char *const suf[] = {".f90", ".f95", ".f03", ".f08", ".f18",
                                    ".f",   ".for", ".ftn", ".fpp"};
  const char *dot = path ? strrchr(path, '.') : NULL;
  if (!dot || strchr(dot, '/'))
    return 0;
  for (size_t i = 0; i < sizeof suf / sizeof *suf; i++)
    if (strcasecmp(dot, suf[i]) == 0)
      return 1;
  return 0;
}

/* The answer for address a, covered by the row (file f, line ln); the
 * last row before it in its function with a line is (nzf, nzl) if have_nz.
 * Flang (a Fortran file) gives code it has no line for line 0, where the
 * statement before is the best answer left. Anything else: the row
 * itself, if it has a line. 1 when *file and *line are set. */
static int found(const unit_t *u, uint64_t f, int64_t ln, int have_nz,
                 uint64_t nzf, int64_t nzl, char **file, int *line) {
  char *path = file_path(u, f);
  if (path && is_fortran(path) && have_nz && ln == 0) {
    free(path);
    path = file_path(u, nzf);
    ln = nzl;
  }
  if (!path || ln <= 0 || ln > INT32_MAX) {
    free(path);
    return 0;
  }
  *file = path;
  *line = (int)ln;
  return 1;
}

static int find_in(const sect_t *dl, const sect_t *str, const sect_t *lstr,
                   uint64_t a, uint64_t lo, unit_t *u, char **file, int *line) {
  span_t all = {dl->data, dl->data + dl->size};
  while (all.p < all.end) {
    uint64_t len, ver, hlen, v;
    int off64 = 0;
    if (rd_u(&all, 4, &len))
      return -1;
    if (len == 0xffffffffu) {
      off64 = 1;
      if (rd_u(&all, 8, &len))
        return -1;
    }
    if (len > (uint64_t)(all.end - all.p))
      return -1;
    span_t s = {all.p, all.p + len};
    all.p += len;
    if (rd_u(&s, 2, &ver) || ver < 2 || ver > 5)
      continue;
    u->version = (int)ver;
    if (ver >= 5 && rd_u(&s, 2, &v)) /* address and segment selector size */
      continue;
    if (rd_u(&s, off64 ? 8 : 4, &hlen) || hlen > (uint64_t)(s.end - s.p))
      continue;
    const unsigned char *prog = s.p + hlen;
    uint64_t min_inst, max_ops = 1, def_stmt, lbase, lrange, obase;
    if (rd_u(&s, 1, &min_inst) || (ver >= 4 && rd_u(&s, 1, &max_ops)) ||
        rd_u(&s, 1, &def_stmt) || rd_u(&s, 1, &lbase) || rd_u(&s, 1, &lrange) ||
        rd_u(&s, 1, &obase) || lrange == 0 || obase == 0)
      continue;
    const unsigned char *oplens = s.p;
    if ((uint64_t)(s.end - s.p) < obase - 1)
      continue;
    s.p += obase - 1;
    u->ndirs = u->nfiles = 0;
    if (ver >= 5) {
      if (rd_entries5(&s, off64, str, lstr, u->dirs, NULL, &u->ndirs) ||
          rd_entries5(&s, off64, str, lstr, u->files, u->file_dir, &u->nfiles))
        continue;
    } else {
      const char *d;
      while ((d = rd_str(&s)) && *d)
        if (u->ndirs < MAX_ENTRIES)
          u->dirs[u->ndirs++] = d;
      if (!d)
        continue;
      const char *f;
      while ((f = rd_str(&s)) && *f) {
        uint64_t dir, t, sz;
        if (rd_uleb(&s, &dir) || rd_uleb(&s, &t) || rd_uleb(&s, &sz))
          break;
        if (u->nfiles < MAX_ENTRIES) {
          u->files[u->nfiles] = f;
          u->file_dir[u->nfiles++] = dir;
        }
      }
      if (!f)
        continue;
    }
    if (prog > s.end)
      continue;
    s.p = prog;
    int8_t line_base = (int8_t)(uint8_t)lbase;
    /* The state machine; a row covers [its address, the next row's). */
    uint64_t addr = 0, fidx = 1;
    int64_t ln = 1;
    int have_prev = 0, have_nz = 0;
    uint64_t prev_addr = 0, prev_file = 0, nz_file = 0;
    int64_t prev_line = 0, nz_line = 0;
    /* nz_*: the last row before prev with a line, at or after lo. */
#define ROW()                                                                  \
  do {                                                                         \
    if (have_prev && prev_addr <= a && a < addr) {                             \
      /* rows do not overlap: no other row covers a */                         \
      return found(u, prev_file, prev_line, have_nz, nz_file, nz_line, file,   \
                   line);                                                      \
    }                                                                          \
    if (have_prev && prev_line != 0 && prev_addr >= lo)                        \
      have_nz = 1, nz_file = prev_file, nz_line = prev_line;                   \
    have_prev = 1, prev_addr = addr, prev_file = fidx, prev_line = ln;         \
  } while (0)
    while (s.p < s.end) {
      uint64_t op, x;
      int64_t sx;
      if (rd_u(&s, 1, &op))
        break;
      if (op >= obase) {
        uint64_t adj = op - obase;
        addr += (adj / lrange) * min_inst;
        ln += line_base + (int64_t)(adj % lrange);
        ROW();
        continue;
      }
      switch (op) {
      case 0: { /* extended */
        uint64_t elen, sub;
        if (rd_uleb(&s, &elen) || elen == 0 || elen > (uint64_t)(s.end - s.p) ||
            rd_u(&s, 1, &sub))
          goto next_unit;
        const unsigned char *after = s.p + elen - 1;
        if (sub == 1) { /* end_sequence */
          ROW();
          have_prev = have_nz = 0;
          addr = 0, fidx = 1, ln = 1;
        } else if (sub == 2 && elen - 1 <= 8) { /* set_address */
          if (rd_u(&s, (size_t)(elen - 1), &addr))
            goto next_unit;
        }
        s.p = after;
        break;
      }
      case 1: /* copy */
        ROW();
        break;
      case 2: /* advance_pc */
        if (rd_uleb(&s, &x))
          goto next_unit;
        addr += x * min_inst;
        break;
      case 3: /* advance_line */
        if (rd_sleb(&s, &sx))
          goto next_unit;
        ln += sx;
        break;
      case 4: /* set_file */
        if (rd_uleb(&s, &fidx))
          goto next_unit;
        break;
      case 8: /* const_add_pc */
        addr += ((255 - obase) / lrange) * min_inst;
        break;
      case 9: /* fixed_advance_pc */
        if (rd_u(&s, 2, &x))
          goto next_unit;
        addr += x;
        break;
      default: /* the rest: skip their ULEB operands */
        for (unsigned i = 0; i < oplens[op - 1]; i++)
          if (rd_uleb(&s, &x))
            goto next_unit;
        break;
      }
    }
#undef ROW
  next_unit:;
  }
  return 0;
}

int sp__fmt_elf_lines(const void *map, size_t size, uint64_t a, uint64_t lo,
                      char **file, int *line) {
  const Elf64_Ehdr *eh = map;
  *file = NULL;
  *line = -1;
  if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_shoff > size ||
      (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum ||
      eh->e_shstrndx >= eh->e_shnum)
    return -1;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)((const char *)map + eh->e_shoff);
  const Elf64_Shdr *names = &sh[eh->e_shstrndx];
  if (names->sh_offset > size || names->sh_size > size - names->sh_offset)
    return -1;
  sect_t dl = {0}, str = {0}, lstr = {0};
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_name >= names->sh_size || sh[i].sh_type == SHT_NOBITS ||
        sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset ||
        (sh[i].sh_flags & SHF_COMPRESSED))
      continue;
    const char *n = (const char *)map + names->sh_offset + sh[i].sh_name;
    if (!memchr(n, 0, names->sh_size - sh[i].sh_name))
      continue;
    sect_t sec = {(const unsigned char *)map + sh[i].sh_offset,
                  (size_t)sh[i].sh_size};
    if (strcmp(n, ".debug_line") == 0)
      dl = sec;
    else if (strcmp(n, ".debug_str") == 0)
      str = sec;
    else if (strcmp(n, ".debug_line_str") == 0)
      lstr = sec;
  }
  if (!dl.data)
    return -1;
  unit_t *u = malloc(sizeof *u); /* large: the heap, not the stack */
  if (!u)
    return -1;
  int rc = find_in(&dl, &str, &lstr, a, lo, u, file, line) == 1 ? 0 : -1;
  free(u);
  return rc;
}
