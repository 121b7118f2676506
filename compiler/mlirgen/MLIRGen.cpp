//===- MLIRGen.cpp - typed tile AST -> tile/arith/scf ----------------------===//
//
// Walks a module that passed frontend::checkModule (every type, declaration,
// builtin and order/scope is resolved there) and emits one tile.kernel per
// kernel, in the shape of the Toy tutorial's MLIRGen:
//
//  - immutable values (`let`, parameters, loop variables) are SSA values;
//  - `var`s are tile.local_var slots in the kernel's entry block (SROA turns
//    them into registers), so loops and ifs need no block arguments;
//  - control flow stays structured (scf.for / scf.while / scf.if) so that the
//    tile passes can reason about loops and barrier placement. `return` inside
//    nested code sets a per-thread "returned" flag; everything after a
//    statement that may return runs under `if !returned`, and loops containing
//    a return also test the flag. Threads therefore reach the kernel's end,
//    where compiler-inserted exit barriers live;
//  - integers are signed (`/ % >> <` use the signed forms), as docs/language.md says.
//
//===----------------------------------------------------------------------===//
#include "tilec/MLIRGen.h"
#include "tile/Dialect/TileDialect.h"
#include "tilec/frontend/AST.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>

using namespace mlir;
using namespace mlir::tile;
namespace fe = ::tile::frontend;

namespace {

/// An indexable run of elements: a shared array, `h.local`, or a remote view.
struct View {
  Value ptr; // !tile.ptr<T, shared> or !tile.ptr<T, cluster>
  Value len; // of the array's length type
};

/// A shared or dshared array declared at kernel top level.
struct ArrayInfo {
  Value base;      // this CTA's part, !tile.ptr<T, shared>
  Value count;     // N, the declared length (length type)
  Value perBlock;  // dshared: elements per CTA (length type)
  bool distributed = false;
};

class MLIRGenImpl {
public:
  explicit MLIRGenImpl(MLIRContext &context) : builder(&context) {}

  OwningOpRef<ModuleOp> gen(const fe::ModuleAST &ast) {
    file = ast.file;
    module = ModuleOp::create(builder.getUnknownLoc());
    for (const auto &kernel : ast.kernels)
      genKernel(*kernel);
    return std::move(module);
  }

private:
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
  std::string file;

  // Per-kernel state.
  const fe::KernelAST *kernelAST = nullptr;
  KernelOp kernel;
  llvm::DenseMap<const fe::Decl *, Value> values;   // let, params, loop variables
  llvm::DenseMap<const fe::Decl *, Value> slots;    // var -> tile.local_var
  llvm::DenseMap<const fe::Decl *, View> views;     // let bound to an array or view
  llvm::DenseMap<const fe::SharedArrayStmt *, ArrayInfo> arrays;
  Value returnedFlag; // !tile.ptr<i1, local>, only when the kernel has a return

  //===--------------------------------------------------------------------===//
  // Types, locations, constants
  //===--------------------------------------------------------------------===//

  Location loc(const fe::Location &l) {
    if (l.line <= 0)
      return builder.getUnknownLoc();
    return FileLineColLoc::get(builder.getContext(), l.file.empty() ? file : l.file, l.line,
                               l.col);
  }

  Type scalarType(fe::ScalarKind k) {
    switch (k) {
    case fe::ScalarKind::I1: return builder.getI1Type();
    case fe::ScalarKind::I8: return builder.getI8Type();
    case fe::ScalarKind::I16: return builder.getI16Type();
    case fe::ScalarKind::I32: return builder.getI32Type();
    case fe::ScalarKind::I64: return builder.getI64Type();
    case fe::ScalarKind::F16: return builder.getF16Type();
    case fe::ScalarKind::BF16: return builder.getBF16Type();
    case fe::ScalarKind::F32: return builder.getF32Type();
    }
    return builder.getI32Type();
  }

  static AddressSpace space(fe::AddressSpace s) {
    switch (s) {
    case fe::AddressSpace::Global: return AddressSpace::global;
    case fe::AddressSpace::Shared: return AddressSpace::shared;
    case fe::AddressSpace::Cluster: return AddressSpace::cluster;
    }
    return AddressSpace::global;
  }

  /// The MLIR type of a scalar or pointer value.
  Type valueType(const fe::Type &t) {
    if (t.isPointer())
      return PtrType::get(builder.getContext(), scalarType(t.scalar), space(t.space));
    return scalarType(t.scalar);
  }

  Value intConst(Location l, Type type, int64_t v) {
    unsigned width = type.getIntOrFloatBitWidth();
    return arith::ConstantOp::create(builder, l, type,
                                     builder.getIntegerAttr(type, APInt(width, uint64_t(v), true,
                                                                        /*implicitTrunc=*/true)));
  }

  Value boolConst(Location l, bool v) { return intConst(l, builder.getI1Type(), v ? 1 : 0); }

  /// Integer conversion: sign-extend or truncate (zero-extend for ids and i1).
  Value castInt(Location l, Value v, Type to, bool isUnsigned = false) {
    unsigned from = v.getType().getIntOrFloatBitWidth(), width = to.getIntOrFloatBitWidth();
    if (from == width)
      return v;
    if (from > width)
      return arith::TruncIOp::create(builder, l, to, v);
    if (isUnsigned || from == 1)
      return arith::ExtUIOp::create(builder, l, to, v);
    return arith::ExtSIOp::create(builder, l, to, v);
  }

  Value sreg(Location l, SpecialReg r) {
    return SRegOp::create(builder, l, builder.getI32Type(), r);
  }

  /// A per-thread mutable slot, created at the start of the kernel's entry
  /// block so it dominates every use (and becomes an entry-block alloca).
  Value newSlot(Location l, Type type) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&kernel.getBody().front());
    return LocalVarOp::create(builder, l,
                              PtrType::get(builder.getContext(), type, AddressSpace::local));
  }

  Value loadWeak(Location l, Value ptr) {
    auto type = cast<PtrType>(ptr.getType());
    return LoadOp::create(builder, l, type.getElementType(), ptr, MemoryOrder::weak,
                          defaultScopeFor(type.getSpace()));
  }

  void storeWeak(Location l, Value value, Value ptr) {
    auto type = cast<PtrType>(ptr.getType());
    StoreOp::create(builder, l, value, ptr, MemoryOrder::weak, defaultScopeFor(type.getSpace()));
  }

  //===--------------------------------------------------------------------===//
  // Kernels
  //===--------------------------------------------------------------------===//

  void genKernel(const fe::KernelAST &k) {
    kernelAST = &k;
    values.clear();
    slots.clear();
    views.clear();
    arrays.clear();
    returnedFlag = nullptr;

    SmallVector<Type> argTypes;
    for (const auto &p : k.params)
      argTypes.push_back(valueType(p->type));
    builder.setInsertionPointToEnd(module->getBody());
    Location l = loc(k.loc);
    kernel = KernelOp::create(builder, l, k.name, builder.getFunctionType(argTypes, {}),
                              /*arg_attrs=*/nullptr, /*res_attrs=*/nullptr,
                              /*cluster_dims=*/nullptr, /*cluster_dynamic=*/false,
                              /*max_threads=*/nullptr);
    if (k.cluster.kind == fe::ClusterAttr::Static)
      kernel.setClusterDimsAttr(builder.getDenseI32ArrayAttr(
          {k.cluster.dims[0], k.cluster.dims[1], k.cluster.dims[2]}));
    else if (k.cluster.kind == fe::ClusterAttr::Dynamic)
      kernel.setClusterDynamic(true);
    if (k.threads.present)
      kernel.setMaxThreadsAttr(builder.getDenseI32ArrayAttr(
          {k.threads.dims[0], k.threads.dims[1], k.threads.dims[2]}));

    Block *entry = builder.createBlock(&kernel.getBody(), {}, argTypes,
                                       SmallVector<Location>(argTypes.size(), l));
    for (const auto &p : k.params)
      values[p.get()] = entry->getArgument(p->paramIndex);
    builder.setInsertionPointToEnd(entry);
    if (blockMayReturn(k.body)) {
      returnedFlag = newSlot(l, builder.getI1Type());
      storeWeak(l, boolConst(l, false), returnedFlag);
    }
    genBlock(k.body, 0);
    builder.setInsertionPointToEnd(entry);
    ReturnOp::create(builder, l);
  }

  //===--------------------------------------------------------------------===//
  // Statements
  //===--------------------------------------------------------------------===//

  static bool stmtMayReturn(const fe::StmtAST &s) {
    if (s.is<fe::ReturnStmt>())
      return true;
    if (auto *f = s.as<fe::ForStmt>())
      return blockMayReturn(f->body);
    if (auto *w = s.as<fe::WhileStmt>())
      return blockMayReturn(w->body);
    if (auto *i = s.as<fe::IfStmt>())
      return blockMayReturn(i->thenBody) || blockMayReturn(i->elseBody);
    return false;
  }

  static bool blockMayReturn(const fe::Block &b) {
    for (const auto &s : b)
      if (stmtMayReturn(*s))
        return true;
    return false;
  }

  Value notReturned(Location l) {
    return arith::XOrIOp::create(builder, l, loadWeak(l, returnedFlag), boolConst(l, true));
  }

  /// Emits stmts[from..]; after a statement that may return, the rest runs
  /// under `if !returned`. Statements after a plain `return` are dead.
  void genBlock(const fe::Block &stmts, size_t from) {
    for (size_t i = from; i < stmts.size(); ++i) {
      const fe::StmtAST &s = *stmts[i];
      genStmt(s);
      if (s.is<fe::ReturnStmt>())
        return;
      if (stmtMayReturn(s) && i + 1 < stmts.size()) {
        Location l = loc(stmts[i + 1]->loc);
        auto guard = scf::IfOp::create(builder, l, notReturned(l), /*withElseRegion=*/false);
        OpBuilder::InsertionGuard g(builder);
        builder.setInsertionPoint(guard.thenBlock()->getTerminator());
        genBlock(stmts, i + 1);
        return;
      }
    }
  }

  void genStmt(const fe::StmtAST &s) {
    switch (s.kind()) {
    case fe::StmtAST::Let: return genLet(*s.as<fe::LetStmt>());
    case fe::StmtAST::SharedArray: return genSharedArray(*s.as<fe::SharedArrayStmt>());
    case fe::StmtAST::Assign: return genAssign(*s.as<fe::AssignStmt>());
    case fe::StmtAST::For: return genFor(*s.as<fe::ForStmt>());
    case fe::StmtAST::If: return genIf(*s.as<fe::IfStmt>());
    case fe::StmtAST::While: return genWhile(*s.as<fe::WhileStmt>());
    case fe::StmtAST::ExprStmt: genExpr(*s.as<fe::ExprStmtAST>()->expr); return;
    case fe::StmtAST::Return: {
      Location l = loc(s.loc);
      storeWeak(l, boolConst(l, true), returnedFlag);
      return;
    }
    case fe::StmtAST::MBarrier: return; // TODO(mlirgen): #3
    }
  }

  void genLet(const fe::LetStmt &s) {
    const fe::Decl *d = s.decl.get();
    if (d->type.isArray()) {
      views[d] = genView(*s.init);
      return;
    }
    Value v = genExpr(*s.init);
    if (d->kind == fe::DeclKind::Var) {
      Value slot = newSlot(loc(d->loc), v.getType());
      storeWeak(loc(s.loc), v, slot);
      slots[d] = slot;
      return;
    }
    values[d] = v;
  }

  /// Shared arrays: static ones get a `.shared` variable; dynamic ones a count
  /// operand (per-CTA elements) that places them in the dynamic window.
  void genSharedArray(const fe::SharedArrayStmt &s) {
    Location l = loc(s.loc);
    Type elem = scalarType(s.elem.type.scalar);
    auto ptrType = PtrType::get(builder.getContext(), elem, AddressSpace::shared);
    ArrayInfo info;
    info.distributed = s.distributed;
    info.count = genExpr(*s.count);
    Type lenType = info.count.getType();
    if (s.distributed) {
      if (s.staticPerBlock) {
        info.perBlock = intConst(l, lenType, *s.staticPerBlock);
      } else {
        // per_block = ceil(N / cluster size), from the launch's cluster shape
        // unless the kernel fixes it.
        std::optional<int64_t> size = kernel.getStaticClusterSize();
        Value cs = size ? intConst(l, lenType, *size)
                        : castInt(l, sreg(l, SpecialReg::cluster_nctarank), lenType, true);
        Value rounded = arith::SubIOp::create(builder, l,
                                              arith::AddIOp::create(builder, l, info.count, cs),
                                              intConst(l, lenType, 1));
        info.perBlock = arith::DivUIOp::create(builder, l, rounded, cs);
      }
    }
    if (s.isStatic)
      info.base = SharedAllocOp::create(builder, l, ptrType, Value(),
                                        builder.getI64IntegerAttr(*s.staticPerBlock));
    else
      info.base = SharedAllocOp::create(builder, l, ptrType,
                                        s.distributed ? info.perBlock : info.count, IntegerAttr());
    arrays[&s] = info;
  }

  void genAssign(const fe::AssignStmt &s) {
    Location l = loc(s.loc);
    std::optional<fe::BinaryOp> op = fe::assignBinaryOp(s.op);
    Value ptr;
    if (auto *ref = s.target->as<fe::VarRefExpr>())
      ptr = slots.lookup(ref->decl);
    else
      ptr = genAddress(*s.target->as<fe::IndexExpr>());
    Value value = genExpr(*s.value);
    if (op)
      value = genBinaryOp(l, *op, loadWeak(l, ptr), value, s.target->type);
    storeWeak(l, value, ptr);
  }

  void genIf(const fe::IfStmt &s) {
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
  Value whileCondition(Location l, const std::function<Value()> &cond) {
    if (!returnedFlag)
      return cond();
    auto op = scf::IfOp::create(builder, l, builder.getI1Type(), notReturned(l),
                                /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPointToStart(op.thenBlock());
    scf::YieldOp::create(builder, l, cond());
    builder.setInsertionPointToStart(op.elseBlock());
    scf::YieldOp::create(builder, l, boolConst(l, false));
    return op.getResult(0);
  }

  /// `while (cond()) { body(); }` as an scf.while without loop-carried values.
  void emitWhile(Location l, const std::function<Value()> &cond,
                 const std::function<void()> &body) {
    auto op = scf::WhileOp::create(builder, l, TypeRange{}, ValueRange{});
    OpBuilder::InsertionGuard g(builder);
    builder.createBlock(&op.getBefore());
    scf::ConditionOp::create(builder, l, whileCondition(l, cond), ValueRange{});
    builder.createBlock(&op.getAfter());
    auto yield = scf::YieldOp::create(builder, l);
    builder.setInsertionPoint(yield);
    body();
  }

  void genWhile(const fe::WhileStmt &s) {
    emitWhile(loc(s.loc), [&] { return genExpr(*s.cond); }, [&] { genBlock(s.body, 0); });
  }

  /// Linear thread id in the block and threads per block. A `threads(X)`
  /// bound with Y = Z = 1 proves the y/z ids are zero.
  std::pair<Value, Value> linearThread(Location l) {
    Value tid = sreg(l, SpecialReg::tid_x), ntid = sreg(l, SpecialReg::ntid_x);
    const auto &t = kernelAST->threads;
    if (t.present && t.dims[1] == 1 && t.dims[2] == 1)
      return {tid, ntid};
    Value ny = sreg(l, SpecialReg::ntid_y), nz = sreg(l, SpecialReg::ntid_z);
    Value z = arith::AddIOp::create(
        builder, l,
        arith::MulIOp::create(builder, l, sreg(l, SpecialReg::tid_z), ny),
        sreg(l, SpecialReg::tid_y));
    tid = arith::AddIOp::create(builder, l, arith::MulIOp::create(builder, l, z, ntid), tid);
    ntid = arith::MulIOp::create(builder, l, arith::MulIOp::create(builder, l, ntid, ny), nz);
    return {tid, ntid};
  }

  /// Range: [start, end) by step. block_range/grid_range: the thread's first
  /// index and the stride, computed in the loop variable's type.
  void genFor(const fe::ForStmt &s) {
    Location l = loc(s.loc);
    Type type = scalarType(s.loopVar->type.scalar);
    Value start, end = genExpr(*s.end), step;
    if (s.forKind == fe::ForKind::Range) {
      start = genExpr(*s.start);
      step = s.step ? genExpr(*s.step) : intConst(l, type, 1);
    } else {
      auto [tid, ntid] = linearThread(l);
      start = castInt(l, tid, type, true);
      step = castInt(l, ntid, type, true);
      if (s.forKind == fe::ForKind::GridRange) {
        Value bid = sreg(l, SpecialReg::ctaid_x), nbid = sreg(l, SpecialReg::nctaid_x);
        Value by = sreg(l, SpecialReg::ctaid_y), bz = sreg(l, SpecialReg::ctaid_z);
        Value ny = sreg(l, SpecialReg::nctaid_y), nz = sreg(l, SpecialReg::nctaid_z);
        Value zy = arith::AddIOp::create(builder, l, arith::MulIOp::create(builder, l, bz, ny), by);
        bid = arith::AddIOp::create(builder, l, arith::MulIOp::create(builder, l, zy, nbid), bid);
        nbid = arith::MulIOp::create(builder, l, arith::MulIOp::create(builder, l, nbid, ny), nz);
        Value blockStart = arith::MulIOp::create(builder, l, castInt(l, bid, type, true), step);
        start = arith::AddIOp::create(builder, l, blockStart, start);
        step = arith::MulIOp::create(builder, l, step, castInt(l, nbid, type, true));
      }
    }
    const fe::Decl *var = s.loopVar.get();
    if (!returnedFlag || !blockMayReturn(s.body)) {
      auto loop = scf::ForOp::create(builder, l, start, end, step);
      OpBuilder::InsertionGuard g(builder);
      builder.setInsertionPoint(loop.getBody()->getTerminator());
      values[var] = loop.getInductionVar();
      genBlock(s.body, 0);
      return;
    }
    // A body that may return: a while loop that also stops on the flag.
    Value counter = newSlot(l, type);
    storeWeak(l, start, counter);
    emitWhile(
        l,
        [&] {
          return arith::CmpIOp::create(builder, l, arith::CmpIPredicate::slt,
                                       loadWeak(l, counter), end);
        },
        [&] {
          Value i = loadWeak(l, counter);
          values[var] = i;
          genBlock(s.body, 0);
          storeWeak(l, arith::AddIOp::create(builder, l, i, step), counter);
        });
  }

  //===--------------------------------------------------------------------===//
  // Arrays and addresses
  //===--------------------------------------------------------------------===//

  const ArrayInfo &distArray(const fe::ExprAST &e) {
    auto *ref = e.as<fe::VarRefExpr>();
    return arrays[ref->decl->array];
  }

  /// h.local_base of CTA `rank` (this CTA when rank is null): rank * per_block.
  Value localBase(Location l, const ArrayInfo &a, Value rank = nullptr) {
    Type t = a.count.getType();
    if (!rank)
      rank = sreg(l, SpecialReg::cluster_ctarank);
    return arith::MulIOp::create(builder, l, castInt(l, rank, t, true), a.perBlock);
  }

  /// Elements CTA `rank` owns: clamp(N - local_base, 0, per_block).
  Value localLength(Location l, const ArrayInfo &a, Value rank = nullptr) {
    Type t = a.count.getType();
    Value rest = arith::SubIOp::create(builder, l, a.count, localBase(l, a, rank));
    Value lo = arith::MaxSIOp::create(builder, l, rest, intConst(l, t, 0));
    return arith::MinSIOp::create(builder, l, lo, a.perBlock);
  }

  /// An expression of array type (shared array, view) as a pointer + length.
  View genView(const fe::ExprAST &e) {
    Location l = loc(e.loc);
    if (auto *ref = e.as<fe::VarRefExpr>()) {
      if (ref->decl->kind == fe::DeclKind::SharedArray) {
        const ArrayInfo &a = arrays[ref->decl->array];
        return {a.base, a.count};
      }
      return views.lookup(ref->decl);
    }
    if (auto *m = e.as<fe::MemberExpr>()) { // h.local
      const ArrayInfo &a = distArray(*m->base);
      return {a.base, localLength(l, a)};
    }
    auto *call = e.as<fe::CallExpr>(); // remote(a, rank)
    Value rank = castInt(l, genExpr(*call->args[1]), builder.getI32Type());
    const fe::ExprAST &src = *call->args[0];
    View v;
    if (auto *m = src.as<fe::MemberExpr>()) {
      const ArrayInfo &a = distArray(*m->base);
      v = {a.base, localLength(l, a, rank)}; // the peer's part of h
    } else {
      v = genView(src);
    }
    auto clusterPtr = PtrType::get(builder.getContext(),
                                   cast<PtrType>(v.ptr.getType()).getElementType(),
                                   AddressSpace::cluster);
    return {MapaOp::create(builder, l, clusterPtr, v.ptr, rank), v.len};
  }

  /// Address of `base[index]`. Elements of a dshared array live in CTA
  /// index / per_block at offset index % per_block (reached through mapa).
  Value genAddress(const fe::IndexExpr &e) {
    Location l = loc(e.loc);
    const fe::Type &bt = e.base->type;
    if (bt.kind == fe::Type::DistArray) {
      const ArrayInfo &a = distArray(*e.base);
      Value index = genExpr(*e.index);
      Type t = index.getType().getIntOrFloatBitWidth() >= a.count.getType().getIntOrFloatBitWidth()
                   ? index.getType()
                   : a.count.getType();
      index = castInt(l, index, t);
      Value perBlock = castInt(l, a.perBlock, t);
      // Unsigned: in-range indices are non-negative, and division by a
      // constant per_block becomes a multiply.
      Value owner = arith::DivUIOp::create(builder, l, index, perBlock);
      Value offset = arith::RemUIOp::create(builder, l, index, perBlock);
      auto clusterPtr = PtrType::get(builder.getContext(), scalarType(bt.scalar),
                                     AddressSpace::cluster);
      Value peer = MapaOp::create(builder, l, clusterPtr, a.base,
                                  castInt(l, owner, builder.getI32Type()));
      return PtrAddOp::create(builder, l, peer.getType(), peer, offset);
    }
    Value base = bt.isPointer() ? genExpr(*e.base) : genView(*e.base).ptr;
    return PtrAddOp::create(builder, l, base.getType(), base, genExpr(*e.index));
  }

  //===--------------------------------------------------------------------===//
  // Expressions
  //===--------------------------------------------------------------------===//

  Value genExpr(const fe::ExprAST &e) {
    Location l = loc(e.loc);
    switch (e.kind()) {
    case fe::ExprAST::IntLiteral: {
      auto *lit = e.as<fe::IntLiteralExpr>();
      Type t = scalarType(e.type.scalar);
      if (e.type.isFloat())
        return arith::ConstantOp::create(builder, l, t, builder.getFloatAttr(t, double(lit->value)));
      return intConst(l, t, lit->value);
    }
    case fe::ExprAST::FloatLiteral: {
      Type t = scalarType(e.type.scalar);
      return arith::ConstantOp::create(builder, l, t,
                                       builder.getFloatAttr(t, e.as<fe::FloatLiteralExpr>()->value));
    }
    case fe::ExprAST::BoolLiteral:
      return boolConst(l, e.as<fe::BoolLiteralExpr>()->value);
    case fe::ExprAST::VarRef: {
      const fe::Decl *d = e.as<fe::VarRefExpr>()->decl;
      if (d->kind == fe::DeclKind::Var)
        return loadWeak(l, slots.lookup(d));
      return values.lookup(d);
    }
    case fe::ExprAST::Unary: return genUnary(*e.as<fe::UnaryExpr>());
    case fe::ExprAST::Binary: return genBinary(*e.as<fe::BinaryExpr>());
    case fe::ExprAST::Cast: return genCast(*e.as<fe::CastExpr>());
    case fe::ExprAST::Index: {
      auto &index = *e.as<fe::IndexExpr>();
      return loadWeak(l, genAddress(index));
    }
    case fe::ExprAST::Member: { // h.local_base (h.local is a view: genView)
      auto &m = *e.as<fe::MemberExpr>();
      return localBase(l, distArray(*m.base));
    }
    case fe::ExprAST::Call: return genCall(*e.as<fe::CallExpr>());
    case fe::ExprAST::Vector: return nullptr; // TODO(mlirgen): #3
    }
    return nullptr;
  }

  Value genUnary(const fe::UnaryExpr &e) {
    Location l = loc(e.loc);
    Value v = genExpr(*e.operand);
    Type t = v.getType();
    switch (e.op) {
    case fe::UnaryOp::Neg:
      if (isa<FloatType>(t))
        return arith::NegFOp::create(builder, l, v);
      return arith::SubIOp::create(builder, l, intConst(l, t, 0), v);
    case fe::UnaryOp::Not:
    case fe::UnaryOp::BitNot:
      return arith::XOrIOp::create(builder, l, v, intConst(l, t, -1));
    }
    return v;
  }

  Value genBinary(const fe::BinaryExpr &e) {
    Location l = loc(e.loc);
    if (e.op == fe::BinaryOp::LogicalAnd || e.op == fe::BinaryOp::LogicalOr)
      return genShortCircuit(e);
    Value lhs = genExpr(*e.lhs), rhs = genExpr(*e.rhs);
    return genBinaryOp(l, e.op, lhs, rhs, e.lhs->type);
  }

  /// `a && b` / `a || b` evaluate b only when needed (`i < n && p[i] > 0`).
  Value genShortCircuit(const fe::BinaryExpr &e) {
    Location l = loc(e.loc);
    bool isAnd = e.op == fe::BinaryOp::LogicalAnd;
    Value lhs = genExpr(*e.lhs);
    auto op = scf::IfOp::create(builder, l, builder.getI1Type(), lhs, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPointToStart(isAnd ? op.thenBlock() : op.elseBlock());
    scf::YieldOp::create(builder, l, genExpr(*e.rhs));
    builder.setInsertionPointToStart(isAnd ? op.elseBlock() : op.thenBlock());
    scf::YieldOp::create(builder, l, boolConst(l, !isAnd));
    return op.getResult(0);
  }

  /// `lhs op rhs` on values of the operand type `type` (pointer + integer
  /// offsets by elements).
  Value genBinaryOp(Location l, fe::BinaryOp op, Value lhs, Value rhs, const fe::Type &type) {
    using B = fe::BinaryOp;
    if (type.isPointer()) {
      if (op == B::Sub)
        rhs = arith::SubIOp::create(builder, l, intConst(l, rhs.getType(), 0), rhs);
      return PtrAddOp::create(builder, l, lhs.getType(), lhs, rhs);
    }
    if (type.isFloat()) {
      switch (op) {
      case B::Add: return arith::AddFOp::create(builder, l, lhs, rhs);
      case B::Sub: return arith::SubFOp::create(builder, l, lhs, rhs);
      case B::Mul: return arith::MulFOp::create(builder, l, lhs, rhs);
      case B::Div: return arith::DivFOp::create(builder, l, lhs, rhs);
      default: break;
      }
      // Ordered comparisons, except != which is true for NaN (as in C).
      arith::CmpFPredicate pred = arith::CmpFPredicate::OEQ;
      switch (op) {
      case B::Eq: pred = arith::CmpFPredicate::OEQ; break;
      case B::Ne: pred = arith::CmpFPredicate::UNE; break;
      case B::Lt: pred = arith::CmpFPredicate::OLT; break;
      case B::Le: pred = arith::CmpFPredicate::OLE; break;
      case B::Gt: pred = arith::CmpFPredicate::OGT; break;
      case B::Ge: pred = arith::CmpFPredicate::OGE; break;
      default: break;
      }
      return arith::CmpFOp::create(builder, l, pred, lhs, rhs);
    }
    switch (op) {
    case B::Add: return arith::AddIOp::create(builder, l, lhs, rhs);
    case B::Sub: return arith::SubIOp::create(builder, l, lhs, rhs);
    case B::Mul: return arith::MulIOp::create(builder, l, lhs, rhs);
    case B::Div: return arith::DivSIOp::create(builder, l, lhs, rhs);
    case B::Rem: return arith::RemSIOp::create(builder, l, lhs, rhs);
    case B::Shl: return arith::ShLIOp::create(builder, l, lhs, rhs);
    case B::Shr: return arith::ShRSIOp::create(builder, l, lhs, rhs);
    case B::BitAnd: return arith::AndIOp::create(builder, l, lhs, rhs);
    case B::BitOr: return arith::OrIOp::create(builder, l, lhs, rhs);
    case B::BitXor: return arith::XOrIOp::create(builder, l, lhs, rhs);
    case B::LogicalAnd: return arith::AndIOp::create(builder, l, lhs, rhs);
    case B::LogicalOr: return arith::OrIOp::create(builder, l, lhs, rhs);
    default: break;
    }
    arith::CmpIPredicate pred = arith::CmpIPredicate::eq;
    switch (op) {
    case B::Ne: pred = arith::CmpIPredicate::ne; break;
    case B::Lt: pred = arith::CmpIPredicate::slt; break;
    case B::Le: pred = arith::CmpIPredicate::sle; break;
    case B::Gt: pred = arith::CmpIPredicate::sgt; break;
    case B::Ge: pred = arith::CmpIPredicate::sge; break;
    default: break;
    }
    return arith::CmpIOp::create(builder, l, pred, lhs, rhs);
  }

  Value genCast(const fe::CastExpr &e) {
    Location l = loc(e.loc);
    Value v = genExpr(*e.operand);
    const fe::Type &from = e.operand->type;
    Type to = scalarType(e.type.scalar);
    if (v.getType() == to)
      return v;
    if (from.isInteger() && e.type.isInteger())
      return castInt(l, v, to);
    if (from.isInteger()) // i1 -> float is rejected by Sema
      return arith::SIToFPOp::create(builder, l, to, v);
    if (e.type.isInteger())
      return arith::FPToSIOp::create(builder, l, to, v);
    // float -> float: through f32 (f16 <-> bf16 has no direct conversion).
    if (v.getType().getIntOrFloatBitWidth() == 16 && to.getIntOrFloatBitWidth() == 16)
      v = arith::ExtFOp::create(builder, l, builder.getF32Type(), v);
    if (v.getType().getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(builder, l, to, v);
    return arith::TruncFOp::create(builder, l, to, v);
  }

  static MemoryOrder order(fe::MemOrder o) {
    switch (o) {
    case fe::MemOrder::Weak: return MemoryOrder::weak;
    case fe::MemOrder::Relaxed: return MemoryOrder::relaxed;
    case fe::MemOrder::Acquire: return MemoryOrder::acquire;
    case fe::MemOrder::Release: return MemoryOrder::release;
    case fe::MemOrder::AcqRel: return MemoryOrder::acq_rel;
    case fe::MemOrder::Sc: return MemoryOrder::sc;
    }
    return MemoryOrder::relaxed;
  }

  static MemoryScope scope(fe::MemScope s) {
    switch (s) {
    case fe::MemScope::Cta: return MemoryScope::cta;
    case fe::MemScope::Cluster: return MemoryScope::cluster;
    case fe::MemScope::Gpu: return MemoryScope::gpu;
    case fe::MemScope::Sys: return MemoryScope::sys;
    }
    return MemoryScope::gpu;
  }

  Value idRegister(Location l, SpecialReg x, int axis) {
    return sreg(l, static_cast<SpecialReg>(static_cast<int>(x) + axis));
  }

  Value genCall(const fe::CallExpr &e) {
    Location l = loc(e.loc);
    using BI = fe::Builtin;
    switch (e.builtin) {
    case BI::ThreadId: return idRegister(l, SpecialReg::tid_x, e.axis);
    case BI::BlockDim: return idRegister(l, SpecialReg::ntid_x, e.axis);
    case BI::BlockId: return idRegister(l, SpecialReg::ctaid_x, e.axis);
    case BI::GridDim: return idRegister(l, SpecialReg::nctaid_x, e.axis);
    case BI::ClusterRank: return sreg(l, SpecialReg::cluster_ctarank);
    case BI::ClusterSize: return sreg(l, SpecialReg::cluster_nctarank);
    case BI::ClusterId: return idRegister(l, SpecialReg::clusterid_x, e.axis);
    case BI::ClusterDim: return idRegister(l, SpecialReg::cluster_nctaid_x, e.axis);
    case BI::BlockInCluster: return idRegister(l, SpecialReg::cluster_ctaid_x, e.axis);
    case BI::NumClusters: return idRegister(l, SpecialReg::nclusterid_x, e.axis);
    case BI::LaneId: return sreg(l, SpecialReg::laneid);
    case BI::WarpId:
      return arith::DivUIOp::create(builder, l, linearThread(l).first,
                                    intConst(l, builder.getI32Type(), 32));
    case BI::Min:
    case BI::Max: {
      Value a = genExpr(*e.args[0]), b = genExpr(*e.args[1]);
      return minMax(l, e.builtin == BI::Min, a, b);
    }
    case BI::Clamp: {
      Value x = genExpr(*e.args[0]), lo = genExpr(*e.args[1]), hi = genExpr(*e.args[2]);
      return minMax(l, /*isMin=*/true, minMax(l, /*isMin=*/false, x, lo), hi);
    }
    case BI::Len: {
      const fe::ExprAST &a = *e.args[0];
      if (a.type.kind == fe::Type::DistArray)
        return distArray(a).count;
      return genView(a).len;
    }
    case BI::SyncThreads: BarrierOp::create(builder, l); return nullptr;
    case BI::ClusterSync: ClusterSyncOp::create(builder, l); return nullptr;
    case BI::Remote: return genView(e).ptr; // only reached through genView's users
    case BI::Load: {
      Value ptr = genAddress(*e.args[0]->as<fe::IndexExpr>());
      return LoadOp::create(builder, l, cast<PtrType>(ptr.getType()).getElementType(), ptr,
                            order(e.order), scope(e.scope));
    }
    case BI::Store: {
      Value ptr = genAddress(*e.args[0]->as<fe::IndexExpr>());
      StoreOp::create(builder, l, genExpr(*e.args[1]), ptr, order(e.order), scope(e.scope));
      return nullptr;
    }
    case BI::AtomicCas: {
      Value ptr = genAddress(*e.args[0]->as<fe::IndexExpr>());
      Value cmp = genExpr(*e.args[1]), val = genExpr(*e.args[2]);
      return AtomicCASOp::create(builder, l, val.getType(), ptr, cmp, val, order(e.order), scope(e.scope));
    }
    case BI::AtomicAdd: return genAtomic(e, AtomicKind::add);
    case BI::AtomicMin: return genAtomic(e, AtomicKind::min);
    case BI::AtomicMax: return genAtomic(e, AtomicKind::max);
    case BI::AtomicExch: return genAtomic(e, AtomicKind::exch);
    case BI::AtomicAnd: return genAtomic(e, AtomicKind::and_);
    case BI::AtomicOr: return genAtomic(e, AtomicKind::or_);
    case BI::AtomicXor: return genAtomic(e, AtomicKind::xor_);
    case BI::Arrive: case BI::ArriveExpectTx: case BI::ExpectTx: case BI::Wait: case BI::StoreAsync:
    case BI::Fence: case BI::FenceProxyAsync: case BI::FenceMBarrierInit: case BI::ClusterArrive:
    case BI::ClusterWait: return nullptr; // TODO(mlirgen): #3
    case BI::Unknown: break;
    }
    return nullptr;
  }

  Value genAtomic(const fe::CallExpr &e, AtomicKind kind) {
    Location l = loc(e.loc);
    Value ptr = genAddress(*e.args[0]->as<fe::IndexExpr>());
    Value val = genExpr(*e.args[1]);
    return AtomicRMWOp::create(builder, l, val.getType(), kind, ptr, val, order(e.order), scope(e.scope));
  }

  /// Signed integer / IEEE minNum-maxNum (fminf/fmaxf) min and max.
  Value minMax(Location l, bool isMin, Value a, Value b) {
    if (isa<FloatType>(a.getType()))
      return isMin ? Value(arith::MinNumFOp::create(builder, l, a, b))
                   : Value(arith::MaxNumFOp::create(builder, l, a, b));
    return isMin ? Value(arith::MinSIOp::create(builder, l, a, b))
                 : Value(arith::MaxSIOp::create(builder, l, a, b));
  }
};

} // namespace

OwningOpRef<ModuleOp> mlir::tile::mlirGen(MLIRContext &context, const ::tile::frontend::ModuleAST &module) {
  context.loadDialect<TileDialect, arith::ArithDialect, scf::SCFDialect>();
  return MLIRGenImpl(context).gen(module);
}
