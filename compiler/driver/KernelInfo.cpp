//===- KernelInfo.cpp - the host's view of compiled kernels ----------------===//
#include "KernelInfo.h"

#include "../transforms/AddressAlignment.h"
#include "tile/Dialect/HostContract.h"

namespace tile::driver {

bool collectKernelInfo(mlir::ModuleOp module, std::vector<KernelInfo> &kernels,
                       std::string &error) {
  kernels.clear();
  for (auto kernel : module.getOps<mlir::tile::KernelOp>()) {
    std::optional<KernelInfo> info = mlir::tile::kernelInfo(kernel, error);
    if (!info) {
      error = "kernel '" + kernel.getSymName().str() + "': " + error;
      return false;
    }
    std::vector<int64_t> align = mlir::tile::requiredAddressAlignments(kernel);
    for (auto [p, a] : llvm::zip(info->params, align))
      if (p.isPointer && !p.isHidden())
        p.addressAlign = static_cast<size_t>(a);
    kernels.push_back(std::move(*info));
  }
  return true;
}

} // namespace tile::driver
