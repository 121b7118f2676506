//===- launcher.h - kernel[grid] and the options of a launch --------------===//
#ifndef TILEC_PYTHON_LAUNCHER_H
#define TILEC_PYTHON_LAUNCHER_H

#include <pybind11/pybind11.h>

#include "kernel.h"

namespace tilec_py {

/// A grid, block or cluster (`what`): an int or a tuple of 1 to 3 ints, each
/// in 1 .. 2^32 - 1. False with an exception set (naming kernel k if given).
bool toDim3(PyObject *obj, const char *what, tile::Dim3 &out, const Kernel *k = nullptr);
/// Launches `k` with `args` and the keyword arguments: launch options (and
/// `grid` when allowGrid), and arguments by their parameters' names.
bool launchWithKeywords(Kernel &k, PyObject *args, PyObject *kwargs, Kernel::Options &o,
                        bool allowGrid, bool &gotGrid);
/// kernel[grid]: a Launcher (cached per kernel for its last grid), or, for a
/// function of the launch, tilec._grid.CallableGridLauncher.
pybind11::object launcherFor(pybind11::object kernelObj, Kernel &k, PyObject *gridObj);
/// kernel[grid] as the type's mp_subscript.
PyObject *kernelSubscript(PyObject *self, PyObject *grid);
extern PyTypeObject launcherType;

} // namespace tilec_py

#endif
