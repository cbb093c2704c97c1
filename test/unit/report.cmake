# Tests of sp-report: hand-built profiles (report_gen) checked value by
# value, every export parsed back, SVGs parsed as XML, and the flame graph
# and timeline rendered in headless Chromium (skipped when it is absent).
if(TARGET sp-report AND SP_USE_HDF5)
  add_executable(report_gen ${CMAKE_CURRENT_LIST_DIR}/report/report_gen.c)
  target_compile_options(report_gen PRIVATE ${SP_C_WARNINGS})
  target_link_libraries(report_gen PRIVATE sp_format)
  add_test(NAME test_report
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/report/test_report.py
      $<TARGET_FILE:sp-report> $<TARGET_FILE:report_gen>
      $<TARGET_FILE:sp-import> ${CMAKE_CURRENT_BINARY_DIR}/test_report_work)
  set_tests_properties(test_report PROPERTIES TIMEOUT 300 LABELS sanitize)
  # --mpi: time inside MPI per rank and function, values worked by hand.
  add_test(NAME test_report_mpi
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/report/test_report_mpi.py
      $<TARGET_FILE:sp-report> $<TARGET_FILE:report_gen>
      $<TARGET_FILE:sp-import> ${CMAKE_CURRENT_BINARY_DIR}/test_report_mpi_work)
  set_tests_properties(test_report_mpi PROPERTIES TIMEOUT 300 LABELS sanitize)
  add_test(NAME test_report_chromium
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/report/test_chromium.py
      $<TARGET_FILE:sp-report> $<TARGET_FILE:report_gen>
      ${CMAKE_CURRENT_BINARY_DIR}/test_report_chromium_work)
  set_tests_properties(test_report_chromium PROPERTIES TIMEOUT 300
    SKIP_RETURN_CODE 77)
endif()

# A real OpenMP program (sp-cc -fopenmp, 4 threads, LLVM's libomp with
# OMPT): workers' implicit tasks under their parallel calls.
find_library(SP_LIBOMP omp PATHS ${LLVM_LIBRARY_DIR} NO_DEFAULT_PATH)
if(TARGET sp-report AND SP_BUILD_PASS AND SP_LIBOMP)
  add_test(NAME test_report_omp
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/report/test_report_omp.py
      ${PROJECT_BINARY_DIR}/bin/sp-cc $<TARGET_FILE:sp-report>
      ${CMAKE_CURRENT_LIST_DIR}/report/omp_teams.c
      ${CMAKE_CURRENT_BINARY_DIR}/test_report_omp_work)
  set_tests_properties(test_report_omp PROPERTIES TIMEOUT 300 LABELS omp)
endif()

# sp-report reads through the format library alone (report/CMakeLists.txt).
add_test(NAME test_report_layers COMMAND ${CMAKE_COMMAND}
  -DREPORT_DIR=${PROJECT_SOURCE_DIR}/report
  -P ${CMAKE_CURRENT_LIST_DIR}/report/layers.cmake)
