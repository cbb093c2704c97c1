# bench_import: sp-import merging 64 ranks x 1M calls against cp of the
# same bytes (ratio), and its peak RSS against the largest input.
# Run: make bench-import (writes ~3 GiB under the build tree, then removes it).
if(SP_USE_HDF5)
  add_executable(bench_import ${CMAKE_CURRENT_LIST_DIR}/bench_import.c)
  target_compile_options(bench_import PRIVATE -O2 ${SP_C_WARNINGS})
  target_compile_definitions(bench_import PRIVATE _GNU_SOURCE)
  target_link_libraries(bench_import PRIVATE sp_format)
  add_custom_target(bench-import
    COMMAND bench_import $<TARGET_FILE:sp-import>
      ${CMAKE_CURRENT_BINARY_DIR}/bench_import_work 64 1000000
    COMMAND ${CMAKE_COMMAND} -E rm -rf
      ${CMAKE_CURRENT_BINARY_DIR}/bench_import_work
    DEPENDS bench_import sp-import USES_TERMINAL)
endif()
