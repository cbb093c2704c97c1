# bench_omp: OMPT's cost per parallel region and per barrier against the
# same program without ScopeProf (both built with the plugin's clang and
# -fopenmp, libomp). `make bench-omp` prints the ratios.
set(_sp_clang ${LLVM_TOOLS_BINARY_DIR}/clang)
if(SP_BUILD_PASS AND EXISTS ${_sp_clang})
  set(_src ${CMAKE_CURRENT_LIST_DIR}/bench_omp.c)
  set(_out ${CMAKE_CURRENT_BINARY_DIR})
  add_custom_command(OUTPUT ${_out}/bench_omp ${_out}/bench_omp_plain
    COMMAND ${_sp_clang} -O2 -fopenmp ${_src} -o ${_out}/bench_omp_plain
    COMMAND ${_sp_clang} -O2 -fopenmp ${_src} -o ${_out}/bench_omp
      -L$<TARGET_FILE_DIR:scopeprof> -Wl,--no-as-needed -lscopeprof
      -Wl,-rpath,$<TARGET_FILE_DIR:scopeprof>
    DEPENDS ${_src} scopeprof
    COMMENT "Building bench_omp with clang -fopenmp")
  add_custom_target(bench_omp DEPENDS ${_out}/bench_omp)
  add_custom_target(bench-omp
    COMMAND ${CMAKE_COMMAND} -E env SP_OUTPUT=${_out}/bench_omp_prof_%p
      ${_out}/bench_omp ${_out}/bench_omp_plain
    DEPENDS bench_omp USES_TERMINAL)
endif()
