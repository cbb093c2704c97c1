# bench_merge: SP_MERGE=1 (one .h5 written by the job at MPI_Finalize)
# against each rank's own file then sp-import, 8 ranks x 1M calls.
# Run: make bench-merge; or bench_merge.py MPIRUN JOB SP_IMPORT DIR [RANKS]
# [CALLS] [ROUNDS].
find_program(SP_BENCH_MPIRUN NAMES mpirun mpiexec)
find_program(SP_BENCH_PY3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(TARGET scopeprof_h5 AND TARGET scopeprof_mpi AND SP_BENCH_MPIRUN AND SP_BENCH_PY3
   AND TARGET sp-import)
  add_executable(bench_merge_job ${CMAKE_CURRENT_LIST_DIR}/bench_merge_job.c)
  target_compile_options(bench_merge_job PRIVATE -O2 ${SP_C_WARNINGS})
  # The MPI layer: SP_MERGE needs it (the runtime links no MPI).
  target_link_libraries(bench_merge_job PRIVATE scopeprof_mpi scopeprof MPI::MPI_C)
  add_custom_target(bench-merge
    COMMAND ${SP_BENCH_PY3} ${CMAKE_CURRENT_LIST_DIR}/bench_merge.py
      ${SP_BENCH_MPIRUN} $<TARGET_FILE:bench_merge_job> $<TARGET_FILE:sp-import>
      ${CMAKE_CURRENT_BINARY_DIR}/bench_merge_work 8 1000000 5
    DEPENDS bench_merge_job sp-import scopeprof_h5 USES_TERMINAL)
endif()
