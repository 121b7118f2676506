//===- KernelInfo.h - the host's view of compiled kernels -------*- C++ -*-===//
#ifndef TILEC_DRIVER_KERNELINFO_H
#define TILEC_DRIVER_KERNELINFO_H

#include "tile/kernel_info.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace tile::driver {

/// The kernel info of every tile.kernel of `module`, read off the IR's host
/// contract (tile/Dialect/HostContract.h): called on the final tile IR, the
/// one the PTX is generated from. False with `error` when a kernel's
/// contract is malformed (a compiler bug).
bool collectKernelInfo(mlir::ModuleOp module, std::vector<KernelInfo> &kernels,
                       std::string &error);

} // namespace tile::driver

#endif
