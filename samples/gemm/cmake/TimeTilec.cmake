# cmake -DTILEC=path -DSOURCES="a.tile;b.tile" -DARGS="-D|T=f16|..." -DRUNS=5 -DOUT=file -P TimeTilec.cmake
# The compile time of samples/gemm ("the compile time of the
# sample, tilec source -> PTX"): each source compiled RUNS times to PTX with
# the build's arguments (the runs after the first see a warm file cache),
# the median wall time written to OUT, one line per source. Measured where
# tilec runs (the development machine); the GPU machine has no tilec and
# reads the number from the bundle.
string(REPLACE "|" ";" ARGS "${ARGS}") # the arguments, '|'-separated
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_PHYSICAL_CORES)
cmake_host_system_information(RESULT cpu QUERY PROCESSOR_DESCRIPTION)
set(lines "")
foreach(src ${SOURCES})
  set(times "")
  foreach(i RANGE 1 ${RUNS})
    string(TIMESTAMP t0 "%s%f")
    execute_process(COMMAND ${TILEC} ${src} ${ARGS} -o ${OUT}.ptx.tmp
      RESULT_VARIABLE rc ERROR_VARIABLE err)
    string(TIMESTAMP t1 "%s%f")
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "tilec ${src} failed (${rc}):\n${err}")
    endif()
    math(EXPR us "${t1} - ${t0}")
    list(APPEND times ${us})
  endforeach()
  list(SORT times COMPARE NATURAL)
  list(LENGTH times n)
  math(EXPR mid "${n} / 2")
  list(GET times ${mid} median)
  math(EXPR ms "${median} / 1000")
  get_filename_component(name ${src} NAME)
  string(REPLACE ";" " " args_text "${ARGS}")
  string(APPEND lines "${name}: ${ms} ms median of ${RUNS} tilec runs (source -> PTX, ${args_text}; ${cpu}, ${cores} cores)\n")
endforeach()
file(REMOVE ${OUT}.ptx.tmp)
file(WRITE ${OUT} "${lines}")
message(STATUS "gemm compile time:\n${lines}")
