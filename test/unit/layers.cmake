# Every folder holds to docs/architecture.md's layer table, and that page
# names every source file (test/tools/layers.cmake says what is checked).
add_test(NAME test_layers COMMAND ${CMAKE_COMMAND}
  -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
  -P ${PROJECT_SOURCE_DIR}/test/tools/layers.cmake)
