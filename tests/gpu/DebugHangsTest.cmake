# ctest gpu.debug_hangs: cmake -DPROBE= -DPTX= -P DebugHangsTest.cmake
# A correct launch of the --debug-hangs kernel completes; a broken one (32
# expected bytes, 16 delivered) is reported and trapped instead of hanging.
function(probe expect out_var rc_var)
  execute_process(COMMAND ${PROBE} --ptx ${PTX} --expect ${expect} TIMEOUT 60
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("--- hang_probe --expect ${expect}: exit ${rc}\n${out}${err}")
  set(${out_var} "${out}${err}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
endfunction()

probe(16 out rc)
if(rc EQUAL 77)
  # ctest reports the test as skipped (SKIP_REGULAR_EXPRESSION).
  message("SKIP: no CUDA device")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "the correct launch did not complete (exit ${rc}): --debug-hangs fired on a good kernel")
endif()
if(rc EQUAL 77)
  return()
endif()
probe(32 out rc)
if(NOT rc EQUAL 3)
  message(FATAL_ERROR "the broken launch was not trapped (exit ${rc})")
endif()
if(NOT out MATCHES "tilec --debug-hangs: [^\n]*hang.tile:[0-9]+:[0-9]+: wait on mbarrier 'full' timed out after 200 ms")
  message(FATAL_ERROR "the hang report is missing from the output")
endif()
