//===- MmaToNVVM.cpp - fragments and wgmma -> NVVM -------------------------===//
//
// PTX ISA 9.7.15 "Asynchronous Warpgroup Level Matrix Instructions":
//  - !tile.frag<MxNxT> is the struct nvvm.wgmma.mma_async takes and returns:
//    M*N/128 f32, or M*N/256 i32 holding f16x2 / bf16x2 pairs. A fragment of
//    M = 128 is row block 0's registers then block 1's.
//  - tile.mma is M/64 x K/16 nvvm.wgmma.mma_async.m64nNk16 (fp8: K/32
//    .m64nNk32 with .e4m3/.e5m2 types, both operands K-major) (k outer, row
//    blocks inner, so consecutive wgmmas use different accumulators; i8
//    operands: K/32 .m64nNk32.s32 with .s8/.u8 from the op's a_unsigned /
//    b_unsigned, wrapping s32 sums, both K-major), each
//    with shared-memory matrix descriptors (9.7.15.5.1.2) computed from the
//    operand tile's #tile.layout:
//      start = (shared address of the first element) >> 4, 14 bits;
//      K-major, swizzled: rows are the swizzle span S bytes apart (the panel
//        width), 8-row core groups SBO = 8*S apart; LBO is unused (1);
//      MN-major, swizzled: 8-row groups along K SBO = 8*S apart; LBO = the
//        distance between S-byte column blocks along M/N = one panel of the
//        tile (rows * S bytes);
//      swizzle mode 1/2/3 for 128/64/32 bytes, base offset 0 (tiles are
//      1024-byte aligned and views start on an 8-row atom).
//    A k16 step moves the start address 32 bytes inside the swizzle atom
//    (K-major; to the next panel every S/32 steps) or 16 rows down
//    (MN-major): the hardware applies the swizzle to the final address, as
//    TMA did when it wrote the tile.
//  - tile.mma_reg_a (A a 16-bit fragment) is the .rs form, which the NVVM
//    op cannot spell, as inline PTX: per k16 step and 64-row block, the 4
//    registers of A for columns 16k..16k+15 (registers 4k..4k+3 of the
//    block: for 16-bit types the A register fragment of m64nNk16 pairs the
//    same (row, column)s in the same order as the D layout of 16 columns,
//    PTX ISA 9.7.15.5.1) and B's descriptor as above.
//  - tile.wgmma_fence / wgmma_commit / wgmma_wait map one to one.
// nvvm.wgmma.mma_async is an inline-asm op: the pipeline runs
// convert-nvvm-to-llvm after this conversion (Pipeline.cpp).
//===----------------------------------------------------------------------===//
#include "ConversionUtils.h"
#include "FragmentPins.h"
#include "PTXBuilder.h"

#include "tile/Dialect/MmaSignedness.h"
#include "tile/Dialect/TileDialect.h"
#include "tilec/Target/TargetFacts.h"
#include "tilec/Conversion/TileToLLVM.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tile;
namespace target = ::tile::target;

namespace {

/// The LLVM struct of `count` registers of the fragment's register type.
LLVM::LLVMStructType registerStruct(MLIRContext *ctx, FragType frag, int64_t count) {
  Type reg =
      frag.isPacked() || frag.isFp8() ? Type(IntegerType::get(ctx, 32)) : frag.getElementType();
  return LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(count, reg));
}

/// One operand's descriptor for the wgmma at (row block offset mn0, k0):
/// the constant part (LBO, SBO, swizzle) or'ed with the start address.
/// `row` is the view's first row, `col` (null: 0) its first inner-dimension
/// element, a whole number of panels (the op's contract): a column view
/// starts `col / panel` panels further, with the tile's LBO and SBO.
Value descriptor(OpBuilder &b, Location loc, Value tile, Value row, Value col,
                 TileLayoutAttr layout, bool kMajor, int64_t mn0, int64_t k0, int64_t elemBytes) {
  int64_t swizzle = layout.getSwizzle();           // bytes of one row of a panel
  int64_t panel = layout.getPanel();               // elements of one row of a panel
  int64_t panelBytes = layout.getRows() * swizzle; // one panel of the whole tile
  // K-major: the tile's rows run along M/N and its inner dimension is K;
  // MN-major: rows run along K and the inner dimension is M/N.
  int64_t rowOff = kMajor ? mn0 : k0, innerOff = kMajor ? k0 : mn0;
  int64_t bytes =
      rowOff * swizzle + (innerOff / panel) * panelBytes + (innerOff % panel) * elemBytes;
  int64_t lbo = kMajor ? 16 : panelBytes;
  int64_t sbo = 8 * swizzle;
  int64_t fixed = ((lbo >> 4) << target::kWgmmaDescLboShift) |
                  ((sbo >> 4) << target::kWgmmaDescSboShift) |
                  (target::wgmmaSwizzleMode(swizzle) << target::kWgmmaDescSwizzleShift);
  // The shared-window address (32 bits suffice: shared memory is < 256 KB).
  Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), tile);
  Value rowBytes = LLVM::MulOp::create(b, loc, row, i32Const(b, loc, swizzle));
  addr = LLVM::AddOp::create(b, loc, addr, rowBytes);
  if (col) {
    // panel is a power of two (the swizzle span over the element size).
    Value panels = LLVM::LShrOp::create(b, loc, col, i32Const(b, loc, llvm::Log2_64(panel)));
    Value within = LLVM::AndOp::create(b, loc, col, i32Const(b, loc, panel - 1));
    addr = LLVM::AddOp::create(b, loc, addr,
                               LLVM::MulOp::create(b, loc, panels, i32Const(b, loc, panelBytes)));
    addr = LLVM::AddOp::create(b, loc, addr,
                               LLVM::MulOp::create(b, loc, within, i32Const(b, loc, elemBytes)));
  }
  if (bytes)
    addr = LLVM::AddOp::create(b, loc, addr, i32Const(b, loc, bytes));
  Value units = LLVM::LShrOp::create(b, loc, addr, i32Const(b, loc, 4));
  Value start = LLVM::AndOp::create(b, loc, units, i32Const(b, loc, 0x3FFF));
  Value wide = LLVM::ZExtOp::create(b, loc, b.getI64Type(), start);
  return LLVM::OrOp::create(b, loc, wide, i64Const(b, loc, fixed));
}

/// Attributes pinFragmentsLiveAcrossWgmma puts before the conversion:
/// kPinAttr on the load of a pinned fragment variable (PinnedLoadLowering
/// emits the pin after it); kOverwritesAttr on an mma on zeros whose
/// accumulator operand it replaced by the old value of the variable its
/// product is stored to (the first k step still has scale-d = 0).
constexpr llvm::StringLiteral kPinAttr = "tile.pin";
constexpr llvm::StringLiteral kOverwritesAttr = "tile.overwrites";

/// Whether the accumulator operand of an mma is `zeros<T>[M, N]` (a
/// tile.frag_zeros, or what the conversion already made of one). Such an mma
/// starts its first k step with scale-d = 0 (PTX ISA 9.7.15.5.2: D = A * B,
/// the input D not read) instead of zeroing the accumulator registers: the
/// movs sit between a ring stage's arrival and the wgmma issue otherwise.
bool isZeroAccumulator(Value original, Value converted) {
  if (original.getDefiningOp<FragZerosOp>())
    return true;
  while (auto cast = converted.getDefiningOp<UnrealizedConversionCastOp>()) {
    if (cast->getNumOperands() != 1)
      return false;
    converted = cast->getOperand(0);
  }
  return converted.getDefiningOp<LLVM::ZeroOp>() != nullptr;
}

struct FragZerosLowering : ConvertOpToLLVMPattern<FragZerosOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragZerosOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // Every register +0.0 (f32 0 and a pair of f16/bf16 +0.0 are all-zero bits).
    rewriter.replaceOpWithNewOp<LLVM::ZeroOp>(op, getTypeConverter()->convertType(op.getType()));
    return success();
  }
};

/// A fragment variable's load marked `tile.pin`: the load, then an empty
/// `asm volatile` with each register an output tied to its input (CUTLASS's
/// warpgroup_fence_operand). No PTX instruction, but LLVM computes the
/// stored value before the asm and keeps the asm ordered with the wgmma asm
/// after it, so a fragment computed before an mma is issued is not sunk
/// past it (MachineSink otherwise moves a promotion fma into the block of
/// its use after the next wgmma, keeping two products live).
struct PinnedLoadLowering : ConvertOpToLLVMPattern<LoadOp> {
  PinnedLoadLowering(const LLVMTypeConverter &converter)
      : ConvertOpToLLVMPattern<LoadOp>(converter, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto frag = dyn_cast<FragType>(op.getType());
    if (!frag || !op->hasAttr(kPinAttr))
      return failure();
    Location loc = op.getLoc();
    int64_t count = frag.getRegistersPerThread();
    auto type = registerStruct(getContext(), frag, count);
    Value v = LLVM::LoadOp::create(rewriter, loc, type, adaptor.getPtr());
    ptx::Asm as(rewriter, loc);
    as.results(type, count, frag.getElementType().isF32() ? "f" : "r");
    for (int64_t r = 0; r < count; ++r)
      as.operand(LLVM::ExtractValueOp::create(rewriter, loc, v, r), std::to_string(r));
    rewriter.replaceOp(op, as.emit());
    return success();
  }
};

bool isWgmmaOp(Operation *op) {
  return isa<MmaOp, MmaRegAOp, WgmmaCommitOp, WgmmaWaitOp, WgmmaFenceOp>(op);
}

/// No wgmma group can be pending at `fence`: walking back in its block, the
/// first op that is (or holds) a wgmma op is a wait_group 0.
bool nothingPending(WgmmaFenceOp fence) {
  for (Operation *op = fence->getPrevNode(); op; op = op->getPrevNode()) {
    if (auto wait = dyn_cast<WgmmaWaitOp>(op))
      return wait.getPending() == 0;
    if (op->walk([](Operation *inner) {
            return isWgmmaOp(inner) ? WalkResult::interrupt() : WalkResult::advance();
          }).wasInterrupted())
      return false;
  }
  return false; // the block's start: what came before is not known here
}

/// Whether `slot` may be read after `from` before it is written: along
/// every path of the control-flow graph (the structured loops are branches
/// by now), the first load or store of it; a load on some path makes it
/// live. A path that leaves the region reads nothing.
bool readBeforeWritten(Operation *from, Value slot) {
  // The first access in op (nested regions included, in order), if any.
  auto firstAccess = [&](Operation *op) -> std::optional<bool> {
    std::optional<bool> found;
    op->walk<WalkOrder::PreOrder>([&](Operation *inner) {
      if (auto load = dyn_cast<LoadOp>(inner); load && load.getPtr() == slot)
        found = true;
      else if (auto store = dyn_cast<StoreOp>(inner); store && store.getPtr() == slot)
        found = false;
      return found ? WalkResult::interrupt() : WalkResult::advance();
    });
    return found;
  };
  SmallVector<Operation *> work{from->getNextNode()};
  llvm::SmallPtrSet<Block *, 16> seen;
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    std::optional<bool> found;
    Operation *last = nullptr;
    for (; op && !found; op = op->getNextNode()) {
      found = firstAccess(op);
      last = op;
    }
    if (found) {
      if (*found)
        return true;
      continue;
    }
    if (!last)
      continue;
    for (Block *succ : last->getSuccessors())
      if (seen.insert(succ).second && !succ->empty())
        work.push_back(&succ->front());
  }
  return false;
}

struct FragExtractLowering : ConvertOpToLLVMPattern<FragExtractOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FragExtractOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FragType frag = op.getFrag().getType();
    int64_t e = op.getIndex();
    if (!frag.isPacked()) {
      rewriter.replaceOpWithNewOp<LLVM::ExtractValueOp>(op, adaptor.getFrag(), e);
      return success();
    }
    // Register e/2 holds elements e (low half) and e+1 (high half).
    Value reg = LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getFrag(), e / 2);
    auto pair = VectorType::get({2}, frag.getElementType());
    Value v = LLVM::BitcastOp::create(rewriter, loc, pair, reg);
    Value idx = i32Const(rewriter, loc, e % 2);
    rewriter.replaceOpWithNewOp<LLVM::ExtractElementOp>(op, v, idx);
    return success();
  }
};

struct MmaLowering : ConvertOpToLLVMPattern<MmaOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(MmaOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    FragType frag = op.getAcc().getType();
    Type elem = cast<PtrType>(op.getA().getType()).getElementType();
    Type elemB = cast<PtrType>(op.getB().getType()).getElementType();
    int64_t elemBytes = scalarByteWidth(elem);
    int64_t n = frag.getCols(), blocks = frag.getRows() / target::kWgmmaM;
    int64_t perBlock = frag.getRegistersPerThread() / blocks;
    auto blockType = registerStruct(ctx, frag, perBlock);
    // .m64nNk16 for f16/bf16, .m64nNk32 for e4m3/e5m2 and s8/u8 (a and b
    // may differ): 32 bytes of K per instruction either way. i8 is
    // signless: the op says which operand is unsigned.
    auto wgmmaType = [](Type t, bool isUnsigned) {
      return isa<Float8E4M3FNType>(t) ? NVVM::WGMMATypes::e4m3
             : isa<Float8E5M2Type>(t) ? NVVM::WGMMATypes::e5m2
             : t.isInteger(8)         ? (isUnsigned ? NVVM::WGMMATypes::u8 : NVVM::WGMMATypes::s8)
             : t.isBF16()             ? NVVM::WGMMATypes::bf16
                                      : NVVM::WGMMATypes::f16;
    };
    auto typeA = wgmmaType(elem, isMmaOperandUnsigned(op, false)),
         typeB = wgmmaType(elemB, isMmaOperandUnsigned(op, true));
    int64_t kStep = target::wgmmaK(elemBytes);
    // The s32 accumulator wraps (no .satfinite: the absent overflow
    // attribute prints none, PTX ISA 9.7.15.5).
    auto accType = frag.isPacked()                       ? NVVM::WGMMATypes::f16
                   : frag.getElementType().isInteger(32) ? NVVM::WGMMATypes::s32
                                                         : NVVM::WGMMATypes::f32;
    // imm-trans-a = 0 / imm-trans-b = 0 mean K-major; NVVM spells K-major A
    // `row` and K-major B `col` (the transposes are layoutA and 1 - layoutB).
    auto layoutA = op.getAKMajor() ? NVVM::MMALayout::row : NVVM::MMALayout::col;
    auto layoutB = op.getBKMajor() ? NVVM::MMALayout::col : NVVM::MMALayout::row;

    // Split the fragment into its 64-row blocks (a zeros accumulator: no
    // registers to pass, the first k step does not read them).
    Value acc = adaptor.getAcc();
    bool zeroAcc = isZeroAccumulator(op.getAcc(), acc);
    // The registers of the variable the product overwrites, read by nothing.
    bool reuse = op->hasAttr(kOverwritesAttr);
    SmallVector<Value> parts;
    for (int64_t blk = 0; blk < blocks; ++blk) {
      Value part = LLVM::UndefOp::create(rewriter, loc, blockType);
      for (int64_t r = 0; r < perBlock && (!zeroAcc || reuse); ++r) {
        Value v = LLVM::ExtractValueOp::create(rewriter, loc, acc, blk * perBlock + r);
        part = LLVM::InsertValueOp::create(rewriter, loc, part, v, r);
      }
      parts.push_back(part);
    }
    for (int64_t k0 = 0; k0 < (int64_t)op.getK(); k0 += kStep) {
      auto scaleD = (zeroAcc || reuse) && k0 == 0 ? NVVM::WGMMAScaleOut::zero
                                                  : NVVM::WGMMAScaleOut::one;
      Value descB = descriptor(rewriter, loc, adaptor.getB(), adaptor.getBRow(), adaptor.getBCol(),
                               op.getBLayout(), op.getBKMajor(), 0, k0, elemBytes);
      for (int64_t blk = 0; blk < blocks; ++blk) {
        Value descA =
            descriptor(rewriter, loc, adaptor.getA(), adaptor.getARow(), adaptor.getACol(),
                       op.getALayout(), op.getAKMajor(), blk * target::kWgmmaM, k0, elemBytes);
        parts[blk] = NVVM::WgmmaMmaAsyncOp::create(
            rewriter, loc, blockType, parts[blk], descA, descB,
            NVVM::MMAShapeAttr::get(ctx, target::kWgmmaM, n, kStep),
            NVVM::WGMMATypesAttr::get(ctx, typeA), NVVM::WGMMATypesAttr::get(ctx, typeB),
            NVVM::WGMMATypesAttr::get(ctx, accType),
            NVVM::WGMMAScaleOutAttr::get(ctx, scaleD),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::MMALayoutAttr::get(ctx, layoutA), NVVM::MMALayoutAttr::get(ctx, layoutB),
            NVVM::MMAIntOverflowAttr());
      }
    }
    Value result = LLVM::UndefOp::create(rewriter, loc, acc.getType());
    for (int64_t blk = 0; blk < blocks; ++blk)
      for (int64_t r = 0; r < perBlock; ++r) {
        Value v = LLVM::ExtractValueOp::create(rewriter, loc, parts[blk], r);
        result = LLVM::InsertValueOp::create(rewriter, loc, result, v, blk * perBlock + r);
      }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct MmaRegALowering : ConvertOpToLLVMPattern<MmaRegAOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(MmaRegAOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    FragType frag = op.getAcc().getType(), aFrag = op.getA().getType();
    Type elem = aFrag.getElementType();
    int64_t n = frag.getCols(), blocks = frag.getRows() / target::kWgmmaM;
    int64_t perBlock = frag.getRegistersPerThread() / blocks;
    int64_t aPerBlock = aFrag.getRegistersPerThread() / blocks;
    auto blockType = registerStruct(ctx, frag, perBlock);
    // wgmma.mma_async.sync.aligned.m64nNk16.dtype.atype.btype
    //   d, {a0, a1, a2, a3}, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-b
    // and for fp8 .m64nNk32 without imm-trans-b (B is K-major). Either way a
    // step reads 4 registers of A per 64-row block (FragType).
    auto typeName = [](Type t) -> std::string {
      return isa<Float8E4M3FNType>(t) ? "e4m3"
             : isa<Float8E5M2Type>(t) ? "e5m2"
             : t.isBF16()             ? "bf16"
                                      : "f16";
    };
    Type elemB = cast<PtrType>(op.getB().getType()).getElementType();
    int64_t kStep = target::wgmmaK(scalarByteWidth(elem));
    std::string opcode = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k" +
                         std::to_string(kStep) + "." + (frag.isPacked() ? "f16" : "f32") + "." +
                         typeName(elem) + "." + typeName(elemB);
    StringRef accConstraint = frag.isPacked() ? "r" : "f";
    // imm-trans-b = 0 reads B K-major; fp8 has no imm-trans-b operand.
    std::string transB = aFrag.isFp8() ? "" : op.getBKMajor() ? ", 0" : ", 1";

    Value acc = adaptor.getAcc(), a = adaptor.getA();
    bool zeroAcc = isZeroAccumulator(op.getAcc(), acc); // scale-d = 0 first, as above
    bool reuse = op->hasAttr(kOverwritesAttr);
    Type regType = blockType.getBody().front();
    SmallVector<SmallVector<Value>> regs(blocks);
    for (int64_t blk = 0; blk < blocks; ++blk)
      for (int64_t r = 0; r < perBlock; ++r)
        regs[blk].push_back(
            zeroAcc && !reuse
                ? Value(LLVM::UndefOp::create(rewriter, loc, regType))
                    : Value(LLVM::ExtractValueOp::create(rewriter, loc, acc, blk * perBlock + r)));
    for (int64_t k0 = 0; k0 < op.getK(); k0 += kStep) {
      Value descB = descriptor(rewriter, loc, adaptor.getB(), adaptor.getBRow(), adaptor.getBCol(),
                               op.getBLayout(), op.getBKMajor(), 0, k0, scalarByteWidth(elemB));
      int64_t aFirst = (k0 / kStep) * 4;
      for (int64_t blk = 0; blk < blocks; ++blk) {
        ptx::Asm as(rewriter, loc);
        SmallVector<std::string> d = as.results(blockType, perBlock, accConstraint);
        for (int64_t r = 0; r < perBlock; ++r)
          as.operand(regs[blk][r], std::to_string(r)); // tied: D is read and written
        SmallVector<std::string> aRegs;
        for (int64_t r = 0; r < 4; ++r)
          aRegs.push_back(as.operand(
              LLVM::ExtractValueOp::create(rewriter, loc, a, blk * aPerBlock + aFirst + r), "r"));
        std::string desc = as.operand(descB, "l");
        bool scaleD = !((zeroAcc || reuse) && k0 == 0);
        as.line("{").line(".reg .pred p;").line(scaleD ? "setp.ne.b32 p, 1, 0;" : "setp.ne.b32 p, 0, 0;");
        as.line(opcode + " {" + llvm::join(d, ", ") + "}, {" + llvm::join(aRegs, ", ") + "}, " +
                desc + ", p, 1, 1" + transB + ";");
        as.line("}");
        Value out = as.emit();
        for (int64_t r = 0; r < perBlock; ++r)
          regs[blk][r] = LLVM::ExtractValueOp::create(rewriter, loc, out, r);
      }
    }
    Value result = LLVM::UndefOp::create(rewriter, loc, acc.getType());
    for (int64_t blk = 0; blk < blocks; ++blk)
      for (int64_t r = 0; r < perBlock; ++r)
        result =
            LLVM::InsertValueOp::create(rewriter, loc, result, regs[blk][r], blk * perBlock + r);
    rewriter.replaceOp(op, result);
    return success();
  }
};

using WgmmaFenceLowering = OneToOneLowering<WgmmaFenceOp, NVVM::WgmmaFenceAlignedOp>;
using WgmmaCommitLowering = OneToOneLowering<WgmmaCommitOp, NVVM::WgmmaGroupSyncAlignedOp>;

/// `wait N after %v`: before the wait, a store of %v's first and last f32
/// element to the module's 8-byte shared word `tile$wait_anchor`, predicated
/// on either being NaN. ptxas keeps WARPGROUP.DEPBAR after shared-memory
/// stores (it does not hoist it above them, as it does above arithmetic), and
/// the store reads %v: the wait stays after %v's computation. The store runs
/// only for a NaN, into a word nothing reads.
struct WgmmaWaitLowering : ConvertOpToLLVMPattern<WgmmaWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(WgmmaWaitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (Value after = adaptor.getAfter()) {
      Location loc = op.getLoc();
      Value first = after, last = after;
      if (auto st = dyn_cast<LLVM::LLVMStructType>(after.getType())) {
        first = LLVM::ExtractValueOp::create(rewriter, loc, after, 0);
        last = LLVM::ExtractValueOp::create(rewriter, loc, after, st.getBody().size() - 1);
      }
      std::string name = (Twine(kGeneratedSymbolPrefix) + "wait_anchor").str();
      auto module = op->getParentOfType<ModuleOp>();
      if (!module.lookupSymbol(name)) {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(module.getBody());
        LLVM::GlobalOp::create(rewriter, loc, LLVM::LLVMArrayType::get(rewriter.getF32Type(), 2),
                               /*isConstant=*/false, LLVM::Linkage::Internal, name, Attribute(),
                               /*alignment=*/8, target::kSharedAddressSpace);
      }
      auto sharedPtr = LLVM::LLVMPointerType::get(getContext(), target::kSharedAddressSpace);
      ptx::Asm as(rewriter, loc);
      std::string a = as.operand(first, "f"), b = as.operand(last, "f");
      std::string word =
          as.address(LLVM::AddressOfOp::create(rewriter, loc, sharedPtr, name), AddressSpace::shared);
      as.line("{")
          .line(".reg .pred nan;")
          .line("setp.nan.f32 nan, " + a + ", " + b + ";")
          .line("@nan st.shared.v2.f32 " + word + ", {" + a + ", " + b + "};")
          .line("}");
      as.emit();
    }
    rewriter.replaceOpWithNewOp<NVVM::WgmmaWaitGroupSyncOp>(op, op.getPending());
    return success();
  }
};

} // namespace

void mlir::tile::addFragTypeConversion(LLVMTypeConverter &converter) {
  converter.addConversion([](FragType type) -> Type {
    return registerStruct(type.getContext(), type, type.getRegistersPerThread());
  });
  // per_row / per_col values: a struct of their plain elements (FragmentRegisters.h).
  converter.addConversion([](PerRowType type) -> Type {
    return LLVM::LLVMStructType::getLiteral(
        type.getContext(), SmallVector<Type>(type.getElementsPerThread(), type.getElementType()));
  });
  converter.addConversion([](PerColType type) -> Type {
    return LLVM::LLVMStructType::getLiteral(
        type.getContext(), SmallVector<Type>(type.getElementsPerThread(), type.getElementType()));
  });
}

/// Fragments live across a wgmma issue are computed before it. At a
/// tile.wgmma_fence with no wgmma group pending (the block's last wgmma op
/// is a wait_group 0: a consume block's second turn, an mma after one whose
/// result the block read), every fragment variable that may be read after
/// the fence before being written is loaded (marked kPinAttr: the load is
/// followed by the pin) and stored back right before the fence. Not a
/// variable the fence's mma overwrites first (that would keep its old
/// registers live), and nothing where groups are pending: an accumulator
/// in flight must not be touched (PTX ISA 9.7.15.6.1). Runs on the tile IR
/// after convert-scf-to-cf, before the conversion.
/// At b's insertion point, next to `at`: a pinned load (kPinAttr) of each
/// of `slots` that may be read after `at` before being written, stored back.
static void pinLiveSlots(OpBuilder &b, Operation *at, ArrayRef<Value> slots) {
  for (Value slot : slots) {
    if (!readBeforeWritten(at, slot))
      continue;
    Type type = cast<PtrType>(slot.getType()).getElementType();
    auto load = LoadOp::create(b, at->getLoc(), type, slot, MemoryOrder::weak, MemoryScope::cta);
    load->setAttr(kPinAttr, b.getUnitAttr());
    StoreOp::create(b, at->getLoc(), load.getResult(), slot, MemoryOrder::weak, MemoryScope::cta);
  }
}

void mlir::tile::pinFragmentsLiveAcrossWgmma(Operation *root) {
  SmallVector<Value> slots;
  root->walk([&](LocalVarOp var) {
    auto ptr = dyn_cast<PtrType>(var.getType());
    if (ptr && isa<FragType>(ptr.getElementType()))
      slots.push_back(var.getResult());
  });
  if (slots.empty())
    return;
  // An mma on zeros whose product is stored to a fragment variable (`p =
  // mma(a, b, zeros)`) writes the registers that variable had: its old
  // value becomes the (tied) accumulator operand, read by nothing (scale-d
  // = 0). With the undefined input of a zeros accumulator, ptxas may place
  // the new product in other registers and issue the wgmma before the code
  // still reading the old product (the previous K-block's promotion): both
  // products live. Sharing the registers orders that code first.
  root->walk([&](Operation *op) {
    if (!isa<MmaOp, MmaRegAOp>(op) || !op->getResult(0).hasOneUse())
      return;
    Value acc = isa<MmaOp>(op) ? cast<MmaOp>(op).getAcc() : cast<MmaRegAOp>(op).getAcc();
    auto store = dyn_cast<StoreOp>(*op->getResult(0).getUsers().begin());
    if (!acc.getDefiningOp<FragZerosOp>() || !store || store.getValue() != op->getResult(0) ||
        !llvm::is_contained(slots, store.getPtr()))
      return;
    OpBuilder b(op);
    auto old = LoadOp::create(b, op->getLoc(), acc.getType(), store.getPtr(), MemoryOrder::weak,
                              MemoryScope::cta);
    op->setOperand(0, old.getResult());
    op->setAttr(kOverwritesAttr, b.getUnitAttr());
  });
  // An accumulator read from a fragment variable before the mma's fence
  // (`var acc = zeros<f32>[128, N]` then `acc = mma(a, b, acc)`, also in the
  // first copy of an unrolled loop): once LLVM forwards the stored zeros, it
  // materialises the +0.0 registers right before the wgmma asm, after the
  // fence; ptxas then injects warpgroup.arrive/wait (C7519/C7517) and may
  // serialise. Where such a variable is ever set to zeros, the mma reads a
  // pinned load of it placed before the fence: the constants come first.
  SmallVector<StoreOp> zeroStores;
  root->walk([&](StoreOp store) {
    if (store.getValue().getDefiningOp<FragZerosOp>() && llvm::is_contained(slots, store.getPtr()))
      zeroStores.push_back(store);
  });
  DominanceInfo dom(root);
  // Whether LLVM may see the zeros at `load`: a zeros store of its slot
  // before it in its block, or one dominating it from outside loops of
  // constant bounds only (loops LLVM unrolls; a run-time bound keeps a phi).
  auto mayBeZeros = [&](LoadOp load) {
    Block *b = load->getBlock();
    for (StoreOp z : zeroStores) {
      if (z.getPtr() != load.getPtr())
        continue;
      if (z->getBlock() == b) {
        if (z->isBeforeInBlock(load))
          return true;
        continue;
      }
      if (z->getBlock()->getParent() != b->getParent() || !dom.dominates(z->getBlock(), b))
        continue;
      bool constantLoops = true;
      for (Block &h : *b->getParent()) {
        if (!dom.dominates(&h, b) || dom.dominates(&h, z->getBlock()) ||
            llvm::none_of(h.getPredecessors(), [&](Block *p) { return dom.dominates(&h, p); }))
          continue; // not the header of a loop entered between the store and the load
        auto br = dyn_cast<cf::CondBranchOp>(h.getTerminator());
        auto cmp = br ? br.getCondition().getDefiningOp<arith::CmpIOp>() : nullptr;
        auto isConst = [](Value v) { return v.getDefiningOp<arith::ConstantOp>() != nullptr; };
        if (!cmp || !(isConst(cmp.getLhs()) || isConst(cmp.getRhs())))
          constantLoops = false;
      }
      if (constantLoops)
        return true;
    }
    return false;
  };
  root->walk([&](WgmmaFenceOp fence) {
    for (Operation *op = fence->getNextNode(); op && !isa<WgmmaCommitOp, WgmmaWaitOp>(op);
         op = op->getNextNode()) {
      if (!isa<MmaOp, MmaRegAOp>(op) || op->hasAttr(kOverwritesAttr))
        continue;
      Value acc = isa<MmaOp>(op) ? cast<MmaOp>(op).getAcc() : cast<MmaRegAOp>(op).getAcc();
      auto load = acc.getDefiningOp<LoadOp>();
      if (!load || load->hasAttr(kPinAttr) || load->getBlock() != fence->getBlock() ||
          !load->isBeforeInBlock(fence) || !mayBeZeros(load))
        continue;
      OpBuilder b(fence);
      auto pinned = LoadOp::create(b, fence.getLoc(), acc.getType(), load.getPtr(),
                                   MemoryOrder::weak, MemoryScope::cta);
      pinned->setAttr(kPinAttr, b.getUnitAttr());
      StoreOp::create(b, fence.getLoc(), pinned.getResult(), load.getPtr(), MemoryOrder::weak,
                      MemoryScope::cta);
      op->setOperand(0, pinned.getResult());
      if (load->use_empty())
        load->erase();
    }
  });
  // An accumulator read after the wait that retires its mmas (the drain
  // after a K loop, `acc as f32`, `(acc + 1.0) as bf16`): LLVM folds the
  // read's first operation into the loop-exit phi of the variable, whose
  // other input is the zeros it started from (sitofp(0), 0.0 + 1.0 are
  // constants), and so computes it in the predecessors, above the wait;
  // ptxas then serialises every wgmma of the loop (C7514). After a
  // wait_group 0 (no group pending, so no accumulator in flight is touched)
  // each such variable that may be read before being written is pinned: its
  // reads take the pin's registers, defined after the wait.
  auto isMmaAccumulator = [&](Value slot) {
    return llvm::any_of(slot.getUsers(), [&](Operation *user) {
      auto store = dyn_cast<StoreOp>(user);
      Operation *def = store ? store.getValue().getDefiningOp() : nullptr;
      return store && store.getPtr() == slot && isa_and_nonnull<MmaOp, MmaRegAOp>(def);
    });
  };
  SmallVector<Value> accumulators;
  for (Value slot : slots)
    if (isMmaAccumulator(slot))
      accumulators.push_back(slot);
  if (!accumulators.empty()) {
    SmallVector<WgmmaWaitOp> drains;
    root->walk([&](WgmmaWaitOp wait) {
      if (wait.getPending() == 0)
        drains.push_back(wait);
    });
    for (WgmmaWaitOp wait : drains) {
      OpBuilder b(wait->getContext());
      b.setInsertionPointAfter(wait);
      pinLiveSlots(b, wait, accumulators);
    }
  }
  SmallVector<WgmmaFenceOp> fences;
  root->walk([&](WgmmaFenceOp fence) {
    if (nothingPending(fence))
      fences.push_back(fence);
  });
  for (WgmmaFenceOp fence : fences) {
    OpBuilder b(fence);
    pinLiveSlots(b, fence, slots);
  }
}

void mlir::tile::populateTileMmaToNVVMPatterns(LLVMTypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<PinnedLoadLowering>(converter);
  patterns.add<FragZerosLowering, FragExtractLowering, MmaLowering, MmaRegALowering,
               WgmmaFenceLowering, WgmmaCommitLowering, WgmmaWaitLowering>(converter);
}
