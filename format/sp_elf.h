/* sp_elf.h - code addresses of an ELF file to what the file says of them:
 * the function symbol, the source line (.debug_line), the build-id, and
 * where an OpenMP parallel region's call is (its ident_t). Read from the
 * file, never from a running process: the runtime and the tools share it. */
#ifndef SP_ELF_H
#define SP_ELF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An ELF file mapped whole, its function symbols sorted. Addresses given
 * to the lookups are link-time addresses (a code address less the object's
 * load bias). */
typedef struct sp_fmt_elf sp_fmt_elf;

/* The file at path, mapped: NULL (errno set) if it cannot be opened or
 * mapped. A file that is not a 64-bit ELF opens with nothing to find. */
sp_fmt_elf *sp_fmt_elf_open(const char *path);
void sp_fmt_elf_close(sp_fmt_elf *e);

/* The bytes of the file's GNU build-id note: their count (0: none), at
 * most cap of them copied to out. */
size_t sp_fmt_elf_build_id(const sp_fmt_elf *e, unsigned char *out, size_t cap);

/* The (undemangled) name of the function symbol holding a, from .symtab
 * (static functions too), else .dynsym; *lo its start. NULL if none. */
const char *sp_fmt_elf_func(const sp_fmt_elf *e, uint64_t a, uint64_t *lo);

/* file:line of a from the file's line table (versions 2 to 5): *file
 * malloc'd. lo: the start of a's function (0 if unknown); in Flang's
 * tables (Fortran files) a row of line 0 gives way to the last row with a
 * line before it in the function. 0, or -1 when no row with a line covers
 * a (*file NULL, *line -1). */
int sp_fmt_elf_line(const sp_fmt_elf *e, uint64_t a, uint64_t lo, char **file,
                    int *line);

/* Where the parallel region started by the call returning to ret is: the
 * file and line of the ident_t the call passes __kmpc_fork_call (Clang
 * with debug information, Flang always), found from the instructions that
 * load it; else the file of the call's row. *file malloc'd; *line -1 when
 * the record gives none. 0, or -1 when not even the file is known. */
int sp_fmt_elf_fork(const sp_fmt_elf *e, uint64_t ret, char **file, int *line);

/* A symbol's name as a user reads it, malloc'd: Fortran module procedures
 * (gfortran's __m_MOD_p, Flang's _QMmPp) as m::p, Flang's _QPp as p, C++
 * names demangled when the process has __cxa_demangle (or, with load, can
 * load libstdc++ for it: the tools, never the runtime). NULL only when out
 * of memory. */
char *sp_fmt_demangle(const char *name, int load);

/* elf_lines.c, for elf_sym.c: sp_fmt_elf_line on a mapped image. */
int sp__fmt_elf_lines(const void *map, size_t size, uint64_t a, uint64_t lo,
                      char **file, int *line);

#ifdef __cplusplus
}
#endif
#endif /* SP_ELF_H */
