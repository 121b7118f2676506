//===- RoleToNVVM.cpp - warp roles: branch, setmaxnreg, elect, named barriers ===//
//
// A tile.role becomes a branch on the warp-uniform warpgroup index into its
// body, which starts with `setmaxnreg.{inc,dec}.sync.aligned.u32` (PTX ISA
// 9.7.19.5). setmaxnreg only takes effect when ptxas knows the register count
// at entry, i.e. the kernel has `.maxntid` (or `.reqntid`) and
// `.minnctapersm 1`; otherwise ptxas drops it with advisory C7508 (measured
// with ptxas 13.0), so setRoleLaunchBounds adds them to every kernel with
// roles. All of that lives in this file, so that the kernel attributes other
// features emit (.reqntid from threads(), max_threads, min_blocks) meet the
// role rule in one place.
//===----------------------------------------------------------------------===//
#include "tile/Dialect/TileDialect.h"
#include "tilec/Target/TargetFacts.h"
#include "tilec/Conversion/TileToLLVM.h"

#include "ConversionUtils.h"
#include "PTXBuilder.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tile;

namespace target = ::tile::target;

namespace {

/// Threads of the CTA as the PTX directives say: the product of .reqntid or
/// .maxntid of the enclosing function.
std::optional<int64_t> launchThreads(Operation *op) {
  auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
  if (!func)
    return std::nullopt;
  for (StringRef name :
       {NVVM::NVVMDialect::getReqntidAttrName(), NVVM::NVVMDialect::getMaxntidAttrName()})
    if (auto dims = func->getAttrOfType<DenseI32ArrayAttr>(name)) {
      int64_t n = 1;
      for (int32_t d : dims.asArrayRef())
        n *= d;
      return n;
    }
  return std::nullopt;
}

/// `%tid.x / 128` through `shfl.sync.idx` from lane 0: every lane of a warp
/// has the same value, and ptxas can see it (CUTLASS's
/// canonical_warp_group_idx does the same), so the branch into a role is a
/// uniform branch and setmaxnreg/bar.sync in it are executed warp-aligned.
struct WarpgroupIdLowering : ConvertOpToLLVMPattern<WarpgroupIdOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(WarpgroupIdOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, i32);
    Value wg =
        LLVM::UDivOp::create(rewriter, loc, tid, i32Const(rewriter, loc, target::kWarpgroupSize));
    Value fullMask = i32Const(rewriter, loc, -1);
    Value lane0 = i32Const(rewriter, loc, 0);
    Value clamp = i32Const(rewriter, loc, target::kWarpSize - 1);
    rewriter.replaceOpWithNewOp<NVVM::ShflOp>(op, i32, fullMask, wg, lane0, clamp,
                                              NVVM::ShflKind::idx, UnitAttr());
    return success();
  }
};

struct RoleLowering : ConvertOpToLLVMPattern<RoleOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(RoleOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::optional<int64_t> threads = launchThreads(op);
    if (op.getRegs() && !threads)
      return op.emitOpError("needs a kernel with .maxntid or .reqntid for setmaxnreg");
    Block *before = op->getBlock();
    Block *after = rewriter.splitBlock(before, std::next(op->getIterator()));
    Block *entry = &op.getBody().front();
    SmallVector<Operation *> ends;
    for (Block &b : op.getBody())
      if (auto end = dyn_cast<RoleEndOp>(b.getTerminator()))
        ends.push_back(end);
    rewriter.inlineRegionBefore(op.getBody(), after);

    // warpgroup - first <u count: one unsigned compare for the range.
    rewriter.setInsertionPoint(op);
    Value rel = LLVM::SubOp::create(rewriter, loc, adaptor.getWarpgroup(),
                                    i32Const(rewriter, loc, op.getFirstWarpgroup()));
    Value in = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, rel,
                                    i32Const(rewriter, loc, op.getNumWarpgroups()));
    LLVM::CondBrOp::create(rewriter, loc, in, entry, ValueRange{}, after, ValueRange{});

    if (auto regs = op.getRegs()) {
      // Below the entry count the role gives registers back to the CTA's
      // pool (dec); above it, it waits for them (inc).
      int64_t minBlocks = 1;
      if (auto func = op->getParentOfType<LLVM::LLVMFuncOp>())
        if (auto n = func->getAttrOfType<IntegerAttr>(NVVM::NVVMDialect::getMinctasmAttrName()))
          minBlocks = n.getInt();
      int64_t entryRegs = target::entryRegistersPerThread(*threads, minBlocks);
      rewriter.setInsertionPointToStart(entry);
      auto action = int64_t(*regs) < entryRegs ? NVVM::SetMaxRegisterAction::decrease
                                               : NVVM::SetMaxRegisterAction::increase;
      NVVM::SetMaxRegisterOp::create(rewriter, loc, *regs, action);
    }
    for (Operation *end : ends) {
      rewriter.setInsertionPoint(end);
      LLVM::BrOp::create(rewriter, end->getLoc(), ValueRange{}, after);
      rewriter.eraseOp(end);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// `elect.sync %r|%p, 0xffffffff` (the NVVM op's default mask is the full warp).
struct ElectOneLowering : ConvertOpToLLVMPattern<ElectOneOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(ElectOneOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::ElectSyncOp>(op, rewriter.getI1Type(), Value());
    return success();
  }
};

/// `bar.sync id, count` (= barrier.sync.aligned) in warp-uniform control flow,
/// else `barrier.sync id, count`, which MLIR 22 has no op for.
struct NamedBarrierLowering : ConvertOpToLLVMPattern<NamedBarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(NamedBarrierOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (std::optional<BarrierReduction> kind = op.getReduction()) {
      std::string barrier =
          std::to_string(op.getBarrierId()) + ", " + std::to_string(op.getNumThreads());
      rewriter.replaceOp(
          op, ptx::barrierReduction(rewriter, loc, adaptor.getPred(), *kind, barrier, op.getAligned()));
      return success();
    }
    if (op.getAligned()) {
      Value id = i32Const(rewriter, loc, op.getBarrierId());
      Value count = i32Const(rewriter, loc, op.getNumThreads());
      NVVM::BarrierOp::create(rewriter, loc, Type(), id, count, NVVM::BarrierReductionAttr(),
                              Value());
      rewriter.eraseOp(op);
      return success();
    }
    ptx::Asm as(rewriter, loc);
    as.line(ptx::Instr("barrier").qual("sync").operands(
        {std::to_string(op.getBarrierId()), std::to_string(op.getNumThreads())}));
    as.emit();
    rewriter.eraseOp(op);
    return success();
  }
};

/// A turn's barrier over the waiting warpgroup and the one handing over:
/// 2 x 128 threads.
constexpr int64_t kTurnThreads = 2 * target::kWarpgroupSize;

/// Warpgroup wg's turn barrier: the role's first turn barrier id + wg.
static Value turnBarrier(OpBuilder &b, Location loc, Value warpgroup, int64_t first) {
  return LLVM::AddOp::create(b, loc, warpgroup, i32Const(b, loc, first));
}

/// `barrier.sync.aligned first + wg, 256` (PTX ISA 9.7.13.1; the id may be a
/// register). Whole warpgroups in role-uniform control (Sema): aligned.
struct TurnWaitLowering : ConvertOpToLLVMPattern<TurnWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(TurnWaitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value id = turnBarrier(rewriter, loc, adaptor.getWarpgroup(), op.getFirstBarrier());
    NVVM::BarrierOp::create(rewriter, loc, Type(), id, i32Const(rewriter, loc, kTurnThreads),
                            NVVM::BarrierReductionAttr(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

/// `bar.arrive first + wg, 256`: arrive without waiting (PTX ISA 9.7.13.1).
struct TurnPassLowering : ConvertOpToLLVMPattern<TurnPassOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(TurnPassOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value id = turnBarrier(rewriter, loc, adaptor.getWarpgroup(), op.getFirstBarrier());
    NVVM::BarrierArriveOp::create(rewriter, loc, id, i32Const(rewriter, loc, kTurnThreads));
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::setRoleLaunchBounds(KernelOp kernel, Operation *func) {
  int64_t threads = 0;
  for (Operation &op : kernel.getBody().getOps())
    if (auto role = dyn_cast<RoleOp>(op))
      threads += role.getNumThreads();
  if (threads == 0)
    return;
  Builder b(func->getContext());
  // .maxntid and .reqntid cannot both be given (ptxas: "Conflicting
  // directives"); either one tells ptxas the thread count.
  if (!func->hasAttr(NVVM::NVVMDialect::getReqntidAttrName()))
    func->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                  b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  // min_blocks(N) keeps N CTAs resident (a ring that streams at most a few
  // stages per CTA needs several CTAs per SM to hide latency, as the CUDA
  // reference of samples/tma_multicast does); ptxas honours setmaxnreg with
  // any .minnctapersm and gives each CTA 65536 / (N * threads) registers at
  // entry (measured with ptxas 13.0), the count the roles' budgets were
  // checked against (SemaRoles.cpp).
  if (!func->hasAttr(NVVM::NVVMDialect::getMinctasmAttrName()))
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), b.getI32IntegerAttr(1));
}

void mlir::tile::populateTileRoleToNVVMPatterns(LLVMTypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<WarpgroupIdLowering, RoleLowering, ElectOneLowering, NamedBarrierLowering,
               TurnWaitLowering, TurnPassLowering>(converter);
}
