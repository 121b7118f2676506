# ctest gpu2.ring_gemm_hang / gpu2.ring_gemm_rs_hang:
#   cmake -DRUN=<tilec-run> -DPROGRAM=<ring_gemm|ring_gemm_rs> -DPTX=<the --debug-hangs build>
#         [-DEXTRA=<more arguments, a ;-list: --mode;ce>] -P RingHangTest.cmake
# The planted hang of a ring sample (--hang-test, samples/common/ring_driver.h):
# on 2 ranks the last does not launch, so rank 0's wait for it must time out
# (with --mode ce every rank launches and withholds its last pull instead).
# The rings have mma, so their kernels cannot print (vprintf would make ptxas
# serialise the wgmma): the report comes from the runtime's hang record and
# must name the device, the semaphore and the value, or the ring barrier a
# consumer waited on. Everything printed is echoed, whatever the outcome.
# (ctest sees the skip through SKIP_REGULAR_EXPRESSION "SKIP: ".)
execute_process(COMMAND ${RUN} -n 2 ${PROGRAM} --hang-test --ptx ${PTX} --ms 256 --n 256 --k 256
                        --dtype f16 --skip-code 77 ${EXTRA}
                TIMEOUT 90 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("--- tilec-run -n 2 ${PROGRAM} --hang-test: exit ${rc}\n--- stdout:\n${out}--- stderr:\n${err}---")
set(out "${out}${err}")
if(rc EQUAL 77)
  message("SKIP: needs 2 CUDA devices")
  return()
endif()
if(rc MATCHES "timeout")
  message(FATAL_ERROR "the ranks still hung after 90 s (exit '${rc}'): the waits are not bounded")
elseif(NOT rc EQUAL 3)
  message(FATAL_ERROR "the planted hang was not reported and trapped (exit ${rc}, expected 3)")
endif()
set(sem "tilec: hang: device 0: wait\\([a-z]+\\[[0-9]+\\], [0-9]+\\) at [^\n]*\\.tile:[0-9]+:[0-9]+: counter is [0-9]+")
set(bar "tilec --debug-hangs: [^\n]*\\.tile:[0-9]+:[0-9]+: wait on mbarrier 'ring\\.(full|empty)' of stage [0-9]+")
if(NOT out MATCHES "${sem}" AND NOT out MATCHES "${bar}")
  message(FATAL_ERROR "rank 0 printed no hang report naming the device, semaphore and value "
                      "(or the ring barrier)")
endif()
message("${PROGRAM}: the planted hang was reported from the hang record and trapped")
