//===- TileDialect.h - the tile dialect -------------------------*- C++ -*-===//
#ifndef TILE_DIALECT_TILEDIALECT_H
#define TILE_DIALECT_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <array>

#include "tile/Dialect/TileDialect.h.inc"
#include "tile/Dialect/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/TileAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/TileTypes.h.inc"
// What ops do to memory and mbarriers; the sync passes read only these.
#include "tile/Dialect/TileInterfaces.h.inc"
#define GET_OP_CLASSES
#include "tile/Dialect/TileOps.h.inc"

namespace mlir::tile {
/// Width in bytes of a tile scalar type (i1 counts as one byte; pointers 8).
int64_t scalarByteWidth(Type type);
/// The narrowest scope that covers every thread able to reach `space`.
MemoryScope defaultScopeFor(AddressSpace space);
/// `s` as text of a tile.hang_trap message, which is a printf format: every
/// '%' doubled (file names and user names may contain one).
std::string escapePrintfText(llvm::StringRef s);

/// The shape of a distributed value: a fragment (rows x cols), a per_row
/// value (rows; cols = 0) or a per_col value (cols; rows = 0). The
/// broadcasting rule and the register mapping read only this.
struct DistShape {
  enum Kind { Frag, Row, Col } kind;
  int64_t rows, cols;
  Type elem;
  /// Elements each thread holds.
  int64_t elements() const;
};
/// The shape of `t`, or nullopt for a scalar.
std::optional<DistShape> distShape(Type t);
/// Whether `operand` may stand in an element-wise op whose result has shape
/// `result`: the same type, a scalar of elem (when elem is set), a per_row
/// value of a fragment's rows or a per_col value of its columns (of
/// element type elem). `elem` null: any element type.
bool broadcastsTo(Type operand, const DistShape &result, Type elem);
/// tile.frag_arith's kinds that take i32 elements only (%, shifts, bitwise).
bool isIntegerOnly(FragArithKind kind);
/// pow, atan2, hypot, fmod: f32 only, libdevice's __nv_<kind>f per element.
bool isLibdeviceOnly(FragArithKind kind);
/// Whether tile.frag_math `fn` has an `approx` form (a PTX .approx
/// instruction): exp2 exp log2 log sqrt rsqrt sin cos tanh.
bool hasApproxForm(FragMathFn fn);
/// tile.barrier's and tile.named_barrier's reduction (barrier.red): the
/// predicate, the reduction and the result all present (an i32 for popc, an
/// i1 for and / or) or all absent.
LogicalResult verifyBarrierReduction(Operation *op, Value pred,
                                     std::optional<BarrierReduction> reduction, Value result);
} // namespace mlir::tile

#endif // TILE_DIALECT_TILEDIALECT_H
