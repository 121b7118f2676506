# cmake -DSOURCE_DIR= -DRUNTIME_DIR= -DWORK_DIR= -DGENERATOR= [-DCUDA_ROOT=] -P RuntimeSubdirectoryTest.cmake
# Configures, builds and runs tests/package/runtime_subdirectory: a fresh project that
# add_subdirectory()s runtime/ without finding the CUDA toolkit itself.
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "package.runtime_subdirectory: ${what} failed (${rc})\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(hint "")
if(CUDA_ROOT)
  set(hint -DCUDAToolkit_ROOT=${CUDA_ROOT})  # a search hint only, like a user's environment
endif()
step("configure" ${CMAKE_COMMAND} -G ${GENERATOR} -S ${SOURCE_DIR} -B ${WORK_DIR}
     -DCMAKE_BUILD_TYPE=Release -DTILEC_RUNTIME_DIR=${RUNTIME_DIR} ${hint})
step("build" ${CMAKE_COMMAND} --build ${WORK_DIR})
step("run runtime_consumer" ${WORK_DIR}/runtime_consumer)
message("${step_output}")
if(NOT step_output MATCHES "runtime_consumer: [0-9]+ CUDA device\\(s\\); kernel 'k': block of 2048 threads")
  message(FATAL_ERROR "package.runtime_subdirectory: unexpected output:\n${step_output}")
endif()
# No install rules leak into the consumer's project.
file(READ ${WORK_DIR}/tilec_runtime/cmake_install.cmake install_script)
if(install_script MATCHES "file\\(INSTALL")
  message(FATAL_ERROR "package.runtime_subdirectory: the runtime added install rules to the consumer")
endif()
