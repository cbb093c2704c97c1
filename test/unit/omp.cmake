# OpenMP through OMPT (label omp): a C program on 4 threads built with
# sp-cc -fopenmp (every construct, counts per thread, the barrier waits of
# an unbalanced loop, implicit tasks within their parallel call; at -O0 -g,
# -O2 -gdwarf-4 and -O2 with sp-cc's line tables), the same
# under SP_OMPT=0 (no omp region), the same constructs in Fortran built
# with flang (with sp-report's tree, folded stacks, --by-thread and timbal
# of its unbalanced loop), and a program without OpenMP (no OpenMP runtime
# loaded, omp_num_threads 1);
# omp_names-*: omp_names.c / .f90 at -O0 and -O2 (two parallel regions, a
# worksharing loop, a single with tasks), each construct named at the line
# of its marker comment; at -O2 also with LLVM 19's libomp when installed;
# omp_abi: the runtime's hand-written OMPT values against omp-tools.h.
# Needs the plugin, .h5 output, h5py and LLVM's libomp (libomp-22-dev).
find_program(SP_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(SP_BUILD_PASS AND SP_USE_HDF5 AND SP_PYTHON3)
  find_library(SP_LIBOMP omp PATHS ${LLVM_LIBRARY_DIR} NO_DEFAULT_PATH)
  set(_modes noomp)
  if(SP_LIBOMP)
    list(APPEND _modes c c-dwarf4 c-lines off)
    find_program(SP_FLANG22 flang-22)
    if(SP_FLANG22 AND TARGET scopeprof_fortran_flang)
      list(APPEND _modes fortran)
    endif()
  else()
    message(STATUS "OpenMP tests skipped: no libomp in ${LLVM_LIBRARY_DIR} (libomp-${LLVM_VERSION_MAJOR}-dev)")
  endif()
  set(_d ${CMAKE_CURRENT_LIST_DIR}/omp)
  if(SP_LIBOMP)
    add_test(NAME omp_abi COMMAND ${LLVM_TOOLS_BINARY_DIR}/clang -fopenmp
      -fsyntax-only -Wall -Wextra -I${PROJECT_SOURCE_DIR}/runtime/src
      ${_d}/ompt_abi.c)
    set_tests_properties(omp_abi PROPERTIES LABELS omp)
  endif()
  if(SP_LIBOMP)
    list(APPEND _modes names-c-O0 names-c-O2)
    if("fortran" IN_LIST _modes)
      list(APPEND _modes names-fortran-O0 names-fortran-O2)
    endif()
  endif()
  foreach(mode IN LISTS _modes)
    add_test(NAME omp_${mode} COMMAND sh ${_d}/run.sh ${mode})
    set_tests_properties(omp_${mode} PROPERTIES TIMEOUT 300 LABELS omp
      ENVIRONMENT "SP_BIN=${PROJECT_BINARY_DIR}/bin;PY3=${SP_PYTHON3};SRC=${_d};REPORT=$<TARGET_FILE:sp-report>;PYTHONPATH=${PROJECT_SOURCE_DIR}/python")
  endforeach()
  # omp_symbolize_killed: sym_omp.c killed by SIGSEGV with nothing named in
  # the process (SP_TEST_NO_SYMBOLS); sp-import names its constructs from
  # the binary as the process does (test/unit/runtime/check_symbolize.sh)
  if(SP_LIBOMP AND SP_TESTING AND TARGET sp-dump)
    add_test(NAME omp_symbolize_killed COMMAND sh
      ${PROJECT_SOURCE_DIR}/test/unit/runtime/check_symbolize.sh omp)
    set_tests_properties(omp_symbolize_killed PROPERTIES TIMEOUT 300 LABELS omp
      ENVIRONMENT "SP_BIN=${PROJECT_BINARY_DIR}/bin;IMPORT=$<TARGET_FILE:sp-import>;REPORT=$<TARGET_FILE:sp-report>;DUMP=$<TARGET_FILE:sp-dump>;SRC=${PROJECT_SOURCE_DIR}/test/unit/runtime")
  endif()
  # the same names with LLVM 19's libomp (libomp-19-dev), another OMPT
  # runtime the programs may meet
  if(SP_LIBOMP AND EXISTS /usr/lib/llvm-19/lib/libomp.so.5)
    set(_modes19 names-c-O2)
    if("fortran" IN_LIST _modes)
      list(APPEND _modes19 names-fortran-O2)
    endif()
    foreach(mode IN LISTS _modes19)
      add_test(NAME omp_${mode}-libomp19 COMMAND sh ${_d}/run.sh ${mode})
      set_tests_properties(omp_${mode}-libomp19 PROPERTIES TIMEOUT 300
        LABELS omp ENVIRONMENT "SP_BIN=${PROJECT_BINARY_DIR}/bin;PY3=${SP_PYTHON3};SRC=${_d};SP_LIBOMP_DIR=/usr/lib/llvm-19/lib")
    endforeach()
  endif()
endif()

# omp_c_built: omp_prog.c built by this build's own C compiler, with its
# flags (a sanitizer build's too), against the runtime target: no plugin,
# no wrapper, so the ASan+UBSan leg (built without the plugin) runs it
# (label sanitize, scripts/test_sanitizers.sh). Clang only: GCC's -fopenmp
# brings libgomp, which has no OMPT. Not under TSan (label threads): the
# system's libomp is not built with TSan, whose reports then come from
# libomp's own locks and from what OpenMP constructs hand between threads
# (docs/guide.md, "Tests").
if(SP_USE_HDF5 AND SP_PYTHON3 AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  set(_d ${CMAKE_CURRENT_LIST_DIR}/omp)
  add_executable(omp_prog_built ${_d}/omp_prog.c)
  target_compile_options(omp_prog_built PRIVATE -fopenmp -g)
  target_link_options(omp_prog_built PRIVATE -fopenmp)
  target_link_libraries(omp_prog_built PRIVATE scopeprof)
  add_test(NAME omp_c_built COMMAND sh ${_d}/run.sh built)
  set_tests_properties(omp_c_built PROPERTIES TIMEOUT 300
    LABELS "omp;sanitize"
    ENVIRONMENT "PROG=$<TARGET_FILE:omp_prog_built>;PY3=${SP_PYTHON3};SRC=${_d}")
  # omp_names.c the same way, at -O2: its names under the build's flags
  add_executable(omp_names_built ${_d}/omp_names.c)
  target_compile_options(omp_names_built PRIVATE -fopenmp -O2 -g)
  target_link_options(omp_names_built PRIVATE -fopenmp)
  target_link_libraries(omp_names_built PRIVATE scopeprof)
  add_test(NAME omp_names_built COMMAND sh ${_d}/run.sh names-built)
  set_tests_properties(omp_names_built PROPERTIES TIMEOUT 300
    LABELS "omp;sanitize"
    ENVIRONMENT "PROG=$<TARGET_FILE:omp_names_built>;PY3=${SP_PYTHON3};SRC=${_d}")
endif()
