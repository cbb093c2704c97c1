# Tests of the Python package scopeprof (python/scopeprof) with Debian's
# python3: values against sp-report and h5py, scope-profiler's documented
# examples, and every chart written as a PNG.
# report_gen comes from report.cmake (included after this fragment; the
# generator expression below resolves it at generation time).
if(SP_USE_HDF5 AND TARGET sp-report AND TARGET scopeprof AND
   (NOT SP_TEST_ONLY OR "report" IN_LIST SP_TEST_ONLY))
  find_package(Threads REQUIRED)
  add_executable(py_prog ${PROJECT_SOURCE_DIR}/test/python/py_prog.c)
  target_compile_options(py_prog PRIVATE ${SP_C_WARNINGS})
  target_link_libraries(py_prog PRIVATE scopeprof Threads::Threads)
  set(_sp_py_env "PYTHONPATH=${PROJECT_SOURCE_DIR}/python" "MPLBACKEND=Agg")
  add_test(NAME test_scopeprof
    COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/test/python/test_scopeprof.py
      $<TARGET_FILE:sp-report> $<TARGET_FILE:sp-import> $<TARGET_FILE:report_gen>
      $<TARGET_FILE:py_prog> ${CMAKE_CURRENT_BINARY_DIR}/test_scopeprof_work)
  add_test(NAME test_scopeprof_examples
    COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/test/python/test_examples.py
      $<TARGET_FILE:sp-import> $<TARGET_FILE:py_prog>
      ${CMAKE_CURRENT_BINARY_DIR}/test_scopeprof_examples_work)
  set_tests_properties(test_scopeprof test_scopeprof_examples PROPERTIES
    TIMEOUT 300 ENVIRONMENT "${_sp_py_env}")
  # Damaged and crafted files, schemas, whole-column frames and call
  # stacks, charts through a temporary; then a bounded fuzz run of the
  # readers from the committed corpora (fixed seed and number of cases).
  add_test(NAME test_scopeprof_readers
    COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/test/python/test_readers.py
      ${CMAKE_CURRENT_BINARY_DIR}/test_scopeprof_readers_work)
  add_test(NAME fuzz_python_readers
    COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/test/python/fuzz_readers.py
      ${CMAKE_CURRENT_BINARY_DIR}/fuzz_python_readers_work 600 1)
  set_tests_properties(test_scopeprof_readers fuzz_python_readers PROPERTIES
    TIMEOUT 900 ENVIRONMENT "${_sp_py_env}")
endif()
