# bench_stream: the runtime's finalize of a streamed rank (open the .spts
# trusting it, write the .spt from its sources) against cp of the stream.
# Run: make bench-stream (writes ~3 GiB under the build tree, then removes
# it); or bench_stream DIR [MIB] [ns|tsc] [REPEAT].
add_executable(bench_stream ${CMAKE_CURRENT_LIST_DIR}/bench_stream.c)
target_compile_options(bench_stream PRIVATE -O2 ${SP_C_WARNINGS})
target_compile_definitions(bench_stream PRIVATE _GNU_SOURCE)
target_link_libraries(bench_stream PRIVATE sp_format)
add_custom_target(bench-stream
  COMMAND ${CMAKE_COMMAND} -E make_directory
    ${CMAKE_CURRENT_BINARY_DIR}/bench_stream_work
  COMMAND bench_stream ${CMAKE_CURRENT_BINARY_DIR}/bench_stream_work 1024 ns
  COMMAND bench_stream ${CMAKE_CURRENT_BINARY_DIR}/bench_stream_work 1024 tsc
  COMMAND ${CMAKE_COMMAND} -E rm -rf
    ${CMAKE_CURRENT_BINARY_DIR}/bench_stream_work
  DEPENDS bench_stream USES_TERMINAL)
