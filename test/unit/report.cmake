# Tests of sp-report: hand-built profiles (report_gen) checked value by
# value, every export parsed back, SVGs parsed as XML (their ticks, titles,
# legend, colours and labels too), and every kind of picture rendered in
# headless Chromium (skipped when it is absent).
if(TARGET sp-report AND SP_USE_HDF5)
  add_executable(report_gen ${CMAKE_CURRENT_LIST_DIR}/report/report_gen.c)
  target_compile_options(report_gen PRIVATE ${SP_C_WARNINGS})
  target_link_libraries(report_gen PRIVATE sp_format)
  add_test(NAME test_report
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/report/test_report.py
      $<TARGET_FILE:sp-report> $<TARGET_FILE:report_gen>
      $<TARGET_FILE:sp-import> ${CMAKE_CURRENT_BINARY_DIR}/test_report_work)
  set_tests_properties(test_report PROPERTIES TIMEOUT 300 LABELS sanitize)
  add_test(NAME test_report_svg
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/report/test_svg.py
      $<TARGET_FILE:sp-report> $<TARGET_FILE:report_gen>
      ${CMAKE_CURRENT_BINARY_DIR}/test_report_svg_work)
  set_tests_properties(test_report_svg PROPERTIES TIMEOUT 300 LABELS sanitize)
  # Damaged variable-length strings (heap objects, references): one line,
  # exit 1, never libhdf5's endless loop or crash.
  add_test(NAME test_report_damaged_h5
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/report/test_damaged_h5.py
      $<TARGET_FILE:sp-report> $<TARGET_FILE:sp-import>
      ${CMAKE_CURRENT_BINARY_DIR}/test_report_damaged_h5_work)
  set_tests_properties(test_report_damaged_h5 PROPERTIES TIMEOUT 600
    LABELS sanitize)
  # --mpi: time inside MPI per rank and function, values worked by hand.
  add_test(NAME test_report_mpi
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/report/test_report_mpi.py
      $<TARGET_FILE:sp-report> $<TARGET_FILE:report_gen>
      $<TARGET_FILE:sp-import> ${CMAKE_CURRENT_BINARY_DIR}/test_report_mpi_work)
  set_tests_properties(test_report_mpi PROPERTIES TIMEOUT 300 LABELS sanitize)
  # Wait states set by hand (.spt and .spt.mpi files): late receiver,
  # waiting, the rules for waits of several messages and MPI_Sendrecv.
  add_test(NAME test_report_waits
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/report/test_waits.py
      $<TARGET_FILE:sp-report> $<TARGET_FILE:sp-import>
      ${CMAKE_CURRENT_BINARY_DIR}/test_report_waits_work)
  set_tests_properties(test_report_waits PROPERTIES TIMEOUT 300)
  add_test(NAME test_report_chromium
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/report/test_chromium.py
      $<TARGET_FILE:sp-report> $<TARGET_FILE:report_gen>
      ${CMAKE_CURRENT_BINARY_DIR}/test_report_chromium_work)
  set_tests_properties(test_report_chromium PROPERTIES TIMEOUT 300
    SKIP_RETURN_CODE 77)
endif()

# Region totals count outermost calls: a hand-stamped recursive profile in
# every view, and (with the plugin) a real recursive fib built with sp-cc.
if(TARGET sp-report AND TARGET sp-import AND SP_USE_HDF5)
  set(_rec_cc)
  if(SP_BUILD_PASS)
    set(_rec_cc ${PROJECT_BINARY_DIR}/bin/sp-cc
      ${CMAKE_CURRENT_LIST_DIR}/report/fib.c)
  endif()
  add_test(NAME test_report_recursion
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/report/test_recursion.py
      $<TARGET_FILE:sp-report> $<TARGET_FILE:sp-import>
      ${CMAKE_CURRENT_BINARY_DIR}/test_report_recursion_work ${_rec_cc})
  set_tests_properties(test_report_recursion PROPERTIES TIMEOUT 300)
endif()

# Call paths 100,000 levels deep: recursion folded, deeper levels folded
# below RP_TREE_DEPTH, output smaller than the input, totals exact.
if(TARGET sp-report)
  add_test(NAME test_report_deep
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/report/test_deep.py
      $<TARGET_FILE:sp-report> ${CMAKE_CURRENT_BINARY_DIR}/test_report_deep_work)
  set_tests_properties(test_report_deep PROPERTIES TIMEOUT 300 LABELS sanitize)
endif()

# The tools' temporaries: links and files planted at their names never
# written through (test_tmp_links), and removed when SIGINT, SIGTERM or
# SIGHUP ends the tool (test_tmp_signals).
if(TARGET sp-report AND TARGET sp-import AND SP_USE_HDF5)
  set(_sp_tmp_otf2)
  if(SP_USE_OTF2)
    set(_sp_tmp_otf2 otf2)
  endif()
  foreach(_t tmp_links tmp_signals)
    add_test(NAME test_${_t}
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/report/test_${_t}.py
        $<TARGET_FILE:sp-report> $<TARGET_FILE:sp-import>
        ${CMAKE_CURRENT_BINARY_DIR}/test_${_t}_work ${_sp_tmp_otf2})
    set_tests_properties(test_${_t} PROPERTIES TIMEOUT 300 LABELS sanitize)
  endforeach()
endif()

# --suggest-filter: a program with a hot tiny function rebuilt with the
# filter file suggested records no call of it.
if(TARGET sp-report AND SP_BUILD_PASS)
  add_test(NAME test_report_suggest_filter
    COMMAND ${Python3_EXECUTABLE}
      ${CMAKE_CURRENT_LIST_DIR}/report/test_suggest_filter.py
      ${PROJECT_BINARY_DIR}/bin/sp-cc $<TARGET_FILE:sp-report>
      ${CMAKE_CURRENT_LIST_DIR}/report/hot_tiny.c
      ${CMAKE_CURRENT_BINARY_DIR}/test_report_suggest_filter_work)
  set_tests_properties(test_report_suggest_filter PROPERTIES TIMEOUT 300)
endif()

# A real OpenMP program (sp-cc -fopenmp, 4 threads, LLVM's libomp with
# OMPT): workers' implicit tasks under their parallel calls.
find_library(SP_LIBOMP omp PATHS ${LLVM_LIBRARY_DIR} NO_DEFAULT_PATH)
if(TARGET sp-report AND SP_BUILD_PASS AND SP_LIBOMP)
  add_test(NAME test_report_omp
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/report/test_report_omp.py
      ${PROJECT_BINARY_DIR}/bin/sp-cc $<TARGET_FILE:sp-report>
      ${CMAKE_CURRENT_LIST_DIR}/report/omp_teams.c
      ${CMAKE_CURRENT_BINARY_DIR}/test_report_omp_work)
  set_tests_properties(test_report_omp PROPERTIES TIMEOUT 300 LABELS omp)
endif()

# The OTF2 export of a real pthread program (sp-cc, two ranks through
# sp-import) and of report_gen's profiles, read back with the otf2 Python
# module and otf2-print (Debian: python3-otf2, otf2-tools).
# Without the plugin (the sanitizer builds) the program's part is skipped.
find_program(SP_OTF2_PRINT otf2-print)
if(TARGET sp-report AND SP_USE_OTF2 AND SP_USE_HDF5 AND SP_OTF2_PRINT)
  set(_sp_otf2_cc -)
  if(SP_BUILD_PASS)
    set(_sp_otf2_cc ${PROJECT_BINARY_DIR}/bin/sp-cc)
  endif()
  add_test(NAME test_report_otf2
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/report/test_report_otf2.py
      ${_sp_otf2_cc} $<TARGET_FILE:sp-report>
      $<TARGET_FILE:sp-import> $<TARGET_FILE:report_gen> ${SP_OTF2_PRINT}
      ${CMAKE_CURRENT_LIST_DIR}/report/otf2_prog.c
      ${CMAKE_CURRENT_BINARY_DIR}/test_report_otf2_work)
  set_tests_properties(test_report_otf2 PROPERTIES TIMEOUT 600
    SKIP_RETURN_CODE 77 LABELS sanitize)
endif()

# sp-report reads through the format library alone (report/CMakeLists.txt).
add_test(NAME test_report_layers COMMAND ${CMAKE_COMMAND}
  -DREPORT_DIR=${PROJECT_SOURCE_DIR}/report
  -P ${CMAKE_CURRENT_LIST_DIR}/report/layers.cmake)
