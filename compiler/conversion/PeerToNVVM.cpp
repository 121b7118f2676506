//===- PeerToNVVM.cpp - peers' symmetric memory and semaphore waits -------===//
//
// Multi-GPU (docs/lowering.md "Multi-GPU"):
//  - tile.peer_tensor_map: entry `rank` of the peer map array, a generic
//    address TMA takes (PTX ISA 9.7.9.25: the tensor map may live in .global);
//  - tile.peer_base: entry `rank` of a u64 address table, ld.global.nc (the
//    runtime wrote it before the launch);
//  - tile.sem_wait: one inline-PTX loop of ld.acquire.sys.global.u64 probes
//    with nanosleep backoff, then fence.proxy.async.global (PTX ISA
//    "Memory Consistency Model": acquire at system scope synchronises with
//    a peer's red.release.sys; "Proxies": the fence orders what the acquire
//    made visible before this thread's later async-proxy (TMA) accesses);
//  - tile.fence_proxy_async_global, tile.trap (tile.nanosleep: BarrierToNVVM.cpp;
//    tile.global_ptr, an address as a global pointer: MemoryToLLVM.cpp).
// Labels inside a `{ }` block of inline PTX are local to it, so the loop may
// be inlined any number of times.
//===----------------------------------------------------------------------===//
#include "ConversionUtils.h"
#include "PTXBuilder.h"
#include "tile/Dialect/TileDialect.h"
#include "tilec/Target/TargetFacts.h"
#include "tilec/Conversion/TileToLLVM.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Backoff between probes of a semaphore counter: short, as a peer's signal
/// usually lands within microseconds (one NVLink round trip is ~1 us).
constexpr int kSemWaitBackoffNs = 32;

Value entryAddress(OpBuilder &b, Location loc, Value table, Value rank, int64_t entryBytes) {
  Value index = LLVM::ZExtOp::create(b, loc, b.getI64Type(), rank);
  Value offset = LLVM::MulOp::create(b, loc, index, i64Const(b, loc, entryBytes));
  return LLVM::AddOp::create(b, loc, table, offset);
}

struct PeerTensorMapLowering : ConvertOpToLLVMPattern<PeerTensorMapOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(PeerTensorMapOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value addr = entryAddress(rewriter, loc, adaptor.getMaps(), adaptor.getRank(),
                              ::tile::target::kTensorMapBytes);
    // A global address is a generic one on the GPU (cvta.global is the identity
    // on sm_90); TMA's map operand is generic (as the grid-constant map's).
    rewriter.replaceOpWithNewOp<LLVM::IntToPtrOp>(
        op, LLVM::LLVMPointerType::get(getContext(), ::tile::target::kGenericAddressSpace), addr);
    return success();
  }
};

struct PeerBaseLowering : ConvertOpToLLVMPattern<PeerBaseOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(PeerBaseOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value addr = entryAddress(rewriter, loc, adaptor.getTable(), adaptor.getRank(), 8);
    ptx::Asm as(rewriter, loc);
    std::string r = as.result(rewriter.getI64Type(), "l");
    as.line(ptx::Instr("ld").qual("global").qual("nc").type('u', 64).operands(
        {r, "[" + as.operand(addr, "l") + "]"}));
    rewriter.replaceOp(op, as.emitPure());
    return success();
  }
};

struct SemWaitLowering : ConvertOpToLLVMPattern<SemWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(SemWaitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    ptx::Asm as(rewriter, op.getLoc());
    std::string addr = as.address(adaptor.getCounter(), AddressSpace::global);
    std::string value = as.operand(adaptor.getValue(), "l");
    as.line("{")
        .line(".reg .pred p;")
        .line(".reg .b64 v;")
        .line("WAIT:")
        .line(ptx::Instr("ld")
                  .sem(MemoryOrder::acquire)
                  .scope(MemoryScope::sys)
                  .space(AddressSpace::global)
                  .type('u', 64)
                  .operands({"v", addr}))
        .line("setp.ge.u64 p, v, " + value + ";")
        .line("@p bra DONE;")
        .line("nanosleep.u32 " + std::to_string(kSemWaitBackoffNs) + ";")
        .line("bra WAIT;")
        .line("DONE:")
        .line("fence.proxy.async.global;")
        .line("}");
    as.emit();
    rewriter.eraseOp(op);
    return success();
  }
};

struct TrapLowering : ConvertOpToLLVMPattern<TrapOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(TrapOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::Trap>(op);
    return success();
  }
};

struct FenceProxyAsyncGlobalLowering : ConvertOpToLLVMPattern<FenceProxyAsyncGlobalOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(FenceProxyAsyncGlobalOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    ptx::Asm as(rewriter, op.getLoc());
    as.line("fence.proxy.async.global;");
    as.emit();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateTilePeerToNVVMPatterns(LLVMTypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<PeerTensorMapLowering, PeerBaseLowering, SemWaitLowering,
               FenceProxyAsyncGlobalLowering, TrapLowering>(converter);
}
