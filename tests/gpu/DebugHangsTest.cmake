# ctest gpu.debug_hangs: cmake -DPROBE= -DPTX= -P DebugHangsTest.cmake
# A correct launch of the --debug-hangs kernel (tests/gpu/hang.tile, bound 200 ms)
# completes silently with the right values; a broken one (32 expected bytes, 16
# delivered) is reported by the kernel's printf and trapped instead of hanging.
# Everything each run printed is echoed, whatever the outcome.
# (CMake 3.25 has no cmake_language(EXIT 77): ctest sees the skip through
# SKIP_REGULAR_EXPRESSION "SKIP: no CUDA device".)
function(probe expect out_var rc_var)
  execute_process(COMMAND ${PROBE} --ptx ${PTX} --expect ${expect} TIMEOUT 60
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("--- hang_probe --expect ${expect}: exit ${rc}\n--- stdout:\n${out}--- stderr:\n${err}---")
  set(${out_var} "${out}${err}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
endfunction()

# 1. expect = 16: completes, both CTAs read {1, 2, 3, 4}, no report.
probe(16 out rc)
if(rc EQUAL 77)
  message("SKIP: no CUDA device")
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "expect=16: the correct launch failed (exit ${rc}: 1 = wrong values, "
                      "3 = launch failed or trapped, i.e. --debug-hangs fired on a good kernel)")
endif()
foreach(b 0 1)
  if(NOT out MATCHES "hang_probe: CTA ${b} values: 1 2 3 4\n")
    message(FATAL_ERROR "expect=16: CTA ${b} did not read back 1 2 3 4")
  endif()
endforeach()
if(out MATCHES "tilec --debug-hangs:")
  message(FATAL_ERROR "expect=16: the kernel reported a hang although it completed")
endif()

# 2. expect = 32: the wait never completes; the bound reports it and traps.
probe(32 out rc)
if(rc MATCHES "timeout")
  message(FATAL_ERROR "expect=32: hang_probe still hung after 60 s (exit '${rc}'): the wait is not bounded")
elseif(NOT rc EQUAL 3)
  message(FATAL_ERROR "expect=32: the broken launch was not trapped (exit ${rc}, expected 3)")
endif()
if(NOT out MATCHES "tilec --debug-hangs:")
  message(FATAL_ERROR "expect=32: trapped, but the kernel's report ('tilec --debug-hangs: ...') is not in the output "
                      "(device printf not flushed on a trap?)")
endif()
if(NOT out MATCHES "wait on mbarrier 'full' timed out")
  message(FATAL_ERROR "expect=32: the report does not name the wait on mbarrier 'full'")
endif()
if(NOT out MATCHES "tilec --debug-hangs: [^\n]*hang\\.tile:[0-9]+:[0-9]+: wait on mbarrier 'full' timed out after 200 ms in CTA \\([0-9]+, 0, 0\\), thread \\([0-9]+, 0, 0\\), waiting for phase parity [01]")
  message(FATAL_ERROR "expect=32: the report is not in the documented form "
                      "'tilec --debug-hangs: FILE:LINE:COL: wait on mbarrier 'full' timed out after 200 ms in CTA (x, y, z), "
                      "thread (x, y, z), waiting for phase parity P'")
endif()
message("gpu.debug_hangs: expect=16 completed exactly; expect=32 reported and trapped")
