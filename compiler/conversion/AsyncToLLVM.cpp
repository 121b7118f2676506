//===- AsyncToLLVM.cpp - mbarriers, st.async, fences, hang reports ---------===//
//
// Inline PTX with the exact `.sem`/`.scope`/state space of each operation
// (PTX ISA 9.7.13.15 mbarrier, 9.7.9.12 st.async, 9.7.13.4 fence). Orders and
// scopes come from tile-sync-semantics; an op without one is an internal
// error here, never a default.
//===----------------------------------------------------------------------===//
#include "tilec/Conversion/TileToLLVM.h"
#include "tile/Dialect/TileDialect.h"

#include "PTXAsm.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::ptxasm;

namespace {

std::string sem(MemoryOrder order) {
  switch (order) {
  case MemoryOrder::relaxed: return ".relaxed";
  case MemoryOrder::acquire: return ".acquire";
  case MemoryOrder::release: return ".release";
  case MemoryOrder::acq_rel: return ".acq_rel";
  case MemoryOrder::sc: return ".sc";
  case MemoryOrder::weak: return "";
  }
  return "";
}

AddressSpace spaceOf(Value ptr) { return cast<PtrType>(ptr.getType()).getSpace(); }

struct MBarrierInitLowering : ConvertOpToLLVMPattern<MBarrierInitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(MBarrierInitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto [addr, c] = asmAddress(rewriter, op.getLoc(), adaptor.getMbar(), AddressSpace::shared);
    inlinePtx(rewriter, op.getLoc(), Type(), ValueRange{addr, adaptor.getCount()},
              "mbarrier.init.shared::cta.b64 [$0], $1;", (c + ",r,~{memory}").str());
    rewriter.eraseOp(op);
    return success();
  }
};

/// The arrival state is not needed (waits use the phase parity): sink `_`
/// (PTX ISA 9.7.13.15.13), for this CTA's mbarrier and a peer's alike.
struct MBarrierArriveLowering : ConvertOpToLLVMPattern<MBarrierArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(MBarrierArriveOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    AddressSpace space = spaceOf(op.getMbar());
    FailureOr<MemoryOrder> order = decidedOrder(op, op.getOrder());
    FailureOr<MemoryScope> scope = decidedScope(op, op.getScope());
    if (failed(order) || failed(scope))
      return failure();
    auto [addr, c] = asmAddress(rewriter, op.getLoc(), adaptor.getMbar(), space);
    SmallVector<Value> operands{addr};
    std::string constraints = c.str();
    std::string text = "mbarrier.arrive" + std::string(op.getTxCount() ? ".expect_tx" : "") +
                       sem(*order) + ptxScope(*scope).str() +
                       ptxSpace(space).str() + ".b64 _, [$0]";
    if (adaptor.getTxCount()) {
      operands.push_back(adaptor.getTxCount());
      constraints += ",r";
      text += ", $1";
    }
    inlinePtx(rewriter, op.getLoc(), Type(), operands, text + ";", constraints + ",~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierExpectTxLowering : ConvertOpToLLVMPattern<MBarrierExpectTxOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(MBarrierExpectTxOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    FailureOr<MemoryScope> scope = decidedScope(op, op.getScope());
    if (failed(scope))
      return failure();
    auto [addr, c] = asmAddress(rewriter, op.getLoc(), adaptor.getMbar(), AddressSpace::shared);
    std::string text = "mbarrier.expect_tx.relaxed" + ptxScope(*scope).str() +
                       ".shared::cta.b64 [$0], $1;";
    inlinePtx(rewriter, op.getLoc(), Type(), ValueRange{addr, adaptor.getTxCount()}, text,
              (c + ",r,~{memory}").str());
    rewriter.eraseOp(op);
    return success();
  }
};

/// `mbarrier.try_wait.parity.<sem>.<scope>.shared::cta.b64`, or failure
/// (reported) when tile-sync-semantics did not decide op's order or scope.
FailureOr<std::string> tryWait(Operation *op, std::optional<MemoryOrder> order,
                               std::optional<MemoryScope> scope) {
  FailureOr<MemoryOrder> decided = decidedOrder(op, order);
  FailureOr<MemoryScope> decidedScopeValue = decidedScope(op, scope);
  if (failed(decided) || failed(decidedScopeValue))
    return failure();
  return "mbarrier.try_wait.parity" + sem(*decided) + ptxScope(*decidedScopeValue).str() +
         ".shared::cta.b64";
}

/// The whole spin in one asm block, as hand-written CUDA does: try_wait has a
/// hardware suspend hint, so the loop costs one branch per retry.
struct MBarrierWaitLowering : ConvertOpToLLVMPattern<MBarrierWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(MBarrierWaitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!adaptor.getParity())
      return rewriter.notifyMatchFailure(op, "phase-tracked wait: run tile-mbarrier-phases first");
    FailureOr<std::string> probe = tryWait(op, op.getOrder(), op.getScope());
    if (failed(probe))
      return failure();
    auto [addr, c] = asmAddress(rewriter, op.getLoc(), adaptor.getMbar(), AddressSpace::shared);
    std::string text = "{\n\t.reg .pred done;\n\tTILE_WAIT:\n\t" + *probe +
                       " done, [$0], $1;\n\t@!done bra TILE_WAIT;\n\t}";
    inlinePtx(rewriter, op.getLoc(), Type(), ValueRange{addr, adaptor.getParity()}, text,
              (c + ",r,~{memory}").str());
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierTryWaitLowering : ConvertOpToLLVMPattern<MBarrierTryWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(MBarrierTryWaitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<std::string> probe = tryWait(op, op.getOrder(), op.getScope());
    if (failed(probe))
      return failure();
    auto [addr, c] = asmAddress(rewriter, loc, adaptor.getMbar(), AddressSpace::shared);
    std::string text = "{\n\t.reg .pred done;\n\t" + *probe +
                       " done, [$1], $2;\n\tselp.u32 $0, 1, 0, done;\n\t}";
    Value bits = inlinePtx(rewriter, loc, rewriter.getI32Type(), ValueRange{addr, adaptor.getParity()},
                           text, ("=r," + c + ",r,~{memory}").str());
    Value zero = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), 0);
    rewriter.replaceOpWithNewOp<LLVM::ICmpOp>(op, LLVM::ICmpPredicate::ne, bits, zero);
    return success();
  }
};

struct StoreAsyncLowering : ConvertOpToLLVMPattern<StoreAsyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(StoreAsyncOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto [dst, dc] = asmAddress(rewriter, loc, adaptor.getDst(), AddressSpace::cluster);
    auto [bar, bc] = asmAddress(rewriter, loc, adaptor.getMbar(), AddressSpace::cluster);
    unsigned bits = static_cast<unsigned>(scalarByteWidth(op.getValues().front().getType()) * 8);
    AsmScalar s = asmScalar(rewriter.getIntegerType(bits)); // .bN moves bits (f32 too)
    SmallVector<Value> operands{dst};
    std::string constraints = dc.str(), list;
    for (auto [i, v] : llvm::enumerate(adaptor.getValues())) {
      operands.push_back(isa<FloatType>(v.getType())
                             ? LLVM::BitcastOp::create(rewriter, loc, s.asmType, v).getResult()
                             : v);
      constraints += "," + s.constraint.str();
      list += (i ? ", $" : "$") + std::to_string(i + 1);
    }
    size_t n = adaptor.getValues().size();
    operands.push_back(bar);
    constraints += "," + bc.str() + ",~{memory}";
    std::string vec = n == 1 ? "" : ".v" + std::to_string(n);
    std::string value = n == 1 ? list : "{" + list + "}";
    std::string text = "st.async.shared::cluster.mbarrier::complete_tx::bytes" + vec + ".b" +
                       std::to_string(bits) + " [$0], " + value + ", [$" + std::to_string(n + 1) +
                       "];";
    inlinePtx(rewriter, loc, Type(), operands, text, constraints);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Ops that are one fixed PTX statement.
template <typename Op>
struct FixedPtxLowering : ConvertOpToLLVMPattern<Op> {
  FixedPtxLowering(LLVMTypeConverter &converter, StringRef text)
      : ConvertOpToLLVMPattern<Op>(converter), text(text.str()) {}
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    inlinePtx(rewriter, op.getLoc(), Type(), ValueRange{}, text, "~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
  std::string text;
};

struct FenceLowering : ConvertOpToLLVMPattern<FenceOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FenceOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    FailureOr<MemoryOrder> order = decidedOrder(op, op.getOrder());
    FailureOr<MemoryScope> scope = decidedScope(op, op.getScope());
    if (failed(order) || failed(scope))
      return failure();
    std::string text = "fence" + sem(*order) + ptxScope(*scope).str() + ";";
    inlinePtx(rewriter, op.getLoc(), Type(), ValueRange{}, text, "~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
};

struct GlobalTimerLowering : ConvertOpToLLVMPattern<GlobalTimerOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(GlobalTimerOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, inlinePtx(rewriter, op.getLoc(), rewriter.getI64Type(), ValueRange{},
                                     "mov.u64 $0, %globaltimer;", "=l"));
    return success();
  }
};

/// vprintf(format, args) with the i32 args packed in a local struct (the CUDA
/// device printf ABI), then `trap` so the launch fails with the report printed.
struct HangTrapLowering : ConvertOpToLLVMPattern<HangTrapOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(HangTrapOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto module = op->getParentOfType<ModuleOp>();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto globalPtr = LLVM::LLVMPointerType::get(ctx, 1);
    auto i32 = rewriter.getI32Type();
    OpBuilder::InsertPoint here = rewriter.saveInsertionPoint();
    rewriter.setInsertionPointToStart(module.getBody());
    auto vprintf = module.lookupSymbol<LLVM::LLVMFuncOp>("vprintf");
    if (!vprintf)
      vprintf = LLVM::LLVMFuncOp::create(rewriter, loc, "vprintf",
                                         LLVM::LLVMFunctionType::get(i32, {ptr, ptr}));
    std::string text = op.getMessage().str();
    text.push_back('\0');
    std::string name = std::string(kGeneratedSymbolPrefix) + "hang_msg$" + std::to_string(counter(module));
    auto arrayType = LLVM::LLVMArrayType::get(rewriter.getI8Type(), text.size());
    LLVM::GlobalOp::create(rewriter, loc, arrayType, /*isConstant=*/true, LLVM::Linkage::Internal,
                           name, rewriter.getStringAttr(text), /*alignment=*/1, /*addrSpace=*/1);
    rewriter.restoreInsertionPoint(here);

    Value format = LLVM::AddrSpaceCastOp::create(
        rewriter, loc, ptr, LLVM::AddressOfOp::create(rewriter, loc, globalPtr, name));
    SmallVector<Type> fields(adaptor.getArgs().size(), i32);
    Value args = LLVM::ZeroOp::create(rewriter, loc, ptr);
    if (!fields.empty()) {
      auto structType = LLVM::LLVMStructType::getLiteral(ctx, fields);
      Value one = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI64Type(), 1);
      args = LLVM::AllocaOp::create(rewriter, loc, ptr, structType, one, /*alignment=*/8);
      for (auto [i, v] : llvm::enumerate(adaptor.getArgs())) {
        Value field = LLVM::GEPOp::create(rewriter, loc, ptr, structType, args,
                                          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
        LLVM::StoreOp::create(rewriter, loc, v, field);
      }
    }
    LLVM::CallOp::create(rewriter, loc, vprintf, ValueRange{format, args});
    rewriter.replaceOpWithNewOp<LLVM::Trap>(op);
    return success();
  }

  static unsigned counter(ModuleOp module) {
    unsigned n = 0;
    while (module.lookupSymbol(std::string(kGeneratedSymbolPrefix) + "hang_msg$" + std::to_string(n)))
      ++n;
    return n;
  }
};

} // namespace

void mlir::tile::populateTileAsyncToLLVMPatterns(LLVMTypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  patterns.add<MBarrierInitLowering, MBarrierArriveLowering, MBarrierExpectTxLowering,
               MBarrierWaitLowering, MBarrierTryWaitLowering, StoreAsyncLowering, FenceLowering,
               GlobalTimerLowering, HangTrapLowering>(converter);
  patterns.add<FixedPtxLowering<FenceProxyAsyncOp>>(converter, "fence.proxy.async.shared::cta;");
  // PTX ISA 9.7.13.15.3: makes prior mbarrier.init visible to the cluster.
  patterns.add<FixedPtxLowering<FenceMBarrierInitOp>>(converter,
                                                      "fence.mbarrier_init.release.cluster;");
}
