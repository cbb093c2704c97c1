# layers.cmake - fails when sp-report reaches past the format library: an
# HDF5 header or call in report/, or report/ using another tool's code.
# Run: cmake -DREPORT_DIR=<source>/report -P layers.cmake
file(GLOB _srcs ${REPORT_DIR}/*.c ${REPORT_DIR}/*.h)
set(_bad "")
foreach(f IN LISTS _srcs)
  file(READ ${f} _text)
  if(_text MATCHES "#[ \t]*include[ \t]*[<\"](H5[A-Za-z0-9_]*|hdf5[A-Za-z0-9_]*)\\.h")
    string(APPEND _bad "  ${f}: includes an HDF5 header (${CMAKE_MATCH_0})\n")
  endif()
  if(_text MATCHES "[^A-Za-z0-9_]H5[A-Za-z0-9_]*[ \t]*\\(")
    string(APPEND _bad "  ${f}: calls HDF5 (${CMAKE_MATCH_0})\n")
  endif()
  if(_text MATCHES "sp_import\\.h|sp__?imp_[A-Za-z0-9_]*")
    string(APPEND _bad "  ${f}: uses sp-import's code (${CMAKE_MATCH_0})\n")
  endif()
endforeach()
file(READ ${REPORT_DIR}/CMakeLists.txt _cm)
string(REGEX REPLACE "#[^\n]*" "" _cm "${_cm}") # comments may name them
if(_cm MATCHES "sp_imp|import/|\\.\\./|HDF5_|hdf5")
  string(APPEND _bad "  ${REPORT_DIR}/CMakeLists.txt: links or includes past the format library (${CMAKE_MATCH_0})\n")
endif()
if(_bad)
  message(FATAL_ERROR "sp-report must use HDF5 and input discovery only "
    "through the format library (format/sp_format.h):\n${_bad}")
endif()
