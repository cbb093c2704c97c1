/* sp_h5p.h - a schema-2 file's events written by the ranks of an MPI job
 * together: parallel HDF5 makes the file, MPI-IO collective writes fill it;
 * built only against an HDF5 with H5_HAVE_PARALLEL (the runtime's
 * libscopeprof_h5mpi.so). */
#ifndef SP_H5P_H
#define SP_H5P_H

#include "sp_common.h"

#include <mpi.h>

typedef struct sp_fmt_h5p sp_fmt_h5p;

/* Collective over comm: creates tmp (exclusively) with group events and
 * its two datasets of n calls each, allocated and contiguous, as
 * sp_fmt_h5w_adopt expects them, and opens it for MPI-IO. Every rank gets
 * the same answer: NULL (err set, nothing left at tmp) or a handle that
 * every rank must close. */
sp_fmt_h5p *sp_fmt_h5p_create(const char *tmp, MPI_Comm comm, int64_t n,
                              sp_fmt_err *err);

/* Collective: this rank's n calls (0 to 256 Mi) at event index first, in
 * one MPI-IO collective write per dataset (the arrays may be byte-swapped
 * in place to little-endian). Every rank makes the same number of these
 * calls, whether or not an earlier one failed. */
int sp_fmt_h5p_put(sp_fmt_h5p *p, int64_t first, int64_t *starts, int64_t *ends,
                   int64_t n, sp_fmt_err *err);

/* Collective: closes the file and frees p. 0 when this rank's writes and
 * the close succeeded; -1 with err set otherwise (the file is left for the
 * caller, which hears whether every rank succeeded, to adopt or remove). */
int sp_fmt_h5p_close(sp_fmt_h5p *p, sp_fmt_err *err);

#endif /* SP_H5P_H */
