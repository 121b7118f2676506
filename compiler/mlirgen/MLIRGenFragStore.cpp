//===- MLIRGenFragStore.cpp - store(p, frag, row_stride = ld) --------------===//
//
// Thread t of the warpgroup (t = linear thread id % 128) stores its
// element e at p[row * ld + col], (row, col) = wgmmaFragmentCoord(N, e, t)
// = the coordinate for thread 0 plus (16 * (t / 32) + (t % 32) / 4,
// 2 * (t % 4)) (PTX ISA 9.7.15.5.1, wgmma D fragments).
//===----------------------------------------------------------------------===//
#include "MLIRGenImpl.h"

#include "tile/target.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::mlirgen;

Value MLIRGenImpl::genFragmentStore(const fe::CallExpr &e) {
  namespace T = ::tile::target;
  Location l = loc(e.loc);
  Type i32 = builder.getI32Type();
  Value p = genExpr(*e.args[0]);
  Value frag = genExpr(*e.args[1]);
  Value ld = castInt(l, genExpr(*e.mma.rowStride), i32);
  auto type = cast<FragType>(frag.getType());
  Value tid = castInt(l, linearThread(l).first, i32, /*isUnsigned=*/true);
  Value t = arith::RemUIOp::create(builder, l, tid, intConst(l, i32, T::kWarpgroupSize));
  Value warp = arith::DivUIOp::create(builder, l, t, intConst(l, i32, T::kWarpSize));
  Value lane = arith::RemUIOp::create(builder, l, t, intConst(l, i32, T::kWarpSize));
  Value baseRow = arith::AddIOp::create(
      builder, l, arith::MulIOp::create(builder, l, warp, intConst(l, i32, 16)),
      arith::DivUIOp::create(builder, l, lane, intConst(l, i32, 4)));
  Value baseCol = arith::MulIOp::create(
      builder, l, arith::RemUIOp::create(builder, l, lane, intConst(l, i32, 4)),
      intConst(l, i32, 2));
  Value base =
      arith::AddIOp::create(builder, l, arith::MulIOp::create(builder, l, baseRow, ld), baseCol);
  for (int64_t el = 0; el < type.getElementsPerThread(); ++el) {
    T::FragmentCoord c = T::wgmmaFragmentCoord(type.getCols(), el, 0);
    Value off = arith::AddIOp::create(
        builder, l, base,
        arith::AddIOp::create(builder, l,
                              arith::MulIOp::create(builder, l, intConst(l, i32, c.row), ld),
                              intConst(l, i32, c.col)));
    Value v = FragExtractOp::create(builder, l, type.getElementType(), frag,
                                    builder.getI64IntegerAttr(el));
    storeWeak(l, v, PtrAddOp::create(builder, l, p.getType(), p, off));
  }
  return nullptr;
}
