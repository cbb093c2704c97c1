# Tests of the schema-2 HDF5 writer/reader (format/h5_*.c) and sp-import:
# a cmocka unit test, and sp-import runs checked with h5py.
if(SP_USE_HDF5)
  sp_add_unit_test(test_h5 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_h5.c
    LIBS sp_format INCLUDES ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})

  # rows.c compiled in: its statistics step writes calls as it reads them.
  find_package(Threads REQUIRED)
  sp_add_unit_test(test_rows SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rows.c
    ${PROJECT_SOURCE_DIR}/import/rows.c LIBS sp_format Threads::Threads
    INCLUDES ${PROJECT_SOURCE_DIR}/import LABELS threads)

  add_executable(import_gen ${CMAKE_CURRENT_LIST_DIR}/import_gen.c)
  target_compile_options(import_gen PRIVATE ${SP_C_WARNINGS})
  target_link_libraries(import_gen PRIVATE sp_format)
  add_test(NAME test_import
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_import.py
      $<TARGET_FILE:sp-import> $<TARGET_FILE:import_gen>
      ${CMAKE_CURRENT_BINARY_DIR}/test_import_work)
  set_tests_properties(test_import PROPERTIES TIMEOUT 300
    LABELS "sanitize;threads")
endif()

# End to end: a program using the runtime, run as 3 ranks (.h5 and .spt),
# merged by sp-import, checked with h5py.
if(SP_USE_HDF5 AND TARGET scopeprof)
  find_package(Threads REQUIRED)
  add_executable(e2e_import_prog ${CMAKE_CURRENT_LIST_DIR}/e2e_import_prog.c)
  target_compile_options(e2e_import_prog PRIVATE ${SP_C_WARNINGS})
  target_link_libraries(e2e_import_prog PRIVATE scopeprof Threads::Threads)
  add_test(NAME test_e2e_import
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_e2e_import.py
      $<TARGET_FILE:e2e_import_prog> $<TARGET_FILE:sp-import>
      ${CMAKE_CURRENT_BINARY_DIR}/test_e2e_import_work)
  add_test(NAME test_progress
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_progress.py
      $<TARGET_FILE:e2e_import_prog> $<TARGET_FILE:sp-import>
      ${CMAKE_CURRENT_BINARY_DIR}/test_progress_work $<TARGET_FILE:sp-report>)
  set_tests_properties(test_progress PROPERTIES TIMEOUT 120)
  set_tests_properties(test_e2e_import PROPERTIES TIMEOUT 120
    LABELS "sanitize;threads")
endif()
