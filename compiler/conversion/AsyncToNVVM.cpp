//===- AsyncToNVVM.cpp - st.async into a peer's shared memory ---------------===//
//
// PTX ISA 9.7.9.12: `st.async.shared::cluster.mbarrier::complete_tx::bytes
// {.v2,.v4}.bN [dst], value, [mbar]`. MLIR 22's NVVM dialect has no st.async
// op, so the PTX builder composes it; `.bN` moves bits (f32 too).
//===----------------------------------------------------------------------===//
#include "tile/Dialect/TileDialect.h"
#include "tilec/Conversion/TileToLLVM.h"

#include "PTXBuilder.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct StoreAsyncLowering : ConvertOpToLLVMPattern<StoreAsyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(StoreAsyncOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    unsigned bits = static_cast<unsigned>(scalarByteWidth(op.getValues().front().getType()) * 8);
    ptx::AsmScalar s = ptx::asmScalar(rewriter.getIntegerType(bits));
    ptx::Asm as(rewriter, op.getLoc());
    std::string dst = as.address(adaptor.getDst(), AddressSpace::cluster);
    SmallVector<std::string> values;
    for (Value v : adaptor.getValues())
      values.push_back(as.scalar(v, s));
    std::string mbar = as.address(adaptor.getMbar(), AddressSpace::cluster);
    size_t n = values.size();
    ptx::Instr instr("st.async");
    instr.space(AddressSpace::cluster).qual("mbarrier::complete_tx::bytes");
    if (n > 1)
      instr.qual("v" + std::to_string(n));
    instr.type('b', bits);
    std::string value = n == 1 ? values.front() : "{" + llvm::join(values, ", ") + "}";
    as.line(instr.operands({dst, value, mbar}));
    as.emit();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateTileAsyncToNVVMPatterns(LLVMTypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  patterns.add<StoreAsyncLowering>(converter);
}
