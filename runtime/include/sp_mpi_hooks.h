/* sp_mpi_hooks.h - what libscopeprof_mpi.so calls in the runtime beyond the
 * public API: the clock alignment after its MPI_Init and MPI_Init_thread
 * (C and Fortran), which shadow the runtime's own. */
#ifndef SP_MPI_HOOKS_H
#define SP_MPI_HOOKS_H

#ifdef __cplusplus
extern "C" {
#endif

/* After MPI_Init / MPI_Init_thread returned: measures this rank's clock
 * offset to rank 0 (once per process; nothing if MPI is not initialized),
 * and arranges for MPI_Finalize to measure it again. */
void sp__mpi_after_init(void);

#ifdef __cplusplus
}
#endif
#endif /* SP_MPI_HOOKS_H */
