# ctest gpu.ring_debug_hangs_mma: cmake -DPROBE= -DPTX= -P RingHangsMmaTest.cmake
# tests/gpu/ring_hang_mma.tile under --debug-hangs (bound 200 ms): a ring
# consumed by wgmma, so the kernel cannot print; equal counts complete with C
# exact and no report; 7 produces for 8 consumes hang a consumer's wait on
# 'ring.full', which the kernel writes to the runtime's hang record and the
# runtime reports in the failed synchronisation's error (the same text the
# device printf gives elsewhere). Everything printed is echoed. ctest sees a
# skip through SKIP_REGULAR_EXPRESSION "SKIP: no CUDA device".
function(probe produces consumes out_var rc_var)
  execute_process(COMMAND ${PROBE} --ptx ${PTX} --produces ${produces} --consumes ${consumes}
                          --mma 1
                  TIMEOUT 60 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("--- ring_hang_probe --mma 1 --produces ${produces} --consumes ${consumes}: exit ${rc}\n"
          "--- stdout:\n${out}--- stderr:\n${err}---")
  set(${out_var} "${out}${err}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
endfunction()

probe(8 8 out rc)
if(rc EQUAL 77)
  message("SKIP: no CUDA device")
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "8/8: the correct launch failed (exit ${rc}: 1 = wrong C, 3 = trapped)")
endif()
if(out MATCHES "tilec --debug-hangs:")
  message(FATAL_ERROR "8/8: a hang was reported although the kernel completed")
endif()

probe(7 8 out rc)
if(rc MATCHES "timeout")
  message(FATAL_ERROR "7/8: still hung after 60 s: the ring wait is not bounded")
elseif(NOT rc EQUAL 3)
  message(FATAL_ERROR "7/8: the hung launch was not trapped (exit ${rc}, expected 3)")
endif()
if(NOT out MATCHES "tilec --debug-hangs: [^\n]*ring_hang_mma\\.tile:[0-9]+:[0-9]+: wait on mbarrier 'ring\\.full' of stage [01] \\([^\n]*\\) timed out after 200 ms in CTA \\(0, 0, 0\\), thread \\([0-9]+, 0, 0\\), waiting for phase parity [01]")
  message(FATAL_ERROR "7/8: no report of a consumer's wait on 'ring.full' from the hang record")
endif()
message("gpu.ring_debug_hangs_mma: 8/8 completed exactly; 7/8 reported from the hang record and trapped")
