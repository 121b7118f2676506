# Sanitizer and fuzzer builds (docs/fuzzing.md).
#
# TILEC_SANITIZE=ON builds all project code with AddressSanitizer and
# UndefinedBehaviorSanitizer; any undefined behaviour aborts instead of
# printing and going on (-fno-sanitize-recover=all), so a lit test or a fuzz
# input that triggers it fails. The LLVM/MLIR libraries stay unsanitized.
#
# TILEC_ENABLE_FUZZ=ON (clang only) also adds libFuzzer's coverage
# instrumentation to all project code, so the fuzz targets in tests/fuzz are
# guided by the compiler's own branches, not only the fuzz entry point's.
option(TILEC_SANITIZE "Build project code with -fsanitize=address,undefined" OFF)
option(TILEC_ENABLE_FUZZ "Build the libFuzzer targets (clang only; see docs/fuzzing.md)" OFF)

if(TILEC_SANITIZE)
  set(TILEC_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all
      -fno-omit-frame-pointer -g)
  add_compile_options(${TILEC_SANITIZE_FLAGS})
  add_link_options(-fsanitize=address,undefined)
endif()

set(TILEC_FUZZ_ACTIVE OFF)
if(TILEC_ENABLE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(WARNING "TILEC_ENABLE_FUZZ needs clang (-DCMAKE_CXX_COMPILER=clang++); "
                    "the libFuzzer targets are not built")
  else()
    if(NOT TILEC_SANITIZE)
      message(WARNING "TILEC_ENABLE_FUZZ without TILEC_SANITIZE: only crashes are found, "
                      "not memory errors or undefined behaviour")
    endif()
    set(TILEC_FUZZ_ACTIVE ON)
    add_compile_options(-fsanitize=fuzzer-no-link)
  endif()
endif()
