# Runtime tests: scenario programs linked with libscopeprof, driven and
# checked by test_runtime (cmocka) in child processes.
find_package(Threads REQUIRED)
add_executable(rt_scenario ${CMAKE_CURRENT_LIST_DIR}/runtime/scenario.c)
target_compile_options(rt_scenario PRIVATE ${SP_C_WARNINGS})
target_compile_definitions(rt_scenario PRIVATE _GNU_SOURCE)
target_link_libraries(rt_scenario PRIVATE scopeprof Threads::Threads)

# A plain -finstrument-functions build: the runtime's hooks, no plugin.
add_executable(rt_cyg_prog ${CMAKE_CURRENT_LIST_DIR}/runtime/cyg_prog.c)
target_compile_options(rt_cyg_prog PRIVATE -O2 -finstrument-functions)
target_link_libraries(rt_cyg_prog PRIVATE scopeprof)

# Libraries loaded and closed by a -finstrument-functions program: a
# second library where the first was must not take the first's names.
foreach(_lib alpha gamma)
  add_library(rt_cyg_dl_${_lib} MODULE ${CMAKE_CURRENT_LIST_DIR}/runtime/cyg_dl_lib.c)
  target_compile_options(rt_cyg_dl_${_lib} PRIVATE -O2 -finstrument-functions)
  target_compile_definitions(rt_cyg_dl_${_lib} PRIVATE LIB=${_lib})
endforeach()
add_executable(rt_cyg_dl ${CMAKE_CURRENT_LIST_DIR}/runtime/cyg_dl_prog.c)
target_compile_options(rt_cyg_dl PRIVATE -O2 -finstrument-functions)
target_link_libraries(rt_cyg_dl PRIVATE scopeprof ${CMAKE_DL_LIBS})

include(CheckLanguage)
check_language(CXX)
if(CMAKE_CXX_COMPILER)
  enable_language(CXX)
  add_executable(rt_cyg_cxx ${CMAKE_CURRENT_LIST_DIR}/runtime/cyg_prog.cpp)
  target_compile_options(rt_cyg_cxx PRIVATE -O2 -finstrument-functions)
  target_link_libraries(rt_cyg_cxx PRIVATE scopeprof)
  set(_sp_rt_cxx rt_cyg_cxx)
endif()

# The same scenarios on the static library.
add_executable(rt_scenario_static ${CMAKE_CURRENT_LIST_DIR}/runtime/scenario.c)
target_compile_options(rt_scenario_static PRIVATE ${SP_C_WARNINGS})
target_compile_definitions(rt_scenario_static PRIVATE _GNU_SOURCE)
target_link_libraries(rt_scenario_static PRIVATE scopeprof_static Threads::Threads)

sp_add_unit_test(test_runtime
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/runtime/test_runtime.c
  LIBS sp_format LABELS threads)
sp_unit_test_depends(test_runtime rt_scenario rt_scenario_static rt_cyg_prog ${_sp_rt_cxx}
  rt_cyg_dl rt_cyg_dl_alpha rt_cyg_dl_gamma)
if(TARGET scopeprof_h5)
  target_compile_definitions(test_runtime PRIVATE
    SP_TEST_H5_MODULE="$<TARGET_FILE:scopeprof_h5>"
    SP_TEST_H5_INSTALLED="${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/scopeprof/libscopeprof_h5.so")
endif()


# Where a parallel region is, from its call's ident_t (symbols.c and the
# format library's ELF reader on their own, with libomp's two calls played
# by the test), at -O2 with -g whatever the build type: the code a compiler emits for an optimised call.
sp_add_unit_test(test_fork_where
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/runtime/test_fork_where.c
    ${CMAKE_CURRENT_LIST_DIR}/runtime/fork_where_omp.c
    ${PROJECT_SOURCE_DIR}/runtime/src/symbols.c
    ${PROJECT_SOURCE_DIR}/runtime/src/objects.c
    ${PROJECT_SOURCE_DIR}/format/elf_sym.c
    ${PROJECT_SOURCE_DIR}/format/elf_lines.c
    ${PROJECT_SOURCE_DIR}/format/symbolize.c
  INCLUDES ${PROJECT_SOURCE_DIR}/runtime/src ${PROJECT_SOURCE_DIR}/format
  DEFINITIONS SP_BUILDING_RUNTIME LIBS Threads::Threads ${CMAKE_DL_LIBS})
if(TARGET test_fork_where)
  target_compile_options(test_fork_where PRIVATE -O2 -g)
endif()

# The registry on its own with a limit of two pages (8192 regions), so that
# sp_region's SP_ELIMIT path runs in a moment.
sp_add_unit_test(test_runtime_registry
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/runtime/test_runtime_registry.c
    ${PROJECT_SOURCE_DIR}/runtime/src/registry.c
  INCLUDES ${PROJECT_SOURCE_DIR}/runtime/src
  DEFINITIONS SP__MAX_PAGES=2 LIBS Threads::Threads)
# Neither library links HDF5; the module does, and exports its four entry
# points only.
find_program(SP_READELF NAMES readelf)
find_program(SP_NM NAMES nm)
if(SP_READELF AND SP_NM)
  set(_sp_h5_module_check "")
  if(TARGET scopeprof_h5)
    set(_sp_h5_module_check "; '${SP_READELF}' -d '$<TARGET_FILE:scopeprof_h5>' | grep -q 'NEEDED.*libhdf5'; \
      test \"$('${SP_NM}' -D --defined-only '$<TARGET_FILE:scopeprof_h5>' | awk '{print $3}' | tr '\\n' ' ')\" = 'sp__h5_merge_get sp__h5_write sp__h5_write_counters sp__h5_write_profile '")
  endif()
  add_test(NAME runtime_links_no_hdf5 COMMAND sh -c
    "set -e; ! '${SP_READELF}' -d '$<TARGET_FILE:scopeprof>' | grep -i 'NEEDED.*hdf5'; \
     ! '${SP_NM}' '$<TARGET_FILE:scopeprof_static>' | grep -E ' U H5'; \
     ! '${SP_NM}' -D '$<TARGET_FILE:scopeprof>' | grep -E ' U H5'${_sp_h5_module_check}")
endif()

# Fortran programs only when the build has Fortran (SP_BUILD_FORTRAN, whose
# default is ON when a Fortran compiler is found).
if(SP_BUILD_FORTRAN)
  add_executable(rt_cyg_f90 ${CMAKE_CURRENT_LIST_DIR}/runtime/cyg_prog.f90)
  target_compile_options(rt_cyg_f90 PRIVATE -O1 -finstrument-functions)
  target_link_libraries(rt_cyg_f90 PRIVATE scopeprof)
  sp_unit_test_depends(test_runtime rt_cyg_f90)
  if(TARGET scopeprof_fortran)
    # The module API, with the runtime's hooks on as well.
    add_executable(rt_f90_api ${CMAKE_CURRENT_LIST_DIR}/runtime/f90_api.f90)
    target_compile_options(rt_f90_api PRIVATE -O1 -finstrument-functions)
    target_link_libraries(rt_f90_api PRIVATE scopeprof_fortran)
    sp_unit_test_depends(test_runtime rt_f90_api)
  endif()
endif()

# The module API built with flang-22 and the plugin (regions of the plugin
# and of the API in one program).
if(TARGET ScopeProf AND TARGET scopeprof_fortran_flang AND LLVM_VERSION_MAJOR GREATER_EQUAL 22)
  set(_flang ${LLVM_TOOLS_BINARY_DIR}/flang)
  set(_fmod ${PROJECT_BINARY_DIR}/fortran/mod/LLVMFlang)
  add_custom_command(OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/rt_f90_api_flang
    COMMAND ${_flang} -O2 -gline-tables-only -fpass-plugin=$<TARGET_FILE:ScopeProf>
      -finstrument-functions -I${_fmod} ${CMAKE_CURRENT_LIST_DIR}/runtime/f90_api.f90
      -o ${CMAKE_CURRENT_BINARY_DIR}/rt_f90_api_flang $<TARGET_FILE:scopeprof_fortran_flang>
      -L$<TARGET_FILE_DIR:scopeprof> -lscopeprof -Wl,-rpath,$<TARGET_FILE_DIR:scopeprof>
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/runtime/f90_api.f90 ScopeProf scopeprof
      scopeprof_fortran_flang
    COMMENT "Building rt_f90_api_flang with flang and the plugin")
  add_custom_target(rt_f90_api_flang_bin ALL DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/rt_f90_api_flang)
  sp_unit_test_depends(test_runtime rt_f90_api_flang_bin)
endif()

# The runtime's .h5, read by h5py (independent reader) and h5dump.
if(SP_USE_HDF5)
  find_program(SP_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
  find_program(SP_H5DUMP h5dump)
  add_test(NAME runtime_h5_h5py COMMAND sh -c
    "set -e; d=$(mktemp -d); SP_FORMAT=h5 SP_OUTPUT=$d/p '$<TARGET_FILE:rt_scenario>' threads16; \
     '${SP_PYTHON3}' '${CMAKE_CURRENT_LIST_DIR}/runtime/check_h5.py' $d/p_rank00000.h5; \
     '${SP_H5DUMP}' -H $d/p_rank00000.h5 | grep -q 'DATASET \"threads\"'; \
     '${SP_H5DUMP}' -a scope_profiler_schema $d/p_rank00000.h5 | grep -q '(0): 2'; rm -rf $d")
  set_tests_properties(runtime_h5_h5py PROPERTIES LABELS "sanitize;threads")
  # The same run (a deterministic clock; most calls through the stream)
  # with the stream's calls compact or as 16-byte pairs gives the same .spt
  # byte for byte; written as .h5 (compressed events), the same report and
  # the same merged profile.
  add_test(NAME runtime_compact_same COMMAND sh -c
    "set -e; d=$(mktemp -d); export SP_TEST_CLOCK_STEP_NS=7 SP_MEMORY=2M; \
     SP_STREAM_COMPACT=0 SP_OUTPUT=$d/c0 '$<TARGET_FILE:rt_scenario>' threads1; \
     SP_STREAM_COMPACT=1 SP_OUTPUT=$d/c1 '$<TARGET_FILE:rt_scenario>' threads1; \
     SP_FORMAT=h5 SP_OUTPUT=$d/h '$<TARGET_FILE:rt_scenario>' threads1; \
     cmp $d/c0_rank00000.spt $d/c1_rank00000.spt; \
     '$<TARGET_FILE:sp-report>' $d/c1_rank00000.spt | tail -n +2 > $d/r1; \
     '$<TARGET_FILE:sp-report>' $d/h_rank00000.h5 | tail -n +2 > $d/rh; \
     test -s $d/r1; cmp $d/r1 $d/rh; \
     '$<TARGET_FILE:sp-import>' -o $d/a.h5 $d/c1_rank00000.spt; \
     '$<TARGET_FILE:sp-import>' -o $d/b.h5 $d/h_rank00000.h5; \
     PYTHONPATH='${PROJECT_SOURCE_DIR}/python' '${SP_PYTHON3}' \
       '${CMAKE_CURRENT_LIST_DIR}/runtime/check_compact.py' \
       $d/h_rank00000.h5 $d/a.h5 $d/b.h5 $d/c1_rank00000.spt; rm -rf $d")
  set_tests_properties(runtime_compact_same PROPERTIES LABELS "sanitize")
  # The stream a SIGTERM leaves, compact or as pairs: the same calls for
  # sp-import and sp-report, in 2 bytes a call instead of 16.
  add_test(NAME runtime_compact_stream COMMAND sh -c
    "d=$(mktemp -d); export SP_TEST_CLOCK_STEP_NS=7 SP_MEMORY=2M; \
     SP_STREAM_COMPACT=0 SP_OUTPUT=$d/s0 '$<TARGET_FILE:rt_scenario>' end:sigterm:300000; \
     SP_STREAM_COMPACT=1 SP_OUTPUT=$d/s1 '$<TARGET_FILE:rt_scenario>' end:sigterm:300000; \
     set -e; \
     '$<TARGET_FILE:sp-import>' -o $d/a0.h5 $d/s0_rank00000.*.spts 2>/dev/null; \
     '$<TARGET_FILE:sp-import>' -o $d/a1.h5 $d/s1_rank00000.*.spts 2>/dev/null; \
     '$<TARGET_FILE:sp-report>' $d/s0_rank00000.*.spts 2>/dev/null | tail -n +2 > $d/r0; \
     '$<TARGET_FILE:sp-report>' $d/s1_rank00000.*.spts 2>/dev/null | tail -n +2 > $d/r1; \
     test -s $d/r0; cmp $d/r0 $d/r1; \
     '${SP_PYTHON3}' '${CMAKE_CURRENT_LIST_DIR}/runtime/check_compact_stream.py' \
       $d/s0_rank00000.*.spts $d/s1_rank00000.*.spts $d/a0.h5 $d/a1.h5; rm -rf $d")
  set_tests_properties(runtime_compact_stream PROPERTIES LABELS "sanitize")
endif()

# Every writer on a disk that fills at many sizes: the runtime (.h5 and
# .spt), sp-import, sp-report.
if(SP_USE_HDF5 AND TARGET sp-import)
  add_test(NAME test_full_disk
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_full_disk.py
      $<TARGET_FILE:rt_scenario> $<TARGET_FILE:sp-import> $<TARGET_FILE:sp-report>
      ${CMAKE_CURRENT_BINARY_DIR}/test_full_disk_work)
  set_tests_properties(test_full_disk PROPERTIES TIMEOUT 600)
endif()

# An application using HDF5 itself, built against serial HDF5 and against
# the OpenMPI build (libhdf5-openmpi-dev, when installed), without and with
# ScopeProf (-finstrument-functions): its file and its error reports must
# not change. check_h5_app.py runs them.
if(TARGET scopeprof_h5)
  set(_sp_h5_apps "")
  macro(sp_h5_app name inc lib defs)
    add_executable(h5_app_${name}_plain ${CMAKE_CURRENT_LIST_DIR}/runtime/h5_app.c)
    add_executable(h5_app_${name}_sp ${CMAKE_CURRENT_LIST_DIR}/runtime/h5_app.c)
    target_compile_options(h5_app_${name}_sp PRIVATE -finstrument-functions)
    target_link_libraries(h5_app_${name}_sp PRIVATE scopeprof)
    foreach(t h5_app_${name}_plain h5_app_${name}_sp)
      target_include_directories(${t} PRIVATE ${inc})
      target_compile_definitions(${t} PRIVATE ${defs})
      target_compile_options(${t} PRIVATE ${SP_C_WARNINGS})
      target_link_libraries(${t} PRIVATE ${lib})
    endforeach()
    list(APPEND _sp_h5_apps ${name} $<TARGET_FILE:h5_app_${name}_plain>
      $<TARGET_FILE:h5_app_${name}_sp>)
  endmacro()
  sp_h5_app(serial "${HDF5_C_INCLUDE_DIRS};${HDF5_INCLUDE_DIRS}"
    "${HDF5_C_LIBRARIES}" "${HDF5_C_DEFINITIONS}")
  find_path(SP_HDF5_MPI_INCLUDE H5pubconf.h
    PATHS /usr/include/hdf5/openmpi NO_DEFAULT_PATH)
  find_library(SP_HDF5_MPI_LIB hdf5
    PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/hdf5/openmpi NO_DEFAULT_PATH)
  find_package(MPI COMPONENTS C QUIET)
  if(SP_HDF5_MPI_INCLUDE AND SP_HDF5_MPI_LIB AND MPI_C_FOUND)
    sp_h5_app(mpi ${SP_HDF5_MPI_INCLUDE} "${SP_HDF5_MPI_LIB};MPI::MPI_C" H5_APP_MPI)
  else()
    message(STATUS "h5_app_mpi skipped: no OpenMPI HDF5 (scripts/deps.sh test)")
  endif()
  add_test(NAME runtime_h5_app COMMAND ${Python3_EXECUTABLE}
    ${CMAKE_CURRENT_LIST_DIR}/runtime/check_h5_app.py
    ${CMAKE_CURRENT_BINARY_DIR}/h5_app_work ${_sp_h5_apps})
  set_tests_properties(runtime_h5_app PROPERTIES TIMEOUT 300)
endif()

# scope_profiler.h on its own, as strict C11 and as C++ (compile-only).
add_library(rt_header_c OBJECT ${CMAKE_CURRENT_LIST_DIR}/runtime/header_c.c)
target_include_directories(rt_header_c PRIVATE ${PROJECT_SOURCE_DIR}/runtime/include)
target_compile_options(rt_header_c PRIVATE ${SP_C_WARNINGS} -pedantic -std=c11)
if(CMAKE_CXX_COMPILER)
  add_library(rt_header_cxx OBJECT ${CMAKE_CURRENT_LIST_DIR}/runtime/header_cxx.cpp)
  target_include_directories(rt_header_cxx PRIVATE ${PROJECT_SOURCE_DIR}/runtime/include)
  target_compile_options(rt_header_cxx PRIVATE ${SP_CXX_WARNINGS} -pedantic)
  set_target_properties(rt_header_cxx PROPERTIES CXX_STANDARD 11)
  sp_unit_test_depends(test_runtime rt_header_cxx)
endif()
sp_unit_test_depends(test_runtime rt_header_c)

# MPI: mpirun -np 2 writes two rank files with the right ranks, from the
# launcher's variables or, with them hidden, from MPI itself.
find_package(MPI COMPONENTS C QUIET)
find_program(SP_MPIRUN NAMES mpirun mpiexec)
# MPI itself is asked through the MPI layer (libscopeprof_mpi.so), whose
# call recording SP_MPI=0 turns off: the program's own regions are counted.
if(TARGET scopeprof_mpi AND SP_MPIRUN AND SP_USE_HDF5 AND TARGET sp-import)
  add_executable(rt_mpi_prog ${CMAKE_CURRENT_LIST_DIR}/runtime/mpi_prog.c)
  target_link_libraries(rt_mpi_prog PRIVATE scopeprof_mpi scopeprof MPI::MPI_C)
  target_compile_definitions(rt_mpi_prog PRIVATE _GNU_SOURCE)
  target_compile_options(rt_mpi_prog PRIVATE ${SP_C_WARNINGS})
  foreach(mode env hide hide-atexit)
    add_test(NAME runtime_mpirun_${mode} COMMAND sh -c
      "set -e; d=$(mktemp -d); \
       OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 SP_MPI=0 SP_FORMAT=h5 SP_OUTPUT=$d/mpi \
       '${SP_MPIRUN}' --oversubscribe -np 2 '$<TARGET_FILE:rt_mpi_prog>' ${mode}; \
       '${SP_PYTHON3}' '${CMAKE_CURRENT_LIST_DIR}/runtime/check_mpi.py' $d '$<TARGET_FILE:sp-import>'; \
       rm -rf $d")
    set_tests_properties(runtime_mpirun_${mode} PROPERTIES TIMEOUT 120 LABELS mpi)
  endforeach()
  # Rank 1 of 3 crashes, or calls MPI_Abort; the launcher kills the others:
  # all three merge. OpenMPI sends SIGKILL 1 s after SIGTERM by default; on
  # a loaded machine (the other ranks spin in MPI, the disk throttles
  # writes) the SIGTERM flush can take longer, so the test gives the grace
  # period batch systems give (Slurm: 30 s). MPI_Abort needs none: the
  # other ranks save their calls before the launcher hears of the abort.
  foreach(mode crash abort)
    set(_grace "OMPI_MCA_odls_base_sigkill_timeout=30")
    if(mode STREQUAL "abort")
      set(_grace "")
    endif()
    add_test(NAME runtime_mpirun_${mode} COMMAND sh -c
      "d=$(mktemp -d); \
       OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 SP_MPI=0 SP_OUTPUT=$d/mpi \
       ${_grace} \
       '${SP_MPIRUN}' --oversubscribe -np 3 '$<TARGET_FILE:rt_mpi_prog>' ${mode} >/dev/null 2>&1; \
       '${SP_PYTHON3}' '${CMAKE_CURRENT_LIST_DIR}/runtime/check_mpi_crash.py' $d '$<TARGET_FILE:sp-import>' ${mode} \
         && rm -rf $d")
    set_tests_properties(runtime_mpirun_${mode} PROPERTIES TIMEOUT 120 LABELS mpi)
  endforeach()
endif()

# Every way a process ends: signals, crashes, abort, exit, _exit, SIGKILL.
if(CMAKE_CXX_COMPILER)
  add_executable(rt_throw ${CMAKE_CURRENT_LIST_DIR}/runtime/throw_prog.cpp)
  target_link_libraries(rt_throw PRIVATE scopeprof)
endif()
# Not under the sanitizers: their own handlers of SIGSEGV and SIGABRT
# change what a crash ends with.
set(_sp_endings_defs "")
if(TARGET rt_throw)
  set(_sp_endings_defs SP_HAVE_CXX=1)
endif()
sp_add_unit_test(test_endings
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/runtime/test_endings.c
  LIBS sp_format DEFINITIONS ${_sp_endings_defs} NO_SANITIZE)
sp_unit_test_depends(test_endings rt_scenario)
# MPI_Abort's request to the job's other processes on the node, without MPI
# (a pretended job: PMIX_NAMESPACE), so that it runs under the sanitizers.
add_executable(rt_abort_peer ${CMAKE_CURRENT_LIST_DIR}/runtime/abort_peer.c
  ${CMAKE_CURRENT_LIST_DIR}/runtime/abort_shim.c)
target_link_libraries(rt_abort_peer PRIVATE scopeprof)
target_compile_options(rt_abort_peer PRIVATE ${SP_C_WARNINGS})
sp_add_unit_test(test_abort
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/runtime/test_abort.c
  LIBS sp_format LABELS threads)
sp_unit_test_depends(test_abort rt_abort_peer)
# A gfortran program whose libgfortran installs its backtrace handlers
# after the runtime's (from main): every ending still flushed.
if(SP_BUILD_FORTRAN AND CMAKE_Fortran_COMPILER_ID STREQUAL "GNU")
  add_executable(rt_gf_endings ${CMAKE_CURRENT_LIST_DIR}/runtime/gf_endings.f90)
  target_compile_options(rt_gf_endings PRIVATE -O1 -finstrument-functions)
  target_link_libraries(rt_gf_endings PRIVATE scopeprof)
  sp_unit_test_depends(test_endings rt_gf_endings)
  if(TARGET test_endings)
    target_compile_definitions(test_endings PRIVATE SP_HAVE_GFORTRAN=1)
  endif()
endif()
if(TARGET rt_throw)
  sp_unit_test_depends(test_endings rt_throw)
endif()

# What test_runtime, test_endings and test_abort start, runnable in a cross
# build too.
sp_test_programs(rt_scenario rt_scenario_static rt_cyg_prog rt_cyg_cxx
  rt_cyg_dl rt_cyg_f90 rt_f90_api rt_throw rt_gf_endings rt_abort_peer)

# Regions a run killed by SIGSEGV left as code addresses (SP_TEST_NO_SYMBOLS:
# none named in the process), named by sp-import and sp-report from the
# binary as the process would have named them; the binary rebuilt (another
# build-id) or removed: one warning, addresses kept. The OpenMP half is in
# omp.cmake.
add_executable(rt_sym_prog ${CMAKE_CURRENT_LIST_DIR}/runtime/sym_prog.c)
add_executable(rt_sym_prog_rebuilt ${CMAKE_CURRENT_LIST_DIR}/runtime/sym_prog.c)
target_compile_definitions(rt_sym_prog_rebuilt PRIVATE REBUILT=1)
foreach(t rt_sym_prog rt_sym_prog_rebuilt)
  target_compile_options(${t} PRIVATE -O1 -g -finstrument-functions)
  target_link_options(${t} PRIVATE -Wl,--build-id)
  target_link_libraries(${t} PRIVATE scopeprof)
endforeach()
if(SP_USE_HDF5 AND TARGET sp-dump AND SP_TESTING AND CMAKE_CXX_COMPILER)
  add_executable(rt_sym_cxx ${CMAKE_CURRENT_LIST_DIR}/runtime/sym_prog.cpp)
  target_compile_options(rt_sym_cxx PRIVATE -O1 -g -finstrument-functions)
  target_link_libraries(rt_sym_cxx PRIVATE scopeprof)
  add_test(NAME runtime_symbolize_killed_cxx COMMAND sh
    ${CMAKE_CURRENT_LIST_DIR}/runtime/check_symbolize.sh cxx)
  set_tests_properties(runtime_symbolize_killed_cxx PROPERTIES LABELS sanitize
    ENVIRONMENT "PROG=$<TARGET_FILE:rt_sym_cxx>;IMPORT=$<TARGET_FILE:sp-import>;REPORT=$<TARGET_FILE:sp-report>;DUMP=$<TARGET_FILE:sp-dump>;SRC=${CMAKE_CURRENT_LIST_DIR}/runtime")
endif()
if(SP_USE_HDF5 AND TARGET sp-dump AND SP_TESTING)
  add_test(NAME runtime_symbolize_killed COMMAND sh
    ${CMAKE_CURRENT_LIST_DIR}/runtime/check_symbolize.sh cyg)
  set_tests_properties(runtime_symbolize_killed PROPERTIES LABELS sanitize
    ENVIRONMENT "PROG=$<TARGET_FILE:rt_sym_prog>;PROG2=$<TARGET_FILE:rt_sym_prog_rebuilt>;IMPORT=$<TARGET_FILE:sp-import>;REPORT=$<TARGET_FILE:sp-report>;DUMP=$<TARGET_FILE:sp-dump>;SRC=${CMAKE_CURRENT_LIST_DIR}/runtime")
endif()

# Every variable of runtime/src/env.def has its row in docs/runtime.md, with
# the same default.
add_executable(rt_env_table ${CMAKE_CURRENT_LIST_DIR}/runtime/env_table.c)
target_include_directories(rt_env_table PRIVATE ${PROJECT_SOURCE_DIR}/runtime/src)
target_compile_options(rt_env_table PRIVATE ${SP_C_WARNINGS})
target_compile_definitions(rt_env_table PRIVATE $<$<BOOL:${SP_TESTING}>:SP_TESTING>)
add_test(NAME runtime_env_table_documented
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/runtime/check_env_docs.sh
    $<TARGET_FILE:rt_env_table> ${PROJECT_SOURCE_DIR}/docs/runtime.md)

# What once crashed, hung or misreported (many threads over a tight budget,
# a signal handler recording while the runtime is busy, long names, lost
# calls and their messages), and a randomised stress over threads, regions
# and budgets whose seed is printed.
add_executable(rt_robust ${CMAKE_CURRENT_LIST_DIR}/runtime/robust_prog.c)
target_compile_options(rt_robust PRIVATE ${SP_C_WARNINGS})
target_link_libraries(rt_robust PRIVATE scopeprof Threads::Threads)
add_executable(rt_sig ${CMAKE_CURRENT_LIST_DIR}/runtime/sig_prog.c)
target_compile_options(rt_sig PRIVATE -O2 -finstrument-functions)
target_link_libraries(rt_sig PRIVATE scopeprof)
sp_add_unit_test(test_robust
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/runtime/test_robust.c
  LIBS sp_format LABELS threads)
sp_unit_test_depends(test_robust rt_robust rt_sig)
sp_test_programs(rt_robust rt_sig)

# SP_MODE=profile: deterministic programs against trace mode and by hand,
# endings by signal, the path bound, size independence (test_profile.py).
add_executable(rt_profile_prog ${CMAKE_CURRENT_LIST_DIR}/runtime/profile_prog.c)
target_compile_options(rt_profile_prog PRIVATE ${SP_C_WARNINGS})
target_compile_definitions(rt_profile_prog PRIVATE _GNU_SOURCE)
target_link_libraries(rt_profile_prog PRIVATE scopeprof Threads::Threads)
if(SP_USE_HDF5 AND TARGET sp-import)
  add_test(NAME test_profile
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_profile.py
      $<TARGET_FILE:rt_profile_prog> $<TARGET_FILE:sp-import>
      $<TARGET_FILE:sp-report> ${CMAKE_CURRENT_BINARY_DIR}/test_profile_work)
  set_tests_properties(test_profile PROPERTIES TIMEOUT 300 LABELS threads)
endif()

# The run-time filter (SP_FILTER): one a -> b -> c program built with the C
# API, with the compiler's -finstrument-functions (gcc in the usual build)
# and, where the plugin is built, with the plugin (test_filter.py).
foreach(_kind api cyg)
  add_executable(rt_filter_${_kind} ${CMAKE_CURRENT_LIST_DIR}/runtime/filter_prog.c)
  target_link_libraries(rt_filter_${_kind} PRIVATE scopeprof)
endforeach()
target_compile_definitions(rt_filter_api PRIVATE FILTER_API)
target_compile_options(rt_filter_api PRIVATE -O2 ${SP_C_WARNINGS})
target_compile_options(rt_filter_cyg PRIVATE -O2 -finstrument-functions)
set(_sp_filter_progs $<TARGET_FILE:rt_filter_api> $<TARGET_FILE:rt_filter_cyg>)
set(_sp_filter_deps rt_filter_api rt_filter_cyg)
if(TARGET ScopeProf AND EXISTS ${LLVM_TOOLS_BINARY_DIR}/clang)
  set(_sp_fplug ${CMAKE_CURRENT_BINARY_DIR}/rt_filter_plugin)
  add_custom_command(OUTPUT ${_sp_fplug}
    COMMAND ${LLVM_TOOLS_BINARY_DIR}/clang -O2 -DFILTER_PLUGIN
      -fpass-plugin=$<TARGET_FILE:ScopeProf>
      -I${PROJECT_SOURCE_DIR}/runtime/include
      ${CMAKE_CURRENT_LIST_DIR}/runtime/filter_prog.c -o ${_sp_fplug}
      -L$<TARGET_FILE_DIR:scopeprof> -lscopeprof
      -Wl,-rpath,$<TARGET_FILE_DIR:scopeprof>
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/runtime/filter_prog.c ScopeProf scopeprof
    COMMENT "Building rt_filter_plugin with clang and the plugin" VERBATIM)
  add_custom_target(rt_filter_plugin_bin ALL DEPENDS ${_sp_fplug})
  list(APPEND _sp_filter_progs ${_sp_fplug})
endif()
if(SP_USE_HDF5)
  add_test(NAME test_filter
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_filter.py
      ${CMAKE_CURRENT_BINARY_DIR}/test_filter_work ${_sp_filter_progs})
  set_tests_properties(test_filter PROPERTIES TIMEOUT 300 LABELS sanitize)
endif()

# The filter's parser and glob matcher on their own (test_filter.c), and
# the same corpus (filter_corpus.txt) through the plugin's matcher, so that
# both agree case by case.
sp_add_unit_test(test_filter_match
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/runtime/test_filter.c
    ${PROJECT_SOURCE_DIR}/runtime/src/filter.c
  INCLUDES ${PROJECT_SOURCE_DIR}/runtime/src
  DEFINITIONS SP__MAX_PAGES=2
    SP_FILTER_CORPUS="${CMAKE_CURRENT_LIST_DIR}/runtime/filter_corpus.txt")
if(TARGET ScopeProf AND EXISTS ${LLVM_LIBRARY_DIR}/libLLVM.so)
  enable_language(CXX)
  add_executable(filter_corpus_llvm
    ${CMAKE_CURRENT_LIST_DIR}/runtime/filter_corpus_llvm.cpp
    ${PROJECT_SOURCE_DIR}/pass/Filter.cpp)
  set_target_properties(filter_corpus_llvm PROPERTIES CXX_STANDARD 17
    CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  target_include_directories(filter_corpus_llvm PRIVATE ${PROJECT_SOURCE_DIR}/pass)
  target_include_directories(filter_corpus_llvm SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS})
  separate_arguments(_sp_fc_defs NATIVE_COMMAND "${LLVM_DEFINITIONS}")
  target_compile_definitions(filter_corpus_llvm PRIVATE ${_sp_fc_defs})
  if(NOT LLVM_ENABLE_RTTI)
    target_compile_options(filter_corpus_llvm PRIVATE -fno-rtti)
  endif()
  target_compile_options(filter_corpus_llvm PRIVATE -Wall -Wextra)
  target_link_libraries(filter_corpus_llvm PRIVATE ${LLVM_LIBRARY_DIR}/libLLVM.so)
  set_target_properties(filter_corpus_llvm PROPERTIES
    BUILD_RPATH ${LLVM_LIBRARY_DIR})
  add_test(NAME test_filter_corpus_plugin
    COMMAND filter_corpus_llvm ${CMAKE_CURRENT_LIST_DIR}/runtime/filter_corpus.txt)
  set_tests_properties(test_filter_corpus_plugin PROPERTIES LABELS plugin)
endif()

# A program that is not an MPI program maps no MPI library and nothing of
# ScopeProf's MPI layer (libscopeprof_mpi, libscopeprof_h5mpi), whatever
# the format and SP_MERGE: the runtime links no MPI.
add_executable(rt_maps_prog ${CMAKE_CURRENT_LIST_DIR}/runtime/maps_prog.c)
target_compile_options(rt_maps_prog PRIVATE ${SP_C_WARNINGS})
target_link_libraries(rt_maps_prog PRIVATE scopeprof)
set(_maps_cases "spt 0" "spt 1")
if(TARGET scopeprof_h5)
  list(APPEND _maps_cases "h5 0" "h5 1")
endif()
foreach(_c IN LISTS _maps_cases)
  string(REPLACE " " ";" _c "${_c}")
  list(GET _c 0 _fmt)
  list(GET _c 1 _merge)
  add_test(NAME runtime_no_mpi_mapped_${_fmt}_merge${_merge}
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/runtime/check_maps.sh
      $<TARGET_FILE:rt_maps_prog>
      ${CMAKE_CURRENT_BINARY_DIR}/rt_maps_${_fmt}_${_merge} ${_fmt} ${_merge})
endforeach()

# The per-event entry points' machine code against the contract
# runtime/src/hotpath.h states (x86-64; elsewhere the test says it skips).
# An optimised, uninstrumented build only: -O0, sanitizers and coverage
# add calls the contract is not about.
find_program(SP_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(SP_OBJDUMP NAMES objdump llvm-objdump-22)
if(SP_PYTHON3 AND SP_OBJDUMP AND NOT CMAKE_BUILD_TYPE STREQUAL "Debug"
   AND NOT CMAKE_C_FLAGS MATCHES "-fsanitize|--coverage|-fprofile-arcs")
  add_test(NAME runtime_hotpath_codegen
    COMMAND ${SP_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/runtime/check_hotpath.py
      ${SP_OBJDUMP} $<TARGET_FILE:scopeprof>)
  set_tests_properties(runtime_hotpath_codegen PROPERTIES SKIP_RETURN_CODE 77)
endif()
# The same contract holds for both compilers the project supports: the
# test compiles record.c and cyg.c with each at -O2 and reads the objects.
find_program(SP_HOTPATH_GCC gcc-12)
find_program(SP_HOTPATH_CLANG clang-22)
foreach(_cc GCC CLANG)
  if(SP_PYTHON3 AND SP_OBJDUMP AND SP_HOTPATH_${_cc} AND NOT CMAKE_CROSSCOMPILING
     AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    string(TOLOWER ${_cc} _n)
    add_test(NAME runtime_hotpath_codegen_${_n}
      COMMAND ${SP_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/runtime/check_hotpath.py
        ${SP_OBJDUMP} --compile ${SP_HOTPATH_${_cc}} ${PROJECT_SOURCE_DIR})
    set_tests_properties(runtime_hotpath_codegen_${_n} PROPERTIES
      SKIP_RETURN_CODE 77)
  endif()
endforeach()

# rdpmc.h's read loop on pages made in memory.
sp_add_unit_test(test_rdpmc
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/runtime/test_rdpmc.c
  INCLUDES ${PROJECT_SOURCE_DIR}/runtime/src)

# SP_COUNTERS: counters_prog's regions, whose software counters are known
# in advance (fresh pages, blocking sleeps), checked in its .h5; the
# hardware counters' test where a PMU exists, the refusal's where none
# does (each skipped otherwise, with the reason).
if(TARGET scopeprof_h5)
  add_executable(counters_prog ${CMAKE_CURRENT_LIST_DIR}/runtime/counters_prog.c)
  target_compile_options(counters_prog PRIVATE ${SP_C_WARNINGS})
  target_link_libraries(counters_prog PRIVATE scopeprof Threads::Threads)
  sp_add_unit_test(test_counters
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/runtime/test_counters.c
    LIBS sp_format DEFINITIONS SP_TEST_H5_MODULE="$<TARGET_FILE:scopeprof_h5>"
    SP_TEST_IMPORT="$<TARGET_FILE:sp-import>"
    SP_TEST_REPORT="$<TARGET_FILE:sp-report>")
  sp_unit_test_depends(test_counters counters_prog scopeprof_h5 sp-import
    sp-report)
  # The same counters from Python (read_h5_summary(include_likwid=True)).
  if(TARGET sp-import AND Python3_EXECUTABLE)
    add_test(NAME test_scopeprof_likwid
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/test/python/test_likwid.py
        $<TARGET_FILE:counters_prog> $<TARGET_FILE:sp-import>
        $<TARGET_FILE:scopeprof_h5> ${CMAKE_CURRENT_BINARY_DIR}/test_likwid_work)
    set_tests_properties(test_scopeprof_likwid PROPERTIES TIMEOUT 300
      ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/python:${PROJECT_SOURCE_DIR}/test/python")
  endif()
  if(TARGET test_counters)
    foreach(_k hw refused)
      add_test(NAME test_counters_${_k} COMMAND test_counters ${_k})
      set_tests_properties(test_counters_${_k} PROPERTIES SKIP_RETURN_CODE 77
        TIMEOUT 300)
    endforeach()
  endif()
endif()
