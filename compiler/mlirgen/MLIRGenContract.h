//===- MLIRGenContract.h - the host contract MLIRGen writes -----*- C++ -*-===//
//
// MLIRGen translates what the checker settled about a kernel's interface into
// the host-contract attributes of tile/Dialect/HostContract.h
// (MLIRGenContract.cpp).
//===----------------------------------------------------------------------===//
#ifndef TILEC_MLIRGEN_MLIRGENCONTRACT_H
#define TILEC_MLIRGEN_MLIRGENCONTRACT_H

#include "tile/Dialect/TileDialect.h"
#include "tile/kernel_info.h"
#include "tilec/frontend/AST.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::tile::mlirgen {

/// One kernel parameter: its argument type, what the host must know of it
/// (tile.param) and its declaration.
struct KernelParam {
  Type type;
  ::tile::KernelParamInfo info;
  const ::tile::frontend::Decl *decl;
};

/// The kernel's parameters in PTX order, the one place that order is
/// defined: the declared ones, then the hidden tensor extents, then the
/// multi-GPU values. `valueType` gives a parameter's argument type.
SmallVector<KernelParam>
kernelParams(MLIRContext *ctx, const ::tile::frontend::KernelAST &k,
             function_ref<Type(const ::tile::frontend::Type &)> valueType);

/// The host contract of `kernel`: tile.param on every argument,
/// tile.instance, tile.spins_on_peers.
void setKernelContract(KernelOp kernel, const ::tile::frontend::KernelAST &k,
                       ArrayRef<KernelParam> params);

/// tile.shared_array of a dynamic shared array's allocation; an error (an
/// internal one: the checker admits only rules the host can evaluate) and
/// failure when the count is not such a rule.
LogicalResult setSharedArrayContract(SharedAllocOp alloc,
                                     const ::tile::frontend::SharedArrayStmt &s);

/// tile.mbarrier_count of an init of an mbarrier declaration whose
/// count the checker did not fold to a constant; an internal error and
/// failure when the count is not a rule the host can evaluate.
LogicalResult setMBarrierCountContract(MBarrierInitOp init,
                                       const ::tile::frontend::MBarrierStmt &s);

} // namespace mlir::tile::mlirgen

#endif // TILEC_MLIRGEN_MLIRGENCONTRACT_H
