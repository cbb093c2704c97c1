/* sp_mpi_hooks.h - what libscopeprof_mpi.so calls in the runtime beyond the
 * public API: the clock alignment around MPI_Init and MPI_Finalize of the
 * entry points the layer defines and the runtime does not (Fortran). */
#ifndef SP_MPI_HOOKS_H
#define SP_MPI_HOOKS_H

#ifdef __cplusplus
extern "C" {
#endif

/* After MPI_Init / MPI_Init_thread returned: measures this rank's clock
 * offset to rank 0 (once per process; nothing if MPI is not initialized). */
void sp__mpi_after_init(void);
/* Before MPI_Finalize: measures the offset again (once per process). */
void sp__mpi_before_finalize(void);

#ifdef __cplusplus
}
#endif
#endif /* SP_MPI_HOOKS_H */
