# libscopeprof_mpi.so: MPI calls recorded as regions, on 3 ranks, by every
# route a program gets the layer (link, sp-cc, mpicc, CMake, LD_PRELOAD),
# from C and Fortran, and SP_MPI=0. Label mpi.
find_program(SP_MPIRUN NAMES mpirun mpiexec)
# Tests mpi_<kind>_<mode> of label mpi: script run with each mode, env (a
# ;-list of NAME=value) in its environment.
function(sp_mpi_tests kind script modes env)
  foreach(mode IN LISTS modes)
    add_test(NAME mpi_${kind}_${mode} COMMAND ${script} ${mode})
    set_tests_properties(mpi_${kind}_${mode} PROPERTIES TIMEOUT 300
      LABELS mpi ENVIRONMENT "${env}")
  endforeach()
endfunction()
find_program(SP_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(TARGET scopeprof_mpi AND SP_MPIRUN AND SP_USE_HDF5 AND TARGET sp-import
   AND TARGET sp-report)
  set(_d ${CMAKE_CURRENT_LIST_DIR}/mpi)
  add_executable(mpi_calls ${_d}/calls.c)
  target_link_libraries(mpi_calls PRIVATE scopeprof_mpi scopeprof MPI::MPI_C)
  target_compile_options(mpi_calls PRIVATE ${SP_C_WARNINGS})
  add_executable(mpi_calls_plain ${_d}/calls.c)
  target_compile_definitions(mpi_calls_plain PRIVATE SP_PLAIN)
  target_link_libraries(mpi_calls_plain PRIVATE MPI::MPI_C)
  target_compile_options(mpi_calls_plain PRIVATE ${SP_C_WARNINGS})
  set(_modes link off preload ompi-cc cmake)
  if(SP_BUILD_PASS)
    list(APPEND _modes sp-cc)
  endif()
  find_program(SP_MPIF90 mpif90)
  if(MPI_Fortran_FOUND AND SP_MPIF90 AND TARGET scopeprof_fortran)
    list(APPEND _modes f-mpi f-f08 f-allreduce f-inplace cmake-f)
  endif()
  find_program(SP_FLANG22 flang-22)
  if(MPI_Fortran_FOUND AND SP_FLANG22 AND SP_BUILD_PASS)
    list(APPEND _modes flang-mpifh)
  endif()
  sp_mpi_tests(layer ${_d}/run.sh "${_modes}"
    "SP_BIN=${PROJECT_BINARY_DIR}/bin;SP_LIBDIR=$<TARGET_FILE_DIR:scopeprof_mpi>;SP_IMPORT=$<TARGET_FILE:sp-import>;SP_REPORT=$<TARGET_FILE:sp-report>;PY3=${SP_PYTHON3};MPIRUN=${SP_MPIRUN};MPICC=${MPI_C_COMPILER};MPIF90=${MPI_Fortran_COMPILER};PROG=$<TARGET_FILE:mpi_calls>;PLAIN=$<TARGET_FILE:mpi_calls_plain>;SRC=${_d};BUILD=${PROJECT_BINARY_DIR}")
  # The cmake test installs the tree: it needs everything built.

  # Bytes and partners: comm.c's known messages on 4 ranks (ring, 2x2
  # halo, MPI_Testany loop, MPI_ANY_SOURCE, MPI_Comm_split, collectives),
  # in the merged file, sp-report --matrix and Python; late.c's late
  # sender in sp-report --mpi.
  add_executable(mpi_comm ${_d}/comm.c)
  target_link_libraries(mpi_comm PRIVATE scopeprof_mpi scopeprof MPI::MPI_C)
  target_compile_options(mpi_comm PRIVATE ${SP_C_WARNINGS})
  set(_par 0)
  if(SP_BUILD_H5MPI)
    set(_par 1)
  endif()
  add_executable(mpi_late ${_d}/late.c)
  target_link_libraries(mpi_late PRIVATE scopeprof_mpi scopeprof MPI::MPI_C)
  target_compile_options(mpi_late PRIVATE ${SP_C_WARNINGS})
  target_compile_definitions(mpi_late PRIVATE _GNU_SOURCE)
  find_package(Threads REQUIRED)
  add_executable(mpi_threads ${_d}/threads.c)
  target_link_libraries(mpi_threads PRIVATE scopeprof_mpi scopeprof MPI::MPI_C
    Threads::Threads)
  target_compile_options(mpi_threads PRIVATE ${SP_C_WARNINGS})
  # With OTF2, the export's MPI events are checked against the same numbers.
  find_program(SP_OTF2_PRINT otf2-print)
  set(_otf2 "")
  if(SP_USE_OTF2 AND SP_OTF2_PRINT)
    set(_otf2 ";OTF2_PRINT=${SP_OTF2_PRINT}")
  endif()
  set(_e2e "")
  if(TARGET e2e_import_prog)
    set(_e2e ";E2E=$<TARGET_FILE:e2e_import_prog>")
  endif()
  sp_mpi_tests(comm ${_d}/comm.sh "h5;abort;merge;late;off;spt;threads"
    "MPIRUN=${SP_MPIRUN};COMM=$<TARGET_FILE:mpi_comm>;LATE=$<TARGET_FILE:mpi_late>;THREADS=$<TARGET_FILE:mpi_threads>;SP_IMPORT=$<TARGET_FILE:sp-import>;SP_REPORT=$<TARGET_FILE:sp-report>;PY3=${SP_PYTHON3};SRC=${_d};PYDIR=${PROJECT_SOURCE_DIR}/python;PAR=${_par}${_otf2}${_e2e}")

  # Persistent requests (MPI_Start, MPI_Startall) and matched receives
  # (MPI_Mprobe/Mrecv, MPI_Improbe/Imrecv) on 2 ranks; f_comm.F90's
  # messages on 4 ranks through each Fortran binding: mpif.h, use mpi and
  # use mpi_f08, the MPI layer linked ahead of MPI's Fortran libraries.
  set(_env "MPIRUN=${SP_MPIRUN};SP_IMPORT=$<TARGET_FILE:sp-import>;SP_REPORT=$<TARGET_FILE:sp-report>;PY3=${SP_PYTHON3};SRC=${_d};PYDIR=${PROJECT_SOURCE_DIR}/python")
  add_executable(mpi_persist ${_d}/persist.c)
  target_link_libraries(mpi_persist PRIVATE scopeprof_mpi scopeprof MPI::MPI_C)
  target_compile_options(mpi_persist PRIVATE ${SP_C_WARNINGS})
  add_test(NAME mpi_msgs_persist COMMAND ${_d}/msgs.sh 2 check_persist.py)
  set_tests_properties(mpi_msgs_persist PROPERTIES TIMEOUT 300 LABELS mpi
    ENVIRONMENT "${_env};PROG=$<TARGET_FILE:mpi_persist>")
  # MPI-4's persistent collectives, where mpi.h has them (MPICH 4; not
  # OpenMPI 4.1, whose MPI is 3.1).
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_INCLUDES ${MPI_C_INCLUDE_DIRS})
  check_c_source_compiles("#include <mpi.h>
#if MPI_VERSION < 4
#error MPI-3
#endif
int main(void) { return 0; }" SP_MPI_HAS_PCOLL)
  unset(CMAKE_REQUIRED_INCLUDES)
  if(SP_MPI_HAS_PCOLL)
    add_executable(mpi_pcoll ${_d}/pcoll.c)
    target_link_libraries(mpi_pcoll PRIVATE scopeprof_mpi scopeprof MPI::MPI_C)
    target_compile_options(mpi_pcoll PRIVATE ${SP_C_WARNINGS})
    add_test(NAME mpi_msgs_pcoll COMMAND ${_d}/msgs.sh 3 check_pcoll.py)
    set_tests_properties(mpi_msgs_pcoll PROPERTIES TIMEOUT 300 LABELS mpi
      ENVIRONMENT "${_env};PROG=$<TARGET_FILE:mpi_pcoll>")
  endif()
  add_executable(mpi_ncoll ${_d}/ncoll.c)
  target_link_libraries(mpi_ncoll PRIVATE scopeprof_mpi scopeprof MPI::MPI_C)
  target_compile_options(mpi_ncoll PRIVATE ${SP_C_WARNINGS})
  add_test(NAME mpi_msgs_ncoll COMMAND ${_d}/msgs.sh 4 check_ncoll.py)
  set_tests_properties(mpi_msgs_ncoll PROPERTIES TIMEOUT 300 LABELS mpi
    ENVIRONMENT "${_env};PROG=$<TARGET_FILE:mpi_ncoll>")
  # MPI-4's large-count (_c) calls and persistent neighbourhood collectives
  # on 4 ranks, where mpi.h has them (as mpi_msgs_pcoll).
  if(SP_MPI_HAS_PCOLL)
    add_executable(mpi_mpi4 ${_d}/mpi4.c)
    target_link_libraries(mpi_mpi4 PRIVATE scopeprof_mpi scopeprof MPI::MPI_C)
    target_compile_options(mpi_mpi4 PRIVATE ${SP_C_WARNINGS})
    add_test(NAME mpi_msgs_mpi4 COMMAND ${_d}/msgs.sh 4 check_mpi4.py)
    set_tests_properties(mpi_msgs_mpi4 PROPERTIES TIMEOUT 300 LABELS mpi
      ENVIRONMENT "${_env};PROG=$<TARGET_FILE:mpi_mpi4>")
  endif()
  if(MPI_Fortran_FOUND AND TARGET MPI::MPI_Fortran)
    # A Fortran program per binding b (mpif.h, use mpi, use mpi_f08) on 4
    # ranks, its messages checked by check.
    function(sp_mpi_ftest name check b)
      add_executable(mpi_${name}_${b} ${ARGN})
      if(b STREQUAL "mpi")
        target_compile_definitions(mpi_${name}_${b} PRIVATE SP_USE_MPI)
      elseif(b STREQUAL "f08")
        target_compile_definitions(mpi_${name}_${b} PRIVATE SP_F08)
      endif()
      target_link_libraries(mpi_${name}_${b} PRIVATE scopeprof_mpi scopeprof
        MPI::MPI_Fortran MPI::MPI_C)
      # MPICH's mpif.h sentinels (MPI_IN_PLACE) are common blocks its
      # Fortran library must share with the program: not when --as-needed
      # dropped that library and the layer loaded it (docs/runtime.md).
      if(MPI_C_LIBRARIES MATCHES "mpich")
        target_link_options(mpi_${name}_${b} PRIVATE -Wl,--no-as-needed)
      endif()
      add_test(NAME mpi_msgs_${name}_${b} COMMAND ${_d}/msgs.sh 4 ${check})
      set_tests_properties(mpi_msgs_${name}_${b} PROPERTIES TIMEOUT 300
        LABELS mpi ENVIRONMENT "${_env};PROG=$<TARGET_FILE:mpi_${name}_${b}>")
    endfunction()
    foreach(b mpifh mpi f08)
      sp_mpi_ftest(fcomm check_fcomm.py ${b} ${_d}/f_comm.F90 ${_d}/f_comm_wait.c)
      sp_mpi_ftest(fncoll check_fncoll.py ${b} ${_d}/f_ncoll.F90)
    endforeach()
  endif()

  # One clock for the job: skewed clocks aligned to rank 0's.
  add_executable(mpi_clock ${_d}/clock.c)
  target_link_libraries(mpi_clock PRIVATE scopeprof_mpi scopeprof MPI::MPI_C)
  target_compile_options(mpi_clock PRIVATE ${SP_C_WARNINGS})
  target_compile_definitions(mpi_clock PRIVATE _GNU_SOURCE)
  add_executable(mpi_clock_plain ${_d}/clock.c)
  target_compile_definitions(mpi_clock_plain PRIVATE SP_PLAIN _GNU_SOURCE)
  target_link_libraries(mpi_clock_plain PRIVATE MPI::MPI_C)
  target_compile_options(mpi_clock_plain PRIVATE ${SP_C_WARNINGS})
  set(_clock_modes runtime runtime-h5 drift drift-monotonic layer crash
    barrier-ends same-node)
  if(MPI_Fortran_FOUND AND SP_MPIF90 AND TARGET scopeprof_fortran)
    list(APPEND _clock_modes fortran)
  endif()
  sp_mpi_tests(clock ${_d}/clock.sh "${_clock_modes}"
    "SP_BIN=${PROJECT_BINARY_DIR}/bin;SP_LIBDIR=$<TARGET_FILE_DIR:scopeprof_mpi>;SP_IMPORT=$<TARGET_FILE:sp-import>;PY3=${SP_PYTHON3};MPIRUN=${SP_MPIRUN};MPICC=${MPI_C_COMPILER};MPIF90=${MPI_Fortran_COMPILER};CLOCK=$<TARGET_FILE:mpi_clock>;CLOCK_PLAIN=$<TARGET_FILE:mpi_clock_plain>;SRC=${_d}")

  # SP_MERGE: one file written by the job at MPI_Finalize.
  add_executable(mpi_merge ${_d}/merge.c)
  target_link_libraries(mpi_merge PRIVATE scopeprof_mpi scopeprof MPI::MPI_C
    Threads::Threads)
  target_compile_options(mpi_merge PRIVATE ${SP_C_WARNINGS})
  # -wN: the ranks' turns, SP_MERGE_WRITERS=N (equal-w2: turns that end out
  # of rank order); -par, -hosts: parallel HDF5 asked for, or on two
  # (pretended) hosts; -posix: turns on two hosts; fail: the parallel write
  # failing (merge.sh says more).
  set(_modes equal only kill early early0 refuse term equal-w1 equal-w2
    only-w1 kill-w2 refuse-w1 profile counters)
  set(_par 0)
  if(SP_BUILD_H5MPI)
    set(_par 1)
    list(APPEND _modes equal-par equal-hosts equal-posix only-par refuse-par
      term-par fail fail0 counters-par)
  endif()
  set(_h5app "")
  if(SP_BUILD_H5MPI)
    # h5app: the parallel write in a program that uses the same parallel
    # HDF5 itself (test/unit/runtime/h5_app.c, its MPI build).
    add_executable(mpi_h5app ${CMAKE_CURRENT_LIST_DIR}/runtime/h5_app.c)
    target_compile_options(mpi_h5app PRIVATE -finstrument-functions
      ${SP_C_WARNINGS})
    target_compile_definitions(mpi_h5app PRIVATE H5_APP_MPI)
    target_include_directories(mpi_h5app PRIVATE ${SP_HDF5_MPI_INCLUDE})
    target_link_libraries(mpi_h5app PRIVATE scopeprof_mpi scopeprof ${SP_HDF5_MPI_LIB}
      MPI::MPI_C)
    list(APPEND _modes h5app)
    set(_h5app "H5APP=$<TARGET_FILE:mpi_h5app>")
  endif()
  # The layer linked for the runtime's MPI work (rank, clock, SP_MERGE's
  # messages), SP_MPI=0: the program's MPI calls are not what is counted.
  sp_mpi_tests(merge ${_d}/merge.sh "${_modes}"
    "SP_MPI=0;SP_IMPORT=$<TARGET_FILE:sp-import>;PY3=${SP_PYTHON3};MPIRUN=${SP_MPIRUN};MPICC=${MPI_C_COMPILER};MPIF90=${MPI_Fortran_COMPILER};MERGE=$<TARGET_FILE:mpi_merge>;SRC=${_d};PAR=${_par};${_h5app}")
endif()

# MPI_Abort on rank 1 of 4: every rank's calls survive, in 5 runs in a row
# (a loss that comes one run in two cannot pass) under OpenMPI's default
# kill settings, and in 3 where the launcher sends SIGKILL right after
# SIGTERM (odls_base_sigkill_timeout=0: what a loaded node sometimes gets,
# and what a SIGTERM handler alone cannot survive).
if(TARGET scopeprof_mpi AND SP_MPIRUN AND SP_USE_HDF5 AND TARGET sp-import)
  set(_d ${CMAKE_CURRENT_LIST_DIR}/mpi)
  add_executable(mpi_abort ${_d}/abort.c)
  target_link_libraries(mpi_abort PRIVATE scopeprof_mpi scopeprof MPI::MPI_C)
  target_compile_options(mpi_abort PRIVATE ${SP_C_WARNINGS})
  # The layer for its MPI_Abort, SP_MPI=0: no MPI call counted.
  set(_env "SP_MPI=0;MPIRUN=${SP_MPIRUN};MPICC=${MPI_C_COMPILER};MPIF90=${MPI_Fortran_COMPILER};SP_IMPORT=$<TARGET_FILE:sp-import>;PY3=${SP_PYTHON3};SRC=${_d}")
  add_test(NAME mpi_abort_c COMMAND ${_d}/abort.sh 5 4)
  add_test(NAME mpi_abort_c_kill0 COMMAND ${_d}/abort.sh 3 4)
  set_tests_properties(mpi_abort_c mpi_abort_c_kill0 PROPERTIES TIMEOUT 120
    LABELS mpi ENVIRONMENT "${_env};PROG=$<TARGET_FILE:mpi_abort>")
  set_tests_properties(mpi_abort_c_kill0 PROPERTIES ENVIRONMENT
    "${_env};PROG=$<TARGET_FILE:mpi_abort>;OMPI_MCA_odls_base_sigkill_timeout=0")
  # The same from Fortran: mpif.h (mpi_abort_, as use mpi) and use mpi_f08
  # (mpi_abort_f08_), the MPI layer linked ahead of MPI's Fortran libraries.
  if(MPI_Fortran_FOUND AND TARGET MPI::MPI_Fortran AND TARGET scopeprof_fortran)
    foreach(f abort_f abort_f08)
      add_executable(mpi_${f} ${_d}/${f}.f90)
      target_link_libraries(mpi_${f} PRIVATE scopeprof_fortran scopeprof_mpi
        scopeprof MPI::MPI_Fortran)
      add_test(NAME mpi_${f} COMMAND ${_d}/abort.sh 3 4)
      set_tests_properties(mpi_${f} PROPERTIES TIMEOUT 120 LABELS mpi
        ENVIRONMENT "${_env};PROG=$<TARGET_FILE:mpi_${f}>;OMPI_MCA_odls_base_sigkill_timeout=0")
    endforeach()
  else()
    message(STATUS "mpi_abort_f, mpi_abort_f08 skipped: no Fortran MPI "
      "(libopenmpi-dev's mpif90) or no Fortran module")
  endif()
endif()
