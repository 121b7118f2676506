//===- Parser.h - recursive-descent parser ----------------------*- C++ -*-===//
#ifndef TILEC_FRONTEND_PARSER_H
#define TILEC_FRONTEND_PARSER_H

#include "tilec/frontend/AST.h"
#include "tilec/frontend/Token.h"

#include <memory>
#include <vector>

namespace tile::frontend {

/// Parses a whole file. Stops at the first syntax error (reported with a hint)
/// and returns nullptr; nesting deeper than kMaxDepth is an error, never a
/// stack overflow.
class Parser {
public:
  static constexpr int kMaxDepth = 256;

  Parser(std::vector<Token> tokens, DiagnosticEngine &diags);
  std::unique_ptr<ModuleAST> parseModule(const std::string &file);
  /// A function body (FnAST::bodyTokens) parsed again for one call; nullopt
  /// after an error (reported).
  /// `types`: the function's type parameters, bound for this call.
  static std::optional<Block> parseFunctionBody(const std::vector<Token> &tokens,
                                                DiagnosticEngine &diags,
                                                const TemplateNames &types = {});
  /// A template kernel (KernelAST::tokens) parsed again for one instance,
  /// its type parameters bound to `types` (name -> scalar).
  static std::unique_ptr<KernelAST>
  parseKernelAgain(const std::vector<Token> &tokens, DiagnosticEngine &diags,
                   const std::vector<std::pair<std::string, ScalarKind>> &types = {});

private:
  struct Fail {}; // thrown after reporting, caught in parseModule

  const Token &cur() const { return toks_[pos_]; }
  const Token &peekTok(size_t n = 1) const;
  bool at(Tok k) const { return cur().kind == k; }
  bool atIdent(const char *text) const;
  Token consume();
  bool accept(Tok k);
  Token expect(Tok k, const char *what, const char *hint = "");
  [[noreturn]] void fail(const Location &loc, std::string msg, std::string hint);
  [[noreturn]] void failExpected(const char *what, const char *hint);
  /// `receiver.name(` on one line: tile has no methods (Triton's
  /// `tl.program_id(0)`, torch's `x.to(f16)`).
  [[noreturn]] void failMethodCall(const ExprAST &receiver, const Token &name);
  /// A parameter written C's way (`float* c`, `int n`), `first` its type
  /// word: the tile form; returns when `first` is not a C type.
  void failCParam(const Token &first);

  std::unique_ptr<KernelAST> parseKernel();
  void parseKernelAttrs(KernelAST &k);
  std::array<int, 3> parseDims(const char *attr, std::array<DimName, 3> *names = nullptr);
  void parseLaunchBound(KernelAST &k, const Token &attr);
  TypeSyntax parseType();
  /// ParserTma.cpp: `tensor<T>[E0, ...]` as the type of parameter `index`.
  TypeSyntax parseTensorParamType(KernelAST &k, int index);
  /// ParserPeer.cpp: `symmetric tensor<T>[...]` and `semaphore[S]`
  /// parameter types; null when the tokens start neither.
  std::optional<TypeSyntax> parsePeerParamType(KernelAST &k, int index);
  /// ParserTma.cpp: `, e` after the first index or dimension, up to ']'.
  std::vector<ExprPtr> parseMoreIndices(int &depth);
  /// A scalar type (or a type parameter); `orVector` where parseType takes
  /// a vector too, so that an unknown name's hint lists them.
  TypeSyntax parseScalarType(const char *what, bool orVector = false);
  Block parseBlock(int depth);
  StmtPtr parseStatement(int depth);
  StmtPtr parseLet(int depth);
  bool atMBarrierDecl() const;
  StmtPtr parseMBarrierDecl(const Token &kw, bool isVar, const std::optional<TypeSyntax> &annot,
                            std::unique_ptr<Decl> decl);
  StmtPtr parseFor(int depth);
  StmtPtr parseIf(int depth);
  StmtPtr parseWhile(int depth);
  /// `warpgroups { NAME(named args) { ... } ... }` (ParserRoles.cpp).
  StmtPtr parseWarpgroups(int depth);
  StmtPtr parseTurn(int depth);
  /// Rings (ParserRings.cpp): `pipeline[S] { ... }` after `let NAME =`, and
  /// `produce RING as s { ... }` / `consume RING as s { ... }`.
  bool atRingDecl() const;
  bool atRingAccess() const;
  StmtPtr parseRingDecl(const Token &kw, bool isVar, const std::optional<TypeSyntax> &annot,
                        std::unique_ptr<Decl> decl);
  StmtPtr parseRingAccess(int depth);
  // ParserAbstr.cpp (fn, const, template kernels, local arrays, unroll)
  std::unique_ptr<FnAST> parseFn();
  std::unique_ptr<ConstStmt> parseConst();
  void parseTemplateParams(KernelAST &k);
  /// `<T: type, ...>` after a function's name.
  void parseFnTypeParams(FnAST &f);
  /// The type parameter `name` in scope (its binding: nullopt while a
  /// template is parsed the first time), null when there is none.
  const std::pair<std::string, std::optional<ScalarKind>> *typeParam(const std::string &name) const;
  bool isValueParam(const std::string &name) const;
  /// Token `n` ahead names a scalar type or a type parameter.
  bool isTypeNameAt(size_t n) const;
  /// At `<TYPE, ...>(`: the explicit type arguments of a function call.
  bool isNonScalarTypeAt(size_t n) const;
  bool atCallTypeArgs() const;
  StmtPtr parseLocalArray(const Token &kw, bool isVar, const std::optional<TypeSyntax> &annot,
                          std::unique_ptr<Decl> decl);
  void parseUnroll(ForStmt &f);
  TypeSyntax parseParamType();
  StmtPtr parseReturn();
  // ParserTuples.cpp: several results of a function.
  /// At `(` of a parenthesized list with a comma at its top level; the
  /// position of its closing `)` (0 when it is no such list).
  size_t tupleEnd() const;
  /// `(T1, T2, ...)` after `->`.
  std::vector<TypeSyntax> parseResultTypes();
  /// `(a, b, ...)` after `return`.
  std::vector<ExprPtr> parseReturnValues();
  /// `(a, b, ...)` after `let`/`var`: the names (`_` for none).
  std::vector<std::unique_ptr<Decl>> parseTupleNames(bool isVar);
  /// `(x, y[i], ...) = f(...)`: a let of hidden names, then one assignment
  /// per target (queued in pendingStmts_).
  StmtPtr parseTupleAssign(int depth);
  /// An assignment target as Sema checks it: `v.x` .. `v.w` is the element
  /// `v[0]` .. `v[3]` (IndexExpr::laneName keeps the spelling); anything else
  /// but a name or an element is an error.
  ExprPtr assignTarget(ExprPtr e, const Location &where, const char *hint);
  /// Tokens [from, pos_) followed by an Eof token.
  std::vector<Token> tokensFrom(size_t from) const;

  ExprPtr parseExpr();
  ExprPtr parseBinary(int minPrec);
  /// `c ? a : b` (right-associative, below `||`).
  ExprPtr parseConditional();
  /// `bitcast<T>(x)`: the name was consumed; at '<'.
  ExprPtr parseBitcast(Token name);
  // ParserMma.cpp: `frag<T>[M, N]` and `zeros<T>[M, N]`.
  bool atFragType() const;
  TypeSyntax parseFragType();
  int64_t parseTypeExtent(TypeSyntax &ts, unsigned dim, const std::string &what,
                          const char *hint, int64_t standIn);
  bool atZeros() const;
  ExprPtr parseZeros(Token name);
  ExprPtr parseCastExpr();
  ExprPtr parseUnary();
  ExprPtr parsePostfix();
  ExprPtr parsePrimary();
  ExprPtr parseCall(Token name);
  ExprPtr parseVector();
  void checkDepth(ExprAST &e);

  std::vector<Token> toks_;
  size_t pos_ = 0;
  int exprNesting_ = 0;
  /// The last `*` operator that started a line: C's `*p = v` there
  /// continued the line before as a multiplication.
  std::optional<Location> lineStartStar_;
  bool inFunction_ = false; // parsing a fn body: `return e` is allowed
  std::vector<StmtPtr> pendingStmts_; // follow the statement just parsed
  int tupleAssigns_ = 0;              // names the hidden lets of tuple assignments
  TemplateNames names_;     // the template parameters in scope
  std::vector<std::pair<std::string, ScalarKind>> bindings_; // parseKernelAgain's types
  DiagnosticEngine &diags_;
};

} // namespace tile::frontend

#endif
