/* layer.h - what the parts of libscopeprof_mpi.so share: the generated PMPI
 * wrappers make each MPI call one call of the region named after its C
 * function; runtime.c is the rest of what the runtime does with MPI.
 *
 * Fortran entry points forward a fixed number (16) of pointer-sized
 * arguments. Every argument of an MPI Fortran binding is an address or a
 * hidden string length, all integer class: on x86-64 (System V) and aarch64
 * (AAPCS64, Linux) they travel in the integer registers and then in 8-byte
 * stack slots in order, so the forwarder passes each one on in the same
 * register or slot. Slots the caller did not fill are read from its frame
 * (mapped memory) and ignored by the callee. Not so where stack arguments are
 * packed below 8 bytes (Apple arm64) or floats are passed: no binding does
 * that except the functions left out (MPI_Wtime, MPI_Wtick return a double). */
#ifndef SP_MPI_LAYER_H
#define SP_MPI_LAYER_H

#include <mpi.h>
#include <scope_profiler.h>
#include <sp_mpi_hooks.h>

#include "wrappers_count.h"

#define SP_MPI_EXPORT __attribute__((visibility("default")))

/* Region id + 1 of each wrapped function (0: not registered yet). */
extern int sp_mpi__ids[SP_MPI_NFUNCS];
extern const char *const sp_mpi__names[SP_MPI_NFUNCS];
/* Non-zero unless SP_MPI=0. */
extern int sp_mpi__on;
/* Non-zero unless SP_MPI_MESSAGES=0: bytes and partners recorded. */
extern int sp_mpi__msgs_on;

/* Registers function fn's region; returns its id (or -1). */
int sp_mpi__register(int fn);
/* After MPI_Init / MPI_Init_thread returned (C and Fortran): notes the
 * rank, and once per process measures this rank's clock offset to rank 0
 * and arranges for MPI_Finalize to measure it again (runtime.c). */
void sp_mpi__after_init(void);
/* libscopeprof_h5mpi.so, loaded once (h5mpi_load.c; sp__mpi_ops). */
void *sp_mpi__h5mpi_load(char *why, size_t size);
/* A Fortran entry point's PMPI twin, as the generated forwarders call it. */
typedef void (*sp_mpi__ffn)(void *, void *, void *, void *, void *, void *,
                            void *, void *, void *, void *, void *, void *,
                            void *, void *, void *, void *);
/* MPI's Fortran libraries (sonames) the forwarders were generated from. */
extern const char *const sp_mpi__flibs[];
/* The PMPI twin sym of a Fortran entry point, stored into *cache: linked
 * (linked, when the weak reference resolved), else found in the process,
 * else in MPI's Fortran library, loaded now: a link with --as-needed drops
 * that library when the layer alone satisfies the program's references to
 * it. Reports the library that could not be loaded, and aborts, if none. */
sp_mpi__ffn sp_mpi__fortran(sp_mpi__ffn *cache, sp_mpi__ffn linked,
                            const char *sym);
/* The same, but without a PMPI twin the MPI's own binding next, the one
 * this layer's entry point hides (MPICH's use mpi_f08 bindings have no
 * PMPI twins: they call the C functions, which the layer wraps). */
sp_mpi__ffn sp_mpi__fortran_or_next(sp_mpi__ffn *cache, sp_mpi__ffn linked,
                                    const char *sym, const char *next);

/* Non-zero while this thread is in a Fortran entry point: the C function
 * MPI's Fortran binding may call (MPICH's do) is part of that call. */
extern __thread int sp_mpi__in_fortran;
/* While a recorded Fortran entry point runs: its region (-1: none), and
 * whether a C wrapper it reached has recorded the call for it. */
extern __thread int sp_mpi__f_region, sp_mpi__f_claimed;

/* The region a recorded C function called from MPI's Fortran binding
 * records under (MPICH's bindings call the C functions: the call recorded
 * there, from its C arguments, and not again by the entry point); -1 when
 * not called from one, or when another C call already recorded it. */
static inline int sp_mpi__inner(void) {
  if (!sp_mpi__in_fortran || sp_mpi__f_region < 0 || sp_mpi__f_claimed)
    return -1;
  sp_mpi__f_claimed = 1;
  return sp_mpi__f_region;
}

/* Opens a call of function fn's region; returns the region to close.
 * Inline in every wrapper: a call of its own costs as much as its body. */
static inline __attribute__((always_inline)) int sp_mpi__enter(int fn) {
  if (!sp_mpi__on || !SP_ACTIVE_ || sp_mpi__in_fortran)
    return -1;
  int id = __atomic_load_n(&sp_mpi__ids[fn], __ATOMIC_RELAXED) - 1;
  if (id < 0)
    id = sp_mpi__register(fn);
  sp_begin(id);
  return id;
}

static inline __attribute__((always_inline)) void sp_mpi__leave(int id) {
  if (id >= 0)
    sp_end(id);
}

#endif
