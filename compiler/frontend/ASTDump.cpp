//===- ASTDump.cpp - textual AST dump for `tilec --emit=ast` ---------------===//
//
// Format (one node per line, 2-space indent):
//   Kernel hist cluster(2,1,1) threads(256,1,1) smem=0 @1:8
//     Param bins : ptr<i32, global> #0 @1:13
//     Shared hist dshared<i32> dynamic[0] : dshared<i32>[?] #4 @3:3
//       count: VarRef nbins -> #3 : i32 @3:30
//     For grid_range i : i64 #5 @5:3
//       end: VarRef n -> #2 : i64 @5:27
//       Let b : i32 #6 @6:5
//         Call clamp : i32 @6:13
// Types (`: T`), resolved names (`-> #id`) and resolved builtin details appear
// once checkModule() ran.
//
//===----------------------------------------------------------------------===//
#include "tilec/frontend/ASTDump.h"

#include <sstream>

namespace tile::frontend {

namespace {
class Dumper {
public:
  explicit Dumper(std::ostream &os) : os_(os) {}

  void module(const ModuleAST &m) {
    os_ << "Module " << m.file << "\n";
    for (const auto &k : m.kernels)
      kernel(*k, 1);
  }

private:
  std::string ind(int n) { return std::string(2 * n, ' '); }
  static std::string at(const Location &l) {
    return " @" + std::to_string(l.line) + ":" + std::to_string(l.col);
  }
  static std::string ty(const Type &t) { return t.kind == Type::Invalid ? "" : " : " + t.str(); }
  static std::string dims(const std::array<int, 3> &d) {
    return "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) +
           ")";
  }

  void kernel(const KernelAST &k, int n) {
    os_ << ind(n) << "Kernel " << k.name;
    if (!k.sourceName.empty()) {
      os_ << " instance of " << k.sourceName << "<";
      for (size_t i = 0; i < k.templateTypeArgs.size(); ++i)
        os_ << (i ? ", " : "") << k.templateTypeArgs[i].first << "="
            << scalarName(k.templateTypeArgs[i].second);
      for (size_t i = 0; i < k.templateArgs.size(); ++i)
        os_ << (i || !k.templateTypeArgs.empty() ? ", " : "") << k.templateArgs[i].first << "="
            << k.templateArgs[i].second;
      os_ << ">";
    }
    if (k.cluster.kind == ClusterAttr::Static)
      os_ << " cluster" << dims(k.cluster.dims) << (k.cluster.overridden ? " overridden" : "");
    else if (k.cluster.kind == ClusterAttr::Dynamic)
      os_ << " cluster(dynamic)";
    if (k.threads.present)
      os_ << " threads" << dims(k.threads.dims);
    os_ << " smem=" << k.staticSharedBytes << at(k.loc) << "\n";
    for (const auto &p : k.params)
      os_ << ind(n + 1) << "Param " << p->name << ty(p->type) << " #" << p->id << at(p->loc)
          << "\n";
    block(k.body, n + 1);
  }

  void block(const Block &b, int n) {
    for (const auto &s : b)
      stmt(*s, n);
  }

  void decl(const Decl &d) {
    os_ << d.name << ty(d.type);
    if (d.id >= 0)
      os_ << " #" << d.id;
  }

  void stmt(const StmtAST &s, int n) {
    switch (s.kind()) {
    case StmtAST::Let: {
      auto &l = *s.as<LetStmt>();
      os_ << ind(n) << (l.decl->kind == DeclKind::Var ? "Var " : "Let ");
      decl(*l.decl);
      for (const std::unique_ptr<Decl> &d : l.tupleDecls) {
        os_ << " ";
        decl(*d);
      }
      os_ << at(s.loc) << "\n";
      expr(*l.init, n + 1, "");
      break;
    }
    case StmtAST::SharedArray: {
      auto &a = *s.as<SharedArrayStmt>();
      os_ << ind(n) << (a.distributed ? "DShared " : "Shared ");
      decl(*a.decl);
      if (a.isStatic)
        os_ << " static per_block=" << *a.staticPerBlock << " bytes=" << a.staticBytes;
      else if (a.dynamicIndex >= 0)
        os_ << " dynamic[" << a.dynamicIndex << "]";
      os_ << at(s.loc) << "\n";
      expr(*a.count, n + 1, "count: ");
      break;
    }
    case StmtAST::Assign: {
      auto &a = *s.as<AssignStmt>();
      os_ << ind(n) << "Assign '" << assignOpSpelling(a.op) << "'" << at(s.loc) << "\n";
      expr(*a.target, n + 1, "target: ");
      expr(*a.value, n + 1, "value: ");
      break;
    }
    case StmtAST::For: {
      auto &f = *s.as<ForStmt>();
      os_ << ind(n) << "For " << forKindName(f.forKind) << " ";
      decl(*f.loopVar);
      if (f.boundIsArray)
        os_ << " over-array";
      os_ << at(s.loc) << "\n";
      if (f.start)
        expr(*f.start, n + 1, "start: ");
      if (f.end)
        expr(*f.end, n + 1, "end: ");
      if (f.step)
        expr(*f.step, n + 1, "step: ");
      if (f.unrollFull)
        os_ << ind(n + 1) << "unroll: full (" << f.unrolledValues.size() << " copies)\n";
      if (f.unrollFactorValue)
        os_ << ind(n + 1) << "unroll: " << f.unrollFactorValue << "\n";
      os_ << ind(n + 1) << "body:\n";
      block(f.body, n + 2);
      break;
    }
    case StmtAST::If: {
      auto &i = *s.as<IfStmt>();
      if (i.isTurn) {
        os_ << ind(n) << "Turn" << at(s.loc) << "\n";
        block(i.thenBody, n + 1);
        break;
      }
      os_ << ind(n) << (i.isConst ? "If const" : "If") << at(s.loc) << "\n";
      expr(*i.cond, n + 1, "cond: ");
      os_ << ind(n + 1) << "then:\n";
      block(i.thenBody, n + 2);
      if (i.hasElse) {
        os_ << ind(n + 1) << "else:\n";
        block(i.elseBody, n + 2);
      }
      break;
    }
    case StmtAST::While: {
      auto &w = *s.as<WhileStmt>();
      os_ << ind(n) << "While" << at(s.loc) << "\n";
      expr(*w.cond, n + 1, "cond: ");
      os_ << ind(n + 1) << "body:\n";
      block(w.body, n + 2);
      break;
    }
    case StmtAST::ExprStmt:
      os_ << ind(n) << "ExprStmt" << at(s.loc) << "\n";
      expr(*s.as<ExprStmtAST>()->expr, n + 1, "");
      break;
    case StmtAST::Return:
      os_ << ind(n) << "Return" << at(s.loc) << "\n";
      if (auto &v = s.as<ReturnStmt>()->value)
        expr(*v, n + 1, "value: ");
      for (const ExprPtr &v : s.as<ReturnStmt>()->values)
        expr(*v, n + 1, "value: ");
      break;
    case StmtAST::Break:
      os_ << ind(n) << "Break" << at(s.loc) << "\n";
      break;
    case StmtAST::Continue:
      os_ << ind(n) << "Continue" << at(s.loc) << "\n";
      break;
    case StmtAST::Const: {
      auto &c = *s.as<ConstStmt>();
      os_ << ind(n) << "Const ";
      decl(*c.decl);
      os_ << " = ";
      if (c.decl->constIsFloat)
        os_ << c.decl->constFloat;
      else
        os_ << c.decl->constInt;
      os_ << at(s.loc) << "\n";
      break;
    }
    case StmtAST::LocalArray: {
      auto &a = *s.as<LocalArrayStmt>();
      os_ << ind(n) << "Local ";
      decl(*a.decl);
      os_ << at(s.loc) << "\n";
      break;
    }
    case StmtAST::MBarrier: {
      auto &m = *s.as<MBarrierStmt>();
      os_ << ind(n) << "MBarrier ";
      decl(*m.decl);
      if (m.index >= 0)
        os_ << " index=" << m.index;
      if (m.arraySize)
        os_ << " array=" << *m.arraySize;
      if (m.constantCount)
        os_ << " count=" << *m.constantCount;
      os_ << " bytes=" << 8 * m.arraySize.value_or(1) << at(s.loc) << "\n";
      expr(*m.count, n + 1, "count: ");
      break;
    }
    case StmtAST::Ring: {
      auto &r = *s.as<RingStmt>();
      os_ << ind(n) << "Ring " << r.decl->name << " stages=" << r.stages;
      if (r.txBytes >= 0)
        os_ << " tx_bytes=" << r.txBytes;
      if (r.groupSize > 1)
        os_ << " multicast_group=" << r.groupSize;
      os_ << at(s.loc) << "\n";
      for (const RingMember &m : r.members)
        os_ << ind(n + 1) << "Tile " << m.name << " " << scalarName(m.elem.type.scalar)
            << at(m.loc) << "\n";
      break;
    }
    case StmtAST::Produce:
    case StmtAST::Consume: {
      auto &a = *s.as<RingAccessStmt>();
      os_ << ind(n) << (a.isProduce() ? "Produce " : "Consume ") << a.ringName << " as "
          << a.stage->name << at(s.loc) << "\n";
      block(a.body, n + 1);
      break;
    }
    case StmtAST::Warpgroups:
      os_ << ind(n) << "Warpgroups" << at(s.loc) << "\n";
      for (const auto &r : s.as<WarpgroupsStmt>()->roles) {
        os_ << ind(n + 1) << "Role " << r->name << " warpgroups=[" << r->firstWarpgroup << ", "
            << r->firstWarpgroup + r->numWarpgroups << ")";
        if (r->regs)
          os_ << " regs=" << *r->regs;
        os_ << " barrier=" << r->barrierId << at(r->loc) << "\n";
        block(r->body, n + 2);
      }
      break;
    }
  }

  void expr(const ExprAST &e, int n, const char *label) {
    os_ << ind(n) << label;
    switch (e.kind()) {
    case ExprAST::IntLiteral: {
      auto &l = *e.as<IntLiteralExpr>();
      if (e.type.isUnsigned())
        os_ << "IntLiteral " << (uint64_t)l.value;
      else if (e.type.isScalar())
        os_ << "IntLiteral " << l.value;
      else
        os_ << "IntLiteral " << (l.negated ? "-" : "") << l.magnitude;
      break;
    }
    case ExprAST::FloatLiteral: {
      std::ostringstream v;
      v.precision(17);
      v << e.as<FloatLiteralExpr>()->value;
      os_ << "FloatLiteral " << v.str();
      break;
    }
    case ExprAST::BoolLiteral:
      os_ << "BoolLiteral " << (e.as<BoolLiteralExpr>()->value ? "true" : "false");
      break;
    case ExprAST::VarRef: {
      auto &v = *e.as<VarRefExpr>();
      os_ << "VarRef " << v.name;
      if (v.decl)
        os_ << " -> #" << v.decl->id << " " << declKindName(v.decl->kind);
      break;
    }
    case ExprAST::Unary:
      os_ << "Unary '" << unaryOpSpelling(e.as<UnaryExpr>()->op) << "'";
      break;
    case ExprAST::Binary:
      os_ << "Binary '" << binaryOpSpelling(e.as<BinaryExpr>()->op) << "'";
      break;
    case ExprAST::Cast:
      os_ << "Cast";
      break;
    case ExprAST::Index: {
      auto &i = *e.as<IndexExpr>();
      static const char *uses[] = {"load", "store", "address"};
      os_ << "Index";
      if (!e.type.isInvalid())
        os_ << " " << uses[(int)i.use] << " " << spaceName(i.space);
      break;
    }
    case ExprAST::Member: {
      auto &m = *e.as<MemberExpr>();
      os_ << "Member " << m.name;
      break;
    }
    case ExprAST::Vector:
      os_ << "Vector " << e.as<VectorExpr>()->elems.size();
      break;
    case ExprAST::Select:
      os_ << "Select" << (e.as<SelectExpr>()->lazy ? " lazy" : "");
      break;
    case ExprAST::Call: {
      auto &c = *e.as<CallExpr>();
      os_ << "Call " << c.callee;
      if (c.builtin == Builtin::Unknown) {
        for (const NamedArg &na : c.namedArgs)
          os_ << " " << na.name << "=" << na.value;
        break;
      }
      if (isIdBuiltin(c.builtin))
        os_ << " axis=" << c.axis;
      if (c.typeArg)
        os_ << " to=" << c.typeArg->type.str();
      if (isMemoryBuiltin(c.builtin) && !e.type.isInvalid())
        os_ << " order=" << orderName(c.order) << " scope=" << scopeName(c.scope)
            << " space=" << spaceName(c.space);
      if (!e.type.isInvalid())
        syncDetails(c);
      if (c.resultUnused)
        os_ << " unused";
      if (c.approx)
        os_ << " approx";
      break;
    }
    }
    os_ << ty(e.type) << at(e.loc) << "\n";
    switch (e.kind()) {
    case ExprAST::Unary:
      expr(*e.as<UnaryExpr>()->operand, n + 1, "");
      break;
    case ExprAST::Binary:
      expr(*e.as<BinaryExpr>()->lhs, n + 1, "");
      expr(*e.as<BinaryExpr>()->rhs, n + 1, "");
      break;
    case ExprAST::Cast:
      expr(*e.as<CastExpr>()->operand, n + 1, "");
      break;
    case ExprAST::Index:
      expr(*e.as<IndexExpr>()->base, n + 1, "");
      expr(*e.as<IndexExpr>()->index, n + 1, "");
      break;
    case ExprAST::Member:
      expr(*e.as<MemberExpr>()->base, n + 1, "");
      break;
    case ExprAST::Call:
      for (const auto &a : e.as<CallExpr>()->args)
        expr(*a, n + 1, "");
      if (auto &in = e.as<CallExpr>()->inlined) {
        os_ << ind(n + 1) << "inlined " << in->fn->name << ":\n";
        for (const auto &p : in->params) {
          os_ << ind(n + 2) << "Param ";
          decl(*p);
          os_ << "\n";
        }
        block(in->body, n + 2);
      }
      break;
    case ExprAST::Vector:
      for (const auto &a : e.as<VectorExpr>()->elems)
        expr(*a, n + 1, "");
      break;
    case ExprAST::Select:
      expr(*e.as<SelectExpr>()->cond, n + 1, "cond: ");
      expr(*e.as<SelectExpr>()->trueValue, n + 1, "then: ");
      expr(*e.as<SelectExpr>()->falseValue, n + 1, "else: ");
      break;
    default:
      break;
    }
  }

  /// Builtins: order/scope (`open` when not written: the compiler
  /// decides, in tile-sync-semantics), the mbarrier's space, store_async's
  /// byte count.
  void syncDetails(const CallExpr &c) {
    auto orderScope = [&](bool order, bool scope) {
      if (order)
        os_ << " order=" << (c.orderGiven ? orderName(c.order) : "open");
      if (scope)
        os_ << " scope=" << (c.scopeGiven ? scopeName(c.scope) : "open");
    };
    switch (c.builtin) {
    case Builtin::Arrive:
    case Builtin::ArriveExpectTx:
    case Builtin::Wait:
      orderScope(true, true);
      os_ << " space=" << spaceName(c.space);
      break;
    case Builtin::ExpectTx:
      orderScope(false, true);
      os_ << " space=" << spaceName(c.space);
      break;
    case Builtin::StoreAsync:
      os_ << " bytes=" << c.asyncBytes << " space=" << spaceName(c.space);
      break;
    case Builtin::Fence:
      orderScope(true, true);
      break;
    case Builtin::ClusterArrive:
      orderScope(true, false);
      break;
    default:
      break;
    }
  }

  std::ostream &os_;
};
} // namespace

void dumpAST(const ModuleAST &module, std::ostream &os) { Dumper(os).module(module); }

} // namespace tile::frontend
