// Catch2's implementation, compiled once for every test program: catch.hpp's
// implementation part takes about a minute per translation unit at -O3, so
// the test programs include only its declarations (tilec_catch in
// cmake/TilecCatch.cmake).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "catch_run.h"

int tilecCatchRun(int argc, char **argv) { return Catch::Session().run(argc, argv); }
