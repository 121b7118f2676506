//===- EpilogueToNVVM.cpp - fragment math, conversions and stores ----------===//
//
// A `!tile.frag<MxNxT>` is an LLVM struct of M*N/128 f32, or of M*N/256 i32
// each holding two 16-bit elements (the low half the lower column), as
// nvvm.wgmma.mma_async takes and returns it. Thread t of the warpgroup
// (warp w = t/32 % 4, lane l = t % 32) holds, per 64-row block b and 8-column
// block j (PTX ISA 9.7.15.5.1, "Matrix fragments for wgmma.mma_async.m64nNk16",
// D; tile::target::wgmmaFragmentCoord): elements 4j..4j+3 of the block =
// row 64b + 16w + l/4, columns 8j + 2(l%4) + {0, 1}, then the same columns of
// row + 8.
//  - Element-wise math is the scalar LLVM float op per element (f32) or per
//    packed pair (<2 x f16|bf16>, which the NVPTX backend selects as
//    add/sub/mul/min/max/fma.rn.{f16x2,bf16x2}); conversions are fptrunc /
//    fpext of pairs (cvt.rn.f16x2.f32, cvt.rn.bf16x2.f32).
//  - A 16-bit fragment goes into a shared tile with stmatrix.m8n8.x4 (PTX ISA
//    9.7.14.5.16): its four 8x8 matrices are, per pair of 8-column blocks, the
//    top and bottom 8 rows of block j then of block j+1 — exactly registers
//    4k..4k+3 of the fragment, whose lane l holds row l/4, columns 2(l%4) of
//    each, as stmatrix's fragment layout; lane l gives the address of row
//    l%8 of matrix l/8 through the tile's layout (swizzle, panels).
//  - 32-bit fragments and stores through a pointer write each thread's pairs
//    with one vector store (st.shared.v2.f32, st.global.v2.f32, st.b32).
//===----------------------------------------------------------------------===//
#include "TileLayoutOffset.h"
#include "tile/Dialect/TileDialect.h"
#include "tilec/Target/TargetFacts.h"
#include "tilec/Conversion/TileToLLVM.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tile;
namespace target = ::tile::target;

namespace {

Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr((int32_t)v));
}

Value i64Const(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(), b.getI64IntegerAttr(v));
}

/// The registers of a converted fragment value.
SmallVector<Value> unpack(OpBuilder &b, Location loc, Value frag, int64_t n) {
  SmallVector<Value> regs;
  for (int64_t i = 0; i < n; ++i)
    regs.push_back(LLVM::ExtractValueOp::create(b, loc, frag, i));
  return regs;
}

Value pack(OpBuilder &b, Location loc, Type structTy, ArrayRef<Value> regs) {
  Value v = LLVM::PoisonOp::create(b, loc, structTy);
  for (auto [i, r] : llvm::enumerate(regs))
    v = LLVM::InsertValueOp::create(b, loc, v, r, i);
  return v;
}

/// The lane (t % 32) and the warp within the warpgroup ((t / 32) % 4).
std::pair<Value, Value> laneAndWarp(OpBuilder &b, Location loc, Value thread) {
  Value lane = LLVM::URemOp::create(b, loc, thread, i32Const(b, loc, target::kWarpSize));
  Value warp = LLVM::UDivOp::create(b, loc, thread, i32Const(b, loc, target::kWarpSize));
  warp = LLVM::URemOp::create(b, loc, warp,
                              i32Const(b, loc, target::kWarpgroupSize / target::kWarpSize));
  return {lane, warp};
}

/// The row of the thread's first element (16w + l/4) and the column of its
/// first element in every 8-column block (2 * (l % 4)).
std::pair<Value, Value> fragmentOrigin(OpBuilder &b, Location loc, Value thread) {
  auto [lane, warp] = laneAndWarp(b, loc, thread);
  Value row = LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, warp, i32Const(b, loc, 16)),
                                  LLVM::UDivOp::create(b, loc, lane, i32Const(b, loc, 4)));
  Value col = LLVM::MulOp::create(b, loc, LLVM::URemOp::create(b, loc, lane, i32Const(b, loc, 4)),
                                  i32Const(b, loc, 2));
  return {row, col};
}

/// One pair of elements of a thread: its register index (f32: of the first
/// element; packed: the i32) and its offsets from fragmentOrigin.
struct Pair {
  int64_t reg;
  int64_t row, col;
};

/// Every pair of a rows x cols fragment, in register order.
SmallVector<Pair> fragmentPairs(FragType t) {
  SmallVector<Pair> pairs;
  int64_t perBlock = t.getCols() / 2; // elements per thread per 64-row block
  for (int64_t e = 0; e < t.getElementsPerThread(); e += 2) {
    int64_t b = e / perBlock, i = e % perBlock;
    pairs.push_back(
        {t.isPacked() ? e / 2 : e, target::kWgmmaM * b + 8 * ((i % 4) / 2), 8 * (i / 4)});
  }
  return pairs;
}

VectorType pairType(Type elem) { return VectorType::get({2}, elem); }

/// An operand as the value one register of the result works on: a
/// fragment's register, or a scalar (splat to a pair when packed).
struct Operand {
  SmallVector<Value> regs; // fragment registers (as f32, or as <2 x T> pairs)
  Value scalar;            // or the broadcast value
  Value at(int64_t i) const { return scalar ? scalar : regs[i]; }
};

Operand operand(OpBuilder &b, Location loc, Value original, Value converted, FragType result) {
  Operand o;
  Type elem = result.getElementType();
  if (!isa<FragType>(original.getType())) {
    o.scalar = converted;
    if (result.isPacked()) {
      Value v = LLVM::PoisonOp::create(b, loc, pairType(elem));
      for (int k = 0; k < 2; ++k)
        v = LLVM::InsertElementOp::create(b, loc, v, converted, i32Const(b, loc, k));
      o.scalar = v;
    }
    return o;
  }
  o.regs = unpack(b, loc, converted, result.getRegistersPerThread());
  if (result.isPacked())
    for (Value &r : o.regs)
      r = LLVM::BitcastOp::create(b, loc, pairType(elem), r);
  return o;
}

/// The packed results back into i32 registers, and into the struct.
Value result(OpBuilder &b, Location loc, const TypeConverter &tc, FragType type,
             SmallVector<Value> regs) {
  if (type.isPacked())
    for (Value &r : regs)
      r = LLVM::BitcastOp::create(b, loc, b.getI32Type(), r);
  return pack(b, loc, tc.convertType(type), regs);
}

LLVM::FastmathFlags contractIf(bool contract) {
  return contract ? LLVM::FastmathFlags::contract : LLVM::FastmathFlags::none;
}

struct FragArithLowering : ConvertOpToLLVMPattern<FragArithOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragArithOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FragType type = op.getType();
    Operand l = operand(rewriter, loc, op.getLhs(), adaptor.getLhs(), type);
    Operand r = operand(rewriter, loc, op.getRhs(), adaptor.getRhs(), type);
    auto fmf = LLVM::FastmathFlagsAttr::get(getContext(), contractIf(op.getContract()));
    auto none = LLVM::FastmathFlagsAttr::get(getContext(), LLVM::FastmathFlags::none);
    SmallVector<Value> out;
    for (int64_t i = 0; i < type.getRegistersPerThread(); ++i) {
      Value x = l.at(i), y = r.at(i);
      switch (op.getKind()) {
      case FragArithKind::add:
        out.push_back(LLVM::FAddOp::create(rewriter, loc, x, y, fmf));
        break;
      case FragArithKind::sub:
        out.push_back(LLVM::FSubOp::create(rewriter, loc, x, y, fmf));
        break;
      case FragArithKind::mul:
        out.push_back(LLVM::FMulOp::create(rewriter, loc, x, y, fmf));
        break;
      case FragArithKind::div: // never contracted (docs/reference/operators.md "FMA contraction")
        out.push_back(LLVM::FDivOp::create(rewriter, loc, x, y, none));
        break;
      case FragArithKind::min: // IEEE minNum, as the scalar min
        out.push_back(LLVM::MinNumOp::create(rewriter, loc, x, y));
        break;
      case FragArithKind::max:
        out.push_back(LLVM::MaxNumOp::create(rewriter, loc, x, y));
        break;
      }
    }
    rewriter.replaceOp(op, result(rewriter, loc, *getTypeConverter(), type, out));
    return success();
  }
};

struct FragFmaLowering : ConvertOpToLLVMPattern<FragFmaOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragFmaOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FragType type = op.getType();
    Operand a = operand(rewriter, loc, op.getA(), adaptor.getA(), type);
    Operand b = operand(rewriter, loc, op.getB(), adaptor.getB(), type);
    Operand c = operand(rewriter, loc, op.getC(), adaptor.getC(), type);
    SmallVector<Value> out;
    for (int64_t i = 0; i < type.getRegistersPerThread(); ++i)
      out.push_back(LLVM::FMAOp::create(rewriter, loc, a.at(i), b.at(i), c.at(i)));
    rewriter.replaceOp(op, result(rewriter, loc, *getTypeConverter(), type, out));
    return success();
  }
};

struct FragNegLowering : ConvertOpToLLVMPattern<FragNegOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragNegOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FragType type = op.getType();
    Operand v = operand(rewriter, loc, op.getValue(), adaptor.getValue(), type);
    SmallVector<Value> out;
    for (Value r : v.regs)
      out.push_back(LLVM::FNegOp::create(rewriter, loc, r));
    rewriter.replaceOp(op, result(rewriter, loc, *getTypeConverter(), type, out));
    return success();
  }
};

struct FragColsLowering : ConvertOpToLLVMPattern<FragColsOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragColsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto from = cast<FragType>(op.getValue().getType());
    FragType to = op.getType();
    SmallVector<Value> regs =
        unpack(rewriter, loc, adaptor.getValue(), from.getRegistersPerThread());
    // Per 64-row block, every 8-column block has the same registers, in
    // column-block order.
    int64_t rowBlocks = from.getRows() / target::kWgmmaM;
    int64_t perRowBlock = from.getRegistersPerThread() / rowBlocks;
    int64_t perColBlock = perRowBlock / (from.getCols() / 8);
    int64_t begin = op.getFirst() / 8 * perColBlock;
    int64_t count = to.getCols() / 8 * perColBlock;
    SmallVector<Value> out;
    for (int64_t b = 0; b < rowBlocks; ++b)
      for (int64_t i = 0; i < count; ++i)
        out.push_back(regs[b * perRowBlock + begin + i]);
    rewriter.replaceOp(op, pack(rewriter, loc, getTypeConverter()->convertType(to), out));
    return success();
  }
};

struct FragConvertLowering : ConvertOpToLLVMPattern<FragConvertOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragConvertOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto from = cast<FragType>(op.getValue().getType());
    FragType to = op.getType();
    if (from == to) {
      rewriter.replaceOp(op, adaptor.getValue());
      return success();
    }
    // Work on pairs of f32: widen a packed source, narrow to a packed result
    // (fptrunc of <2 x f32>: cvt.rn.{f16x2,bf16x2}.f32, one rounding).
    Type f32 = rewriter.getF32Type();
    SmallVector<Value> regs =
        unpack(rewriter, loc, adaptor.getValue(), from.getRegistersPerThread());
    SmallVector<Value> wide; // <2 x f32> per pair
    if (from.isPacked()) {
      for (Value r : regs) {
        Value p = LLVM::BitcastOp::create(rewriter, loc, pairType(from.getElementType()), r);
        wide.push_back(LLVM::FPExtOp::create(rewriter, loc, pairType(f32), p));
      }
    } else {
      for (size_t i = 0; i < regs.size(); i += 2) {
        Value p = LLVM::PoisonOp::create(rewriter, loc, pairType(f32));
        p = LLVM::InsertElementOp::create(rewriter, loc, p, regs[i], i32Const(rewriter, loc, 0));
        p = LLVM::InsertElementOp::create(rewriter, loc, p, regs[i + 1],
                                          i32Const(rewriter, loc, 1));
        wide.push_back(p);
      }
    }
    SmallVector<Value> out;
    for (Value p : wide) {
      if (to.isPacked()) {
        Value n = LLVM::FPTruncOp::create(rewriter, loc, pairType(to.getElementType()), p);
        out.push_back(LLVM::BitcastOp::create(rewriter, loc, rewriter.getI32Type(), n));
      } else {
        for (int k = 0; k < 2; ++k)
          out.push_back(
              LLVM::ExtractElementOp::create(rewriter, loc, p, i32Const(rewriter, loc, k)));
      }
    }
    rewriter.replaceOp(op, pack(rewriter, loc, getTypeConverter()->convertType(to), out));
    return success();
  }
};

struct FragCoordLowering : ConvertOpToLLVMPattern<FragCoordOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragCoordOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FragType type = op.getType();
    auto [row, col] = fragmentOrigin(rewriter, loc, adaptor.getThread());
    bool isRow = op.getDim() == 0;
    SmallVector<Value> out;
    for (const Pair &p : fragmentPairs(type))
      for (int k = 0; k < 2; ++k) {
        Value v = isRow
                      ? LLVM::AddOp::create(rewriter, loc, row, i32Const(rewriter, loc, p.row))
                      : LLVM::AddOp::create(rewriter, loc, col, i32Const(rewriter, loc, p.col + k));
        // Indices are below 2^24: exact in f32.
        out.push_back(LLVM::UIToFPOp::create(rewriter, loc, rewriter.getF32Type(), v));
      }
    rewriter.replaceOp(op, pack(rewriter, loc, getTypeConverter()->convertType(type), out));
    return success();
  }
};

struct FragLoadRowLowering : ConvertOpToLLVMPattern<FragLoadRowOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragLoadRowOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FragType type = op.getType();
    Type elem = type.getElementType();
    unsigned align = elem.getIntOrFloatBitWidth() / 8;
    Value col0 = fragmentOrigin(rewriter, loc, adaptor.getThread()).second;
    // One load per column the thread holds; both rows of a block and every
    // 64-row block share it.
    DenseMap<int64_t, Value> loaded;
    auto column = [&](int64_t c) {
      auto [it, fresh] = loaded.try_emplace(c);
      if (fresh) {
        Value idx = LLVM::AddOp::create(rewriter, loc, col0, i32Const(rewriter, loc, c));
        Value p = LLVM::GEPOp::create(rewriter, loc, adaptor.getPtr().getType(), elem,
                                      adaptor.getPtr(), ValueRange{idx});
        it->second = LLVM::LoadOp::create(rewriter, loc, elem, p, align);
      }
      return it->second;
    };
    SmallVector<Value> out;
    for (const Pair &p : fragmentPairs(type)) {
      Value a = column(p.col), b = column(p.col + 1);
      if (!type.isPacked()) {
        out.append({a, b});
        continue;
      }
      Value v = LLVM::PoisonOp::create(rewriter, loc, pairType(elem));
      v = LLVM::InsertElementOp::create(rewriter, loc, v, a, i32Const(rewriter, loc, 0));
      v = LLVM::InsertElementOp::create(rewriter, loc, v, b, i32Const(rewriter, loc, 1));
      out.push_back(LLVM::BitcastOp::create(rewriter, loc, rewriter.getI32Type(), v));
    }
    rewriter.replaceOp(op, pack(rewriter, loc, getTypeConverter()->convertType(type), out));
    return success();
  }
};

/// The value one store of a pair writes: <2 x f32> (f32) or the packed i32.
Value pairValue(OpBuilder &b, Location loc, FragType type, ArrayRef<Value> regs, int64_t reg) {
  if (type.isPacked())
    return regs[reg];
  Value v = LLVM::PoisonOp::create(b, loc, pairType(b.getF32Type()));
  v = LLVM::InsertElementOp::create(b, loc, v, regs[reg], i32Const(b, loc, 0));
  return LLVM::InsertElementOp::create(b, loc, v, regs[reg + 1], i32Const(b, loc, 1));
}

Value byteGep(OpBuilder &b, Location loc, Value base, Value offset) {
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base, ValueRange{offset});
}

struct FragStoreTileLowering : ConvertOpToLLVMPattern<FragStoreTileOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragStoreTileOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<FragType>(op.getValue().getType());
    TileLayoutAttr layout = op.getLayout();
    int64_t elemBytes = scalarByteWidth(type.getElementType());
    Value base = adaptor.getTile();
    SmallVector<Value> regs =
        unpack(rewriter, loc, adaptor.getValue(), type.getRegistersPerThread());
    auto address = [&](Value row, Value col) {
      Value off = layoutOffset(rewriter, loc, layout, elemBytes, ValueRange{row, col});
      return byteGep(rewriter, loc, base, off);
    };
    auto at = [&](Value v, int64_t c) {
      return LLVM::AddOp::create(rewriter, loc, v, i32Const(rewriter, loc, c));
    };
    if (op.usesStMatrix()) {
      // Lane l addresses row l % 8 of matrix l / 8: matrix m is the top (m
      // even) or bottom 8 rows of 8-column block 2k + m / 2.
      auto [lane, warp] = laneAndWarp(rewriter, loc, adaptor.getThread());
      Value m = LLVM::UDivOp::create(rewriter, loc, lane, i32Const(rewriter, loc, 8));
      Value r8 = LLVM::URemOp::create(rewriter, loc, lane, i32Const(rewriter, loc, 8));
      Value half = LLVM::MulOp::create(
          rewriter, loc, LLVM::URemOp::create(rewriter, loc, m, i32Const(rewriter, loc, 2)),
          i32Const(rewriter, loc, 8));
      Value rowIn = LLVM::AddOp::create(
          rewriter, loc,
          LLVM::AddOp::create(rewriter, loc,
                              LLVM::MulOp::create(rewriter, loc, warp, i32Const(rewriter, loc, 16)),
                              half),
          r8);
      rowIn = LLVM::AddOp::create(rewriter, loc, rowIn, adaptor.getRow0());
      Value colX4 = LLVM::MulOp::create(
          rewriter, loc, LLVM::UDivOp::create(rewriter, loc, m, i32Const(rewriter, loc, 2)),
          i32Const(rewriter, loc, 8));
      auto shape = NVVM::LdStMatrixShapeAttr::get(getContext(), 8, 8);
      int64_t blocks = type.getCols() / 8,
              perBlock64 = type.getRegistersPerThread() / (type.getRows() / target::kWgmmaM);
      for (int64_t b = 0; b < type.getRows() / target::kWgmmaM; ++b) {
        Value row = at(rowIn, target::kWgmmaM * b);
        for (int64_t j = 0; j < blocks; j += 2) {
          int64_t reg = b * perBlock64 + 2 * j;
          bool x4 = j + 1 < blocks;
          Value col = x4 ? at(colX4, 8 * j) : i32Const(rewriter, loc, 8 * j);
          SmallVector<Value> src(regs.begin() + reg, regs.begin() + reg + (x4 ? 4 : 2));
          NVVM::StMatrixOp::create(rewriter, loc, address(row, col), src, NVVM::MMALayout::row,
                                   shape, NVVM::LdStMatrixEltType::B16);
        }
      }
      rewriter.eraseOp(op);
      return success();
    }
    auto [row0, col0] = fragmentOrigin(rewriter, loc, adaptor.getThread());
    row0 = LLVM::AddOp::create(rewriter, loc, row0, adaptor.getRow0());
    for (const Pair &p : fragmentPairs(type)) {
      Value ptr = address(at(row0, p.row), at(col0, p.col));
      LLVM::StoreOp::create(rewriter, loc, pairValue(rewriter, loc, type, regs, p.reg), ptr,
                            2 * elemBytes);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct FragStoreLowering : ConvertOpToLLVMPattern<FragStoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<FragType>(op.getValue().getType());
    Type elem = type.getElementType();
    int64_t elemBytes = scalarByteWidth(elem);
    SmallVector<Value> regs =
        unpack(rewriter, loc, adaptor.getValue(), type.getRegistersPerThread());
    auto [row0, col0] = fragmentOrigin(rewriter, loc, adaptor.getThread());
    Type i64 = rewriter.getI64Type();
    Value row64 = LLVM::ZExtOp::create(rewriter, loc, i64, row0);
    Value col64 = LLVM::ZExtOp::create(rewriter, loc, i64, col0);
    // Element offsets in 64 bits: r * row_stride may pass 2^31.
    Value stride = adaptor.getRowStride();
    for (const Pair &p : fragmentPairs(type)) {
      Value r = LLVM::AddOp::create(rewriter, loc, row64, i64Const(rewriter, loc, p.row));
      Value off = LLVM::AddOp::create(
          rewriter, loc, LLVM::MulOp::create(rewriter, loc, r, stride),
          LLVM::AddOp::create(rewriter, loc, col64, i64Const(rewriter, loc, p.col)));
      Value ptr = LLVM::GEPOp::create(rewriter, loc, adaptor.getPtr().getType(), elem,
                                      adaptor.getPtr(), ValueRange{off});
      LLVM::StoreOp::create(rewriter, loc, pairValue(rewriter, loc, type, regs, p.reg), ptr,
                            2 * elemBytes);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateTileEpilogueToNVVMPatterns(LLVMTypeConverter &converter,
                                                    RewritePatternSet &patterns) {
  patterns.add<FragArithLowering, FragFmaLowering, FragNegLowering, FragConvertLowering,
               FragColsLowering, FragCoordLowering, FragLoadRowLowering, FragStoreTileLowering,
               FragStoreLowering>(converter);
}
