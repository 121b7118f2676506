# ctest gpu.ring_debug_hangs: cmake -DPROBE= -DPTX= -P RingHangsTest.cmake
# tests/gpu/ring_hang.tile under --debug-hangs (bound 200 ms): equal produce
# and consume counts complete silently with the right sums; more produces
# than consumes are reported at the producer's exit wait on 'r.empty', more
# consumes at a consumer's wait on 'r.full', each naming the stage and the
# phase parity, and trapped instead of hanging. Everything each run printed
# is echoed, whatever the outcome. ctest sees a skip through
# SKIP_REGULAR_EXPRESSION "SKIP: no CUDA device".
function(probe produces consumes out_var rc_var)
  execute_process(COMMAND ${PROBE} --ptx ${PTX} --produces ${produces} --consumes ${consumes}
                  TIMEOUT 60 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("--- ring_hang_probe --produces ${produces} --consumes ${consumes}: exit ${rc}\n"
          "--- stdout:\n${out}--- stderr:\n${err}---")
  set(${out_var} "${out}${err}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
endfunction()

# 1. 8 and 8: completes, no report.
probe(8 8 out rc)
if(rc EQUAL 77)
  message("SKIP: no CUDA device")
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "8/8: the correct launch failed (exit ${rc}: 1 = wrong sums, 3 = trapped)")
endif()
if(out MATCHES "tilec --debug-hangs:")
  message(FATAL_ERROR "8/8: the kernel reported a hang although it completed")
endif()

# 2. 8 produces, 7 consumes: the producer's exit wait on r.empty hangs.
probe(8 7 out rc)
if(rc MATCHES "timeout")
  message(FATAL_ERROR "8/7: still hung after 60 s: the ring wait is not bounded")
elseif(NOT rc EQUAL 3)
  message(FATAL_ERROR "8/7: the hung launch was not trapped (exit ${rc}, expected 3)")
endif()
if(NOT out MATCHES "tilec --debug-hangs: [^\n]*ring_hang\\.tile:[0-9]+:[0-9]+: wait on mbarrier 'r\\.empty' of stage [01] \\(ring 'r' empty barrier of the stage; [^\n]*the producer's exit waits for every stage it filled to be released: a ring produced more times than consumed hangs here\\) timed out after 200 ms in CTA \\([01], 0, 0\\), thread \\([0-9]+, 0, 0\\), waiting for phase parity [01]")
  message(FATAL_ERROR "8/7: no report of the producer's exit wait on 'r.empty' with its stage and parity")
endif()

# 3. 7 produces, 8 consumes: a consumer's wait on r.full hangs.
probe(7 8 out rc)
if(rc MATCHES "timeout")
  message(FATAL_ERROR "7/8: still hung after 60 s: the ring wait is not bounded")
elseif(NOT rc EQUAL 3)
  message(FATAL_ERROR "7/8: the hung launch was not trapped (exit ${rc}, expected 3)")
endif()
if(NOT out MATCHES "tilec --debug-hangs: [^\n]*ring_hang\\.tile:[0-9]+:[0-9]+: wait on mbarrier 'r\\.full' of stage [01] \\(ring 'r' full barrier of the stage; [^\n]*a consume with no matching produce hangs here\\) timed out after 200 ms in CTA \\([01], 0, 0\\), thread \\([0-9]+, 0, 0\\), waiting for phase parity [01]")
  message(FATAL_ERROR "7/8: no report of a consumer's wait on 'r.full' with its stage and parity")
endif()
message("gpu.ring_debug_hangs: 8/8 completed exactly; 8/7 and 7/8 reported and trapped")
