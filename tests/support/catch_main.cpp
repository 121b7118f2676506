// The default main of a test program. The linker takes it from the tilec_catch
// archive only for programs that define no main of their own (the GPU tests
// define one that says SKIP without a device).
#include "catch_run.h"

int main(int argc, char **argv) { return tilecCatchRun(argc, argv); }
