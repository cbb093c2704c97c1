# bench_report: sp-report's summary table of a 10M-call merged profile,
# summary-only read against reading every call (ratio in one run).
# Run: make bench-report (writes ~170 MB under the build tree, then removes it).
if(SP_USE_HDF5)
  add_executable(bench_report ${CMAKE_CURRENT_LIST_DIR}/bench_report.c)
  target_compile_options(bench_report PRIVATE -O2 ${SP_C_WARNINGS})
  target_compile_definitions(bench_report PRIVATE _GNU_SOURCE)
  target_link_libraries(bench_report PRIVATE sp_format)
  add_custom_target(bench-report
    COMMAND bench_report $<TARGET_FILE:sp-report>
      ${CMAKE_CURRENT_BINARY_DIR}/bench_report_work 4 10000000
    COMMAND ${CMAKE_COMMAND} -E rm -rf
      ${CMAKE_CURRENT_BINARY_DIR}/bench_report_work
    DEPENDS bench_report sp-report USES_TERMINAL)
endif()
