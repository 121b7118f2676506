//===- SemaImpl.h - the checker's internal state (private) -------*- C++ -*-===//
//
// Split over Sema.cpp (kernels, statements, scopes), SemaShared.cpp (shared
// arrays, mbarriers, the static shared-memory total), SemaExpr.cpp
// (expressions and literal adaptation), SemaCall.cpp (builtins, orders and
// scopes) and one file per construct family.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FRONTEND_SEMAIMPL_H
#define TILEC_FRONTEND_SEMAIMPL_H

#include "tilec/frontend/Sema.h"

#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tile::frontend {

/// Whether a named argument's value is an expression (`row_stride = ld`,
/// `rows = n`), not a word the builtin reads (`order = acquire`,
/// `multicast = x`): SemaResolve.cpp.
bool namedArgTakesValue(const std::string &name);

/// A compile-time scalar: integers sign-extended from their width (i1 as
/// 0/1), floats already rounded to their format.
struct ConstValue {
  bool isFloat = false;
  int64_t i = 0;
  double f = 0;
  bool isZero() const;
};

/// The hint of an error that wanted a scalar and found `found`: `scalarHint`
/// (a cast, a comparison) when `found` is a scalar or a literal; otherwise
/// what a value of that kind offers instead, since no cast turns a pointer,
/// vector, array, fragment or per_row/per_col value into a scalar
/// (SemaTypes.cpp).
std::string nonScalarHint(const Type &found, const std::string &scalarHint);
/// The hint of indexing (`f[r, c]`) or a member (`f.x`) of a value that has
/// none: `fallback`, except for a fragment, per_row or per_col value, whose
/// elements no thread reads by position (SemaTypes.cpp).
std::string elementAccessHint(const Type &base, const std::string &fallback);

/// `(f32, i32)`: several values' types.
std::string valuesText(const std::vector<Type> &types);
/// Whether vec<k, n> exists: 2, 4, 8 or 16 elements, 4, 8 or 16 bytes, no i1
/// (SemaVector.cpp).

/// Why the `const` or compile-time parameter `c`, written as a count of
/// `what` (a tensor extent, a semaphore count), is no integer from 1 to
/// `max` (written `maxText`); empty when it is one (SemaTma.cpp).
std::string badCountConstant(const Decl &c, int64_t max, const std::string &maxText,
                             const std::string &what);

/// Extent `dim` of a type written with one (a fragment's rows or columns,
/// a per_row/per_col extent, a vector's lanes, a local array's length):
/// set, or read (nullopt when t has no such extent) (SemaFold.cpp).
void setTypeExtent(Type &t, unsigned dim, int64_t value);
std::optional<int64_t> typeExtent(const Type &t, unsigned dim);

/// `{1.0, 2.0}`: a vector literal of literals only (negated ones included),
/// whose element type comes from its context like a literal's (SemaVector.cpp).
bool isLiteralVector(const ExprAST &e);

/// "the largest finite f16 is 65504; use f32 for larger values" (SemaExpr.cpp).
std::string floatRangeHint(ScalarKind k);

/// The type of a literal shift amount beside an integer value of type
/// `value`: that type, or a 64-bit one for a literal it cannot hold
/// (SemaLiterals.cpp).
Type literalShiftAmountType(const ExprAST &amount, const Type &value);

class Sema {
public:
  Sema(DiagnosticEngine &diags, const CheckOptions &opts) : diags_(diags), opts_(opts) {}
  bool run(ModuleAST &module);

  // ---- Sema.cpp: kernels and statements
  void checkKernel(KernelAST &k);
  void checkBlock(Block &block, bool kernelTopLevel);
  void checkStmt(StmtAST &s, bool kernelTopLevel);
  void checkLet(LetStmt &s);
  /// The kernel-wide mbarrier checks, once the body is checked: wait without
  /// arrive, expect_tx bytes vs store_async sizes; default wait scopes.
  void checkMBarrierUses();
  void checkAssign(AssignStmt &s);
  void checkFor(ForStmt &s);

  // ---- SemaShared.cpp: shared arrays and mbarriers
  void checkSharedArray(SharedArrayStmt &s, bool kernelTopLevel);
  void checkMBarrier(MBarrierStmt &s, bool kernelTopLevel);
  /// Places `bytes` of static shared memory at the next 16-byte aligned offset;
  /// reports (at loc) and returns false when the kernel goes over the limit.
  bool addStaticSmem(const Location &loc, int64_t bytes, int64_t align = 16);
  bool checkCountExpr(ExprAST &e, const std::string &what = "shared array size");
  /// The one constant evaluator: integer and boolean literals, unary and
  /// binary operators (comparisons and logic give 0/1), casts (no
  /// truncation; a value outside its type's range is `overflow`). `leaf`, when given, values the
  /// other leaves (variables, builtins) or returns nullopt; without it they are not constant.
  using ConstantLeaf = std::function<std::optional<int64_t>(const ExprAST &)>;
  std::optional<int64_t> foldConstant(const ExprAST &e, bool &overflow,
                                      const ConstantLeaf *leaf = nullptr);
  /// The value of an integer constant expression (literals, consts, a
  /// kernel's value parameters, operators on them), checked and folded;
  /// nullopt when it is none or overflows. `reported`: its check reported an
  /// error already (the caller adds none).
  std::optional<int64_t> integerConstant(ExprPtr &e, bool &reported);
  /// The kernel's compile-time parameter or the `const` named `name`, or null.
  const Decl *compileTimeConstant(const std::string &name);
  /// Puts the values of the constants a type's extents name into ts.type
  /// (`frag<f32>[64, BN]`); false, with the error, if one names none.
  /// The extents of ts written as names, each a constant; with
  /// shapeParams (a function's signature) those naming one stay in
  /// ts.namedExtents, bound at each call.
  bool resolveTypeExtents(TypeSyntax &ts,
                          const std::vector<TemplateParam> *shapeParams = nullptr);
  /// A function's shape parameters: each an extent of a parameter's type
  /// (at the definition), bound from the arguments' types (at each call).
  void checkShapeParamsBound(const FnAST &f);
  bool bindShapeParams(const FnAST &fn, CallExpr &e, std::vector<std::optional<Type>> &inferred,
                       std::vector<int64_t> &values);
  std::optional<int64_t> foldConstantUnchecked(const ExprAST &e, bool &overflow,
                                               const ConstantLeaf *leaf);
  /// SemaSync.cpp: waits that no arrival reaches in some CTA rank of a static
  /// cluster (errors). For each CTA rank r the conditions are evaluated with
  /// cluster_rank() = r (and block_in_cluster, cluster_size): a wait(b) that
  /// rank r may reach while no arrive/arrive_expect_tx on its b can run (a
  /// local one that rank r never reaches, a remote one whose target rank is
  /// never r) never completes. store_async only completes bytes; it never
  /// arrives.
  void checkWaitsReachArrivals();

  void pushScope() { scopes_.emplace_back(); }
  void popScope() {
    warnUnreadShadows();
    scopes_.pop_back();
  }
  /// A `let` that shadows a `var` of an enclosing block and is never read
  /// (`let sum = sum + x` where `sum = sum + x` was meant): a warning when
  /// its scope closes.
  void noteShadowingLet(const Decl &d);
  void warnUnreadShadows();
  void declare(Decl &d);
  Decl *lookup(const std::string &name) const;
  /// The builtin or file function nearest to an unknown callee, or "" (SemaCall.cpp).
  std::string closestCallee(const std::string &name) const;
  /// The one visible name nearest to an unknown `name` (case ignored), or "".
  std::string nearestVisibleName(const std::string &name) const;
  bool hasCluster() const { return kernel_->cluster.kind != ClusterAttr::None; }
  /// Reports that `what` needs a cluster when the kernel has none.
  bool requireCluster(const Location &loc, const std::string &what);

  // ---- SemaRoles.cpp: warp roles
  /// `warpgroups { ... }`: placement, threads(T), role arguments, register
  /// budget; checks each role's body with curRole_ set.
  void checkWarpgroups(WarpgroupsStmt &s, bool kernelTopLevel);
  /// One role's `warpgroups = n` / `regs = r`; false after an error.
  bool checkRoleArgs(RoleAST &role);
  /// warpgroup_rank, role_thread_id, role_threads, elect_one; and, inside a
  /// role, the barriers that wait for threads the role does not have.
  Type checkRoleCall(CallExpr &e);
  /// A builtin whose meaning depends on being inside a role.
  static bool isRoleBuiltin(Builtin b);
  /// A call that is wrong inside a role (cluster barriers): reports it and
  /// returns true.
  bool rejectInRole(CallExpr &e);
  /// The mbarrier arrival-count rule (role-aware): a phase that needs more
  /// arrivals than the threads that can arrive ever make never completes.
  void checkMBarrierArrivalCounts();

  // ---- SemaResolve.cpp: names that stand for other expressions
  /// Replaces, in `e` and its subexpressions, every name that is no reference
  /// to storage by what it stands for: `inf` / `nan` (undeclared) by a float
  /// literal, a `const` by its value, `s.NAME` of a ring stage by the stage's
  /// tile. Runs before `e` is checked, so that checking never replaces a name
  /// node (a checker may hold a pointer to a node across infer).
  void resolveNames(ExprPtr &e);
  /// resolveNames on a statement's own expressions (not its nested blocks,
  /// whose statements are resolved when they are checked, in their scopes;
  /// not an assignment's target name: that is a place, checkAssign's).
  void resolveStmtNames(StmtAST &s);
  /// One node: true when `e` was such a name (replaced, or reported).
  bool resolveName(ExprPtr &e);
  /// A name that resolveNames replaces: an undeclared `inf` / `nan`, or a `const`.
  bool namesValue(const VarRefExpr &v) const;

  // ---- SemaExpr.cpp: expressions
  /// Infers a type; literal-only subtrees stay Untyped for the caller to
  /// adapt. Never replaces `e` itself unless adapting literals (adapt,
  /// finalize, checkValue, unify), and then only a literal node; names were
  /// replaced before (resolveNames).
  Type infer(ExprPtr &e);
  /// Infers and then adapts untyped literals to `expected` (or the defaults
  /// i32/f32 when null). Reports a mismatch as "<what>: expected X, found Y".
  Type checkValue(ExprPtr &e, const Type *expected, const std::string &what,
                  const std::string &hint = "");
  /// Gives an untyped literal subtree the type `to`; false after an error.
  bool adapt(ExprPtr &e, const Type &to);
  bool adaptIntLiteral(ExprPtr &e, const Type &to); // SemaLiterals.cpp
  /// Adapts untyped subtrees to the defaults (i32 / f32).
  Type finalize(ExprPtr &e);
  /// Marks an untyped subtree invalid without a diagnostic: an operand of an
  /// operator or call that already failed has no context to take its type
  /// from (SemaLiterals.cpp).
  void abandonUntyped(ExprPtr &e);
  /// Makes two operands agree (literal adaptation); invalid on mismatch.
  Type unify(ExprPtr &lhs, ExprPtr &rhs, const Location &loc, const std::string &what);
  /// Reports (at e) a call that returns no value used as an operand of
  /// `what`; false then.
  bool checkHasValue(const ExprAST &e, const Type &t, const std::string &what);
  Type inferUnary(UnaryExpr &e);
  Type inferBinary(BinaryExpr &e);
  /// `x < 300` with x: i8: computed in i64, with a warning (SemaLiterals.cpp);
  /// false when the comparison is not one of those. Sets t to its operands' type.
  /// The names the branch `if const` does not take uses must exist
  /// (SemaDeadBranch.cpp); cond: the condition, for the note.
  void checkDeadBranchNames(const Block &b, const Location &cond);
  bool widenOutOfRangeComparison(BinaryExpr &e, const Type &l, const Type &r, Type &t);
  /// `let x: i8 = 100 + 100`: literals that took a signed type from their
  /// context and whose + - * wraps it: a warning (SemaLiterals.cpp).
  /// Literal arithmetic whose exact value its signed type cannot hold
  /// (`let b: i8 = 1 << 7`; checked at the root of the + - * << tree, so
  /// `-(1 << 7)` is -128): an error, false (SemaLiterals.cpp).
  bool checkLiteralArithmeticFits(const ExprAST &e);
  bool adaptingExactOperand_ = false; // adapt of an operand of literal + - * << or unary -
  bool adaptingCastOperand_ = false; // adapt under `e as T` (an explicit conversion) or a `const`'s value (whose wrap is its own error): the wrap is allowed
  Type inferCast(CastExpr &e);
  // SemaTypes.cpp: `p as u64`, `a as ptr<T, global>`, `s as ptr<T, shared>`
  Type checkPointerCast(CastExpr &e, Type from, Type to);
  /// An array `e` (of type t) where a pointer `want` is expected: a 1-D
  /// shared array (or a view of one) is the ptr<T, shared> to its first
  /// element, `remote(a, r)` the ptr<T, cluster>. nullopt when t is no array
  /// or want no pointer (the caller compares the types); false after an error
  /// ("<what> has type ..., expected ...", or "cannot cast" for an empty what).
  std::optional<bool> arrayAsPointer(const ExprAST &e, const Type &t, const Type &want,
                                     const std::string &what);
  Type inferIndex(IndexExpr &e, IndexUse use);
  /// Bounds check of a constant index (any constant expression); false after an error.
  bool checkConstantIndex(IndexExpr &e, const Type &base);
  Type inferMember(MemberExpr &e);
  /// Checks `op` on operands of type t (possibly untyped); false after an error.
  bool checkBinaryOperands(BinaryOp op, const Type &t, const Location &loc);
  /// The one fp8 rule (SemaExpr.cpp): e4m3/e5m2 values are stored, moved,
  /// converted and multiplied by mma, never computed on. Reports `what`
  /// (an operator or function spelling) applied to `t` and returns false when
  /// t (or its elements) is fp8.
  bool checkNotFp8(const Location &loc, const Type &t, const std::string &what);
  /// An fp8 fragment is only mma's register operand A: every other use of one
  /// is an error naming `what`.
  bool checkNotFp8Fragment(const Location &loc, const Type &t, const std::string &what);
  /// Which conversions reach fp8 (SemaExpr.cpp); SemaVector.cpp asks too.
  bool checkFp8Cast(const Location &loc, ScalarKind from, ScalarKind to);

  // ---- SemaConst.cpp: constant evaluation, undefined constant operations
  /// The value of a checked expression built from literals and operators,
  /// with the run-time semantics of docs/reference/operators.md; nullopt otherwise.
  std::optional<ConstValue> evalConstant(const ExprAST &e);
  Type checkStaticAssert(CallExpr &e);
  /// amountType: the right operand's type (a shift amount may differ from operandType).
  std::optional<ConstValue> applyBinary(BinaryOp op, const Type &operandType, const ConstValue &l,
                                        const ConstValue &r, const Type &amountType);
  /// Reports `op` (on operands of type t) when its constant rhs (and lhs,
  /// for MIN / -1) is an input that C leaves undefined; lhs may be null.
  bool checkConstantOperation(BinaryOp op, const Type &t, const ExprAST *lhs, const ExprAST &rhs,
                              const Location &loc);
  /// checkConstantOperation on every operator and float->int cast in e
  /// (each node once); false when something was reported.
  bool checkConstantOps(const ExprAST &e);
  /// SemaFragment.cpp: `e` of type `t` names the elements of a 1-D shared
  /// array of this CTA (`shared<T>[N]`, `h.local`, a `view<T, shared>`),
  /// which store(p, r), load_per_col and load_per_row take where a
  /// ptr<T, shared> is written (its first element); reports (and returns
  /// false for) an array shorter than the `count` values they reach.
  bool sharedArrayAsPointer(const ExprAST &e, const Type &t, int64_t count, bool &ok);
  /// SemaTypes.cpp: an untyped integer constant (`const U = 10 % (3 - 3)`)
  /// whose fold failed, or the condition of a static_assert or `if const`
  /// (which would fold `x / 0` with the run-time rule): reports the step
  /// that has no value (a division by zero, a shift amount outside 0..63) at
  /// its operator (unless `report` is false: the checks of the statement
  /// report it later); false when it finds none.
  bool reportUndefinedConstantStep(const ExprAST &e, bool report = true);
  /// checkConstantOps on the statement's own expressions (not nested blocks),
  /// and on a compound assignment's operation.
  void checkConstantOpsInStmt(StmtAST &s);

  // ---- SemaTypes.cpp: `c ? a : b`, bitcast, popc/clz/brev/bfind, mul_hi
  Type inferSelect(SelectExpr &e);
  /// bitcast<T>(x), popc, clz, brev, bfind.
  Type checkBitCall(CallExpr &e);
  /// mul_hi(a, b): two integers of one type (literals adapt), that type.
  Type checkMulHi(CallExpr &e);
  /// nanosleep(ns): one u32 or i32 (a literal is a u32); no value.
  Type checkNanosleep(CallExpr &e);
  /// `break` / `continue`: binds it to the innermost loop (loops_).
  void checkLoopExit(StmtAST &s);

  // ---- SemaFragment.cpp: the fragment algebra (fragments, per_row, per_col)
  /// `x` (of type t) as an operand of an element-wise op of broadcast shape
  /// `shape`: a distributed value that broadcasts to it with its element
  /// type, or a scalar of that type (literals adapt); false after an error.
  bool checkFragmentOperand(ExprPtr &x, const Type &t, const Type &shape, const std::string &what);
  Type checkFragmentBinary(BinaryExpr &e, const Type &l, const Type &r);
  Type checkFragmentCast(CastExpr &e, const Type &from, const Type &to);
  /// Whether an argument is a fragment, per_row or per_col value.
  static bool anyFragmentArg(const CallExpr &e);
  /// min/max/fma/select/exp2/exp/log2/log/abs with a distributed argument
  /// (the arguments already inferred).
  Type checkFragmentArgs(CallExpr &e);
  Type checkSelectCall(CallExpr &e);
  Type checkValueSelect(CallExpr &e);
  /// frag_row(f), frag_col(f).
  Type checkFragmentIndexCall(CallExpr &e);
  /// row_max(f), row_sum(f).
  Type checkRowReduction(CallExpr &e);
  /// load_per_col(p, f[, cols = n]) and load_per_row(p, f[, rows = n]).
  Type checkLoadPerCol(CallExpr &e);
  /// The `rows = n` / `cols = n` (named `limit`) of those loads, both of
  /// load_frag (`limit` null).
  bool checkLoadLimit(CallExpr &e, const char *limit, const char *form);
  Type checkLoadFrag(CallExpr &e);
  Type checkLoadFragTile(CallExpr &e, ExprPtr &tileRef, const Type &src, const Type &frag,
                         std::optional<int64_t> viewRows);
  /// `row_stride = ld` of a fragment stored or loaded through a pointer.
  bool checkFragmentRowStride(NamedArg &stride, int64_t cols, bool load);
  /// A fragment store or load_frag with row_stride through a 1-D shared
  /// array (or view): its first element, as load_per_col and a per_row store
  /// take it; false when `e` is no such array. `ok` is false when a
  /// constant length cannot hold the rows a constant stride reaches.
  /// `rows(t, i, n)` (rowsView) of tile t, n = rows: a constant i outside
  /// the tile is an error; false after it (SemaEpilogue.cpp).
  bool checkRowsInTile(const CallExpr &rowsView, const SharedArrayStmt &tile, int64_t rows);
  bool fragmentRowsThroughArray(const ExprAST &e, const Type &t, const Type &frag,
                                NamedArg &stride, bool &ok);
  /// The extents and element type of a written frag / per_row / per_col type.
  bool checkDistributedShape(const Location &loc, const Type &t);
  // ---- SemaEpilogue.cpp: column slices and stores of fragments
  Type checkFragmentCols(CallExpr &e);
  /// store(tile | rows(t, i, n) | p, fragment [, row_stride = ld]).
  Type checkFragmentStore(CallExpr &e);
  bool checkStoreRowsView(CallExpr &view, ExprPtr *&tileRef, int64_t &rows);
  /// Under an `if` whose condition names a thread, lane, warp or warpgroup
  /// (`role_thread_id() < 64`, `warpgroup_rank() == 0`): some threads of the
  /// role skip the block, so a whole-role TMA store there is no such store.
  bool inThreadSelectingIf() const;

  // ---- SemaCall.cpp: builtins
  Type inferCall(CallExpr &e);
  /// The builtins and file functions nearest to an unknown callee, listed.
  std::string nearestCallees(const std::string &name) const;
  Type checkMemoryCall(CallExpr &e);
  bool checkArgCount(CallExpr &e, size_t min, size_t max);
  bool checkNoNamedArgs(CallExpr &e);
  /// Parses `order =` / `scope =` (each at most once; others are errors);
  /// sets e.orderGiven/e.scopeGiven. False after an error.
  bool parseOrderScope(CallExpr &e, bool allowOrder, bool allowScope,
                       std::optional<MemOrder> &order, std::optional<MemScope> &scope,
                       Location &orderLoc, Location &scopeLoc);
  /// mbarrier builtins (arrive, arrive_expect_tx, expect_tx, wait).
  Type checkMBarrierCall(CallExpr &e);
  /// args[i] must be one mbarrier (a remote one only when !localOnly).
  Type checkMBarrierOperand(CallExpr &e, size_t i, bool localOnly);
  Type checkStoreAsync(CallExpr &e);
  /// Static checks of where a store_async's `width` elements land: inside the
  /// array, aligned for st.async.vN, in one CTA, the CTA of the mbarrier.
  bool checkStoreAsyncPlacement(CallExpr &e, IndexExpr &dst, int64_t width, ScalarKind elem);
  /// fence, fence_proxy_async, fence_mbarrier_init, cluster_arrive, cluster_wait.
  Type checkFenceCall(CallExpr &e);
  /// Resolves names in an argument whose call is already in error (no new
  /// diagnostics for vector literals).
  void resolveOnly(ExprPtr &e);
  /// resolveOnly on the arguments of a call to an unknown function, except
  /// that operand views (trans, rows) are not reported as outside an mma.
  void resolveArgsOfUnknownCall(CallExpr &e);
  /// An undeclared name in a call's named argument that the call's check
  /// never reached (`store(p, 1.0, row_stride = nope)` rejected at the
  /// value): reported, once (SemaResolve.cpp).
  void reportUncheckedNames(CallExpr &e);

  // ---- SemaTma.cpp: tensor parameters, n-D shared arrays, TMA copies
  /// Declares the hidden i32 extent parameters (in the parameter scope).
  void checkTensorParams();
  /// Names that some copy_async names as its tile (laid out as TMA tiles).
  void collectTmaTileNames(const Block &body);
  /// `shared<T>[D0, D1, ...]`: folds the dimensions; false after an error.
  bool checkArrayDims(SharedArrayStmt &s);
  /// Swizzle, panels and alignment of a TMA tile; false after an error.
  bool chooseTileLayout(SharedArrayStmt &s);
  /// `t[i, j, ...]` on an n-D array (or `A[c...]` misused).
  Type inferIndexNd(IndexExpr &e, const Type &base);
  Type checkTmaCall(CallExpr &e);
  Type checkDimCall(CallExpr &e);
  /// n-D arrays and TMA tiles are addressed through their layout: only by
  /// their own name (`t[i, j]`, copy_async, len, dim). False (reported) when
  /// `e` names one where `what` would address it as a plain 1-D array.
  bool checkPlainArrayUse(const ExprAST &e, const char *what);
  /// `A[c0, ...]`: the tensor parameter and its i32 coordinates.
  TensorParamSyntax *checkTensorRef(ExprPtr &a, CallExpr &call);
  /// Whether the enclosing `if`s make the current statement run in one thread.
  bool inSingleThread() const;
  bool underGuardInError() const; // an enclosing `if` whose condition failed to check
  // ---- SemaPeer.cpp: multi-GPU
  void checkSemaphoreParams();
  void finishPeerParams();
  void addPeerParam(std::unique_ptr<Decl> d, int kind, int param);
  bool hasPeerParams() const;
  void notePeerUse(const Location &loc);
  /// device_rank, device_count, peer, signal, and wait on a semaphore.
  bool isPeerCall(CallExpr &e);
  Type checkPeerCall(CallExpr &e);
  int checkSemaphoreRef(ExprPtr &a, CallExpr &call, const ExprAST *&index);
  bool checkDeviceArg(ExprPtr &d);
  bool checkCounterValue(ExprPtr &v, CallExpr &call);
  /// peer(A, d) as a copy's tensor: A's VarRef (null when ix's base is no peer call).
  VarRefExpr *peerTensorBase(IndexExpr &ix, CallExpr &call);
  /// peer(A, d) with A a symmetric tensor: A's parameter syntax, null after
  /// an error (`what` names the use in the semaphore error).
  TensorParamSyntax *peerTensorArg(CallExpr &p, const char *what);
  /// `A[i, j]` on a symmetric tensor A, or `peer(A, d)[i, j]`: an element.
  bool isTensorElement(IndexExpr &e);
  Type checkTensorElement(IndexExpr &e);
  bool peerUsed_ = false;
  bool inferringTmaStoreTile_ = false; // the tile operand of a TMA store (SemaTma.cpp)
  bool guardedByWarpgroupLeaderWarp() const; // SemaRings.cpp
  Location firstPeerUse_;
  std::vector<const ExprAST *> ifGuards_;           // conditions of enclosing `if`s (then side)
  /// Immutable scalar names and what they are bound to: a `let`'s
  /// initializer, an inlined function's parameter's argument. The guard
  /// checks (one thread, a warpgroup's leader warp, a thread-selecting `if`)
  /// look through them, so `let t = role_thread_id(); if t == 0 { ... }`
  /// is the guard `role_thread_id() == 0`.
  std::unordered_map<const Decl *, const ExprAST *> boundValues_;
  /// The immutable scalar names of `let (a, b) = f(...)`: the call and the
  /// position of the value each names (boundValue follows them into the
  /// call's `return (x, y)`, so `let (t, _) = f()` with t role_thread_id()
  /// in f is the guard `role_thread_id() == 0` too).
  std::unordered_map<const Decl *, std::pair<const CallExpr *, size_t>> boundResults_;
  /// Declarations some expression read (VarRefExpr resolved to them).
  std::unordered_set<const Decl *> readDecls_;
  /// Inside a warpgroups block: the first read and the first assignment of
  /// each `var` (declared before the block) per role. A role that reads a
  /// `var` another role assigns reads its own copy (every thread has one):
  /// warnVarsAcrossRoles, after the block. assigningVar_: checkAssign's
  /// target is a write, not a read.
  std::unordered_map<const Decl *, std::vector<std::pair<const RoleAST *, Location>>> roleVarReads_,
      roleVarWrites_;
  std::vector<const Decl *> roleVarOrder_; // the vars above, first use first
  bool assigningVar_ = false;
  std::set<std::pair<int, int>> roleVarWarned_;
  void noteRoleVarUse(const Decl *d, Location loc, bool write);
  void warnVarsAcrossRoles();
  /// noteShadowingLet: each shadowing `let`, the `var` it hides, and the depth
  /// of its scope; shadowWarned_: the positions already warned about (a
  /// function's body is checked at each call, a template at each instance).
  struct ShadowingLet {
    const Decl *let, *var;
    size_t depth;
  };
  std::vector<ShadowingLet> shadowingLets_;
  std::set<std::pair<int, int>> shadowWarned_;
  /// `e`, or, when it names such a binding, the bound expression (followed
  /// through chains of them).
  const ExprAST &boundValue(const ExprAST &e) const;
  std::unordered_set<std::string> tmaTileNames_;
  /// While resolveAttrNames checks a kernel's attributes: that kernel, whose
  /// runtime parameters are not in scope there (the unknown-name error says
  /// why).
  const KernelAST *attrKernel_ = nullptr;
  /// mbarriers TMA loads complete on, with those copies: the compiler
  /// expects their bytes, so a user expect_tx on them counts only the bytes
  /// other sources (a peer's store_async) deliver.
  std::unordered_map<MBarrierStmt *, std::vector<CallExpr *>> tmaBarriers_;
  void checkTmaBarriers();
  /// Adapts untyped arguments to `t` and reports the others of another type
  /// (min/max/clamp, math builtins); false after an error.
  bool argsOfOneType(CallExpr &e, const Type &t);
  // ---- SemaWarp.cpp / SemaMath.cpp
  /// shfl_*, vote_*, redux_*, match_*, sync_warp, lanemask_*.
  Type checkWarpCall(CallExpr &e);
  /// fma, abs, sqrt, ..., copysign (and their `approx =`).
  Type checkMathCall(CallExpr &e);
  /// threads / max_threads / min_blocks against tile/target.h.
  void checkLaunchBounds(KernelAST &k);
  // ---- SemaCache.cpp: cache hints on load/store, cache_policy()
  /// Parses cache =, evict =, prefetch =, policy =, vector = into e.hints.
  bool takeMemoryHints(CallExpr &e);
  /// The PTX combination rules (tilec/Target/CacheRules.h) once e.space is known.
  bool checkMemoryHints(CallExpr &e, bool orderGiven);
  std::optional<int64_t> namedArgConstant(NamedArg &na, const std::string &hint);
  Type checkCachePolicy(CallExpr &e);

  // ---- SemaVector.cpp: vec<T, N>, f16x2/bf16x2, vector loads and stores
  bool checkVectorShape(const Location &loc, ScalarKind k, int64_t n);
  Type checkVectorElements(std::vector<ExprPtr> &elems, const Location &loc, const Type *expected,
                           const std::string &what);
  Type checkVectorLiteral(VectorExpr &v, const Type *expected);
  Type checkPack(CallExpr &e);
  bool checkVectorElementTarget(IndexExpr &e);
  Type inferVectorLane(IndexExpr &e, const Type &base, const Type &idx);
  Type inferVectorMember(MemberExpr &e, const Type &base);
  bool checkLaneTarget(IndexExpr &e, const Type &base);
  Type checkVectorBinary(BinaryExpr &e, const Type &l, const Type &r);
  Type checkVectorCast(CastExpr &e, const Type &from, const Type &to);
  std::optional<Type> checkLiteralVectorCast(CastExpr &e, const Type &to);
  bool checkVectorPlacement(IndexExpr &loc, int64_t n);
  Type checkVectorLoad(CallExpr &e, IndexExpr &loc, const Type &elem);
  /// store(LOC, V): a scalar of the element type, or a vector of them.
  bool checkStoreValue(CallExpr &e, IndexExpr *loc, const Type &elem);
  // ---- SemaAbstr.cpp: fn, const, template kernels, local arrays, unroll
  /// File-level constants, functions, template instances (before any kernel).
  void prepareModule(ModuleAST &module);
  void instantiateTemplates(ModuleAST &module);
  /// Checks a `const` and gives its Decl the value; false after an error.
  bool checkConstDecl(ConstStmt &s);
  /// A literal standing for a use of constant `d` at `loc`.
  ExprPtr constantLiteral(const Decl &d, const Location &loc);
  /// cluster(...)/threads(...) dimensions written as constant names.
  void resolveAttrNames(KernelAST &k);
  void checkLocalArray(LocalArrayStmt &s);
  void checkUnroll(ForStmt &s);
  void checkReturn(ReturnStmt &s);
  // SemaTuples.cpp: functions with several results.
  /// The function a call expression calls (not a builtin), or null.
  const FnAST *calledFunction(const ExprAST &e) const;
  /// infer() of an expression that may be a call of a function with
  /// several results (the call of a tuple let, a forwarded return).
  Type inferValues(ExprPtr &e);
  /// Reports the call of a function with several results used as one value.
  bool rejectValuesCall(const CallExpr &e, const FnAST &fn, bool allowed);
  void checkTupleLet(LetStmt &s);
  void checkTupleReturn(ReturnStmt &s, const FnAST &fn, const Type &result,
                        const std::vector<Type> &results);
  /// Set by inferValues for the call it infers (and only that call).
  bool tupleCallAllowed_ = false;
  /// A call of a user function: checks the arguments, parses the body again
  /// and checks it here (CallExpr::inlined).
  Type inferInlinedCall(CallExpr &e, const FnAST &fn);
  /// args[0] of a memory builtin names an element of a local array.
  bool rejectLocalArrayAccess(CallExpr &e);

  // ---- SemaMma.cpp: fragments, mma and its operand views, inflight(n)
  /// frag<T>[M, N] / zeros<T>[M, N]: element type and wgmma shape.
  bool checkFragmentShape(const Location &loc, ScalarKind k, int64_t m, int64_t n);
  /// zeros, mma; rows/trans anywhere but an operand position are errors.
  Type checkMmaCall(CallExpr &e);
  /// In a role, or a kernel of an exact 1-D threads(T), T a multiple of 128.
  bool inWholeWarpgroups() const;
  void checkDistributedThreads(const ExprAST &e);
  Type checkMma(CallExpr &e);
  bool checkMmaOperand(ExprPtr &arg, CallExpr::MmaOperand &op, const char *which);
  bool checkMmaViewArgs(CallExpr &view, bool columns, ExprPtr *&index, int64_t &n);
  bool checkMmaViewBounds(const ExprAST &index, int64_t n, int64_t extent,
                          const std::string &tileName, bool columns);
  bool checkMmaRegisterOperand(const ExprAST &frag, Type t, CallExpr::MmaOperand &op,
                               const char *which, bool viewed);
  bool inferringMmaOperand_ = false; // checkMmaOperand is inferring the tile operand
  /// Operand tiles of mma get the TMA tile layout (into tmaTileNames_).
  void collectMmaTileNames(const Block &body);
  /// After a consume's body: inflight(n), the drain loop, accumulator uses.
  void checkConsumeInflight(RingAccessStmt &s);
  void checkConsumeAnchor(RingAccessStmt &s);
  /// After the kernel body: no non-mma use of an accumulator while groups
  /// of a consume inflight(n > 0) may be in flight (its loop's body).
  void checkInflightUses();
  void checkInflightUses(RingAccessStmt &s);
  std::vector<RingAccessStmt *> inflightConsumes_;

  // ---- SemaAsyncProxy.cpp: what the async proxy writes (kernels without errors)
  /// A generic access of a copy_async tile before the wait on the copy's mbarrier.
  void checkTmaReadsBeforeWait();
  /// Rings produced and consumed a different constant number of times.
  void checkRingCounts();

  // ---- SemaRings.cpp: pipeline rings, produce and consume
  void checkRing(RingStmt &r, bool kernelTopLevel);
  void checkRingAccess(RingAccessStmt &s);
  /// `s.a` (`e`) of ring or stage `d`: replaces `e` by a reference to the
  /// stage tile, or reports it (and leaves it, invalid). SemaResolve.cpp only.
  void resolveRingMember(ExprPtr &e, const Decl &d);
  bool checkProduceBody(const Block &body, bool topLevel);
  bool checkProduceStmts(const Block &body);
  bool checkProduceExpr(const ExprAST &e);
  void reportNonScalarInProduce(const ExprAST &bad);
  bool inRingProduce() const;
  /// copy_async of `tile`: the ring rules (loads into ring tiles only in
  /// their produce block, without an mbarrier; counts the produce's bytes).
  bool checkRingCopy(CallExpr &e, SharedArrayStmt &tile);
  void checkRingPlacement(const Block &b, int ifDepth, const RingAccessStmt *in);
  static bool containsStmt(const Block &b, const StmtAST *target);
  /// Every generic write of shared memory (element assignment, store, the
  /// atomics, fragment stores) passes its target here: a ring's tile is
  /// written only by its produce block's copies. `writer` names the builtin
  /// ("" for an assignment). False (reported) for a ring tile.
  bool checkRingTileWrite(const ExprAST &target, const Location &loc, const std::string &writer);
  /// After the body: roles, consumer warps, placement.
  void checkRings();
  RingAccessStmt *ringAccess_ = nullptr; // the innermost produce/consume being checked
  int64_t produceBytes_ = 0;
  std::unordered_set<const SharedArrayStmt *> produceTiles_;

  void error(const Location &loc, std::string msg, std::string hint) {
    diags_.error(loc, std::move(msg), std::move(hint));
  }

  DiagnosticEngine &diags_;
  const CheckOptions &opts_;
  /// The first expression whose check failed without a diagnostic (a gap in
  /// a check): a file that reports no error but has one does not compile
  /// (Sema::run), so no unchecked expression reaches MLIRGen.
  std::optional<Location> uncheckedExpr_;
  KernelAST *kernel_ = nullptr;
  std::vector<std::unordered_map<std::string, Decl *>> scopes_;
  int nextId_ = 0;
  int dynamicCount_ = 0;
  Block *curBlock_ = nullptr;                        // the block whose statements are being checked
  RoleAST *curRole_ = nullptr;                       // the role whose body is being checked
  /// `turn { ... }` (SemaRoles.cpp): the rule, the role's barriers, and what
  /// may not leave the body (a return, a break or continue of an outer loop).
  void checkTurn(IfStmt &s);
  void checkConstIf(IfStmt &s);
  void checkUnrollReturn(ForStmt &s);
  /// size_of(T), is_float(T), T == f16 (SemaTemplates.cpp): replaced by a
  /// literal in resolveNames; false when `e` is no type query.
  bool resolveTypeQuery(ExprPtr &e);
  IfStmt *turn_ = nullptr;       // the turn being checked
  size_t turnLoops_ = 0;         // loops_.size() at its start
  size_t turnInlines_ = 0;       // inlineStack_.size() at its start
  int nextTurnBarrier_ = 0;      // the next free turn barrier of the kernel
  std::vector<StmtAST *> loops_;                     // enclosing for/while, innermost last
  /// Enclosing fully unrolled loops (`for j in 0 .. 4 unroll`): the loop
  /// variable and its value in each copy of the body, outermost first.
  std::vector<std::pair<const Decl *, const ForStmt *>> unrolled_;
  /// Calls `f` once per copy of the unrolled loops `loops` (indices into
  /// unrolled_) and of the loops their bounds read, with the value of every
  /// loop variable of unrolled_ in that copy (0 for the others); a loop
  /// whose bounds read an outer one (unrollDeps) takes that copy's values.
  /// Stops early when `f` returns false.
  /// The enclosing unrolled loops (indices into unrolled_) whose variables
  /// `e` reads, directly or through `let`s.
  std::vector<size_t> unrolledLoopsIn(const ExprAST &e) const;
  void forEachUnrolledCopy(std::vector<size_t> loops,
                           const std::function<bool(const std::vector<int64_t> &)> &f);
  /// Copies of the current body the enclosing unrolled loops make (full:
  /// one per value; by a factor F: F + 1, the trip's copies and the rest).
  int64_t unrollCopies_ = 1;
  /// The file's kernel names (as written), for the hint of a call of one.
  std::unordered_set<std::string> kernelNames_;
  bool isKernelName(const std::string &n) const { return kernelNames_.count(n) != 0; }
  /// The values `e` takes in the copies of the enclosing unrolled loops, one
  /// per combination of the loop variables it reads (one value when it reads
  /// none); names bound by `let` stand for their values. nullopt when some
  /// copy's value is not a compile-time constant (or overflows: `overflow`).
  /// What a constant-requiring use (a vector element index, cols()) takes,
  /// so an unrolled loop variable is a constant there as in each copy.
  std::optional<std::vector<int64_t>> foldEveryCopy(const ExprAST &e, bool &overflow);
  std::unordered_set<const ExprAST *> constChecked_; // nodes checkConstantOps has seen

  /// What the kernel does with one mbarrier declaration (for checkMBarrierUses).
  struct MBarrierUses {
    bool arrived = false; // arrive / arrive_expect_tx / store_async name it
    std::vector<CallExpr *> waits;
    struct Expect {
      CallExpr *call;
      std::optional<int64_t> bytes;
    };
    std::vector<Expect> expects; // expect_tx / arrive_expect_tx
    struct Async {
      CallExpr *call;
      Block *block;
      bool oneThread; // under a one-thread guard (as a copy_async must be)
    };
    std::vector<Async> stores; // store_async completing on it
    bool storeUnknown = false; // a store_async on it whose size is unknown (error)
  };
  std::unordered_map<MBarrierStmt *, MBarrierUses> mbarrierUses_;
  bool onePeerPerReceiver(const ExprAST &bar);

  // Constants, functions, template kernels, local arrays (SemaAbstr.cpp)
  std::unordered_map<std::string, Decl *> globalConsts_; // file-level `const`
  std::unordered_map<std::string, const FnAST *> functions_;
  /// Functions named like a builtin (an error at the definition): their calls
  /// are not checked as the builtin's.
  std::unordered_set<std::string> refusedFunctions_;
  /// The functions being inlined, innermost last, with their call sites.
  /// A deque: checking a frame's body (a `return` checks its value against
  /// `result`) inlines further calls, and a reference to a frame must survive
  /// the frames pushed meanwhile (a vector would reallocate under it).
  struct InlineFrame {
    const FnAST *fn;
    const CallExpr *call;
    Type result; // the declared result with the call's type arguments
    std::vector<Type> results; // several results, likewise
  };
  std::deque<InlineFrame> inlineStack_;
  /// The `let`s that bind an inlined function's parameters, with the function.
  std::unordered_map<const Decl *, const FnAST *> fnParams_;
  /// Why binding `d` (no `var`) cannot be assigned, `x = v` or, with
  /// `element`, `x[k] = v`: "a kernel parameter" and the hint, what to write
  /// instead for that kind of binding (SemaResolve.cpp).
  std::pair<std::string, std::string> whyNotAssignable(const Decl &d, bool element) const;
  /// A type parameter used as a value (SemaResolve.cpp), reported once per use.
  void reportTypeAsValue(VarRefExpr &v, const Decl &d);
  int inlinedCalls_ = 0;                              // in the current kernel
  /// Statements and expressions being checked, one inside the other, through
  /// the inlined calls: the depth of the checker's recursion and of MLIRGen's
  /// (each function alone is bounded by the parser; calls add them up).
  int nesting_ = 0;
  struct NestingGuard {
    int &depth;
    explicit NestingGuard(int &d) : depth(d) { ++depth; }
    ~NestingGuard() { --depth; }
  };
  /// Statements the current kernel expands to (checkStmt), and whether the
  /// limit was reported.
  static constexpr int64_t kMaxExpandedStmts = 1 << 15;
  int64_t expandedStmts_ = 0;
  bool expansionReported_ = false;
  /// A fragment value outside whole warpgroups was reported in this kernel.
  bool distributedThreadsReported_ = false;
  bool expandedAsWritten_ = true; // every statement so far counted once (no copies)
  /// What each function's and each template kernel's earlier copies (calls,
  /// instances) reported (DiagnosticEngine::closeCopy).
  std::unordered_map<const FnAST *, std::set<std::string>> fnCopiesSeen_;
  std::unordered_map<std::string, std::set<std::string>> instanceCopiesSeen_;
};

/// The named argument `name` of a call, or nullptr.
const NamedArg *findNamedArg(const CallExpr &e, const std::string &name);
/// store(x, ...) whose x is no element access: a fragment store (SemaEpilogue.cpp).
bool isFragmentStore(const CallExpr &e);
/// Whether math builtin b (in its accurate or approx form) calls libdevice.
bool mathNeedsLibdevice(Builtin b, bool approx);
/// copysign, pow, atan2, hypot, fmod: the math functions of two arguments.
bool isTwoArgumentMath(Builtin b);
/// cache, evict, prefetch, policy, vector: the named arguments of SemaCache.cpp.
bool isMemoryHintName(const std::string &name);

/// The declaration an mbarrier expression names: `b`, `s[i]`, `remote(b, r)`,
/// `remote(s[i], r)`; nullptr otherwise.
MBarrierStmt *mbarrierDeclOf(const ExprAST &e);

} // namespace tile::frontend

#endif
