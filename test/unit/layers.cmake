# Every folder holds to docs/architecture.md's layer table, and that page
# names every source file (test/tools/layers.cmake says what is checked).
add_test(NAME test_layers COMMAND ${CMAKE_COMMAND}
  -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
  -P ${PROJECT_SOURCE_DIR}/test/tools/layers.cmake)

# No run of 8 lines repeated in the product's sources (test/tools/dups.py;
# the pairs that must repeat are in test/tools/dups.allow, with reasons).
if(Python3_Interpreter_FOUND)
  add_test(NAME test_dups COMMAND ${Python3_EXECUTABLE}
    ${PROJECT_SOURCE_DIR}/test/tools/dups.py ${PROJECT_SOURCE_DIR} 8)
endif()
