# layers.cmake - fails when a folder uses more than docs/architecture.md's
# layer table lets it, or when that page's file lists miss a source file.
# Run: cmake -DSOURCE_DIR=<source> [-DLAYERS="report;..."] -P layers.cmake
# (LAYERS: the folders to check, default every one, and "docs").
cmake_minimum_required(VERSION 3.13) # IN_LIST, continue()
if(NOT DEFINED LAYERS)
  set(LAYERS format runtime import report pass mpi fortran wrappers python
      docs)
endif()

# What a layer may be kept from using, as CMake regexes over its sources.
set(_inc "#[ \t]*include[ \t]*")
set(_hdf5 "${_inc}[<\"](H5[A-Za-z0-9_]*|hdf5[A-Za-z0-9_]*)\\.h|[^A-Za-z0-9_]H5[A-Za-z0-9_]*[ \t]*\\(")
set(_import "sp_import\\.h|sp__?imp_[A-Za-z0-9_]*")
set(_report "${_inc}\"report\\.h\"|[^A-Za-z0-9_]rp_[a-z_]+[ \t]*\\(")
set(_rt_internal "${_inc}\"(internal|hotpath|filter|profile|h5_merge|ompt_abi)\\.h\"")
set(_rt_api "${_inc}[<\"](scope_profiler|sp_mpi_hooks)\\.h")
set(_hooks "${_inc}[<\"]sp_hooks\\.h")
set(_format "${_inc}\"sp_(format|common|rank|stats|spt|stream|h5|h5w|h5p|h5_util|inputs|tmp|util|hash|profile|progress|cli|sanitizer)\\.h\"")
set(_tools_only "${_inc}\"sp_(inputs|cli)\\.h\"|sp_fmt_(inputs|cli|claims)_[a-z_]+")
set(_otf2 "${_inc}<otf2/|OTF2_[A-Za-z_]+[ \t]*\\(")
set(_mpi "${_inc}[<\"]mpi\\.h")

set(_bad "")

# Fails every source of dir (C, C++, headers) whose text matches re,
# except those whose file name matches except ("" for none).
function(sp_layer_forbid dir what re except)
  file(GLOB _srcs ${SOURCE_DIR}/${dir}/*.c ${SOURCE_DIR}/${dir}/*.h
       ${SOURCE_DIR}/${dir}/*.cpp)
  foreach(f IN LISTS _srcs)
    get_filename_component(_name ${f} NAME)
    if(except AND _name MATCHES "${except}")
      continue()
    endif()
    file(READ ${f} _text)
    if(_text MATCHES "${re}")
      string(APPEND _bad "  ${dir}/${_name}: ${what} (${CMAKE_MATCH_0})\n")
    endif()
  endforeach()
  set(_bad "${_bad}" PARENT_SCOPE)
endfunction()

# sp_layer_forbid over each pattern named after except (variable names).
function(sp_layer_rule dir what except)
  foreach(_r IN LISTS ARGN)
    sp_layer_forbid(${dir} "${what}" "${${_r}}" "${except}")
  endforeach()
  set(_bad "${_bad}" PARENT_SCOPE)
endfunction()

# Fails dir/CMakeLists.txt when its code (comments aside) matches re.
function(sp_layer_cmake dir what re)
  file(READ ${SOURCE_DIR}/${dir}/CMakeLists.txt _cm)
  string(REGEX REPLACE "#[^\n]*" "" _cm "${_cm}") # comments may name them
  if(_cm MATCHES "${re}")
    string(APPEND _bad "  ${dir}/CMakeLists.txt: ${what} (${CMAKE_MATCH_0})\n")
  endif()
  set(_bad "${_bad}" PARENT_SCOPE)
endfunction()

# format/: libc and libm; HDF5 only in h5_*.c (and their helpers'
# headers), MPI only in the parallel writer; no layer above it.
if("format" IN_LIST LAYERS)
  sp_layer_rule(format "HDF5 outside h5_*.c"
    "^(h5_[a-z_]+\\.c|sp_h5_util\\.h|sp_h5_vlen\\.h|sp_h5p\\.h)$" _hdf5)
  sp_layer_rule(format "MPI outside the parallel writer"
    "^(h5_write_par\\.c|sp_h5p\\.h)$" _mpi)
  sp_layer_rule(format "uses a layer above the format library" ""
    _import _report _rt_internal _rt_api _hooks _otf2)
endif()

# runtime/: the format library without HDF5 and without the tools' parts;
# its HDF5 module (h5_*) the HDF5 writer.
if("runtime" IN_LIST LAYERS)
  foreach(_sub src include)
    sp_layer_rule(runtime/${_sub} "HDF5 outside the HDF5 module" "^h5_" _hdf5)
    sp_layer_rule(runtime/${_sub} "the tools' part of the format library" ""
      _tools_only)
    sp_layer_rule(runtime/${_sub} "uses a tool's code" "" _import _report
      _otf2)
  endforeach()
endif()

# import/ and report/: the format library only (report/ also OTF2, in
# export_otf2.c); neither uses the other, nor the runtime.
if("import" IN_LIST LAYERS)
  sp_layer_rule(import "calls HDF5 past the format library" "" _hdf5)
  sp_layer_rule(import "uses more than the format library" "" _report
    _rt_internal _rt_api _hooks _otf2 _mpi)
  sp_layer_cmake(import "links or includes past the format library"
    "rp_|report/|\\.\\./|HDF5_|hdf5")
endif()
if("report" IN_LIST LAYERS)
  sp_layer_rule(report "calls HDF5 past the format library" "" _hdf5)
  sp_layer_rule(report "uses sp-import's code" "" _import)
  sp_layer_rule(report "OTF2 outside export_otf2.c" "^export_otf2\\.c$" _otf2)
  sp_layer_rule(report "uses more than the format library" "" _rt_internal
    _rt_api _hooks _mpi)
  sp_layer_cmake(report "links or includes past the format library"
    "sp_imp|import/|\\.\\./|HDF5_|hdf5")
endif()

# pass/: LLVM, and of ScopeProf only the hooks' names (sp_hooks.h).
if("pass" IN_LIST LAYERS)
  sp_layer_rule(pass "uses more than LLVM and sp_hooks.h" "" _hdf5 _import
    _report _rt_internal _rt_api _format _otf2 _mpi)
endif()

# mpi/: the runtime's public API (scope_profiler.h, sp_mpi_hooks.h) and
# MPI's profiling interface.
if("mpi" IN_LIST LAYERS)
  sp_layer_rule(mpi "uses more than the runtime's API and MPI" "" _hdf5
    _import _report _rt_internal _format _otf2)
endif()

# fortran/: every C name it binds is the C API's (scope_profiler.h) or one
# of the runtime's Fortran entry points (runtime/src/fortran.c).
if("fortran" IN_LIST LAYERS)
  file(READ ${SOURCE_DIR}/runtime/include/scope_profiler.h _api)
  file(READ ${SOURCE_DIR}/runtime/src/fortran.c _fapi)
  file(GLOB _f90 ${SOURCE_DIR}/fortran/*.f90)
  foreach(f IN LISTS _f90)
    file(READ ${f} _text)
    string(REGEX MATCHALL "bind\\([Cc], *name *= *\"[A-Za-z0-9_]+\"" _binds
      "${_text}")
    if(NOT _binds)
      string(APPEND _bad "  ${f}: binds no C name (the check is stale)\n")
    endif()
    foreach(b IN LISTS _binds)
      string(REGEX REPLACE ".*\"([A-Za-z0-9_]+)\"" "\\1" _c "${b}")
      if(NOT _api MATCHES "[^A-Za-z0-9_]${_c}[ \t]*\\(" AND
         NOT _fapi MATCHES "[^A-Za-z0-9_]${_c}[ \t]*\\(")
        string(APPEND _bad "  ${f}: binds ${_c}, not in scope_profiler.h "
          "or runtime/src/fortran.c\n")
      endif()
    endforeach()
  endforeach()
endif()

# wrappers/: the installed plugin and runtime, never a source folder.
if("wrappers" IN_LIST LAYERS)
  file(GLOB _w ${SOURCE_DIR}/wrappers/*.in)
  foreach(f IN LISTS _w)
    file(READ ${f} _text)
    if(_text MATCHES "(runtime|format|import|report|pass|mpi)/[A-Za-z_]+\\.(c|h|cpp)")
      string(APPEND _bad "  ${f}: names a source file (${CMAKE_MATCH_0})\n")
    endif()
  endforeach()
endif()

# python/: no C code of its own; of native libraries only libscopeprof.
if("python" IN_LIST LAYERS)
  file(GLOB_RECURSE _native ${SOURCE_DIR}/python/*.c ${SOURCE_DIR}/python/*.h
       ${SOURCE_DIR}/python/*.cpp ${SOURCE_DIR}/python/*.so)
  foreach(f IN LISTS _native)
    string(APPEND _bad "  ${f}: C code in the Python package\n")
  endforeach()
  file(GLOB_RECURSE _py ${SOURCE_DIR}/python/*.py)
  foreach(f IN LISTS _py)
    file(READ ${f} _text)
    string(REGEX MATCHALL "find_library\\(\"[^\"]*\"\\)|CDLL\\(|cdll\\." _libs
      "${_text}")
    foreach(l IN LISTS _libs)
      if(NOT l STREQUAL "find_library(\"scopeprof\")")
        string(APPEND _bad "  ${f}: loads a library other than "
          "libscopeprof (${l})\n")
      endif()
    endforeach()
  endforeach()
endif()

# docs/architecture.md names every source file of the layers: by name, or
# by a pattern in backquotes (`export_*.c`).
if("docs" IN_LIST LAYERS)
  file(READ ${SOURCE_DIR}/docs/architecture.md _doc)
  string(REGEX MATCHALL "`[A-Za-z0-9_./]*\\*[A-Za-z0-9_.]*`" _globs "${_doc}")
  set(_res "")
  foreach(g IN LISTS _globs)
    string(REGEX REPLACE "^`(.*/)?([^/]*)`$" "\\2" g "${g}")
    string(REPLACE "." "\\." g "${g}")
    string(REPLACE "*" "[A-Za-z0-9_]*" g "${g}")
    list(APPEND _res "^${g}$")
  endforeach()
  set(_files "")
  foreach(d format runtime/src runtime/include import report pass mpi fortran
            wrappers)
    file(GLOB _f ${SOURCE_DIR}/${d}/*.c ${SOURCE_DIR}/${d}/*.h
         ${SOURCE_DIR}/${d}/*.cpp ${SOURCE_DIR}/${d}/*.f90
         ${SOURCE_DIR}/${d}/*.in ${SOURCE_DIR}/${d}/*.py ${SOURCE_DIR}/${d}/*.def)
    list(APPEND _files ${_f})
  endforeach()
  foreach(f IN LISTS _files)
    get_filename_component(_name ${f} NAME)
    string(REGEX REPLACE "([.+])" "\\\\\\1" _q "${_name}")
    if(_doc MATCHES "[^A-Za-z0-9_]${_q}[^A-Za-z0-9_]")
      continue()
    endif()
    set(_hit 0)
    foreach(r IN LISTS _res)
      if(_name MATCHES "${r}")
        set(_hit 1)
      endif()
    endforeach()
    if(NOT _hit)
      file(RELATIVE_PATH _rel ${SOURCE_DIR} ${f})
      string(APPEND _bad "  docs/architecture.md: ${_rel} is not named\n")
    endif()
  endforeach()
endif()

if(_bad)
  message(FATAL_ERROR "A layer reaches past what docs/architecture.md "
    "allows it, or that page misses a file:\n${_bad}")
endif()
