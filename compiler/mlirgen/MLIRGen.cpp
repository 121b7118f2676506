//===- MLIRGen.cpp - typed tile AST -> tile/arith/scf: kernels, statements ===//
// See MLIRGenImpl.h for the shape of the generated IR.
//===----------------------------------------------------------------------===//
#include "tilec/MLIRGen.h"
#include "MLIRGenContract.h"
#include "MLIRGenImpl.h"
#include "tilec/SourceLoc.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::mlirgen;

void MLIRGenImpl::genKernel(const fe::KernelAST &k) {
  kernelAST = &k;
  values.clear();
  slots.clear();
  views.clear();
  arrays.clear();
  returnedFlag = nullptr;
  warpgroupIndex = nullptr;
  currentRole = nullptr;
  resultSlots.clear();
  callSite.reset();
  instanceTag.reset();
  if (!k.sourceName.empty())
    instanceTag = builder.getStringAttr(instanceLocName(k.name));

  SmallVector<KernelParam> params = kernelParams(
      builder.getContext(), k, [&](const fe::Type &t) { return valueType(t); });
  SmallVector<Type> argTypes;
  for (const KernelParam &p : params)
    argTypes.push_back(p.type);
  builder.setInsertionPointToEnd(module->getBody());
  Location l = loc(k.loc);
  kernel = KernelOp::create(builder, l, k.name, builder.getFunctionType(argTypes, {}),
                            /*arg_attrs=*/nullptr, /*res_attrs=*/nullptr,
                            /*cluster_dims=*/nullptr, /*cluster_dynamic=*/false,
                            /*max_threads=*/nullptr, /*req_threads=*/nullptr,
                            /*min_blocks=*/nullptr);
  if (k.cluster.kind == fe::ClusterAttr::Static)
    kernel.setClusterDimsAttr(
        builder.getDenseI32ArrayAttr({k.cluster.dims[0], k.cluster.dims[1], k.cluster.dims[2]}));
  else if (k.cluster.kind == fe::ClusterAttr::Dynamic)
    kernel.setClusterDynamic(true);
  // threads(...) is the exact block shape; max_threads/min_blocks bounds
  // that the user asked for (KernelToLLVM.cpp, setLaunchBounds).
  if (k.threads.present)
    kernel.setReqThreadsAttr(
        builder.getDenseI32ArrayAttr({k.threads.dims[0], k.threads.dims[1], k.threads.dims[2]}));
  if (k.bounds.maxThreads)
    kernel.setMaxThreadsAttr(builder.getDenseI32ArrayAttr({*k.bounds.maxThreads, 1, 1}));
  if (k.bounds.minBlocks)
    kernel.setMinBlocksAttr(builder.getI32IntegerAttr(*k.bounds.minBlocks));
  setKernelContract(kernel, k, params);

  Block *entry = builder.createBlock(&kernel.getBody(), {}, argTypes,
                                     SmallVector<Location>(argTypes.size(), l));
  for (auto [i, p] : llvm::enumerate(params))
    values[p.decl] = entry->getArgument(i);
  builder.setInsertionPointToEnd(entry);
  if (blockMayReturn(k.body)) {
    returnedFlag = newExitFlag(l);
    storeWeak(l, boolConst(l, false), returnedFlag);
  }
  // Shared arrays and mbarriers (top-level declarations; their counts use
  // only constants, parameters and special registers) are allocated first, in
  // declaration order, ahead of all control flow: tile.shared_alloc must stay
  // in the entry block through scf-to-cf (the dynamic smem layout walks that
  // block), and a preceding `return` must not skip an allocation or the
  // mbarrier init and its bar.sync. The inits come after the last allocation
  // of any kind: their scf.if splits the entry block, so an array declared
  // after an mbarrier would otherwise land outside it.
  for (const auto &s : k.body) {
    if (auto *a = s->as<fe::SharedArrayStmt>())
      genSharedArray(*a);
    else if (auto *b = s->as<fe::MBarrierStmt>())
      genMBarrier(*b);
    else if (auto *r = s->as<fe::RingStmt>())
      genRingStorage(*r);
  }
  if (!k.mbarriers.empty() || !k.rings.empty())
    genMBarrierInits(loc(k.mbarriers.empty() ? k.rings.back()->loc : k.mbarriers.back()->loc));
  genTensorMapPrefetches(l);
  genBlock(k.body, 0);
  builder.setInsertionPointToEnd(entry);
  if (!k.warpgroups)
    genRingTails(l); // with roles, at the end of the producing role
  genBulkDrain(l);
  genExitProtocol(l); // MLIRGenPeer.cpp: kernels with a semaphore
  ReturnOp::create(builder, l);
}

bool MLIRGenImpl::stmtMayReturn(const fe::StmtAST &s) {
  if (s.is<fe::ReturnStmt>())
    return true;
  if (auto *f = s.as<fe::ForStmt>())
    return blockMayReturn(f->body);
  if (auto *w = s.as<fe::WhileStmt>())
    return blockMayReturn(w->body);
  if (auto *i = s.as<fe::IfStmt>())
    return blockMayReturn(i->thenBody) || blockMayReturn(i->elseBody);
  if (auto *g = s.as<fe::WarpgroupsStmt>())
    for (const auto &r : g->roles)
      if (blockMayReturn(r->body))
        return true;
  return false;
}

bool MLIRGenImpl::blockMayReturn(const fe::Block &b) {
  for (const auto &s : b)
    if (stmtMayReturn(*s))
      return true;
  return false;
}

Value MLIRGenImpl::notReturned(Location l) {
  Value returned = loadWeak(l, returnedFlag);
  return arith::XOrIOp::create(builder, l, returned, boolConst(l, true));
}

/// Emits stmts[from..]; after a statement that may return, the rest runs
/// under `if !returned`. Statements after a plain `return` are dead.
void MLIRGenImpl::genBlock(const fe::Block &stmts, size_t from) {
  for (size_t i = from; i < stmts.size(); ++i) {
    const fe::StmtAST &s = *stmts[i];
    genStmt(s);
    if (s.is<fe::ReturnStmt>() || s.is<fe::BreakStmt>() || s.is<fe::ContinueStmt>())
      return;
    bool returns = stmtMayReturn(s), leaves = stmtLeavesIteration(s);
    if ((returns || leaves) && i + 1 < stmts.size()) {
      Location l = loc(stmts[i + 1]->loc);
      Value go = returns ? notReturned(l) : notLeftIteration(l);
      if (returns && leaves)
        go = arith::AndIOp::create(builder, l, go, notLeftIteration(l));
      auto guard = scf::IfOp::create(builder, l, go, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g(builder);
      builder.setInsertionPoint(guard.thenBlock()->getTerminator());
      genBlock(stmts, i + 1);
      return;
    }
  }
}

void MLIRGenImpl::genStmt(const fe::StmtAST &s) {
  switch (s.kind()) {
  case fe::StmtAST::Let:
    return genLet(*s.as<fe::LetStmt>());
  case fe::StmtAST::SharedArray:
    return; // allocated on kernel entry (genKernel)
  case fe::StmtAST::Assign:
    return genAssign(*s.as<fe::AssignStmt>());
  case fe::StmtAST::For:
    genFor(*s.as<fe::ForStmt>());
    return genMmaDrains(s); // MLIRGenMma.cpp
  case fe::StmtAST::If:
    return genIf(*s.as<fe::IfStmt>());
  case fe::StmtAST::While:
    genWhile(*s.as<fe::WhileStmt>());
    return genMmaDrains(s);
  case fe::StmtAST::ExprStmt:
    genExpr(*s.as<fe::ExprStmtAST>()->expr);
    return;
  case fe::StmtAST::Return:
    return genReturn(*s.as<fe::ReturnStmt>());
  case fe::StmtAST::MBarrier:
    return; // allocated and initialised on kernel entry
  case fe::StmtAST::Warpgroups:
    return genWarpgroups(*s.as<fe::WarpgroupsStmt>());
  case fe::StmtAST::Ring:
    return; // allocated and initialised on kernel entry
  case fe::StmtAST::Produce:
  case fe::StmtAST::Consume:
    return genRingAccess(*s.as<fe::RingAccessStmt>());
  case fe::StmtAST::Break:
  case fe::StmtAST::Continue:
    return genLoopExit(s);
  case fe::StmtAST::Const:
    return; // uses are literals
  case fe::StmtAST::LocalArray:
    return genLocalArray(*s.as<fe::LocalArrayStmt>());
  }
}

void MLIRGenImpl::genLet(const fe::LetStmt &s) {
  if (s.isTuple())
    return genTupleLet(s); // MLIRGenAbstr.cpp
  const fe::Decl *d = s.decl.get();
  if (d->type.isArray()) {
    views[d] = genView(*s.init);
    return;
  }
  bindLetDecl(d, genExpr(*s.init), loc(s.loc));
}

void MLIRGenImpl::bindLetDecl(const fe::Decl *d, Value init, Location l) {
  Value v = bindValue(l, init, d->type);
  if (d->kind == fe::DeclKind::Var) {
    Value slot = newSlot(loc(d->loc), v.getType());
    storeWeak(l, v, slot);
    slots[d] = slot;
    return;
  }
  values[d] = v;
}

/// Shared arrays: static ones get a `.shared` variable; dynamic ones a count
/// operand (per-CTA elements) that places them in the dynamic window.
void MLIRGenImpl::genSharedArray(const fe::SharedArrayStmt &s) {
  Location l = loc(s.loc);
  Type elem = scalarType(s.elem.type.scalar);
  auto ptrType = PtrType::get(builder.getContext(), elem, AddressSpace::shared);
  ArrayInfo info;
  info.distributed = s.distributed;
  info.count = genExpr(*s.count);
  Type lenType = info.count.getType();
  if (!s.dims.empty()) // n-D: the count is every element, len(t)
    info.count = intConst(l, lenType, *s.constantCount);
  if (s.distributed) {
    if (s.staticPerBlock) {
      info.perBlock = intConst(l, lenType, *s.staticPerBlock);
    } else {
      // per_block = ceil(N / cluster size), from the launch's cluster shape
      // unless the kernel fixes it.
      std::optional<int64_t> size = kernel.getStaticClusterSize();
      Value cs = size ? intConst(l, lenType, *size)
                      : castInt(l, sreg(l, SpecialReg::cluster_nctarank), lenType, true);
      Value sum = arith::AddIOp::create(builder, l, info.count, cs);
      Value rounded = arith::SubIOp::create(builder, l, sum, intConst(l, lenType, 1));
      info.perBlock = arith::DivUIOp::create(builder, l, rounded, cs);
    }
  }
  if (s.isStatic) {
    info.base = SharedAllocOp::create(builder, l, ptrType, Value(),
                                      builder.getI64IntegerAttr(*s.staticPerBlock));
  } else {
    auto alloc = SharedAllocOp::create(builder, l, ptrType,
                                       s.distributed ? info.perBlock : info.count, IntegerAttr());
    (void)setSharedArrayContract(alloc, s); // what the host sizes the dynamic window by
    info.base = alloc;
  }
  if (s.alignBytes > 16) // TMA tiles (SemaTma.cpp, chooseTileLayout)
    info.base.getDefiningOp<SharedAllocOp>().setAlignmentAttr(
        builder.getI64IntegerAttr(s.alignBytes));
  arrays[&s] = info;
}

void MLIRGenImpl::genAssign(const fe::AssignStmt &s) {
  if (auto *ix = s.target->as<fe::IndexExpr>(); ix && ix->base->type.isVector())
    return genVectorElementAssign(s, *ix); // MLIRGenVector.cpp
  Location l = loc(s.loc);
  std::optional<fe::BinaryOp> op = fe::assignBinaryOp(s.op);
  Value ptr;
  if (auto *ref = s.target->as<fe::VarRefExpr>())
    ptr = slots.lookup(ref->decl);
  else
    ptr = genAddress(*s.target->as<fe::IndexExpr>());
  Value value = bindValue(l, genExpr(*s.value), s.target->type);
  if (op)
    value = genBinaryOp(l, *op, loadWeak(l, ptr), value, s.target->type);
  storeWeak(l, value, ptr);
}

void MLIRGenImpl::genIf(const fe::IfStmt &s) {
  if (s.isTurn)
    return genTurn(s); // MLIRGenRoles.cpp
  Location l = loc(s.loc);
  Value cond = genExpr(*s.cond);
  auto op = scf::IfOp::create(builder, l, cond, /*withElseRegion=*/s.hasElse);
  OpBuilder::InsertionGuard g(builder);
  builder.setInsertionPoint(op.thenBlock()->getTerminator());
  genBlock(s.thenBody, 0);
  if (s.hasElse) {
    builder.setInsertionPoint(op.elseBlock()->getTerminator());
    genBlock(s.elseBody, 0);
  }
}

/// The loop condition, and false once the thread has returned.
Value MLIRGenImpl::whileCondition(Location l, const std::function<Value()> &cond) {
  if (!returnedFlag)
    return cond();
  auto op = scf::IfOp::create(builder, l, builder.getI1Type(), notReturned(l),
                              /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(builder);
  builder.setInsertionPointToStart(op.thenBlock());
  Value c = cond();
  scf::YieldOp::create(builder, l, c);
  builder.setInsertionPointToStart(op.elseBlock());
  scf::YieldOp::create(builder, l, boolConst(l, false));
  // The decision is the source's condition: a diagnostic about it points
  // there, not at the `while`.
  if (Operation *def = c.getDefiningOp())
    op->setLoc(def->getLoc());
  return op.getResult(0);
}

void MLIRGenImpl::genWhile(const fe::WhileStmt &s) {
  if (s.hasBreak || s.hasContinue)
    return genWhileWithExits(s);
  emitWhile(
      loc(s.loc), [&] { return genExpr(*s.cond); }, [&] { genBlock(s.body, 0); });
}

/// Linear thread id in the block and threads per block. A `threads(X)`
/// bound with Y = Z = 1 proves the y/z ids are zero.
std::pair<Value, Value> MLIRGenImpl::linearThread(Location l) {
  Value tid = sreg(l, SpecialReg::tid_x), ntid = sreg(l, SpecialReg::ntid_x);
  const auto &t = kernelAST->threads;
  if (t.present && t.dims[1] == 1 && t.dims[2] == 1)
    return {tid, ntid};
  // One op per statement: the order of C++ call arguments is unspecified, and
  // the IR (and the lit tests) should not depend on the host compiler.
  Value ny = sreg(l, SpecialReg::ntid_y), nz = sreg(l, SpecialReg::ntid_z);
  Value ty = sreg(l, SpecialReg::tid_y), tz = sreg(l, SpecialReg::tid_z);
  Value z = arith::AddIOp::create(builder, l, arith::MulIOp::create(builder, l, tz, ny), ty);
  tid = arith::AddIOp::create(builder, l, arith::MulIOp::create(builder, l, z, ntid), tid);
  ntid = arith::MulIOp::create(builder, l, arith::MulIOp::create(builder, l, ntid, ny), nz);
  return {tid, ntid};
}

/// Every `for` terminates and visits exactly the values below its bound,
/// without wrapping (docs/reference/statements.md, "Loops and conditions"):
/// - `a .. b` (step 1): i < b <= MAX, so i + 1 never overflows; scf.for as is.
/// - `a .. b step s`: a trip count, ceil((b - a) / s) when a < b and s > 0,
///   else 0 (a run-time step <= 0 runs no iteration). b - a and the division
///   are unsigned, exact for every pair of bounds; the loop counts k and
///   i = a + k * s stays below b.
/// - block_range/grid_range: the first index (the thread's linear id) and the
///   stride are non-negative; compared unsigned against max(N, 0), i + stride
///   cannot wrap. The ids are computed in the loop variable's type, or wider:
///   i32 when it is narrower (i8/i16 cannot hold a thread id or a stride of
///   256 threads) and i64 for grid_range (a grid can hold more than 2^31
///   threads). The induction variable is then < N, so truncating it is exact.
MLIRGenImpl::LoopBounds MLIRGenImpl::loopBounds(const fe::ForStmt &s) {
  Location l = loc(s.loc);
  Type varType = scalarType(s.loopVar->type.scalar);
  auto identity = [](Value v) { return v; };
  bool isUnsignedVar = s.loopVar->type.isUnsigned();
  if (s.forKind == fe::ForKind::Range) {
    // Source order: the bounds may have effects (atomics, loads).
    Value start = genExpr(*s.start);
    Value end = genExpr(*s.end);
    if (!s.step)
      return {start, end, intConst(l, varType, 1), isUnsignedVar, identity};
    Value step = genExpr(*s.step);
    Value zero = intConst(l, varType, 0), one = intConst(l, varType, 1);
    // Unsigned bounds compare unsigned; an unsigned step is positive unless 0.
    Value below = arith::CmpIOp::create(
        builder, l, isUnsignedVar ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt, start,
        end);
    Value positive = arith::CmpIOp::create(
        builder, l, isUnsignedVar ? arith::CmpIPredicate::ne : arith::CmpIPredicate::sgt, step,
        zero);
    Value nonEmpty = arith::AndIOp::create(builder, l, below, positive);
    // The divisor is 1 when the loop is empty, so nothing divides by zero.
    Value divisor = arith::SelectOp::create(builder, l, nonEmpty, step, one);
    Value distance = arith::SubIOp::create(builder, l, end, start);
    Value whole = arith::DivUIOp::create(builder, l, distance, divisor);
    Value rest = arith::RemUIOp::create(builder, l, distance, divisor);
    Value partial = arith::ExtUIOp::create(
        builder, l, varType,
        arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ne, rest, zero));
    Value trips = arith::AddIOp::create(builder, l, whole, partial);
    trips = arith::SelectOp::create(builder, l, nonEmpty, trips, zero);
    return {zero, trips, one, true, [this, l, start, step](Value k) -> Value {
              Value offset = arith::MulIOp::create(builder, l, k, step);
              return arith::AddIOp::create(builder, l, start, offset);
            }};
  }
  Value end = genExpr(*s.end);
  Type type = varType;
  unsigned minWidth = s.forKind == fe::ForKind::GridRange ? 64 : 32;
  if (type.getIntOrFloatBitWidth() < minWidth) {
    type = builder.getIntegerType(minWidth);
    end = castInt(l, end, type, isUnsignedVar);
  }
  // An unsigned count is never negative (and may be >= 2^(width-1)).
  if (!isUnsignedVar)
    end = arith::MaxSIOp::create(builder, l, end, intConst(l, type, 0));
  // Inside a role the range is spread over the role's threads.
  auto [tid, ntid] = currentRole ? roleLinearThread(l) : linearThread(l);
  Value start = castInt(l, tid, type, true);
  Value step = castInt(l, ntid, type, true);
  if (s.forKind == fe::ForKind::GridRange) {
    Value bid = sreg(l, SpecialReg::ctaid_x), nbid = sreg(l, SpecialReg::nctaid_x);
    Value by = sreg(l, SpecialReg::ctaid_y), bz = sreg(l, SpecialReg::ctaid_z);
    Value ny = sreg(l, SpecialReg::nctaid_y), nz = sreg(l, SpecialReg::nctaid_z);
    // The block id and count in the wide type too: each is below 2^31, their
    // products are not. One op per statement (C++ argument order is unspecified).
    Value wbid = castInt(l, bid, type, true), wnbid = castInt(l, nbid, type, true);
    Value wby = castInt(l, by, type, true), wbz = castInt(l, bz, type, true);
    Value wny = castInt(l, ny, type, true), wnz = castInt(l, nz, type, true);
    Value zy = arith::AddIOp::create(builder, l, arith::MulIOp::create(builder, l, wbz, wny), wby);
    Value blockLinear =
        arith::AddIOp::create(builder, l, arith::MulIOp::create(builder, l, zy, wnbid), wbid);
    Value blocks =
        arith::MulIOp::create(builder, l, arith::MulIOp::create(builder, l, wnbid, wny), wnz);
    Value blockStart = arith::MulIOp::create(builder, l, blockLinear, step);
    start = arith::AddIOp::create(builder, l, blockStart, start);
    step = arith::MulIOp::create(builder, l, step, blocks);
  }
  return {start, end, step, true, [this, l, varType](Value iv) { return castInt(l, iv, varType); }};
}

void MLIRGenImpl::genFor(const fe::ForStmt &s) {
  if (s.unrollFull || s.unrollFactorValue > 1)
    return genUnrolledFor(s);
  if (s.hasBreak || s.hasContinue)
    return genForWithExits(s);
  Location l = loc(s.loc);
  LoopBounds bounds = loopBounds(s);
  const fe::Decl *var = s.loopVar.get();
  if (!returnedFlag || !blockMayReturn(s.body)) {
    auto loop =
        scf::ForOp::create(builder, l, bounds.lower, bounds.upper, bounds.step,
                           /*initArgs=*/ValueRange{}, /*bodyBuilder=*/nullptr, bounds.isUnsigned);
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPoint(loop.getBody()->getTerminator());
    values[var] = bounds.loopVar(loop.getInductionVar());
    genBlock(s.body, 0);
    return;
  }
  // A body that may return: a while loop that also stops on the flag.
  Value counter = newSlot(l, bounds.lower.getType());
  storeWeak(l, bounds.lower, counter);
  emitWhile(
      l,
      [&] {
        return arith::CmpIOp::create(
            builder, l, bounds.isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
            loadWeak(l, counter), bounds.upper);
      },
      [&] {
        Value i = loadWeak(l, counter);
        values[var] = bounds.loopVar(i);
        genBlock(s.body, 0);
        storeWeak(l, arith::AddIOp::create(builder, l, i, bounds.step), counter);
      });
}

/// A `for` with break/continue: MLIRGenTypes.cpp has the rest.
void MLIRGenImpl::genForWithExits(const fe::ForStmt &s) {
  Location l = loc(s.loc);
  LoopBounds bounds = loopBounds(s);
  const fe::Decl *var = s.loopVar.get();
  LoopExit ex = newLoopExit(l, s.hasBreak, s.hasContinue);
  loopExits[&s] = ex;
  // The counter loop of a `for` whose body may return (genFor), stopping on
  // the break flag too.
  Value counter = newSlot(l, bounds.lower.getType());
  storeWeak(l, bounds.lower, counter);
  emitWhile(
      l,
      [&] {
        Value more = arith::CmpIOp::create(
            builder, l, bounds.isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
            loadWeak(l, counter), bounds.upper);
        if (!ex.broke)
          return more;
        Value broke = loadWeak(l, ex.broke);
        Value stay = arith::XOrIOp::create(builder, l, broke, boolConst(l, true));
        return Value(arith::AndIOp::create(builder, l, stay, more));
      },
      [&] {
        if (ex.continued)
          storeWeak(l, boolConst(l, false), ex.continued);
        Value i = loadWeak(l, counter);
        values[var] = bounds.loopVar(i);
        const fe::StmtAST *outer = currentLoop;
        currentLoop = &s;
        genBlock(s.body, 0);
        currentLoop = outer;
        // After a continue (and a break: the condition stops it) the counter
        // still steps; loopBounds guarantees i + step does not wrap.
        storeWeak(l, arith::AddIOp::create(builder, l, i, bounds.step), counter);
      });
}

OwningOpRef<ModuleOp> mlir::tile::mlirGen(MLIRContext &context,
                                          const ::tile::frontend::ModuleAST &module,
                                          const MLIRGenOptions &options) {
  context.loadDialect<TileDialect, arith::ArithDialect, scf::SCFDialect, LLVM::LLVMDialect>();
  return MLIRGenImpl(context, options).gen(module);
}
