# Tests of the schema-2 HDF5 writer/reader (format/h5_*.c) and sp-import:
# a cmocka unit test, and sp-import runs checked with h5py.
if(SP_USE_HDF5)
  sp_add_unit_test(test_h5 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_h5.c
    LIBS sp_format)
  target_include_directories(test_h5 PRIVATE ${HDF5_C_INCLUDE_DIRS}
    ${HDF5_INCLUDE_DIRS})

  add_executable(import_gen ${CMAKE_CURRENT_LIST_DIR}/import_gen.c)
  target_compile_options(import_gen PRIVATE ${SP_C_WARNINGS})
  target_link_libraries(import_gen PRIVATE sp_format)
  add_test(NAME test_import
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_import.py
      $<TARGET_FILE:sp-import> $<TARGET_FILE:import_gen>
      ${CMAKE_CURRENT_BINARY_DIR}/test_import_work)
  set_tests_properties(test_import PROPERTIES TIMEOUT 300)
endif()
