# bench_runtime: per-call overhead of libscopeprof against naive recorders.
add_library(sp_bench_cyg OBJECT ${CMAKE_CURRENT_LIST_DIR}/bench_runtime_cyg.c)
target_compile_options(sp_bench_cyg PRIVATE -O2 -finstrument-functions)
add_executable(bench_runtime ${CMAKE_CURRENT_LIST_DIR}/bench_runtime.c
  $<TARGET_OBJECTS:sp_bench_cyg>)
target_compile_options(bench_runtime PRIVATE -O2 ${SP_C_WARNINGS})
target_compile_definitions(bench_runtime PRIVATE _GNU_SOURCE)
target_link_libraries(bench_runtime PRIVATE scopeprof)

# bench_longrun: long runs with the trace streamed to disk (docs/performance.md).
add_executable(bench_longrun ${CMAKE_CURRENT_LIST_DIR}/bench_longrun.c)
target_compile_options(bench_longrun PRIVATE -O2 ${SP_C_WARNINGS})
target_compile_definitions(bench_longrun PRIVATE _GNU_SOURCE)
target_link_libraries(bench_longrun PRIVATE scopeprof_static)

# bench_profile: SP_MODE=profile against the naive recorder (docs/performance.md).
add_executable(bench_profile ${CMAKE_CURRENT_LIST_DIR}/bench_profile.c)
target_compile_options(bench_profile PRIVATE -O2 ${SP_C_WARNINGS})
target_compile_definitions(bench_profile PRIVATE _GNU_SOURCE)
target_link_libraries(bench_profile PRIVATE scopeprof)

# bench_pause: recording, sp_pause() and SP_ENABLE=0 per call pair.
add_executable(bench_pause ${CMAKE_CURRENT_LIST_DIR}/bench_pause.c)
target_compile_options(bench_pause PRIVATE -O2 ${SP_C_WARNINGS})
target_compile_definitions(bench_pause PRIVATE _GNU_SOURCE)
target_link_libraries(bench_pause PRIVATE scopeprof)

# bench_filter: a region excluded by SP_FILTER against SP_ENABLE=0 and a
# recorded one (docs/performance.md).
add_executable(bench_filter ${CMAKE_CURRENT_LIST_DIR}/bench_filter.c
  $<TARGET_OBJECTS:sp_bench_cyg>)
target_compile_options(bench_filter PRIVATE -O2 ${SP_C_WARNINGS})
target_compile_definitions(bench_filter PRIVATE _GNU_SOURCE)
target_link_libraries(bench_filter PRIVATE scopeprof)
if(TARGET bench_plugin) # plugin.cmake built the annotated kernel
  target_sources(bench_filter PRIVATE ${_sp_bann})
  target_compile_definitions(bench_filter PRIVATE SP_BENCH_PLUGIN)
  add_dependencies(bench_filter bench_plugin)
endif()

# bench_compact: bytes and time per call, compact stream against 16-byte
# pairs and the naive recorders (docs/performance.md).
add_executable(bench_compact ${CMAKE_CURRENT_LIST_DIR}/bench_compact.c)
target_compile_options(bench_compact PRIVATE -O2 ${SP_C_WARNINGS})
target_link_libraries(bench_compact PRIVATE scopeprof)

# bench_counters: SP_COUNTERS off and on per call pair (docs/performance.md).
if(SP_USE_HDF5)
  add_executable(bench_counters ${CMAKE_CURRENT_LIST_DIR}/bench_counters.c)
  target_compile_options(bench_counters PRIVATE -O2 ${SP_C_WARNINGS})
  target_compile_definitions(bench_counters PRIVATE _GNU_SOURCE)
  target_link_libraries(bench_counters PRIVATE scopeprof)
  # rdpmc.h: the runtime's read loop, timed by itself
  target_include_directories(bench_counters PRIVATE ${PROJECT_SOURCE_DIR}/runtime/src)
endif()
