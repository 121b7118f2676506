//===- PTXAsm.h - inline-PTX building blocks of the tile lowering -*- C++ -*-===//
//
// Accesses with an explicit memory order, atomics, mbarriers and st.async are
// emitted as inline PTX so that the exact `.sem`, `.scope` and state space of
// the source reach ptxas (LLVM's atomics cannot say `.cluster`, PTX ISA 8.6).
//===----------------------------------------------------------------------===//
#ifndef TILEC_CONVERSION_PTXASM_H
#define TILEC_CONVERSION_PTXASM_H

#include "tile/Dialect/TileDialect.h"

#include "mlir/IR/Builders.h"

#include <string>
#include <utility>

namespace mlir::tile::ptxasm {

/// PTX state-space qualifier of an address (".global", ".shared::cta", ...).
StringRef ptxSpace(AddressSpace space);
/// PTX scope qualifier (".cta", ".cluster", ".gpu", ".sys").
StringRef ptxScope(MemoryScope scope);
/// The address operand of inline PTX and its constraint: shared and
/// shared::cluster addresses are 32-bit ("r"), global ones 64-bit ("l").
std::pair<Value, StringRef> asmAddress(OpBuilder &b, Location loc, Value ptr, AddressSpace space);

/// Register class and bit-size suffix of a scalar in inline PTX.
struct AsmScalar {
  StringRef constraint;
  Type asmType;
  unsigned bits;
};
AsmScalar asmScalar(Type type);
Value toAsm(OpBuilder &b, Location loc, Value v, const AsmScalar &s);
Value fromAsm(OpBuilder &b, Location loc, Value v, Type type);

/// A volatile inline-PTX statement; returns its result (null when `result` is null).
Value inlinePtx(OpBuilder &b, Location loc, Type result, ValueRange operands, StringRef text,
                StringRef constraints);

/// The order or scope tile-sync-semantics decided for op (mbarrier ops,
/// fences, cluster arrives). An op that reaches the lowering without one
/// skipped that pass: an error at the op ("internal: no order decided for
/// ..."), never a silent default.
FailureOr<MemoryOrder> decidedOrder(Operation *op, std::optional<MemoryOrder> order);
FailureOr<MemoryScope> decidedScope(Operation *op, std::optional<MemoryScope> scope);

/// `fence.sc.<scope>;` before an access with order sc, "" otherwise.
std::string scPrefix(MemoryOrder order, MemoryScope scope);

} // namespace mlir::tile::ptxasm

#endif
