# Unit tests of the format library (format/): .spt reader and writer,
# statistics, metadata.
sp_add_unit_test(test_spt SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spt.c
  LIBS sp_format)
# The same tests with the .spt reader's header window at 29 bytes (16 KiB
# in the library), so every field of the test files crosses a window edge;
# this spt_read.c takes the place of the archive's.
sp_add_unit_test(test_spt_window SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spt.c
  ${PROJECT_SOURCE_DIR}/format/spt_read.c LIBS sp_format
  DEFINITIONS SP_SPT_WINDOW=29)
sp_add_unit_test(test_stats SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_stats.c
  LIBS sp_format)
sp_add_unit_test(test_meta SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_meta.c
  LIBS sp_format)
# The .spts stream reader against streams built by stream_writer.h; again
# with a 64-byte index window and 3-call read batches, so records, fields
# and batches cross edges everywhere.
sp_add_unit_test(test_stream SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_stream.c
  LIBS sp_format)
sp_add_unit_test(test_stream_window SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_stream.c
  ${PROJECT_SOURCE_DIR}/format/stream_read.c LIBS sp_format)
target_compile_definitions(test_stream_window PRIVATE SP_STREAM_WINDOW=64
  SP_STREAM_BATCH=3)
# Regions a stream left as code addresses named from this test's own binary
# (MAP and ADDR records), another build-id, bad records' errors.
sp_add_unit_test(test_symbolize SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_symbolize.c LIBS sp_format)
if(TARGET test_symbolize)
  target_compile_options(test_symbolize PRIVATE -g)
  target_link_options(test_symbolize PRIVATE -Wl,--build-id)
endif()
# The internal hash table; calloc wrapped so a test can make it fail.
sp_add_unit_test(test_hash SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hash.c
  LIBS sp_format)
if(TARGET test_hash)
  target_link_options(test_hash PRIVATE -Wl,--wrap=calloc)
endif()
# The tools' crash guard around libhdf5's reads (format/sp_guard.h).
sp_add_unit_test(test_guard SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_guard.c
  LIBS sp_format)
# The tools' rule for an input with no call of a rank another one holds.
sp_add_unit_test(test_claims SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_claims.c
  LIBS sp_format)
# The messages beside a .spt (<name>.spt.mpi): round trip, every cut,
# every byte changed, another rank's or .spt's.
sp_add_unit_test(test_spt_mpi SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spt_mpi.c
  LIBS sp_format)
