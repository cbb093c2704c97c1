# The installed tree, used by consumer projects (test/install/run.sh).
if(SP_BUILD_PASS AND SP_BUILD_FORTRAN AND TARGET sp-dump)
  add_test(NAME install_consumers
    COMMAND ${PROJECT_SOURCE_DIR}/test/install/run.sh ${PROJECT_BINARY_DIR} $<TARGET_FILE:sp-dump>)
  set_tests_properties(install_consumers PROPERTIES TIMEOUT 600 LABELS install)
endif()
