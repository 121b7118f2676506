//===- FragmentRegisters.h - which registers hold which fragment elements -*- C++ -*-===//
//
// Shared by EpilogueToNVVM.cpp and FragmentToNVVM.cpp. A `!tile.frag<MxNxT>`
// is an LLVM struct of M*N/128 f32 (or i1, a mask), or of M*N/256 i32 each
// holding two 16-bit elements (the low half the lower column). Thread t of
// the warpgroup (warp w = t/32 % 4, lane l = t % 32) holds, per 64-row block
// b and 8-column block j (PTX ISA 9.7.15.5.1, "Matrix fragments for
// wgmma.mma_async.m64nNk16", D; tile::target::wgmmaFragmentCoord): elements
// 4j..4j+3 of the block = row 64b + 16w + l/4, columns 8j + 2(l%4) + {0, 1},
// then the same columns of row + 8. So element e of the thread (i = e mod
// N/2 within its block b = e / (N/2)) is row-half h = (i%4)/2 and column
// 8(i/4) + 2(l%4) + i%2.
// A `!tile.per_row<MxT>` keeps the thread's rows: element 2b + h; a
// `!tile.per_col<NxT>` its columns: element 2j + k (k = i%2). Both are
// structs of plain elements (never packed).
//===----------------------------------------------------------------------===//
#ifndef TILEC_CONVERSION_FRAGMENTREGISTERS_H
#define TILEC_CONVERSION_FRAGMENTREGISTERS_H

#include "ConversionUtils.h"
#include "tile/Dialect/TileDialect.h"
#include "tilec/Target/TargetFacts.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tile::fragregs {

/// The libdevice function `name` of `arity` f32 arguments giving an f32
/// (__nv_expf, __nv_powf), declared once per module.
inline LLVM::LLVMFuncOp libdeviceF32(OpBuilder &b, Operation *op, StringRef name,
                                     unsigned arity) {
  auto module = op->getParentOfType<ModuleOp>();
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return fn;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  Type f32 = b.getF32Type();
  return LLVM::LLVMFuncOp::create(b, b.getUnknownLoc(), name,
                                  LLVM::LLVMFunctionType::get(f32, SmallVector<Type>(arity, f32)));
}

/// The registers of a converted fragment value.
inline SmallVector<Value> unpack(OpBuilder &b, Location loc, Value frag, int64_t n) {
  SmallVector<Value> regs;
  for (int64_t i = 0; i < n; ++i)
    regs.push_back(LLVM::ExtractValueOp::create(b, loc, frag, i));
  return regs;
}

inline Value pack(OpBuilder &b, Location loc, Type structTy, ArrayRef<Value> regs) {
  Value v = LLVM::PoisonOp::create(b, loc, structTy);
  for (auto [i, r] : llvm::enumerate(regs))
    v = LLVM::InsertValueOp::create(b, loc, v, r, i);
  return v;
}

/// Replaces `op` by the distributed value of type `type` (a fragment, a
/// per_row or per_col vector) whose registers are `regs`: how every pattern
/// that computes a distributed value ends.
inline void replaceWithRegisters(ConversionPatternRewriter &rewriter, Operation *op,
                                 const TypeConverter &converter, Type type, ArrayRef<Value> regs) {
  rewriter.replaceOp(op, pack(rewriter, op->getLoc(), converter.convertType(type), regs));
}

/// The lane (t % 32) and the warp within the warpgroup ((t / 32) % 4).
inline std::pair<Value, Value> laneAndWarp(OpBuilder &b, Location loc, Value thread) {
  namespace target = ::tile::target;
  Value lane = LLVM::URemOp::create(b, loc, thread, i32Const(b, loc, target::kWarpSize));
  Value warp = LLVM::UDivOp::create(b, loc, thread, i32Const(b, loc, target::kWarpSize));
  warp = LLVM::URemOp::create(b, loc, warp,
                              i32Const(b, loc, target::kWarpgroupSize / target::kWarpSize));
  return {lane, warp};
}

/// The row of the thread's first element (16w + l/4) and the column of its
/// first element in every 8-column block (2 * (l % 4)).
inline std::pair<Value, Value> fragmentOrigin(OpBuilder &b, Location loc, Value thread) {
  auto [lane, warp] = laneAndWarp(b, loc, thread);
  Value warpRow = LLVM::MulOp::create(b, loc, warp, i32Const(b, loc, 16));
  Value quad = LLVM::UDivOp::create(b, loc, lane, i32Const(b, loc, 4));
  Value row = LLVM::AddOp::create(b, loc, warpRow, quad);
  Value inQuad = LLVM::URemOp::create(b, loc, lane, i32Const(b, loc, 4));
  Value col = LLVM::MulOp::create(b, loc, inQuad, i32Const(b, loc, 2));
  return {row, col};
}

/// Emits `emit()` (stores) where `cond` holds. Splits the block: the
/// patterns run after SCF is lowered to the CFG. `emit` may split blocks
/// itself; the rewriter continues after the guarded code.
template <typename Emit>
void ifTrue(ConversionPatternRewriter &rw, Location loc, Value cond, Emit emit) {
  Block *cur = rw.getInsertionBlock();
  Block *cont = rw.splitBlock(cur, rw.getInsertionPoint());
  Block *then = rw.createBlock(cont);
  rw.setInsertionPointToEnd(cur);
  LLVM::CondBrOp::create(rw, loc, cond, then, ValueRange{}, cont, ValueRange{});
  rw.setInsertionPointToStart(then);
  emit();
  LLVM::BrOp::create(rw, loc, ValueRange{}, cont);
  rw.setInsertionPointToStart(cont);
}

/// Emits `emit()` (stores) under `row < rows` (signed) when `rows` is set
/// (a store's `rows = n`: a tail of rows left unwritten), else
/// unconditionally.
template <typename Emit>
void ifRowBelow(ConversionPatternRewriter &rw, Location loc, Value rows, Value row, Emit emit) {
  if (!rows) {
    emit();
    return;
  }
  ifTrue(rw, loc, LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::slt, row, rows), emit);
}

/// Emits `emit()` (loads, returning the values they read) where `cond`
/// holds; where it does not, each value is 0. The values reach the code
/// after the guard as the arguments of a join block; `emit` may split
/// blocks itself.
template <typename Emit>
SmallVector<Value> loadIf(ConversionPatternRewriter &rw, Location loc, Value cond, Emit emit) {
  Block *cur = rw.getInsertionBlock();
  Block *cont = rw.splitBlock(cur, rw.getInsertionPoint());
  Block *then = rw.createBlock(cont);
  SmallVector<Value> loaded = emit();
  Block *thenEnd = rw.getInsertionBlock();
  SmallVector<Type> types;
  for (Value v : loaded)
    types.push_back(v.getType());
  Block *join = rw.createBlock(cont, types, SmallVector<Location>(types.size(), loc));
  LLVM::BrOp::create(rw, loc, ValueRange{}, cont);
  rw.setInsertionPointToEnd(thenEnd);
  LLVM::BrOp::create(rw, loc, loaded, join);
  rw.setInsertionPointToEnd(cur);
  SmallVector<Value> zeros;
  for (Type t : types)
    zeros.push_back(LLVM::ZeroOp::create(rw, loc, t));
  LLVM::CondBrOp::create(rw, loc, cond, then, ValueRange{}, join, zeros);
  rw.setInsertionPointToStart(cont);
  return SmallVector<Value>(join->getArguments().begin(), join->getArguments().end());
}

/// loadIf under `index < limit` (signed) when `limit` is set, else
/// unconditionally (a load's `rows = n` / `cols = n`: the entries past the
/// end of an array are not read and hold 0).
template <typename Emit>
SmallVector<Value> loadIfBelow(ConversionPatternRewriter &rw, Location loc, Value limit,
                               Value index, Emit emit) {
  if (!limit)
    return emit();
  return loadIf(rw, loc, LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::slt, index, limit),
                emit);
}

/// One pair of elements of a thread: its register index (f32: of the first
/// element; packed: the i32) and its offsets from fragmentOrigin.
struct Pair {
  int64_t reg;
  int64_t row, col;
};

/// Every pair of a rows x cols fragment, in register order.
inline SmallVector<Pair> fragmentPairs(FragType t) {
  SmallVector<Pair> pairs;
  int64_t perBlock = t.getCols() / 2; // elements per thread per 64-row block
  for (int64_t e = 0; e < t.getElementsPerThread(); e += 2) {
    int64_t b = e / perBlock, i = e % perBlock;
    pairs.push_back({t.isPacked() ? e / 2 : e,
                     ::tile::target::kWgmmaM * b + 8 * ((i % 4) / 2), 8 * (i / 4)});
  }
  return pairs;
}

/// The pairs of a fragment grouped by their row offset (two rows per 64-row
/// block), in register order within a row: what one `rows = n` guard covers.
inline SmallVector<std::pair<int64_t, SmallVector<Pair>>> fragmentPairsByRow(FragType t) {
  SmallVector<std::pair<int64_t, SmallVector<Pair>>> byRow;
  for (const Pair &p : fragmentPairs(t)) {
    auto *it = llvm::find_if(byRow, [&](const auto &r) { return r.first == p.row; });
    if (it == byRow.end()) {
      byRow.push_back({p.row, {}});
      it = std::prev(byRow.end());
    }
    it->second.push_back(p);
  }
  return byRow;
}

/// The element of a value of shape `from` that element e of a value of
/// shape `to` reads (from is `to` itself, or a per_row / per_col value
/// broadcast to the fragment `to`).
inline int64_t sourceElement(const DistShape &to, const DistShape &from, int64_t e) {
  if (from.kind == to.kind)
    return e;
  int64_t perBlock = to.cols / 2;
  int64_t b = e / perBlock, i = e % perBlock;
  if (from.kind == DistShape::Row)
    return 2 * b + (i % 4) / 2;
  return 2 * (i / 4) + i % 2; // DistShape::Col
}

inline VectorType pairType(Type elem) { return VectorType::get({2}, elem); }

/// Whether a value of this shape keeps two 16-bit elements per register.
inline bool isPacked(const DistShape &s) {
  return s.kind == DistShape::Frag && (s.elem.isF16() || s.elem.isBF16());
}

/// Registers of a value of shape s.
inline int64_t registers(const DistShape &s) {
  return isPacked(s) ? s.elements() / 2 : s.elements();
}

/// Every element of an operand as element e of a result of shape `to`
/// reads it: a scalar repeated, a same-shaped value's elements (a packed
/// register split in two), or a broadcast value's elements.
inline SmallVector<Value> elementsFor(OpBuilder &b, Location loc, Value original, Value converted,
                                      const DistShape &to) {
  SmallVector<Value> out;
  std::optional<DistShape> from = distShape(original.getType());
  if (!from) {
    out.assign(to.elements(), converted);
    return out;
  }
  SmallVector<Value> regs = unpack(b, loc, converted, registers(*from));
  SmallVector<Value> elems;
  if (isPacked(*from)) {
    for (Value r : regs) {
      Value p = LLVM::BitcastOp::create(b, loc, pairType(from->elem), r);
      for (int k = 0; k < 2; ++k)
        elems.push_back(LLVM::ExtractElementOp::create(b, loc, p, i32Const(b, loc, k)));
    }
  } else {
    elems = regs;
  }
  for (int64_t e = 0; e < to.elements(); ++e)
    out.push_back(elems[sourceElement(to, *from, e)]);
  return out;
}

/// An operand as the value one register of the result works on: a
/// fragment's register, a scalar (splat to a pair when packed), or the
/// elements of a broadcast per_row / per_col value (paired when packed).
struct Operand {
  SmallVector<Value> regs; // per result register (as f32, or as <2 x T> pairs)
  Value scalar;            // or the broadcast value
  Value at(int64_t i) const { return scalar ? scalar : regs[i]; }
};

inline Value splatPair(OpBuilder &b, Location loc, Type elem, Value lo, Value hi) {
  Value v = LLVM::PoisonOp::create(b, loc, pairType(elem));
  v = LLVM::InsertElementOp::create(b, loc, v, lo, i32Const(b, loc, 0));
  return LLVM::InsertElementOp::create(b, loc, v, hi, i32Const(b, loc, 1));
}

inline Operand operand(OpBuilder &b, Location loc, Value original, Value converted,
                       Type resultType) {
  Operand o;
  DistShape to = *distShape(resultType);
  Type elem = to.elem;
  std::optional<DistShape> from = distShape(original.getType());
  if (!from) {
    o.scalar = converted;
    if (isPacked(to))
      o.scalar = splatPair(b, loc, elem, converted, converted);
    return o;
  }
  if (from->kind == to.kind) {
    o.regs = unpack(b, loc, converted, registers(to));
    if (isPacked(to))
      for (Value &r : o.regs)
        r = LLVM::BitcastOp::create(b, loc, pairType(elem), r);
    return o;
  }
  // A per_row / per_col value broadcast to a fragment.
  SmallVector<Value> elems = elementsFor(b, loc, original, converted, to);
  if (!isPacked(to)) {
    o.regs = std::move(elems);
    return o;
  }
  for (size_t e = 0; e < elems.size(); e += 2)
    o.regs.push_back(splatPair(b, loc, elem, elems[e], elems[e + 1]));
  return o;
}

/// The packed results back into i32 registers, and into the struct.
inline Value result(OpBuilder &b, Location loc, const TypeConverter &tc, Type type,
                    SmallVector<Value> regs) {
  if (isPacked(*distShape(type)))
    for (Value &r : regs)
      r = LLVM::BitcastOp::create(b, loc, b.getI32Type(), r);
  return pack(b, loc, tc.convertType(type), regs);
}

} // namespace mlir::tile::fragregs

#endif // TILEC_CONVERSION_FRAGMENTREGISTERS_H
