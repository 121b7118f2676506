// Runs the Catch2 session of a test program. Catch::Session is declared only
// in catch.hpp's implementation part, which is compiled once (catch_impl.cpp),
// so a program's own main calls this instead of constructing a Session.
#pragma once

int tilecCatchRun(int argc, char **argv);
