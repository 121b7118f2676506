//===- MLIRGenMath.cpp - math functions -> LLVM intrinsics and libdevice --===//
//
// The accurate forms (docs/reference/warp-and-math.md "Math functions" lists each one's
// error bound):
//   abs floor ceil trunc round rint      exact: llvm.fabs/floor/... (PTX abs,
//   copysign                              cvt.rmi/rpi/rzi/rni, copysign; round is
//                                         half away from zero, as C's round;
//                                         rint ties to even, as C's rint)
//   sqrt                                  llvm.sqrt: sqrt.rn.f32 (correctly rounded)
//   rsqrt                                 1 / sqrt: div.rn(1, sqrt.rn(x))
//   exp exp2 log log2 sin cos tanh erf    libdevice __nv_*f, as nvcc builds
//   pow                                   expf ... erff, powf (EmitPTX.cpp links it)
//   log1p expm1 log10 exp10 cbrt atan     libdevice __nv_<name>f, as nvcc builds
//   asin acos sinh cosh erfc atan2 hypot  log1pf ... fmodf (no PTX instruction,
//   fmod                                  no fast form)
// f16/bf16 arguments are computed in f32 (exact conversion) and the result
// rounded to nearest back, except where PTX has the operation natively and
// exactly (abs, floor, ceil, trunc, rint, copysign; NVPTX picks the form).
//
// The approximate forms (`approx = true`, tilec --fast-math) are the PTX
// .approx instructions, without .ftz but for ex2 (Target/FastMath.h
// kFastExp2F32Intrinsic: one MUFU.EX2): sqrt.approx, rsqrt.approx,
// ex2.approx.ftz (exp: ex2.approx.ftz(x * log2(e))), ex2.approx.f16 for f16,
// lg2.approx (log: lg2.approx(x) * ln(2)),
// sin.approx, cos.approx, tanh.approx (llvm.tanh with afn).
//
//===----------------------------------------------------------------------===//
#include "MLIRGenImpl.h"
#include "tilec/Target/FastMath.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::mlirgen;

Value MLIRGenImpl::callLibdevice(Location l, StringRef name, ValueRange args) {
  Type f32 = builder.getF32Type();
  auto fn = module->lookupSymbol<LLVM::LLVMFuncOp>(name);
  if (!fn) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module->getBody());
    fn = LLVM::LLVMFuncOp::create(
        builder, builder.getUnknownLoc(), name,
        LLVM::LLVMFunctionType::get(f32, SmallVector<Type>(args.size(), f32)));
  }
  return LLVM::CallOp::create(builder, l, fn, args).getResult();
}

Value MLIRGenImpl::genMathCall(const fe::CallExpr &e) {
  using BI = fe::Builtin;
  Location l = loc(e.loc);
  SmallVector<Value, 3> args;
  for (const fe::ExprPtr &a : e.args)
    args.push_back(genExpr(*a));
  Value x = args[0];
  Type t = x.getType();
  Type f32 = builder.getF32Type();
  MLIRContext *ctx = builder.getContext();
  auto noFlags = LLVM::FastmathFlagsAttr::get(ctx, LLVM::FastmathFlags::none);

  // Through f32: the extension is exact, the result rounds to nearest once.
  auto toF32 = [&](Value v) -> Value {
    return v.getType() == f32 ? v : arith::ExtFOp::create(builder, l, f32, v).getResult();
  };
  auto fromF32 = [&](Value v) -> Value {
    return t == f32 ? v : arith::TruncFOp::create(builder, l, t, v).getResult();
  };
  auto intrinsic = [&](StringRef name, Value v) -> Value {
    return LLVM::CallIntrinsicOp::create(builder, l, v.getType(), builder.getStringAttr(name),
                                         ValueRange{v})
        .getResult(0);
  };
  auto approxF32 = [&](StringRef name) { return fromF32(intrinsic(name, toF32(x))); };
  auto libdevice = [&](StringRef name) {
    return fromF32(callLibdevice(l, name, ValueRange{toF32(x)}));
  };
  auto f32Const = [&](double v) -> Value {
    return arith::ConstantOp::create(builder, l, f32,
                                     builder.getF32FloatAttr(static_cast<float>(v)));
  };

  switch (e.builtin) {
  case BI::Fma: // always fused: one rounding (fma.rn), whatever --fmad says
    return LLVM::FMAOp::create(builder, l, t, args[0], args[1], args[2], noFlags);
  case BI::Abs:
    if (isa<IntegerType>(t) && e.args[0]->type.isUnsigned())
      return x; // every unsigned value is its own absolute value
    if (isa<IntegerType>(t)) // abs.sN: abs(MIN) = MIN (PTX ISA 9.7.1.11)
      return LLVM::AbsOp::create(builder, l, t, x, /*is_int_min_poison=*/false);
    return LLVM::FAbsOp::create(builder, l, t, x, noFlags);
  case BI::Sqrt:
    if (e.approx)
      return approxF32("llvm.nvvm.sqrt.approx.f");
    return LLVM::SqrtOp::create(builder, l, t, x, noFlags);
  case BI::Rsqrt: {
    if (e.approx)
      return approxF32("llvm.nvvm.rsqrt.approx.f");
    Value root = LLVM::SqrtOp::create(builder, l, f32, toF32(x), noFlags);
    return fromF32(arith::DivFOp::create(builder, l, f32Const(1.0), root));
  }
  case BI::Exp2:
    if (e.approx)
      return t.isF16() ? intrinsic("llvm.nvvm.ex2.approx.f16", x)
                       : approxF32(::tile::target::kFastExp2F32Intrinsic);
    return libdevice("__nv_exp2f");
  case BI::Exp:
    if (e.approx) {
      Value log2e = f32Const(M_LOG2E);
      Value scaled = arith::MulFOp::create(builder, l, toF32(x), log2e);
      return fromF32(intrinsic(::tile::target::kFastExp2F32Intrinsic, scaled));
    }
    return libdevice("__nv_expf");
  case BI::Log2:
    if (e.approx)
      return approxF32("llvm.nvvm.lg2.approx.f");
    return libdevice("__nv_log2f");
  case BI::Log:
    if (e.approx) {
      Value log2 = intrinsic("llvm.nvvm.lg2.approx.f", toF32(x));
      return fromF32(arith::MulFOp::create(builder, l, log2, f32Const(M_LN2)));
    }
    return libdevice("__nv_logf");
  case BI::Sin:
    return e.approx ? approxF32("llvm.nvvm.sin.approx.f") : libdevice("__nv_sinf");
  case BI::Cos:
    return e.approx ? approxF32("llvm.nvvm.cos.approx.f") : libdevice("__nv_cosf");
  case BI::Tanh:
    if (e.approx) // NVPTX selects tanh.approx.f32 for llvm.tanh with afn
      return fromF32(LLVM::TanhOp::create(
          builder, l, f32, toF32(x), LLVM::FastmathFlagsAttr::get(ctx, LLVM::FastmathFlags::afn)));
    return libdevice("__nv_tanhf");
  case BI::Erf:
    return libdevice("__nv_erff");
  case BI::Pow: // C99 Annex F's special cases (pow(x, 0) = 1, pow(-8, 1/3) = NaN, ...)
    return fromF32(callLibdevice(l, "__nv_powf", ValueRange{toF32(args[0]), toF32(args[1])}));
  case BI::Atan2: // C99 Annex F's special cases (atan2(±0, -0) = ±π, ...)
  case BI::Hypot: // hypot(±inf, NaN) = +inf
  case BI::Fmod:  // exact; fmod(x, 0) = NaN, fmod(x, ±inf) = x
    return fromF32(callLibdevice(l, ::tile::target::libdeviceF32Name(fe::builtinName(e.builtin)),
                                 ValueRange{toF32(args[0]), toF32(args[1])}));
  case BI::Log1p:
  case BI::Expm1:
  case BI::Log10:
  case BI::Exp10:
  case BI::Cbrt:
  case BI::Atan:
  case BI::Asin:
  case BI::Acos:
  case BI::Sinh:
  case BI::Cosh:
  case BI::Erfc:
    return libdevice(::tile::target::libdeviceF32Name(fe::builtinName(e.builtin)));
  case BI::Floor:
    return LLVM::FFloorOp::create(builder, l, t, x, noFlags);
  case BI::Ceil:
    return LLVM::FCeilOp::create(builder, l, t, x, noFlags);
  case BI::Trunc:
    return LLVM::FTruncOp::create(builder, l, t, x, noFlags);
  case BI::Round:
    return LLVM::RoundOp::create(builder, l, t, x, noFlags);
  case BI::Rint: // llvm.roundeven: cvt.rni (ties to even, the IEEE default rounding)
    return LLVM::RoundEvenOp::create(builder, l, t, x, noFlags);
  case BI::Copysign:
    return LLVM::CopySignOp::create(builder, l, t, args[0], args[1], noFlags);
  default:
    return nullptr;
  }
}
