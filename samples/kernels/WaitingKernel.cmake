# ctest kernels.waiting.NAME: passes while tilec still rejects NAME.tile (a
# language feature it needs is not merged yet); fails once it compiles, asking
# for NAME to be moved into TILEC_KERNELS_READY (samples/kernels/CMakeLists.txt).
execute_process(COMMAND ${TILEC} ${SOURCE} --emit=ptx -o /dev/null
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(rc EQUAL 0)
  message(FATAL_ERROR "${NAME}.tile compiles now: move '${NAME}' from TILEC_KERNELS_WAITING "
                      "into TILEC_KERNELS_READY in samples/kernels/CMakeLists.txt")
endif()
string(REGEX MATCH "[^\n]*error:[^\n]*" first "${err}")
message(STATUS "${NAME}.tile still waits: ${first}")
