//===- MLIRGenImpl.h - the AST -> tile dialect emitter (internal) -*- C++ -*-===//
//
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
//  - integers are signed (`/ % >> <` use the signed forms), as docs/reference/operators.md says.
//
//
// MLIRGen.cpp: kernels and statements; MLIRGenExpr.cpp: arrays, addresses and
// expressions; MLIRGenArith.cpp: operators with defined results on every input; MLIRGenSync.cpp:
// mbarriers, st.async, fences, cluster barriers.
//===----------------------------------------------------------------------===//
#ifndef TILEC_MLIRGEN_MLIRGENIMPL_H
#define TILEC_MLIRGEN_MLIRGENIMPL_H

#include "tile/Dialect/TileDialect.h"
#include "tilec/MLIRGen.h"
#include "tilec/frontend/AST.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <map>
#include <tuple>

namespace mlir::tile::mlirgen {

/// Marks op tile.shared_only: a compiler-owned synchronisation that publishes
/// shared memory only (a ring slot release, the barrier after a role's TMA
/// store); tile-place-bulk-waits then waits only for a store's read there.
void markSharedOnlySync(Operation *op);

namespace fe = ::tile::frontend;

/// An indexable run of elements: a shared array, `h.local`, or a remote view.
struct View {
  Value ptr; // !tile.ptr<T, shared> or !tile.ptr<T, cluster>
  Value len; // of the array's length type
};

/// A shared or dshared array declared at kernel top level.
struct ArrayInfo {
  Value base;     // this CTA's part, !tile.ptr<T, shared>
  Value count;    // N, the declared length (length type)
  Value perBlock; // dshared: elements per CTA (length type)
  bool distributed = false;
};

class MLIRGenImpl {
public:
  MLIRGenImpl(MLIRContext &context, const MLIRGenOptions &options)
      : builder(&context), options(options) {}

  OwningOpRef<ModuleOp> gen(const fe::ModuleAST &ast) {
    file = ast.file;
    module = ModuleOp::create(builder.getUnknownLoc());
    for (const auto &kernel : ast.kernels)
      genKernel(*kernel);
    return std::move(module);
  }

private:
  OpBuilder builder;
  MLIRGenOptions options;
  OwningOpRef<ModuleOp> module;
  std::string file;

  // Per-kernel state.
  const fe::KernelAST *kernelAST = nullptr;
  KernelOp kernel;
  llvm::DenseMap<const fe::Decl *, Value> values; // let, params, loop variables
  llvm::DenseMap<const fe::Decl *, Value> slots;  // var -> tile.local_var
  llvm::DenseMap<const fe::Decl *, View> views;   // let bound to an array or view
  llvm::DenseMap<const fe::SharedArrayStmt *, ArrayInfo> arrays;
  llvm::DenseMap<const fe::MBarrierStmt *, Value> mbarriers; // !tile.ptr<i64, shared>
  Value returnedFlag;   // !tile.ptr<i1, local>, only when the kernel has a return
  Value warpgroupIndex; // tile.warpgroup_id, in kernels with roles
  const fe::RoleAST *currentRole = nullptr; // the role being emitted
  /// Loops with `break`/`continue` (MLIRGenTypes.cpp): their per-thread flags
  /// (!tile.ptr<i1, local>; null when the loop has no such statement).
  struct LoopExit {
    Value broke, continued;
  };
  llvm::DenseMap<const fe::StmtAST *, LoopExit> loopExits;
  const fe::StmtAST *currentLoop = nullptr; // innermost loop being emitted
  // The inlined function being emitted.
  SmallVector<Value> resultSlots;   // its result(s), when it returns values
  std::optional<Location> callSite; // the call it is inlined at (nested: a CallSiteLoc)
  // An instance of a kernel with compile-time parameters: every position is
  // NameLoc(instanceLocName(kernel's PTX name), position), so a diagnostic of
  // a pass names the instance (SourceLoc.h, instanceOf).
  std::optional<StringAttr> instanceTag;

  //===--------------------------------------------------------------------===//
  // Types, locations, constants
  //===--------------------------------------------------------------------===//

  Location loc(const fe::Location &l) {
    if (l.line <= 0)
      return builder.getUnknownLoc();
    Location at = FileLineColLoc::get(builder.getContext(), l.file.empty() ? file : l.file.str(),
                                      l.line, l.col);
    if (instanceTag)
      at = NameLoc::get(*instanceTag, at);
    // Inside an inlined function: the position in it, called from the call site.
    return callSite ? Location(CallSiteLoc::get(at, *callSite)) : at;
  }

  Type scalarType(fe::ScalarKind k) {
    switch (k) {
    case fe::ScalarKind::I1:
      return builder.getI1Type();
    case fe::ScalarKind::I8:
      return builder.getI8Type();
    case fe::ScalarKind::I16:
      return builder.getI16Type();
    case fe::ScalarKind::I32:
      return builder.getI32Type();
    case fe::ScalarKind::I64:
      return builder.getI64Type();
    case fe::ScalarKind::F16:
      return builder.getF16Type();
    case fe::ScalarKind::BF16:
      return builder.getBF16Type();
    case fe::ScalarKind::F32:
      return builder.getF32Type();
    // Unsigned integers are signless in MLIR: the operators choose the
    // unsigned forms from the AST type (MLIRGenTypes.cpp).
    case fe::ScalarKind::U8:
      return builder.getI8Type();
    case fe::ScalarKind::U16:
      return builder.getI16Type();
    case fe::ScalarKind::U32:
      return builder.getI32Type();
    case fe::ScalarKind::U64:
      return builder.getI64Type();
    case fe::ScalarKind::F64:
      return builder.getF64Type();
    // PTX .e4m3 has no infinity (E4M3FN); .e5m2 is IEEE-like (MLIRGenFp8.cpp).
    case fe::ScalarKind::E4M3:
      return builder.getType<Float8E4M3FNType>();
    case fe::ScalarKind::E5M2:
      return builder.getType<Float8E5M2Type>();
    }
    return builder.getI32Type();
  }

  static AddressSpace space(fe::AddressSpace s) {
    switch (s) {
    case fe::AddressSpace::Global:
      return AddressSpace::global;
    case fe::AddressSpace::Shared:
      return AddressSpace::shared;
    case fe::AddressSpace::Cluster:
      return AddressSpace::cluster;
    case fe::AddressSpace::Local:
      return AddressSpace::local;
    }
    return AddressSpace::global;
  }

  /// The MLIR type of a scalar, pointer, vector or cache-policy value.
  Type valueType(const fe::Type &t) {
    if (t.isTensor())
      return TensorMapType::get(builder.getContext(), scalarType(t.scalar),
                                static_cast<unsigned>(t.dims.size()));
    if (t.isVector())
      return vectorType(t);
    if (t.isDistributed())
      return distType(t);
    if (t.kind == fe::Type::CachePolicy)
      return builder.getI64Type();
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
  /// A `returned`, `broke` or `continued` flag: an i1 slot marked
  /// tile.exit_flag, so that a divergence diagnostic names the decision
  /// that set it rather than the guard that reads it.
  Value newExitFlag(Location l) {
    Value flag = newSlot(l, builder.getI1Type());
    builder.getContext()->getLoadedDialect<TileDialect>()->getExitFlagAttrHelper().setAttr(
        flag.getDefiningOp(), builder.getUnitAttr());
    return flag;
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

  void genKernel(const fe::KernelAST &k);

  //===--------------------------------------------------------------------===//
  // Statements
  //===--------------------------------------------------------------------===//

  static bool stmtMayReturn(const fe::StmtAST &s);

  static bool blockMayReturn(const fe::Block &b);

  Value notReturned(Location l);

  void genBlock(const fe::Block &stmts, size_t from);

  void genStmt(const fe::StmtAST &s);

  void genLet(const fe::LetStmt &s);

  void genSharedArray(const fe::SharedArrayStmt &s);

  void genAssign(const fe::AssignStmt &s);
  void genVectorElementAssign(const fe::AssignStmt &s, const fe::IndexExpr &target);

  void genIf(const fe::IfStmt &s);

  Value whileCondition(Location l, const std::function<Value()> &cond);

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

  void genWhile(const fe::WhileStmt &s);

  std::pair<Value, Value> linearThread(Location l);

  /// The iteration space of a `for`, as scf.for bounds: the induction variable
  /// runs from `lower` while it is below `upper` (compared unsigned when
  /// `isUnsigned`), by `step`; `loopVar` maps it to the loop variable.
  struct LoopBounds {
    Value lower, upper, step;
    bool isUnsigned = false;
    std::function<Value(Value)> loopVar;
  };
  LoopBounds loopBounds(const fe::ForStmt &s);

  void genFor(const fe::ForStmt &s);

  //===--------------------------------------------------------------------===//
  // Arrays and addresses
  //===--------------------------------------------------------------------===//

  const ArrayInfo &distArray(const fe::ExprAST &e);

  Value localBase(Location l, const ArrayInfo &a, Value rank = nullptr);

  Value localLength(Location l, const ArrayInfo &a, Value rank = nullptr);

  View genView(const fe::ExprAST &e);

  Value genAddress(const fe::IndexExpr &e);

  //===--------------------------------------------------------------------===//
  // Expressions
  //===--------------------------------------------------------------------===//

  Value genExpr(const fe::ExprAST &e);

  Value genUnary(const fe::UnaryExpr &e);

  Value genBinary(const fe::BinaryExpr &e);

  Value genShortCircuit(const fe::BinaryExpr &e);

  Value genBinaryOp(Location l, fe::BinaryOp op, Value lhs, Value rhs, const fe::Type &type);

  Value genCast(const fe::CastExpr &e);

  // `c ? a : b`, break/continue, unsigned
  // operators, f64 conversions, bitcast and bit counts.
  Value genSelect(const fe::SelectExpr &e);
  /// Flags for a loop with break/continue, cleared before it starts.
  LoopExit newLoopExit(Location l, bool hasBreak, bool hasContinue);
  /// Whether s may end the current iteration of the loop being emitted
  /// (a break/continue outside nested loops).
  static bool stmtLeavesIteration(const fe::StmtAST &s);
  /// !(broke || continued) of the loop being emitted.
  Value notLeftIteration(Location l);
  void genLoopExit(const fe::StmtAST &s);
  /// `for` with break/continue: a counter loop that stops on the flag.
  void genForWithExits(const fe::ForStmt &s);
  void genWhileWithExits(const fe::WhileStmt &s);
  /// Unsigned `x / d`, `x % d`: x / 0 = all ones, x % 0 = x.
  Value genDivRemU(Location l, bool isRem, Value x, Value d);
  /// Logical `x >> n`: n (unsigned) >= width gives 0.
  Value genShrU(Location l, Value x, Value n);
  /// Any float -> any integer (signed or unsigned): toward zero, saturating,
  /// NaN -> 0. f16/bf16/f32 -> signed keeps genFloatToInt.
  Value genFloatToIntAny(Location l, Value v, Type to, bool toUnsigned);
  /// bitcast, popc, clz, brev, bfind.
  Value genBitCall(const fe::CallExpr &e);

  // Operators defined on every input (MLIRGenArith.cpp).
  /// `x << n` (left) or signed `x >> n`: the amount is read unsigned and
  /// clamped as PTX does (>= width: 0, or the sign fill).
  Value genShift(Location l, bool left, Value x, Value n);
  /// A shift amount of another integer type as one of type t, read unsigned
  /// (an amount >= t's width stays one).
  Value shiftAmountAs(Location l, Value n, Type t);
  /// Signed `x / d` or `x % d`: x / 0 = -1, x % 0 = x, MIN / -1 = MIN, MIN % -1 = 0.
  Value genDivRem(Location l, bool isRem, Value x, Value d);
  /// f16/bf16/f32 -> i8..i64: toward zero, saturating, NaN -> 0 (cvt.rzi).
  Value genFloatToInt(Location l, Value v, Type to);

  static MemoryOrder order(fe::MemOrder o);

  static MemoryScope scope(fe::MemScope s);

  Value idRegister(Location l, SpecialReg x, int axis);

  Value genCall(const fe::CallExpr &e);

  Value genAtomic(const fe::CallExpr &e, AtomicKind kind);

  Value minMax(Location l, bool isMin, Value a, Value b, bool isUnsigned = false);

  /// The fastmath flags of float + - *: `contract` under options.fmad.
  arith::FastMathFlags contractFlags() const {
    return options.fmad ? arith::FastMathFlags::contract : arith::FastMathFlags::none;
  }

  //===--------------------------------------------------------------------===//
  // Warp-level operations (MLIRGenWarp.cpp) and math (MLIRGenMath.cpp)
  //===--------------------------------------------------------------------===//

  Value genWarpCall(const fe::CallExpr &e);
  Value genMathCall(const fe::CallExpr &e);
  /// A call of libdevice function `name` (declared in the module on first use).
  Value callLibdevice(Location l, StringRef name, ValueRange args);

  //===--------------------------------------------------------------------===//
  // Vectors, packed halves, cache-hinted load/store (MLIRGenVector.cpp)
  //===--------------------------------------------------------------------===//

  Type vectorType(const fe::Type &t);
  Value genVector(Location l, const fe::Type &type, const std::vector<fe::ExprPtr> &elems);
  Value genVectorLane(Location l, Value v, int lane);
  Value genVectorArith(Location l, fe::BinaryOp op, Value lhs, Value rhs);
  Value genVectorCast(Location l, Value v, const fe::Type &to);
  // ---- MLIRGenFp8.cpp: e4m3 / e5m2 conversions (packed PTX cvt forms)
  /// An fp8 scalar or vector as i8 bits of the same shape (other values as they are).
  Value fp8Storage(Location l, Value v);
  Value fp8FromStorage(Location l, Value v, Type fp8);
  Value genF32PairToFp8(Location l, Value lo, Value hi, Type fp8);
  Value genF16PairToFp8(Location l, Value pair, Type fp8);
  Value genFp8PairToF16(Location l, Value pair, Type fp8);
  /// Scalar conversion with an fp8 side (the other f32, f16, bf16 or fp8).
  Value genFp8Cast(Location l, Value v, Type to);
  /// Vector conversion with an fp8 side, pair by pair.
  Value genFp8VectorCast(Location l, Value v, VectorType to);
  Value genLoadCall(const fe::CallExpr &e);
  void genStoreCall(const fe::CallExpr &e);
  Value genCachePolicy(const fe::CallExpr &e);

  //===--------------------------------------------------------------------===//
  // mbarriers, st.async, fences (MLIRGenSync.cpp)
  //===--------------------------------------------------------------------===//

  void genMBarrier(const fe::MBarrierStmt &s);
  void genMBarrierInits(Location l);
  Value genMBarrierRef(const fe::ExprAST &e);
  Value genSyncCall(const fe::CallExpr &e);
  void genStoreAsync(const fe::CallExpr &e);

  //===--------------------------------------------------------------------===//
  // Warp roles (MLIRGenRoles.cpp)
  //===--------------------------------------------------------------------===//

  void genWarpgroups(const fe::WarpgroupsStmt &s);
  /// warpgroup_rank, role_thread_id, role_threads, elect_one.
  Value genRoleCall(const fe::CallExpr &e);
  /// sync_threads() inside `role`: its named barrier over its threads.
  void genRoleBarrier(Location l, const fe::RoleAST &role);
  /// sync_threads_count/and/or: tile.barrier with a reduction (the role's
  /// tile.named_barrier inside a role).
  Value genBarrierReduction(const fe::CallExpr &e);
  /// `turn { ... }`: tile.turn_wait, the body, tile.turn_pass to the next
  /// warpgroup (the body's mma waits: tile-place-mma-waits); genTurnEnd: the
  /// role's first hand-over and last take-over.
  void genTurn(const fe::IfStmt &s);
  void genTurnEnd(Location l, const fe::RoleAST &role, bool entry);
  /// {role_thread_id, role_threads} of the current role: what block_range
  /// and grid_range count with inside a role.
  std::pair<Value, Value> roleLinearThread(Location l);

public:
  // Building blocks for features that need one issuing thread (the `tma`
  // ring's `produce`, TMA copies): they work inside a role and outside.
  /// `elect.sync`: true in one lane of the (converged) calling warp.
  Value genElectOne(Location l);
  /// i1: the calling thread is in the first warp of the current role (of the
  /// CTA outside roles). Warp-uniform.
  Value genInFirstWarpOfRole(Location l);
  /// Emits `body` so that exactly one thread of the current role (of the CTA
  /// outside roles) runs it: `if first warp { if elect_one() { body } }`;
  /// elect.sync runs in the whole first warp, converged.
  void genInElectedThread(Location l, const std::function<void()> &body);
  /// Inside the body of a role that runs in one elected thread.
  bool inElectedThread = false;
  // Tiles and TMA (MLIRGenTma.cpp)
  //===--------------------------------------------------------------------===//

  /// The layout of an n-D array or TMA tile (null for a plain 1-D array).
  TileLayoutAttr tileLayout(const fe::SharedArrayStmt &s);

  // Epilogue on fragments (MLIRGenEpilogue.cpp).
  FragType epilogueFragType(const fe::Type &t);
  /// !tile.frag / !tile.per_row / !tile.per_col of a distributed type.
  Type distType(const fe::Type &t);
  /// `v` bound to a name of type `want`: a scalar splat when `want` is a
  /// distributed type (Sema lets a scalar stand for every element there).
  Value bindValue(Location l, Value v, const fe::Type &want);
  Value genFragmentBinary(const fe::BinaryExpr &e);
  Value genFragmentNeg(const fe::UnaryExpr &e);
  /// `operand as T` of the already generated operand v.
  Value genFragmentCast(const fe::CastExpr &e, Value v);
  /// min/max/fma of fragments, frag_row/frag_col, row_vector, fragment stores.
  static bool isEpilogueCall(const fe::CallExpr &e);
  Value genEpilogueCall(const fe::CallExpr &e);
  Value genFragmentCall(const fe::CallExpr &e);
  void genFragmentStore(const fe::CallExpr &e);
  std::pair<const fe::SharedArrayStmt *, Value> fragmentTileRows(const fe::ExprAST &e);
  Value genFragmentTileLoad(const fe::CallExpr &e, FragType type, Value thread);
  /// The value of a store's or load's `rows = n` / `cols = n` (the named
  /// argument `name`, an i32 by Sema), or null without one.
  Value genLimit(const fe::CallExpr &e, const char *name);
  /// copy_async(C[...], tile) reached by a whole role: barrier, elected
  /// store + commit + wait.read, barrier.
  void genRoleTmaStore(const fe::CallExpr &e, Value map, ValueRange coords, Value tile,
                       TileLayoutAttr layout);
  /// Address of `t[i, j, ...]` (or `t[i]` row-major linear) through tile_element.
  Value genTileAddress(const fe::IndexExpr &e);
  Value genTmaCall(const fe::CallExpr &e);
  /// prefetch.tensormap of every tensor some copy moves, by thread 0.
  void genTensorMapPrefetches(Location l);
  /// wait_group 0 before the kernel exits, when it issues TMA stores.
  void genBulkDrain(Location l);

  // Multi-GPU (MLIRGenPeer.cpp)
  Value peerValue(int kind, int param);
  void trapUnless(Location l, Value ok, const std::string &message, ValueRange args,
                  bool silent = false);
  Value checkedDevice(Location l, const fe::ExprAST &device);
  /// The map a copy goes through: ownMap, or entry d of A$peer_maps for peer(A, d).
  Value genPeerTensorMap(const fe::CallExpr &copy, Value ownMap);
  /// The global address of `A[i, j]` / `peer(A, d)[i, j]` (A symmetric):
  /// entry d (or $rank) of A$peers + the row-major offset, indices checked.
  Value genTensorElementAddress(const fe::IndexExpr &e);
  Value semaphoreCounter(Location l, int param, const fe::ExprAST &index,
                         const fe::ExprAST *device);
  Value semaphoreCount(Location l, int param);
  Value counterValue(Location l, const fe::ExprAST &v, const char *what);
  Value genPeerCall(const fe::CallExpr &e);
  void genExitProtocol(Location l);
  /// How many statements at the start of `body` are `if C { copy_async(...) ... }`
  /// (no else, nothing but TMA copies inside): they contain no mma.
  static size_t leadingTmaStoreIfs(const fe::Block &body);
  std::string sourcePosition(const fe::Location &l) const;

  //===--------------------------------------------------------------------===//
  // Rings (MLIRGenRings.cpp)
  //===--------------------------------------------------------------------===//
  // A ring is translated, not expanded: tile.ring (its declaration),
  // tile.ring_init, one tile.ring_cursor per (ring, role, side) and the
  // accesses; tile-lower-rings assigns stages and phases.
  llvm::DenseMap<const fe::RingStmt *, Value> ringOps;
  std::map<std::tuple<const fe::RingStmt *, const fe::RoleAST *, bool>, Value> ringCursors;
  /// The full barrier of the produce block being emitted (copy_async's).
  Value producingFull;
  void genRingStorage(const fe::RingStmt &r);
  /// tile.ring_init of every ring (inside genMBarrierInits' thread 0).
  void genRingInits();
  /// The cursor of one side of r in the current role (created on first use,
  /// in the entry block, where a thread-local slot of the kernel goes).
  Value ringCursor(const fe::RingStmt &r, bool producer);
  void genRingAccess(const fe::RingAccessStmt &s);
  /// The producer tail of every ring the current role (or the kernel
  /// without roles) produces: wait until its last S stages are released.
  void genRingTails(Location l);

  //===--------------------------------------------------------------------===//
  // Fragments and mma (MLIRGenMma.cpp)
  //===--------------------------------------------------------------------===//
  Value genMmaCall(const fe::CallExpr &e);
  /// wgmma.fence at the top of a consume block that issues mma.
  void genMmaConsumeStart(const fe::RingAccessStmt &s);
  /// commit + wait(n) at its end; with n > 0 the delayed release (true: the
  /// caller must not release the current stage itself).
  bool genMmaConsumeEnd(const fe::RingAccessStmt &s, Value stage);
  /// In a consume block: a wait_group 0 was issued after an mma whose result
  /// the block reads, so the block's next mma needs a wgmma.fence again.
  bool mmaFenceDue_ = false;
  /// After a loop: the drains (wait_group 0 + pending releases) of the
  /// consumes with inflight(n > 0) whose innermost loop it is.
  void genMmaDrains(const fe::StmtAST &loop);
  /// Per (ring, role): stages consumed but not yet released (an i32 slot).
  std::map<std::pair<const fe::RingStmt *, const fe::RoleAST *>, Value> mmaPending;
  std::multimap<const fe::StmtAST *, const fe::RingAccessStmt *> mmaDrains;

  //===--------------------------------------------------------------------===//
  // Local arrays, unrolled loops, inlined functions (MLIRGenAbstr.cpp)
  //===--------------------------------------------------------------------===//

  void genLocalArray(const fe::LocalArrayStmt &s);
  /// Address of `r[i]` on a local array (at the index's location, which the
  /// local-array check reports).
  Value genLocalAddress(const fe::IndexExpr &e);
  /// `for ... unroll` (the body once per value) and `unroll(F)`.
  void genUnrolledFor(const fe::ForStmt &s);
  void genUnrolledCopies(const fe::ForStmt &s, size_t from);
  Value genInlinedCall(const fe::CallExpr &e);
  /// The values of an inlined call: its result, or each of several.
  SmallVector<Value> genInlinedCallValues(const fe::CallExpr &e);
  /// `let (a, b) = f(...)`: each name bound as a `let` or `var` of one value.
  void genTupleLet(const fe::LetStmt &s);
  /// A `let` (a value) or `var` (a slot) of `init`, converted to d's type.
  void bindLetDecl(const fe::Decl *d, Value init, Location l);
  void genReturn(const fe::ReturnStmt &s);
};

} // namespace mlir::tile::mlirgen

#endif
