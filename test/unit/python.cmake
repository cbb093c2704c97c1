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
  # scopeprof.native_trace and the package's C and Fortran sources, from the
  # package staged by python/CMakeLists.txt, then pip-installed into a venv.
  # The seed's commands name gfortran and cc.
  # python/CMakeLists.txt stages the package when it finds Python 3.
  find_program(SP_GFORTRAN gfortran)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(SP_GFORTRAN AND Python3_Interpreter_FOUND)
    set(_sp_nt ${PROJECT_SOURCE_DIR}/test/python/test_native_trace.py
      --import $<TARGET_FILE:sp-import> --report $<TARGET_FILE:sp-report>
      --prog $<TARGET_FILE:py_prog> --tests ${PROJECT_SOURCE_DIR}/test/python)
    add_test(NAME test_native_trace COMMAND /usr/bin/python3 ${_sp_nt}
      --staged ${PROJECT_BINARY_DIR}/python
      --work ${CMAKE_CURRENT_BINARY_DIR}/test_native_trace_work)
    add_test(NAME test_native_trace_venv COMMAND /usr/bin/python3 ${_sp_nt}
      --venv-source ${PROJECT_SOURCE_DIR}
      --work ${CMAKE_CURRENT_BINARY_DIR}/test_native_trace_venv_work)
    set_tests_properties(test_native_trace test_native_trace_venv PROPERTIES
      TIMEOUT 600 ENVIRONMENT "MPLBACKEND=Agg")
  endif()
endif()
