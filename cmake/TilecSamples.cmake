# tilec_sample_ptx(<name> <source.tile> [ARGS tilec-args...])
# Compiles a sample to ${TILEC_SAMPLE_PTX_DIR}/<name>.ptx with the tilec built here,
# writes its kernel info beside it (<name>.info.json, tilec --emit=info with the
# same arguments: the host loads both with tile::Module::fromFiles), and
# registers a ctest that assembles it with `ptxas -arch=sm_90a`. Without the compiler
# (GPU machine) the PTX is expected prebuilt in TILEC_PTX_DIR.
set_property(GLOBAL PROPERTY TILEC_SAMPLE_PTX_TARGETS "")
# tilec_instance_defines(<out-var> <kernel> <first-arg> <instances...>)
# Appends `-D <kernel><<first-arg>,<instance>>` for each instance (a list of a
# kernel's remaining compile-time arguments, "128,6,1") to <out-var>.
function(tilec_instance_defines out kernel first)
  set(defines ${${out}})
  foreach(i ${ARGN})
    list(APPEND defines -D "${kernel}<${first},${i}>")
  endforeach()
  set(${out} ${defines} PARENT_SCOPE)
endfunction()
function(tilec_sample_ptx name source)
  cmake_parse_arguments(ARG "" "" "ARGS" ${ARGN})
  set(out ${TILEC_SAMPLE_PTX_DIR}/${name}.ptx)
  set(info ${TILEC_SAMPLE_PTX_DIR}/${name}.info.json)
  if(TILEC_ENABLE_COMPILER)
    add_custom_command(OUTPUT ${out} ${info}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${TILEC_SAMPLE_PTX_DIR}
      COMMAND tilec ${source} -o ${out} ${ARG_ARGS}
      COMMAND tilec ${source} --emit=info -o ${info} ${ARG_ARGS}
      DEPENDS tilec ${source}
      COMMENT "tilec ${name}.ptx"
      VERBATIM)
    # A custom command's output is only visible in its own directory: give it a
    # target here and let sample_ptx depend on that target.
    add_custom_target(ptx_${name} DEPENDS ${out} ${info})
    set_property(GLOBAL APPEND PROPERTY TILEC_SAMPLE_PTX_TARGETS ptx_${name})
    add_test(NAME ptxas.${name}
      COMMAND ${CUDAToolkit_BIN_DIR}/ptxas -arch=sm_90a ${out} -o ${PROJECT_BINARY_DIR}/ptxas-${name}.cubin)
  endif()
endfunction()

# tilec_pass_words(<test> <words>)
# Sets the test's PASS_REGULAR_EXPRESSION to <words> (a regular expression)
# with every space matching any run of white space: CMake wraps the text of
# message(FATAL_ERROR ...) at its own column, so a line break may fall
# between any two words (a long build path moves it).
function(tilec_pass_words test words)
  string(REPLACE " " "[ \t\r\n]+" regex "${words}")
  set_tests_properties(${test} PROPERTIES PASS_REGULAR_EXPRESSION "${regex}")
endfunction()

# tilec_ring_hang_test(<test> <program> <debug-ptx-name> [program args...])
# A ring sample's planted hang (samples/common/RingHangTest.cmake): <program>
# on 2 ranks with --hang-test and its --debug-hangs PTX, where that PTX is
# built here or was carried in; the extra arguments go to the program.
function(tilec_ring_hang_test test program ptx)
  set(file ${TILEC_SAMPLE_PTX_DIR}/${ptx}.ptx)
  if(NOT TILEC_ENABLE_COMPILER AND NOT EXISTS ${file})
    return()
  endif()
  set(extra "")
  if(ARGN)
    string(REPLACE ";" "\\;" joined "${ARGN}") # one -D value through -P
    set(extra "-DEXTRA=${joined}")
  endif()
  add_test(NAME ${test}
    COMMAND ${CMAKE_COMMAND} -DRUN=$<TARGET_FILE:tilec-run> -DPROGRAM=$<TARGET_FILE:${program}>
            -DPTX=${file} ${extra} -P ${PROJECT_SOURCE_DIR}/samples/common/RingHangTest.cmake)
  set_tests_properties(${test} PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP: "
    LABELS "multi_device;nosanitizer" TIMEOUT 120)
endfunction()

# Call once after every sample: one target that builds all sample PTX.
function(tilec_finish_sample_ptx)
  get_property(targets GLOBAL PROPERTY TILEC_SAMPLE_PTX_TARGETS)
  if(TILEC_ENABLE_COMPILER)
    add_custom_target(sample_ptx ALL)
    add_dependencies(sample_ptx ${targets})
  else()
    add_custom_target(sample_ptx)
  endif()
endfunction()
