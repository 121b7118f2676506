//===- KernelInfo.h - the host's view of checked kernels --------*- C++ -*-===//
#ifndef TILEC_DRIVER_KERNELINFO_H
#define TILEC_DRIVER_KERNELINFO_H

#include "tile/kernel_info.h"
#include "tilec/frontend/AST.h"

#include <vector>

namespace tile::driver {

/// The kernel info of every kernel of a module that checkModule() accepted,
/// from the facts Sema settled (types, cluster after --cluster, static shared
/// bytes, which arrays are dynamic): the same facts MLIRGen lowers.
std::vector<KernelInfo> collectKernelInfo(const frontend::ModuleAST &module);

} // namespace tile::driver

#endif
