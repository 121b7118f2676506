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

#include <string>
#include <unordered_map>
#include <vector>

namespace tile::frontend {

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
  void checkAssign(AssignStmt &s);
  void checkFor(ForStmt &s);
  bool checkCountExpr(ExprAST &e);
  std::optional<int64_t> foldConstant(const ExprAST &e, bool &overflow);

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
  Type checkValue(ExprPtr &e, const Type *expected, const std::string &what, const std::string &hint = "");
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
  Type inferMember(MemberExpr &e);
  /// Checks `op` on operands of type t (possibly untyped); false after an error.
  bool checkBinaryOperands(BinaryOp op, const Type &t, const Location &loc);

  // ---- SemaCall.cpp: builtins
  Type inferCall(CallExpr &e);
  Type checkMemoryCall(CallExpr &e);
  bool checkArgCount(CallExpr &e, size_t min, size_t max);
  bool checkNoNamedArgs(CallExpr &e);

  void error(const Location &loc, std::string msg, std::string hint) {
    diags_.error(loc, std::move(msg), std::move(hint));
  }

  DiagnosticEngine &diags_;
  const CheckOptions &opts_;
  KernelAST *kernel_ = nullptr;
  std::vector<std::unordered_map<std::string, Decl *>> scopes_;
  int nextId_ = 0;
  int dynamicCount_ = 0;
};

} // namespace tile::frontend

#endif
