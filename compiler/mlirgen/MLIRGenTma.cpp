//===- MLIRGenTma.cpp - n-D tiles and TMA copies -> tile ops ---------------===//
//
// `t[i, j]` on an n-D array or TMA tile is a tile.tile_element (the layout
// applies the swizzle, so generic code sees logical elements); copy_async
// becomes tile.tma_load (after an mbarrier_expect_tx of the bytes that land
// in this CTA) or tile.tma_store + tile.bulk_commit;
// prefetch_tensor a tile.tma_prefetch.
//===----------------------------------------------------------------------===//
#include "MLIRGenImpl.h"

#include "tilec/Target/ClusterGeometry.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::mlirgen;

/// Why the compiler issued op (tile.sync, listed by `tilec --explain-sync`).
static void explain(Operation *op, StringRef why) {
  op->getContext()->getLoadedDialect<TileDialect>()->getSyncAttrHelper().setAttr(
      op, StringAttr::get(op->getContext(), why));
}

TileLayoutAttr MLIRGenImpl::tileLayout(const fe::SharedArrayStmt &s) {
  SmallVector<int64_t> shape(s.dims.begin(), s.dims.end());
  if (shape.empty())
    shape.push_back(*s.constantCount);
  int64_t panel = s.isTmaTile ? s.panelElems : shape.back();
  return TileLayoutAttr::get(builder.getContext(), shape, s.swizzleBytes, panel);
}

Value MLIRGenImpl::genTileAddress(const fe::IndexExpr &e) {
  Location l = loc(e.loc);
  const fe::SharedArrayStmt &s = *e.base->as<fe::VarRefExpr>()->decl->array;
  TileLayoutAttr layout = tileLayout(s);
  ArrayRef<int64_t> shape = layout.getShape();
  Value base = arrays[&s].base;
  SmallVector<Value> indices;
  indices.push_back(genExpr(*e.index));
  for (const fe::ExprPtr &m : e.moreIndices)
    indices.push_back(genExpr(*m));
  if (indices.size() == 1 && shape.size() > 1) {
    // A row-major linear index: split it by the (constant) dimensions,
    // unsigned (an in-bounds index is non-negative).
    Value linear = indices[0];
    Type t = linear.getType();
    SmallVector<Value> split(shape.size());
    for (size_t d = shape.size(); d-- > 1;) {
      Value dim = intConst(l, t, shape[d]);
      split[d] = arith::RemUIOp::create(builder, l, linear, dim);
      linear = arith::DivUIOp::create(builder, l, linear, dim);
    }
    split[0] = linear;
    indices = split;
  }
  return TileElementOp::create(builder, l, base.getType(), base, indices, layout);
}

Value MLIRGenImpl::genTmaCall(const fe::CallExpr &e) {
  Location l = loc(e.loc);
  if (e.builtin == fe::Builtin::Dim) { // a constant (Sema folded the extent)
    if (e.tma.extent >= 0)
      return intConst(l, builder.getI32Type(), e.tma.extent);
    // dim(t, j) in copies of an unrolled loop that differ: the extent of
    // each copy's j, a chain of selects on the (constant) j that folds.
    const std::vector<int64_t> &dims = e.args[0]->type.dims; // >= 2 (else one extent)
    Type i32 = builder.getI32Type();
    if (dims.empty())
      return intConst(l, i32, 0);
    Value d = castInt(l, genExpr(*e.args[1]), i32);
    Value extent = intConst(l, i32, dims.back());
    for (size_t k = dims.size() - 1; k-- > 0;) {
      Value is = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, d,
                                       intConst(l, i32, (int64_t)k));
      extent = arith::SelectOp::create(builder, l, is, intConst(l, i32, dims[k]), extent);
    }
    return extent;
  }
  const fe::ExprAST &tensorArg =
      *e.args[e.tma.isStore || e.builtin == fe::Builtin::PrefetchTensor ? 0 : 1];
  auto &box = *tensorArg.as<fe::IndexExpr>();
  // peer(A, d)[c...]: A's map stands for the type; the copy goes
  // through entry d of A$peer_maps (MLIRGenPeer.cpp).
  const fe::ExprAST *tensorRef = box.base.get();
  if (auto *p = tensorRef->as<fe::CallExpr>())
    tensorRef = p->args[0].get();
  Value map = values.lookup(tensorRef->as<fe::VarRefExpr>()->decl);
  SmallVector<Value> coords;
  coords.push_back(castInt(l, genExpr(*box.index), builder.getI32Type()));
  for (const fe::ExprPtr &m : box.moreIndices)
    coords.push_back(castInt(l, genExpr(*m), builder.getI32Type()));
  map = genPeerTensorMap(e, map);
  if (e.builtin == fe::Builtin::PrefetchTensor) {
    TmaPrefetchOp::create(builder, l, map, coords);
    return nullptr;
  }
  const fe::SharedArrayStmt &tileDecl = *e.tma.tile;
  Value tile = arrays[&tileDecl].base;
  TileLayoutAttr layout = tileLayout(tileDecl);
  if (e.tma.isStore && e.tma.roleCollective) { // MLIRGenEpilogue.cpp
    genRoleTmaStore(e, map, coords, tile, layout);
    return nullptr;
  }
  if (e.tma.isStore) {
    TmaStoreOp::create(builder, l, map, coords, tile, layout);
    // The wait_group.read before the tile is rewritten is placed by
    // tile-place-bulk-waits (where the thread next synchronises).
    explain(BulkCommitOp::create(builder, l),
            "cp.async.bulk.commit_group: closes the bulk group of this TMA store");
    return nullptr;
  }
  IntegerAttr axis =
      e.tma.multicastAxis >= 0 ? builder.getI32IntegerAttr(e.tma.multicastAxis) : IntegerAttr();
  // A multicast group of one CTA is a plain copy.
  if (axis && kernelAST->cluster.kind == fe::ClusterAttr::Static &&
      ::tile::cluster::groupSize(kernelAST->cluster.dims, e.tma.multicastAxis) == 1)
    axis = IntegerAttr();
  if (e.args.size() == 2) { // inside produce: on the ring's full barrier, bytes expected there
    TmaLoadOp::create(builder, l, tile, map, coords, producingFull, layout, axis);
    return nullptr;
  }
  Value mbar = genMBarrierRef(*e.args[2]);
  // expect_tx first: the bytes of this copy (and of the slices peers
  // multicast into this CTA) belong to the mbarrier's current phase.
  Value bytes = intConst(l, builder.getI32Type(), e.tma.bytes);
  auto expect = MBarrierExpectTxOp::create(builder, l, mbar, bytes, MemoryScopeAttr());
  explain(expect, (Twine("mbarrier.expect_tx ") + Twine(e.tma.bytes) + " bytes: the whole tile " +
                   (e.tma.multicastAxis >= 0 ? "(this CTA's slice and the slices its multicast "
                                               "peers deliver)"
                                             : "(the boxes of this copy)"))
                      .str());
  TmaLoadOp::create(builder, l, tile, map, coords, mbar, layout, axis);
  return nullptr;
}

void MLIRGenImpl::genTensorMapPrefetches(Location l) {
  SmallVector<Value> maps;
  for (const fe::TensorParamSyntax &t : kernelAST->tensorParams)
    if (t.firstCopy)
      maps.push_back(values.lookup(kernelAST->params[t.param].get()));
  if (maps.empty())
    return;
  Value tid = linearThread(l).first;
  Value first = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, tid,
                                      intConst(l, tid.getType(), 0));
  auto op = scf::IfOp::create(builder, l, first, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(builder);
  builder.setInsertionPoint(op.thenBlock()->getTerminator());
  for (Value m : maps)
    TensorMapPrefetchOp::create(builder, l, m);
}

void MLIRGenImpl::genBulkDrain(Location l) {
  if (!kernelAST->usesTmaStore)
    return;
  // wait_group 0 by every thread: a no-op for threads without bulk groups;
  // the issuing thread does not exit before its stores completed
  // (PTX ISA 9.7.9.24.4: shared memory of an exited CTA must not be read).
  explain(BulkWaitOp::create(builder, l, /*pending=*/0, /*read=*/false),
          "cp.async.bulk.wait_group 0: TMA stores complete before the kernel exits");
}
