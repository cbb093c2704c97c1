# h5mpi.cmake - libscopeprof_h5mpi.so: the runtime's HDF5 writer again, on
# parallel HDF5 (Debian: libhdf5-openmpi-dev), with the collective write of
# SP_MERGE's events (format/h5_write_par.c); dlopen'ed by the MPI layer
# (h5mpi_load.c) on every rank of an SP_MERGE job that writes in parallel:
# it links the layer's MPI. Built from source again: the format library's
# objects are compiled against the serial HDF5's headers.
set(_sp_h5mpi OFF)
if(SP_USE_HDF5 AND MPI_C_FOUND)
  find_path(SP_HDF5_MPI_INCLUDE H5pubconf.h
    PATHS /usr/include/hdf5/openmpi NO_DEFAULT_PATH)
  find_library(SP_HDF5_MPI_LIB NAMES hdf5_openmpi hdf5
    PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/hdf5/openmpi NO_DEFAULT_PATH)
  if(SP_HDF5_MPI_INCLUDE AND SP_HDF5_MPI_LIB AND CMAKE_OBJDUMP)
    file(STRINGS ${SP_HDF5_MPI_INCLUDE}/H5pubconf.h _sp_par
      REGEX "define H5_HAVE_PARALLEL 1")
    # Its MPI must be the one found: the module links both.
    execute_process(COMMAND ${CMAKE_OBJDUMP} -p ${SP_HDF5_MPI_LIB}
      OUTPUT_VARIABLE _sp_dump ERROR_QUIET)
    string(REGEX MATCH "NEEDED +(libmpi\\.so[^ \n]*)" _sp_m "${_sp_dump}")
    set(_sp_h5mpi_mpi "${CMAKE_MATCH_1}")
    sp_soname(${SP_HDF5_MPI_LIB} _sp_h5mpi_soname)
    set(_sp_mpi_soname "")
    foreach(l IN LISTS MPI_C_LIBRARIES)
      if(l MATCHES "/libmpi\\.so$")
        sp_soname(${l} _sp_mpi_soname)
      endif()
    endforeach()
    if(_sp_par AND _sp_h5mpi_soname AND _sp_h5mpi_mpi AND
       _sp_h5mpi_mpi STREQUAL _sp_mpi_soname)
      set(_sp_h5mpi ON)
    endif()
  endif()
endif()
sp_option(SP_BUILD_H5MPI
  "Build libscopeprof_h5mpi.so (SP_MERGE through parallel HDF5)" ${_sp_h5mpi}
  "no parallel HDF5 of the MPI found was found (Debian: libhdf5-openmpi-dev)")
if(NOT SP_BUILD_H5MPI)
  if(SP_USE_HDF5 AND MPI_C_FOUND)
    message(STATUS "libscopeprof_h5mpi.so not built: no parallel HDF5 of this "
      "MPI (Debian: libhdf5-openmpi-dev); SP_MERGE takes turns")
  endif()
  return()
endif()

set(_fmt ${PROJECT_SOURCE_DIR}/format)
add_library(scopeprof_h5mpi MODULE ${PROJECT_SOURCE_DIR}/runtime/src/h5_module.c
  ${_fmt}/h5_write.c
  ${_fmt}/h5_write_raw.c ${_fmt}/h5_vfd.c ${_fmt}/h5_write_par.c
  ${_fmt}/h5_mpi_write.c
  ${_fmt}/h5_ctr.c
  $<TARGET_OBJECTS:sp_format_obj>)
target_include_directories(scopeprof_h5mpi PRIVATE ${_fmt}
  ${SP_HDF5_MPI_INCLUDE} ${MPI_C_INCLUDE_DIRS})
target_compile_definitions(scopeprof_h5mpi PRIVATE _GNU_SOURCE SP_USE_HDF5=1
  SP_H5_PARALLEL=1)
target_link_libraries(scopeprof_h5mpi PRIVATE ${SP_HDF5_MPI_LIB}
  ${MPI_C_LIBRARIES} m)
sp_h5_module(scopeprof_h5mpi h5mpi_module.map)
target_compile_definitions(scopeprof_mpi PRIVATE
  SP_H5MPI_SONAME="${_sp_h5mpi_soname}"
  SP_H5MPI_MODULE_PATH="${CMAKE_INSTALL_PREFIX}/${SP_H5_MODULE_DIR}/libscopeprof_h5mpi.so")
