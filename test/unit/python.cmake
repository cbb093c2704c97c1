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
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/test/python/test_scopeprof.py
      $<TARGET_FILE:sp-report> $<TARGET_FILE:sp-import> $<TARGET_FILE:report_gen>
      $<TARGET_FILE:py_prog> ${CMAKE_CURRENT_BINARY_DIR}/test_scopeprof_work)
  add_test(NAME test_scopeprof_examples
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/test/python/test_examples.py
      $<TARGET_FILE:sp-import> $<TARGET_FILE:py_prog>
      ${CMAKE_CURRENT_BINARY_DIR}/test_scopeprof_examples_work)
  set_tests_properties(test_scopeprof test_scopeprof_examples PROPERTIES
    TIMEOUT 300 ENVIRONMENT "${_sp_py_env}")
  # The charts' properties, the statistics JSON and the scope-profiler
  # command (python/scopeprof/cli.py).
  add_test(NAME test_scopeprof_charts
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/test/python/test_charts.py
      $<TARGET_FILE:sp-report> $<TARGET_FILE:sp-import> $<TARGET_FILE:py_prog>
      ${CMAKE_CURRENT_BINARY_DIR}/test_scopeprof_charts_work)
  set_tests_properties(test_scopeprof_charts PROPERTIES
    TIMEOUT 300 ENVIRONMENT "${_sp_py_env}")
  # ProfileManager on the built runtime, around C code built with sp-cc
  # (the plugin); sp-import found beside the library in the build tree.
  if(TARGET ScopeProf)
    add_test(NAME test_scopeprof_manager
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/test/python/test_manager.py
        $<TARGET_FILE:scopeprof> ${PROJECT_BINARY_DIR}/bin/sp-cc
        ${CMAKE_CURRENT_BINARY_DIR}/test_scopeprof_manager_work)
    set_tests_properties(test_scopeprof_manager PROPERTIES
      TIMEOUT 300 ENVIRONMENT "${_sp_py_env}")
  endif()
  # ProfileManager under mpi4py on 3 ranks (Debian's python3-mpi4py;
  # skipped without it).
  find_program(SP_MPIRUN NAMES mpirun mpiexec)
  if(SP_MPIRUN)
    set(_w ${CMAKE_CURRENT_BINARY_DIR}/test_scopeprof_manager_mpi_work)
    add_test(NAME test_scopeprof_manager_mpi COMMAND sh -c
      "${Python3_EXECUTABLE} -c 'import mpi4py' 2>/dev/null || exit 77; \
       rm -rf '${_w}' && mkdir -p '${_w}' && TMPDIR='${_w}' '${SP_MPIRUN}' \
       --oversubscribe -np 3 ${Python3_EXECUTABLE} \
       '${PROJECT_SOURCE_DIR}/test/python/test_manager_mpi.py' '${_w}'")
    set_tests_properties(test_scopeprof_manager_mpi PROPERTIES TIMEOUT 300
      SKIP_RETURN_CODE 77 LABELS mpi ENVIRONMENT
      "${_sp_py_env};SP_LIBRARY=$<TARGET_FILE:scopeprof>;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  endif()
  # build_call_arrays' vectorised stack walk against the walk call by call
  # (random and adversarial inputs, a fixed seed).
  add_test(NAME test_scopeprof_nesting
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/test/python/test_nesting.py 1 600)
  set_tests_properties(test_scopeprof_nesting PROPERTIES
    TIMEOUT 300 ENVIRONMENT "${_sp_py_env}")
  # The reference documents' Python examples, each run as written (the
  # import line names scopeprof) on profiles of seed_prog, each value then
  # checked against h5py; the package as staged in the build tree (with its
  # C and Fortran sources), then pip-installed into a venv.
  add_executable(seed_prog ${PROJECT_SOURCE_DIR}/test/python/seed_prog.c)
  target_compile_options(seed_prog PRIVATE ${SP_C_WARNINGS})
  target_link_libraries(seed_prog PRIVATE scopeprof)
  set(_sp_se ${PROJECT_SOURCE_DIR}/test/python/test_seed_examples.py
    --import $<TARGET_FILE:sp-import> --prog $<TARGET_FILE:seed_prog>)
  add_test(NAME test_seed_examples COMMAND ${Python3_EXECUTABLE} ${_sp_se}
    --work ${CMAKE_CURRENT_BINARY_DIR}/test_seed_examples_work)
  add_test(NAME test_seed_examples_venv COMMAND ${Python3_EXECUTABLE} ${_sp_se}
    --venv-source ${PROJECT_SOURCE_DIR}
    --work ${CMAKE_CURRENT_BINARY_DIR}/test_seed_examples_venv_work)
  set_tests_properties(test_seed_examples test_seed_examples_venv PROPERTIES
    TIMEOUT 600 ENVIRONMENT
    "PYTHONPATH=${PROJECT_BINARY_DIR}/python;MPLBACKEND=Agg;SP_LIBRARY=$<TARGET_FILE:scopeprof>")
  # Damaged and crafted files, schemas, whole-column frames and call
  # stacks, charts through a temporary; then a bounded fuzz run of the
  # readers from the committed corpora (fixed seed and number of cases).
  add_test(NAME test_scopeprof_readers
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/test/python/test_readers.py
      ${CMAKE_CURRENT_BINARY_DIR}/test_scopeprof_readers_work)
  add_test(NAME fuzz_python_readers
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/test/python/fuzz_readers.py
      ${CMAKE_CURRENT_BINARY_DIR}/fuzz_python_readers_work 600 1)
  set_tests_properties(test_scopeprof_readers fuzz_python_readers PROPERTIES
    TIMEOUT 900 ENVIRONMENT "${_sp_py_env}")
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
    add_test(NAME test_native_trace COMMAND ${Python3_EXECUTABLE} ${_sp_nt}
      --staged ${PROJECT_BINARY_DIR}/python
      --work ${CMAKE_CURRENT_BINARY_DIR}/test_native_trace_work)
    add_test(NAME test_native_trace_venv COMMAND ${Python3_EXECUTABLE} ${_sp_nt}
      --venv-source ${PROJECT_SOURCE_DIR}
      --work ${CMAKE_CURRENT_BINARY_DIR}/test_native_trace_venv_work)
    set_tests_properties(test_native_trace test_native_trace_venv PROPERTIES
      TIMEOUT 600 ENVIRONMENT "MPLBACKEND=Agg")
  endif()
endif()
