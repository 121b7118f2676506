//===- HostContract.h - the host's view of a kernel, carried by the IR -*- C++ -*-===//
//
// What the host must know about a kernel (tile/kernel_info.h) travels on the
// tile.kernel op itself, so that the kernel info is read off the same IR the
// PTX is generated from:
//   - the parameter list is the kernel's argument list: order, PTX size and
//     alignment come from the argument types; each argument's tile.param
//     dictionary adds what the types do not say (the source name, the scalar's
//     signedness, and whether it is a tensor, a semaphore or a hidden
//     parameter the runtime fills);
//   - cluster shape, block shape and launch bounds are the op's inherent
//     attributes (cluster_dims, cluster_dynamic, req_threads, max_threads,
//     min_blocks);
//   - static shared memory is the static tile.shared_alloc ops, laid out in
//     program order; the dynamic window is the dynamic ones, each with its
//     tile.shared_array dictionary (name, element, count rule);
//   - an mbarrier whose arrival count comes from kernel parameters has a
//     tile.mbarrier_count dictionary (name, count rule) on its
//     tile.mbarrier_inits, for the runtime to check the count at launch (the
//     verifier then leaves a count that folding made constant to it);
//   - tile.instance names a template kernel's source and arguments, and
//     tile.spins_on_peers marks a kernel that waits on a semaphore.
// MLIRGen writes these (encode*), the verifiers of tile.kernel and
// tile.shared_alloc check them (decode*, with an error naming the field), and
// the driver derives the kernel info from them (kernelInfo). The attribute
// names are in TileAttributes.h.
//===----------------------------------------------------------------------===//
#ifndef TILE_DIALECT_HOSTCONTRACT_H
#define TILE_DIALECT_HOSTCONTRACT_H

#include "tile/Dialect/TileAttributes.h"
#include "tile/Dialect/TileDialect.h"
#include "tile/kernel_info.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <optional>
#include <string>

namespace mlir::tile {

/// tile.param of a kernel argument: every field of `p` but size and align,
/// which are the argument type's.
DictionaryAttr encodeParam(MLIRContext *ctx, const ::tile::KernelParamInfo &p);
/// The parameter `attr` describes, with size and align from `argType`;
/// nullopt with `error` naming the field when `attr` is not well formed or
/// disagrees with `argType`.
std::optional<::tile::KernelParamInfo> decodeParam(DictionaryAttr attr, Type argType,
                                                   std::string &error);

/// tile.shared_array of a dynamic tile.shared_alloc (elementSize is the
/// element's).
DictionaryAttr encodeSharedArray(MLIRContext *ctx, const ::tile::DynamicSharedArray &a);
std::optional<::tile::DynamicSharedArray> decodeSharedArray(DictionaryAttr attr,
                                                            std::string &error);

/// tile.mbarrier_count of an mbarrier_init whose count is not constant.
DictionaryAttr encodeMBarrierCount(MLIRContext *ctx, const ::tile::MBarrierCount &m);
std::optional<::tile::MBarrierCount> decodeMBarrierCount(DictionaryAttr attr, std::string &error);

/// tile.instance of an instance of a template kernel.
/// `types` (the type arguments, in parameter order) is written only when
/// non-empty.
DictionaryAttr encodeInstance(MLIRContext *ctx, const std::string &sourceName,
                              const ::tile::TemplateArgs &args,
                              const ::tile::TypeArgs &types = {});
bool decodeInstance(DictionaryAttr attr, std::string &sourceName, ::tile::TemplateArgs &args,
                    ::tile::TypeArgs &types, std::string &error);

/// The static shared memory of `kernel`: its static tile.shared_alloc ops in
/// program order, each at its alignment (16 bytes unless set), as the PTX
/// declares them (KernelToLLVM.cpp).
int64_t staticSharedBytes(KernelOp kernel);

/// The host-contract attributes of `kernel` (tile.param on every argument
/// that has one, tile.instance, tile.spins_on_peers; no other tile.* name)
/// are well formed; failure with `error` naming the field otherwise.
LogicalResult verifyKernelContract(KernelOp kernel, std::string &error);

/// The kernel info of `kernel`, derived from the op; nullopt with `error`
/// when a contract attribute is missing or malformed (a compiler bug: the
/// verifier rejects such IR).
std::optional<::tile::KernelInfo> kernelInfo(KernelOp kernel, std::string &error);

} // namespace mlir::tile

#endif // TILE_DIALECT_HOSTCONTRACT_H
