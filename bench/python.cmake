# bench_python: the Python package's to_events_dataframe() and
# read_h5_summary() on a 60M-call merged profile, in separate processes.
# Run: make bench-python (writes ~2 GB under the build tree, then removes it).
if(SP_USE_HDF5)
  add_custom_target(bench-python
    COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PROJECT_SOURCE_DIR}/python
      /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/bench_python.py
      $<TARGET_FILE:sp-import> ${CMAKE_CURRENT_BINARY_DIR}/bench_python_work 60000000 5
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${CMAKE_CURRENT_BINARY_DIR}/bench_python_work
    DEPENDS sp-import USES_TERMINAL)
endif()
