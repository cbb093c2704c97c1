# The installed tree, used by consumer projects (test/install/run.sh).
if(SP_BUILD_PASS AND SP_BUILD_FORTRAN AND TARGET sp-dump)
  add_test(NAME install_consumers
    COMMAND ${PROJECT_SOURCE_DIR}/test/install/run.sh ${PROJECT_BINARY_DIR} $<TARGET_FILE:sp-dump>)
  set_tests_properties(install_consumers PROPERTIES TIMEOUT 600 LABELS install)
endif()

# Two programs from Debian source packages (zlib; HPCC with MPI) built with
# the wrappers, run in profile mode and with SP_FILTER, passing their own
# checks: needs apt-get source and the network, skipped (77) without.
if(SP_BUILD_PASS AND TARGET sp-import AND TARGET sp-report)
  add_test(NAME realprog
    COMMAND ${PROJECT_SOURCE_DIR}/test/realprog/run.sh ${PROJECT_BINARY_DIR}
      ${CMAKE_CURRENT_BINARY_DIR}/realprog)
  set_tests_properties(realprog PROPERTIES TIMEOUT 1200 SKIP_RETURN_CODE 77
    LABELS "realprog;network")
endif()
