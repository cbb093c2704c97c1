# layers.cmake - fails when sp-report reaches past the format library: an
# HDF5 header or call in report/, or report/ using another tool's code;
# the report/ part of test/tools/layers.cmake, which checks every folder.
# Run: cmake -DREPORT_DIR=<source>/report -P layers.cmake
get_filename_component(SOURCE_DIR ${REPORT_DIR} DIRECTORY)
set(LAYERS report)
include(${CMAKE_CURRENT_LIST_DIR}/../../tools/layers.cmake)
