//===- EmitPTX.h - LLVM/NVVM dialects -> LLVM IR -> PTX ---------*- C++ -*-===//
#ifndef TILEC_EMITPTX_H
#define TILEC_EMITPTX_H

#include "mlir/IR/BuiltinOps.h"
#include "tilec/Target/TargetFacts.h"
#include <string>

namespace mlir::tile {
struct PTXOptions {
  std::string arch = ::tile::target::kDefaultArch; // one of ::tile::target::kSupportedArchs
  std::string ptxVersion = ::tile::target::ptxIsaFeature();
  int optLevel = 3;
  /// Linked (only the functions used) when the module calls __nv_* functions.
  std::string libdevicePath;
};

/// Registers the dialect translations the export needs (Builtin, LLVM, NVVM).
void registerTileTranslations(MLIRContext &context);

/// Translates an LLVM/NVVM-dialect module to LLVM IR, optimises it at
/// `optLevel` for NVPTX, and returns the textual LLVM IR (`emitLLVM`) or PTX.
/// On failure returns false with a message in `error`.
bool emitPTX(ModuleOp module, const PTXOptions &options, bool emitLLVM, std::string &output,
             std::string &error);
} // namespace mlir::tile

#endif
