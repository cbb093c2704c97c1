# Unit tests of the format library (format/): .spt reader and writer,
# statistics, metadata.
sp_add_unit_test(test_spt SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spt.c
  LIBS sp_format)
sp_add_unit_test(test_stats SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_stats.c
  LIBS sp_format)
sp_add_unit_test(test_meta SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_meta.c
  LIBS sp_format)
