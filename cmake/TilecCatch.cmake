# tilec_catch: Catch2 (v2, the single header catch2/catch.hpp) for every test
# program, samples' host tests included. The implementation and a default main
# are compiled once here; a program that needs its own main (SKIP without a GPU)
# defines it and the archive's main is not linked.
add_library(tilec_catch STATIC
  ${PROJECT_SOURCE_DIR}/tests/support/catch_impl.cpp
  ${PROJECT_SOURCE_DIR}/tests/support/catch_main.cpp)
target_include_directories(tilec_catch SYSTEM PUBLIC ${TILEC_CATCH2_INCLUDE_DIR})
target_include_directories(tilec_catch PUBLIC ${PROJECT_SOURCE_DIR}/tests/support)
