# A short run of the .spt reader's libFuzzer target (test/fuzz/run.sh) when
# clang-22 is there; run the script by hand for long runs.
find_program(SP_FUZZ_CLANG clang-22)
if(SP_FUZZ_CLANG)
  add_test(NAME fuzz_spt_short
    COMMAND sh ${PROJECT_SOURCE_DIR}/test/fuzz/run.sh 30
      ${CMAKE_BINARY_DIR}/fuzz-short)
  set_tests_properties(fuzz_spt_short PROPERTIES
    ENVIRONMENT "SP_FUZZ_CC=${SP_FUZZ_CLANG};SP_FUZZ_WERROR=$<BOOL:${SP_WERROR}>"
    TIMEOUT 300)
endif()
# The same for the .spts stream reader (test/fuzz/fuzz_stream.c).
if(SP_FUZZ_CLANG)
  add_test(NAME fuzz_stream_short
    COMMAND sh ${PROJECT_SOURCE_DIR}/test/fuzz/run.sh 30
      ${CMAKE_BINARY_DIR}/fuzz-stream-short stream)
  set_tests_properties(fuzz_stream_short PROPERTIES
    ENVIRONMENT "SP_FUZZ_CC=${SP_FUZZ_CLANG}" TIMEOUT 300)
endif()
