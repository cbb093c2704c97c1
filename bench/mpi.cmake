# bench_mpi: the PMPI layer's cost per call on MPI_Comm_rank, against the
# bare PMPI call and a plain region pair, in several processes (median and
# best). Run: make bench-mpi.
if(TARGET scopeprof_mpi)
  add_executable(bench_mpi ${CMAKE_CURRENT_LIST_DIR}/bench_mpi.c)
  target_compile_options(bench_mpi PRIVATE -O2 ${SP_C_WARNINGS})
  target_compile_definitions(bench_mpi PRIVATE _GNU_SOURCE)
  # The layer before MPI, so MPI_Comm_rank is its wrapper.
  target_link_libraries(bench_mpi PRIVATE scopeprof_mpi scopeprof MPI::MPI_C)
  add_custom_target(bench-mpi COMMAND bench_mpi DEPENDS bench_mpi
    USES_TERMINAL)
endif()
