# ctest gpu2.peer_debug_hangs: cmake -DRUN=<tilec-run> -DPROBE=<peer_test> -P PeerHangsTest.cmake
# The planted missing signal (tests/gpu/peer.tile `ping` with skip = 1, compiled
# with tilec --debug-hangs=200): on 2 ranks (one process per GPU) nobody
# signals, so every rank's wait(sem[...], 1) must be reported, naming the
# device, the semaphore, the value waited for and the counter, and trapped
# instead of hanging. Everything printed is echoed, whatever the outcome.
# (CMake 3.25 has no cmake_language(EXIT 77): ctest sees the skip through
# SKIP_REGULAR_EXPRESSION "SKIP: needs 2 CUDA devices".)
execute_process(COMMAND ${RUN} -n 2 ${PROBE} hang TIMEOUT 90
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("--- tilec-run -n 2 peer_test hang: exit ${rc}\n--- stdout:\n${out}--- stderr:\n${err}---")
set(out "${out}${err}")
if(rc EQUAL 77)
  message("SKIP: needs 2 CUDA devices")
  return()
endif()
if(rc MATCHES "timeout")
  message(FATAL_ERROR "the ranks still hung after 90 s (exit '${rc}'): semaphore waits are not bounded")
elseif(NOT rc EQUAL 3)
  message(FATAL_ERROR "the planted missing signal was not trapped (exit ${rc}, expected 3)")
endif()
# SPEC10: `tilec: hang: device R: wait(sem[i], V) at FILE:LINE:COL: counter is X`
set(report "tilec: hang: device ([01]): wait\\(sem\\[([0-9]+)\\], 1\\) at [^\n]*peer\\.tile:[0-9]+:[0-9]+: counter is 0")
if(NOT out MATCHES "${report}")
  message(FATAL_ERROR "no report of the form 'tilec: hang: device R: wait(sem[i], 1) at "
                      "FILE:LINE:COL: counter is 0' in the output (device printf not flushed on a trap?)")
endif()
message("gpu2.peer_debug_hangs: the missing signal was reported (device ${CMAKE_MATCH_1}, sem[${CMAKE_MATCH_2}]) and trapped")
