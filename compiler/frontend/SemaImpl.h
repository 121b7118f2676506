//===- SemaImpl.h - the checker's internal state (private) -------*- C++ -*-===//
//
// Split over Sema.cpp (kernels, statements, scopes, shared memory),
// SemaExpr.cpp (expressions and literal adaptation) and SemaCall.cpp
// (builtins, orders and scopes).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FRONTEND_SEMAIMPL_H
#define TILEC_FRONTEND_SEMAIMPL_H

#include "tilec/frontend/Sema.h"

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tile::frontend {

/// A compile-time scalar: integers sign-extended from their width (i1 as
/// 0/1), floats already rounded to their format.
struct ConstValue {
  bool isFloat = false;
  int64_t i = 0;
  double f = 0;
  bool isZero() const;
};

class Sema {
public:
  Sema(DiagnosticEngine &diags, const CheckOptions &opts) : diags_(diags), opts_(opts) {}
  bool run(ModuleAST &module);

  // ---- Sema.cpp: kernels and statements
  void checkKernel(KernelAST &k);
  void checkBlock(Block &block, bool kernelTopLevel);
  void checkStmt(StmtAST &s, bool kernelTopLevel);
  void checkLet(LetStmt &s);
  void checkSharedArray(SharedArrayStmt &s, bool kernelTopLevel);
  void checkMBarrier(MBarrierStmt &s, bool kernelTopLevel);
  /// Places `bytes` of static shared memory at the next 16-byte aligned offset;
  /// reports (at loc) and returns false when the kernel goes over the limit.
  bool addStaticSmem(const Location &loc, int64_t bytes);
  /// The kernel-wide mbarrier checks, once the body is checked: wait without
  /// arrive, expect_tx bytes vs store_async sizes; default wait scopes.
  void checkMBarrierUses();
  void checkAssign(AssignStmt &s);
  void checkFor(ForStmt &s);
  bool checkCountExpr(ExprAST &e, const std::string &what = "shared array size");
  /// The one constant evaluator: integer and boolean literals, unary and
  /// binary operators (comparisons and logic give 0/1), casts (no
  /// truncation; a value outside its type's range is `overflow`). `leaf`, when given, values the
  /// other leaves (variables, builtins) or returns nullopt; without it they are not constant.
  using ConstantLeaf = std::function<std::optional<int64_t>(const ExprAST &)>;
  std::optional<int64_t> foldConstant(const ExprAST &e, bool &overflow,
                                      const ConstantLeaf *leaf = nullptr);
  std::optional<int64_t> foldConstantUnchecked(const ExprAST &e, bool &overflow,
                                               const ConstantLeaf *leaf);
  /// SemaDivergence.cpp: barriers in control flow that threads or CTAs take
  /// differently (warnings), and waits that no arrival reaches in some CTA of
  /// a static cluster (errors).
  void checkDivergence();

  void pushScope() { scopes_.emplace_back(); }
  void popScope() { scopes_.pop_back(); }
  void declare(Decl &d);
  Decl *lookup(const std::string &name) const;
  bool hasCluster() const { return kernel_->cluster.kind != ClusterAttr::None; }
  /// Reports that `what` needs a cluster when the kernel has none.
  bool requireCluster(const Location &loc, const std::string &what);

  // ---- SemaExpr.cpp: expressions
  /// Infers a type; literal-only subtrees stay Untyped for the caller to adapt.
  Type infer(ExprPtr &e);
  /// Infers and then adapts untyped literals to `expected` (or the defaults
  /// i32/f32 when null). Reports a mismatch as "<what>: expected X, found Y".
  Type checkValue(ExprPtr &e, const Type *expected, const std::string &what,
                  const std::string &hint = "");
  /// Gives an untyped literal subtree the type `to`; false after an error.
  bool adapt(ExprPtr &e, const Type &to);
  /// Adapts untyped subtrees to the defaults (i32 / f32).
  Type finalize(ExprPtr &e);
  /// Makes two operands agree (literal adaptation); invalid on mismatch.
  Type unify(ExprPtr &lhs, ExprPtr &rhs, const Location &loc, const std::string &what);
  Type inferUnary(UnaryExpr &e);
  Type inferBinary(BinaryExpr &e);
  Type inferCast(CastExpr &e);
  Type inferIndex(IndexExpr &e, IndexUse use);
  /// Bounds check of a constant index (any constant expression); false after an error.
  bool checkConstantIndex(IndexExpr &e, const Type &base);
  Type inferMember(MemberExpr &e);
  /// Checks `op` on operands of type t (possibly untyped); false after an error.
  bool checkBinaryOperands(BinaryOp op, const Type &t, const Location &loc);

  // ---- SemaConst.cpp: constant evaluation, undefined constant operations
  /// The value of a checked expression built from literals and operators,
  /// with the run-time semantics of docs/language.md; nullopt otherwise.
  std::optional<ConstValue> evalConstant(const ExprAST &e);
  std::optional<ConstValue> applyBinary(BinaryOp op, const Type &operandType, const ConstValue &l,
                                        const ConstValue &r);
  /// Reports `op` (on operands of type t) when its constant rhs (and lhs,
  /// for MIN / -1) is an input that C leaves undefined; lhs may be null.
  bool checkConstantOperation(BinaryOp op, const Type &t, const ExprAST *lhs, const ExprAST &rhs,
                              const Location &loc);
  /// checkConstantOperation on every operator and float->int cast in e
  /// (each node once); false when something was reported.
  bool checkConstantOps(const ExprAST &e);
  /// checkConstantOps on the statement's own expressions (not nested blocks),
  /// and on a compound assignment's operation.
  void checkConstantOpsInStmt(StmtAST &s);

  // ---- SemaCall.cpp: builtins
  Type inferCall(CallExpr &e);
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

  // ---- SemaAbstr.cpp: issue #11 fn, const, template kernels, local arrays, unroll
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
  /// A call of a user function: checks the arguments, parses the body again
  /// and checks it here (CallExpr::inlined).
  Type inferInlinedCall(CallExpr &e, const FnAST &fn);
  /// args[0] of a memory builtin names an element of a local array.
  bool rejectLocalArrayAccess(CallExpr &e);

  void error(const Location &loc, std::string msg, std::string hint) {
    diags_.error(loc, std::move(msg), std::move(hint));
  }

  DiagnosticEngine &diags_;
  const CheckOptions &opts_;
  KernelAST *kernel_ = nullptr;
  std::vector<std::unordered_map<std::string, Decl *>> scopes_;
  int nextId_ = 0;
  int dynamicCount_ = 0;
  Block *curBlock_ = nullptr;                        // the block whose statements are being checked
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
    };
    std::vector<Async> stores; // store_async completing on it
    bool storeUnknown = false; // a store_async on it whose size is unknown (error)
  };
  std::unordered_map<MBarrierStmt *, MBarrierUses> mbarrierUses_;

  // Issue #11 (abstr)
  std::unordered_map<std::string, Decl *> globalConsts_; // file-level `const`
  std::unordered_map<std::string, const FnAST *> functions_;
  /// The functions being inlined, innermost last, with their call sites.
  struct InlineFrame {
    const FnAST *fn;
    const CallExpr *call;
  };
  std::vector<InlineFrame> inlineStack_;
  int inlinedCalls_ = 0;                              // in the current kernel
  std::unordered_set<const FnAST *> fallOffReported_; // "may reach its end" once per fn
};

/// The declaration an mbarrier expression names: `b`, `s[i]`, `remote(b, r)`,
/// `remote(s[i], r)`; nullptr otherwise.
MBarrierStmt *mbarrierDeclOf(const ExprAST &e);

} // namespace tile::frontend

#endif
