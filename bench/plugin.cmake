# bench_plugin: per-call cost of plugin-inserted regions vs manual
# sp_begin/sp_end; bench_plugin_compile_time: compile-time ratio with and
# without ScopeProf.so. Both need the plugin and the matching clang.
if(TARGET ScopeProf AND EXISTS ${LLVM_TOOLS_BINARY_DIR}/clang)
  set(_sp_bclang ${LLVM_TOOLS_BINARY_DIR}/clang)
  set(_sp_bsrc ${CMAKE_CURRENT_LIST_DIR}/bench_plugin_kernels.c)
  set(_sp_bann ${CMAKE_CURRENT_BINARY_DIR}/bench_plugin_ann.o)
  set(_sp_bcyg ${CMAKE_CURRENT_BINARY_DIR}/bench_plugin_cyg.o)
  add_custom_command(OUTPUT ${_sp_bann}
    COMMAND ${_sp_bclang} -O2 -fPIC -fpass-plugin=$<TARGET_FILE:ScopeProf>
      -c ${_sp_bsrc} -o ${_sp_bann}
    DEPENDS ${_sp_bsrc} ScopeProf VERBATIM)
  add_custom_command(OUTPUT ${_sp_bcyg}
    COMMAND ${_sp_bclang} -O2 -fPIC -DSP_BENCH_CYG -finstrument-functions
      -fpass-plugin=$<TARGET_FILE:ScopeProf> -c ${_sp_bsrc} -o ${_sp_bcyg}
    DEPENDS ${_sp_bsrc} ScopeProf VERBATIM)
  add_executable(bench_plugin ${CMAKE_CURRENT_LIST_DIR}/bench_plugin.c
    ${_sp_bann} ${_sp_bcyg})
  set_source_files_properties(${_sp_bann} ${_sp_bcyg} PROPERTIES
    EXTERNAL_OBJECT TRUE GENERATED TRUE)
  target_compile_options(bench_plugin PRIVATE -O2 ${SP_C_WARNINGS})
  target_compile_definitions(bench_plugin PRIVATE _POSIX_C_SOURCE=200809L)
  target_link_libraries(bench_plugin PRIVATE scopeprof)

  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_FOUND)
    add_custom_target(bench_plugin_compile_time
      COMMAND ${Python3_EXECUTABLE}
        ${CMAKE_CURRENT_LIST_DIR}/plugin_compile_time.py ${_sp_bclang}
        $<TARGET_FILE:ScopeProf> 3000
      DEPENDS ScopeProf VERBATIM USES_TERMINAL)
  endif()
endif()
