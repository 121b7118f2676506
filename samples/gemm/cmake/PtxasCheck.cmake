# cmake -DPTXAS=ptxas -DCUOBJDUMP=cuobjdump -DPTX=file.ptx -DCUBIN=out.cubin
#       [-DREQUIRE_SASS=HGMMA] [-DALLOW_PRINTF_STACK=ON] -P PtxasCheck.cmake
# Assembles PTX with `ptxas -arch=sm_90a -v` and fails when any kernel spills
# or has a stack frame (local memory: a register array ptxas could not keep in
# registers), when ptxas reports an advisory that serialises wgmma (C7510) or
# drops setmaxnreg (C7508), or when the SASS (cuobjdump --dump-sass) has
# local loads/stores (LDL/STL) or lacks REQUIRE_SASS (e.g. HGMMA: the
# tensor-core instruction wgmma becomes). Prints the per-kernel lines.
# Without cuobjdump (CUOBJDUMP empty or -NOTFOUND: the development machine's
# toolkit has only ptxas) the SASS part is skipped with a note; the GPU
# machine's full toolkit runs it.
# ALLOW_PRINTF_STACK=ON (samples/ring_gemm): a stack frame is accepted when it
# only holds printf arguments: no spills, the PTX calls vprintf and never
# loads local memory (ld.local), and the SASS has no LDL (STL, the argument
# stores of a cold trap path, are allowed). tilec's always-on range checks of
# peer(A, d) and sem[i] print the bad index before they trap.
execute_process(COMMAND ${PTXAS} -arch=sm_90a -v ${PTX} -o ${CUBIN}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(log "${out}${err}")
message("${log}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ptxas failed (${rc}) on ${PTX}")
endif()
set(bad "")
string(REGEX MATCHALL "[0-9]+ bytes stack frame, [0-9]+ bytes spill stores, [0-9]+ bytes spill loads" frames "${log}")
if(NOT frames)
  message(FATAL_ERROR "no 'bytes stack frame' line in the ptxas -v output of ${PTX}")
endif()
set(printf_stack_ok OFF)
if(ALLOW_PRINTF_STACK)
  file(READ ${PTX} ptx_text)
  if(ptx_text MATCHES "vprintf" AND NOT ptx_text MATCHES "ld\\.local")
    set(printf_stack_ok ON)
  endif()
endif()
foreach(f ${frames})
  if(printf_stack_ok AND f MATCHES "^[0-9]+ bytes stack frame, 0 bytes spill stores, 0 bytes spill loads$")
    continue()
  endif()
  if(NOT f MATCHES "^0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads$")
    string(APPEND bad "  ${f}\n")
  endif()
endforeach()
if(log MATCHES "C7510|C7508")
  string(APPEND bad "  a ptxas advisory (C7510 serialised wgmma / C7508 setmaxnreg ignored)\n")
endif()
if(NOT CUOBJDUMP OR NOT EXISTS "${CUOBJDUMP}")
  message("SASS not checked: no cuobjdump in this toolkit")
else()
  execute_process(COMMAND ${CUOBJDUMP} --dump-sass ${CUBIN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE sass ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cuobjdump --dump-sass failed (${rc}): ${err}")
  endif()
  if(printf_stack_ok)
    string(REGEX MATCHALL "[ \t]LDL(\\.[A-Z0-9.]+)?[ \t]" local "${sass}")
  else()
    string(REGEX MATCHALL "[ \t](LDL|STL)(\\.[A-Z0-9.]+)?[ \t]" local "${sass}")
  endif()
  list(LENGTH local nlocal)
  if(nlocal GREATER 0)
    string(APPEND bad "  ${nlocal} local-memory instructions (LDL/STL) in the SASS\n")
  endif()
  set(nfound "")
  if(REQUIRE_SASS)
    string(REGEX MATCHALL "[ \t]${REQUIRE_SASS}[ .]" found "${sass}")
    list(LENGTH found nfound)
    if(nfound EQUAL 0)
      string(APPEND bad "  no ${REQUIRE_SASS} instruction in the SASS\n")
    endif()
  endif()
  message("SASS: ${nfound} ${REQUIRE_SASS} instructions, ${nlocal} LDL/STL")
endif()
if(bad)
  message(FATAL_ERROR "${PTX}: spills or local memory:\n${bad}")
endif()
