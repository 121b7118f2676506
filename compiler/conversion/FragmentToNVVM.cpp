//===- FragmentToNVVM.cpp - row reductions, masks and math on fragments ---===//
//
// The fragment algebra (TileFragmentOps.td) on the register layout of
// FragmentRegisters.h:
//  - tile.frag_reduce: per row the thread's N/4 elements in column order,
//    then the quad (lanes 4q..4q+3 hold the same rows, PTX ISA 9.7.15.5.1)
//    with shfl.sync.bfly.b32 1 and 2 (PTX ISA 9.7.9.9): after both steps
//    every lane holds the reduction of all four, combined in the same
//    order, so the four copies are bit-identical.
//  - tile.frag_cmp: fcmp (ordered; `ne` unordered, as the scalar `!=`) or
//    icmp (signed) per element; tile.frag_select: llvm select per element
//    or per packed pair (<2 x i1> condition).
//  - tile.frag_math: the scalar builtins' forms (MLIRGenMath.cpp) per
//    element: libdevice __nv_exp2f / __nv_expf / __nv_log2f / __nv_logf
//    (linked by the driver, as for scalars; log1p ... erfc are always
//    libdevice's __nv_<fn>f), or ex2.approx.ftz.f32 (one
//    MUFU.EX2, Target/FastMath.h) / lg2.approx.f32 (no .ftz) for `approx`; abs
//    is llvm.fabs (abs.f32, abs.f16x2, abs.bf16x2).
//===----------------------------------------------------------------------===//
#include "FragmentRegisters.h"
#include "tile/Dialect/TileDialect.h"
#include "tilec/Conversion/TileToLLVM.h"
#include "tilec/Target/FastMath.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::fragregs;

namespace {

struct FragReduceLowering : ConvertOpToLLVMPattern<FragReduceOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragReduceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FragType frag = op.getValue().getType();
    PerRowType rowType = op.getType();
    bool isMax = op.getKind() == FragReduceKind::max;
    SmallVector<Value> regs = unpack(rewriter, loc, adaptor.getValue(), frag.getElementsPerThread());
    auto combine = [&](Value x, Value y) -> Value {
      if (isMax)
        return floatMinMax(rewriter, loc, /*isMin=*/false, x, y);
      return LLVM::FAddOp::create(rewriter, loc, x, y);
    };
    DistShape to = *distShape(frag), rows = *distShape(rowType);
    SmallVector<Value> acc(rowType.getElementsPerThread());
    for (int64_t e = 0; e < frag.getElementsPerThread(); ++e) {
      Value &a = acc[sourceElement(to, rows, e)];
      a = a ? combine(a, regs[e]) : regs[e];
    }
    Value all = i32Const(rewriter, loc, -1);
    Value clamp = i32Const(rewriter, loc, 0x1f); // bfly: no segment, clamp at lane 31
    for (Value &a : acc)
      for (int d : {1, 2}) {
        Value other = NVVM::ShflOp::create(rewriter, loc, a.getType(), all, a,
                                           i32Const(rewriter, loc, d), clamp,
                                           NVVM::ShflKind::bfly, UnitAttr())
                          .getResult();
        a = combine(a, other);
      }
    replaceWithRegisters(rewriter, op, *getTypeConverter(), rowType, acc);
    return success();
  }
};

struct FragCmpLowering : ConvertOpToLLVMPattern<FragCmpOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragCmpOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    DistShape to = *distShape(op.getType());
    SmallVector<Value> l = elementsFor(rewriter, loc, op.getLhs(), adaptor.getLhs(), to);
    SmallVector<Value> r = elementsFor(rewriter, loc, op.getRhs(), adaptor.getRhs(), to);
    bool isFloat = isa<FloatType>(l[0].getType());
    auto fpred = [&] {
      switch (op.getPredicate()) {
      case FragCmpPredicate::eq:
        return LLVM::FCmpPredicate::oeq;
      case FragCmpPredicate::ne:
        return LLVM::FCmpPredicate::une;
      case FragCmpPredicate::lt:
        return LLVM::FCmpPredicate::olt;
      case FragCmpPredicate::le:
        return LLVM::FCmpPredicate::ole;
      case FragCmpPredicate::gt:
        return LLVM::FCmpPredicate::ogt;
      case FragCmpPredicate::ge:
        return LLVM::FCmpPredicate::oge;
      }
      return LLVM::FCmpPredicate::oeq;
    }();
    auto ipred = [&] {
      switch (op.getPredicate()) {
      case FragCmpPredicate::eq:
        return LLVM::ICmpPredicate::eq;
      case FragCmpPredicate::ne:
        return LLVM::ICmpPredicate::ne;
      case FragCmpPredicate::lt:
        return LLVM::ICmpPredicate::slt;
      case FragCmpPredicate::le:
        return LLVM::ICmpPredicate::sle;
      case FragCmpPredicate::gt:
        return LLVM::ICmpPredicate::sgt;
      case FragCmpPredicate::ge:
        return LLVM::ICmpPredicate::sge;
      }
      return LLVM::ICmpPredicate::eq;
    }();
    SmallVector<Value> out;
    // 16-bit fragment elements are compared in their pairs (setp.f16x2 /
    // .bf16x2 on the packed register): ptxas serialised the wgmma
    // (C7514) before a setp.f16 of one half of an accumulator register
    // with an immediate, when more than one wgmma group had written it.
    Type elem = l[0].getType();
    if (isFloat && to.kind == DistShape::Frag && (elem.isF16() || elem.isBF16())) {
      for (size_t e = 0; e + 1 < l.size(); e += 2) {
        Value lp = splatPair(rewriter, loc, elem, l[e], l[e + 1]);
        Value rp = splatPair(rewriter, loc, elem, r[e], r[e + 1]);
        Value c = LLVM::FCmpOp::create(rewriter, loc, fpred, lp, rp);
        for (int k = 0; k < 2; ++k)
          out.push_back(LLVM::ExtractElementOp::create(rewriter, loc, c, i32Const(rewriter, loc, k)));
      }
    } else {
      for (size_t e = 0; e < l.size(); ++e)
        out.push_back(isFloat ? LLVM::FCmpOp::create(rewriter, loc, fpred, l[e], r[e]).getResult()
                              : LLVM::ICmpOp::create(rewriter, loc, ipred, l[e], r[e]).getResult());
    }
    replaceWithRegisters(rewriter, op, *getTypeConverter(), op.getType(), out);
    return success();
  }
};

struct FragSelectLowering : ConvertOpToLLVMPattern<FragSelectOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragSelectOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    DistShape to = *distShape(type);
    SmallVector<Value> cond = elementsFor(rewriter, loc, op.getCond(), adaptor.getCond(), to);
    Operand a = operand(rewriter, loc, op.getA(), adaptor.getA(), type);
    Operand b = operand(rewriter, loc, op.getB(), adaptor.getB(), type);
    SmallVector<Value> out;
    for (int64_t i = 0; i < registers(to); ++i) {
      Value c = cond[i];
      if (isPacked(to)) // one condition per element of the pair
        c = splatPair(rewriter, loc, rewriter.getI1Type(), cond[2 * i], cond[2 * i + 1]);
      out.push_back(LLVM::SelectOp::create(rewriter, loc, c, a.at(i), b.at(i)));
    }
    rewriter.replaceOp(op, result(rewriter, loc, *getTypeConverter(), type, out));
    return success();
  }
};

struct FragMathLowering : ConvertOpToLLVMPattern<FragMathOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(FragMathOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    Operand v = operand(rewriter, loc, op.getValue(), adaptor.getValue(), type);
    Type f32 = rewriter.getF32Type();
    auto none = LLVM::FastmathFlagsAttr::get(getContext(), LLVM::FastmathFlags::none);
    auto intrinsic = [&](StringRef name, Value x) -> Value {
      return LLVM::CallIntrinsicOp::create(rewriter, loc, f32, rewriter.getStringAttr(name),
                                           ValueRange{x})
          .getResult(0);
    };
    auto constant = [&](double c) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, f32,
                                      rewriter.getF32FloatAttr(static_cast<float>(c)));
    };
    auto call = [&](StringRef name, Value x) -> Value {
      return LLVM::CallOp::create(rewriter, loc, libdeviceF32(rewriter, op, name, 1), ValueRange{x})
          .getResult();
    };
    bool approx = op.getApprox();
    SmallVector<Value> out;
    for (Value x : v.regs) {
      Value y;
      switch (op.getFn()) {
      case FragMathFn::abs: // i32: abs.s32, abs(MIN) = MIN (PTX ISA 9.7.1.11)
        y = x.getType().isInteger(32)
                ? LLVM::AbsOp::create(rewriter, loc, x.getType(), x, /*is_int_min_poison=*/false)
                      .getResult()
                : LLVM::FAbsOp::create(rewriter, loc, x.getType(), x, none).getResult();
        break;
      case FragMathFn::exp2:
        y = approx ? intrinsic(::tile::target::kFastExp2F32Intrinsic, x) : call("__nv_exp2f", x);
        break;
      case FragMathFn::exp:
        y = approx ? intrinsic(::tile::target::kFastExp2F32Intrinsic,
                               LLVM::FMulOp::create(rewriter, loc, x, constant(M_LOG2E)))
                   : call("__nv_expf", x);
        break;
      case FragMathFn::log2:
        y = approx ? intrinsic("llvm.nvvm.lg2.approx.f", x) : call("__nv_log2f", x);
        break;
      case FragMathFn::log:
        if (approx) {
          Value ln2 = constant(M_LN2);
          y = LLVM::FMulOp::create(rewriter, loc, intrinsic("llvm.nvvm.lg2.approx.f", x), ln2);
        } else {
          y = call("__nv_logf", x);
        }
        break;
      case FragMathFn::sqrt: // sqrt.rn.f32, as the scalar llvm.sqrt
        y = approx ? intrinsic("llvm.nvvm.sqrt.approx.f", x)
                   : LLVM::SqrtOp::create(rewriter, loc, f32, x, none).getResult();
        break;
      case FragMathFn::rsqrt: // div.rn(1, sqrt.rn(x)), as the scalar form
        if (approx) {
          y = intrinsic("llvm.nvvm.rsqrt.approx.f", x);
        } else {
          Value root = LLVM::SqrtOp::create(rewriter, loc, f32, x, none);
          y = LLVM::FDivOp::create(rewriter, loc, constant(1.0), root);
        }
        break;
      case FragMathFn::sin:
        y = approx ? intrinsic("llvm.nvvm.sin.approx.f", x) : call("__nv_sinf", x);
        break;
      case FragMathFn::cos:
        y = approx ? intrinsic("llvm.nvvm.cos.approx.f", x) : call("__nv_cosf", x);
        break;
      case FragMathFn::tanh: // NVPTX selects tanh.approx.f32 for llvm.tanh with afn
        y = approx ? LLVM::TanhOp::create(
                         rewriter, loc, f32, x,
                         LLVM::FastmathFlagsAttr::get(getContext(), LLVM::FastmathFlags::afn))
                         .getResult()
                   : call("__nv_tanhf", x);
        break;
      case FragMathFn::erf:
        y = call("__nv_erff", x);
        break;
      default: // log1p ... erfc: always libdevice's __nv_<fn>f (the verifier: no approx)
        y = call(::tile::target::libdeviceF32Name(stringifyFragMathFn(op.getFn())), x);
        break;
      }
      out.push_back(y);
    }
    rewriter.replaceOp(op, result(rewriter, loc, *getTypeConverter(), type, out));
    return success();
  }
};

struct FragSplatLowering : ConvertOpToLLVMPattern<FragSplatOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragSplatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    DistShape to = *distShape(op.getType());
    Value x = adaptor.getValue();
    Value reg = isPacked(to) ? LLVM::BitcastOp::create(rewriter, loc, rewriter.getI32Type(),
                                                       splatPair(rewriter, loc, to.elem, x, x))
                                   .getResult()
                             : x;
    SmallVector<Value> regs(registers(to), reg);
    replaceWithRegisters(rewriter, op, *getTypeConverter(), op.getType(), regs);
    return success();
  }
};

struct StorePerRowLowering : ConvertOpToLLVMPattern<StorePerRowOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(StorePerRowOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    PerRowType type = op.getValue().getType();
    Type elem = type.getElementType();
    Value row0 = fragmentOrigin(rewriter, loc, adaptor.getThread()).first;
    SmallVector<Value> elems =
        unpack(rewriter, loc, adaptor.getValue(), type.getElementsPerThread());
    for (auto [e, v] : llvm::enumerate(elems)) {
      // Element 2b + h: row 64b + 8h from the thread's first row.
      int64_t off = ::tile::target::kWgmmaM * (e / 2) + 8 * (e % 2);
      Value idx = LLVM::AddOp::create(rewriter, loc, row0, i32Const(rewriter, loc, off));
      Value elemValue = v;
      ifRowBelow(rewriter, loc, adaptor.getRows(), idx, [&] {
        Value p = LLVM::GEPOp::create(rewriter, loc, adaptor.getPtr().getType(), elem,
                                      adaptor.getPtr(), ValueRange{idx});
        LLVM::StoreOp::create(rewriter, loc, elemValue, p, elem.getIntOrFloatBitWidth() / 8);
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateTileFragmentToNVVMPatterns(LLVMTypeConverter &converter,
                                                    RewritePatternSet &patterns) {
  patterns.add<FragReduceLowering, FragCmpLowering, FragSelectLowering, FragMathLowering,
               FragSplatLowering, StorePerRowLowering>(converter);
}
