/* sp_sym.h - names of the regions a process records as code addresses
 * (-finstrument-functions functions, OpenMP constructs), made from the
 * object files: one set of rules for the runtime, which names them while
 * the program runs, and the tools, which name what a stream left as an
 * address. */
#ifndef SP_SYM_H
#define SP_SYM_H

#include "sp_elf.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The kind of an address region: 0 a function, else an OpenMP construct
 * (the runtime's ompt.c); SP_FMT_OMP_AT_FORK and SP_FMT_OMP_IN are or'ed
 * to a construct whose code pointer is not the user's (named after the
 * parallel region whose call it is, or after the file alone). */
enum {
  SP_FMT_OMP_PARALLEL = 1,
  SP_FMT_OMP_IMPLICIT_TASK = 2,
  SP_FMT_OMP_BARRIER_PAR = 21, /* a parallel region's end barrier */
  SP_FMT_OMP_COUNT = 22,
  SP_FMT_OMP_AT_FORK = 32,
  SP_FMT_OMP_IN = 64
};

/* "omp parallel", "omp barrier (implicit)", ... of a kind (its flags
 * ignored); "omp ?" for one unknown. */
const char *sp_fmt_omp_construct(int32_t kind);

/* A function's region name at link-time address a: its symbol demangled
 * (sp_fmt_demangle), malloc'd; NULL when no symbol holds a. */
char *sp_fmt_sym_func(const sp_fmt_elf *e, uint64_t a, int load);

/* A construct's region at code address addr of an object loaded with
 * bias (e NULL: its file unknown): *name "omp <construct> @ <file:line>"
 * (or "@ file", "@ func+0xOFF", "@ 0x<addr>", "@ ?" as less is known),
 * *file (NULL: unknown) and *line (-1: unknown); the strings malloc'd.
 * 0, or -1 when out of memory. */
int sp_fmt_sym_omp(const sp_fmt_elf *e, uint64_t bias, uint64_t addr,
                   int32_t kind, int load, char **name, char **file, int *line);

/* A loaded object as a stream records it (its MAP record). */
typedef struct sp_fmt_sym_obj {
  const char *path;
  const unsigned char *build_id; /* nbuild_id bytes; 0: none recorded */
  size_t nbuild_id;
  uint64_t bias; /* load address - link-time address */
} sp_fmt_sym_obj;

/* An address region to name: kind and code address in object obj (an
 * index of the objects); on return name, file, line are set (malloc'd)
 * when it was named, else name stays NULL. */
typedef struct sp_fmt_sym_addr {
  int32_t kind, obj;
  uint64_t addr;
  char *name, *file;
  int32_t line;
} sp_fmt_sym_addr;

/* Names the n regions at v from their objects' files on disk, each file
 * read once; an object whose file is missing, unreadable or of another
 * build-id names none of its regions and adds one line to *warn
 * ("<path>: <why>; N regions keep their addresses"; lines malloc'd,
 * '\n'-separated, NULL when none). 0, or -1 when out of memory. */
int sp_fmt_symbolize(const sp_fmt_sym_obj *objs, int64_t nobjs,
                     sp_fmt_sym_addr *v, int64_t n, int load, char **warn);

#ifdef __cplusplus
}
#endif
#endif /* SP_SYM_H */
