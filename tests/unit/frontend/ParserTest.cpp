#include "TestUtil.h"

#include <catch2/catch.hpp>

using namespace tile::frontend;

static std::unique_ptr<Compiled> parseOnly(const std::string &src) {
  auto c = std::make_unique<Compiled>();
  c->module = parseSource("t.tile", src, c->diags);
  return c;
}

TEST_CASE("parser: kernel signature and attributes", "[parser]") {
  auto c = parseOnly("kernel a(x: ptr<f32, global>, n: i64) cluster(2, 1) threads(128, 2) { }\n"
                     "kernel b() cluster(dynamic) { }\nkernel c() { }");
  REQUIRE(c->module);
  auto &ks = c->module->kernels;
  REQUIRE(ks.size() == 3);
  CHECK(ks[0]->name == "a");
  CHECK(ks[0]->loc.col == 8);
  REQUIRE(ks[0]->params.size() == 2);
  CHECK(ks[0]->params[0]->type == Type::pointer(ScalarKind::F32, AddressSpace::Global));
  CHECK(ks[0]->params[1]->type == Type::scalarTy(ScalarKind::I64));
  CHECK(ks[0]->params[1]->paramIndex == 1);
  CHECK(ks[0]->cluster.kind == ClusterAttr::Static);
  CHECK(ks[0]->cluster.dims == std::array<int, 3>{2, 1, 1});
  CHECK(ks[0]->threads.present);
  CHECK(ks[0]->threads.dims == std::array<int, 3>{128, 2, 1});
  CHECK(ks[1]->cluster.kind == ClusterAttr::Dynamic);
  CHECK(ks[2]->cluster.kind == ClusterAttr::None);
  CHECK_FALSE(ks[2]->threads.present);
}

TEST_CASE("parser: statements", "[parser]") {
  auto c = parseOnly("kernel k(n: i32) {\n"
                     "  let a = shared<f32>[256]; var x: i32 = 0\n"
                     "  for i in 0 .. n step 2 { x += i }\n"
                     "  for j in block_range(a) { a[j] = 0.0 }\n"
                     "  for j in grid_range(n) { }\n"
                     "  if x < 3 { } else if x < 4 { } else { return }\n"
                     "  while x > 0 { x -= 1 }\n"
                     "  sync_threads()\n"
                     "}");
  REQUIRE(c->module);
  auto &b = c->module->kernels[0]->body;
  REQUIRE(b.size() == 8);
  auto *sa = b[0]->as<SharedArrayStmt>();
  REQUIRE(sa);
  CHECK_FALSE(sa->distributed);
  CHECK(sa->elem.type.scalar == ScalarKind::F32);
  CHECK(sa->decl->kind == DeclKind::SharedArray);
  auto *var = b[1]->as<LetStmt>();
  REQUIRE(var);
  CHECK(var->decl->kind == DeclKind::Var);
  CHECK(var->annotation->type == Type::i32());
  auto *f = b[2]->as<ForStmt>();
  REQUIRE(f);
  CHECK(f->forKind == ForKind::Range);
  CHECK(f->start->is<IntLiteralExpr>());
  CHECK(f->end->is<VarRefExpr>());
  CHECK(f->step->is<IntLiteralExpr>());
  CHECK(f->body[0]->as<AssignStmt>()->op == AssignOp::Add);
  CHECK(b[3]->as<ForStmt>()->forKind == ForKind::BlockRange);
  CHECK(b[4]->as<ForStmt>()->forKind == ForKind::GridRange);
  auto *i = b[5]->as<IfStmt>();
  REQUIRE(i);
  REQUIRE(i->elseBody.size() == 1);
  auto *elif = i->elseBody[0]->as<IfStmt>();
  REQUIRE(elif);
  CHECK(elif->hasElse);
  CHECK(elif->elseBody[0]->is<ReturnStmt>());
  CHECK(b[6]->is<WhileStmt>());
  CHECK(b[7]->as<ExprStmtAST>()->expr->is<CallExpr>());
  CHECK(b[7]->loc.line == 8);
  CHECK(b[7]->loc.col == 3);
}

static const ExprAST &initOf(const Compiled &c, size_t stmt = 0) {
  return *c.module->kernels[0]->body[stmt]->as<LetStmt>()->init;
}

TEST_CASE("parser: precedence and associativity", "[parser]") {
  auto c =
      parseOnly("kernel k(a: i32, b: i32) { let x = a + b * 2 - 1 << 3 == 0 || a < b && true }");
  REQUIRE(c->module);
  auto *orE = initOf(*c).as<BinaryExpr>();
  REQUIRE(orE);
  CHECK(orE->op == BinaryOp::LogicalOr);
  auto *eq = orE->lhs->as<BinaryExpr>();
  CHECK(eq->op == BinaryOp::Eq);
  auto *shl = eq->lhs->as<BinaryExpr>();
  CHECK(shl->op == BinaryOp::Shl);
  auto *sub = shl->lhs->as<BinaryExpr>();
  CHECK(sub->op == BinaryOp::Sub); // (a + b*2) - 1: left associative
  auto *add = sub->lhs->as<BinaryExpr>();
  CHECK(add->op == BinaryOp::Add);
  CHECK(add->rhs->as<BinaryExpr>()->op == BinaryOp::Mul);
  CHECK(orE->rhs->as<BinaryExpr>()->op == BinaryOp::LogicalAnd);
}

TEST_CASE("parser: casts, unary, postfix, calls", "[parser]") {
  auto c = parseOnly("kernel k(a: i32, h: ptr<i32, global>) {\n"
                     "  let x = -a as i64 * 2\n"
                     "  let y = -5\n"
                     "  let z = atomic_add(h[a + 1], 1, order = acq_rel, scope = gpu)\n"
                     "  let w = q.local[3]\n"
                     "}");
  REQUIRE(c->module);
  auto *mul = initOf(*c, 0).as<BinaryExpr>();
  REQUIRE(mul);
  CHECK(mul->op == BinaryOp::Mul);
  auto *cast = mul->lhs->as<CastExpr>();
  REQUIRE(cast);
  CHECK(cast->target.type == Type::scalarTy(ScalarKind::I64));
  CHECK(cast->operand->as<UnaryExpr>()->op == UnaryOp::Neg);
  auto *lit = initOf(*c, 1).as<IntLiteralExpr>();
  REQUIRE(lit); // `-5` folds into one literal
  CHECK(lit->negated);
  CHECK(lit->magnitude == 5);
  auto *call = initOf(*c, 2).as<CallExpr>();
  REQUIRE(call);
  CHECK(call->callee == "atomic_add");
  CHECK(call->args.size() == 2);
  CHECK(call->args[0]->is<IndexExpr>());
  REQUIRE(call->namedArgs.size() == 2);
  CHECK(call->namedArgs[0].name == "order");
  CHECK(call->namedArgs[0].value == "acq_rel");
  CHECK(call->namedArgs[1].value == "gpu");
  auto *idx = initOf(*c, 3).as<IndexExpr>();
  REQUIRE(idx);
  CHECK(idx->base->as<MemberExpr>()->name == "local");
}

struct ParseErr {
  const char *src;
  const char *message;
  int line, col;
};

TEST_CASE("parser: errors carry message, location and hint", "[parser]") {
  ParseErr cases[] = {
      {"let x = 1", "expected 'kernel', found 'let'", 1, 1},
      {"kernel (a: i32) { }", "expected kernel name, found '('", 1, 8},
      {"kernel k(a i32) { }", "expected ':', found identifier 'i32'", 1, 12},
      {"kernel k(a: int) { }", "unknown type 'int'; C's int is i32", 1, 13},
      {"kernel k(a: ptr<i32, local>) { }", "unknown address space 'local'", 1, 22},
      {"kernel k() blocks(2) { }", "unknown kernel attribute 'blocks'", 1, 12},
      {"kernel k() cluster(0) { }", "cluster dimension 0 is out of range", 1, 20},
      {"kernel k() threads(1) threads(2) { }", "duplicate threads attribute", 1, 23},
      {"kernel k() {\n  let x = (1 + 2\n}", "expected ')', found '}'", 3, 1},
      {"kernel k() {\n  let = 3\n}", "expected variable name, found '='", 2, 7},
      {"kernel k() {\n  for i 0 .. 4 { }\n}", "expected 'in', found integer literal '0'", 2, 9},
      {"kernel k() {\n  for i in 0 , 4 { }\n}", "expected '..', found ','", 2, 14},
      {"kernel k() {\n  if true return\n}", "expected '{', found 'return'", 2, 11},
      {"kernel k() {\n  1 + 2 = 3\n}", "cannot assign to this expression", 2, 9},
      {"kernel k() {\n  var a = shared<i32>[4]\n}", "shared arrays must be declared with 'let'", 2,
       3},
      {"kernel k() {\n  let a = 1 + shared<i32>[4]\n}",
       "shared arrays can only be declared in a `let`", 2, 15},
      {"kernel k() {\n  load(order = relaxed, p[0])\n}",
       "positional argument after a named argument", 2, 25},
      {"kernel k() {\n  let x = 1\n", "expected '}', found end of file", 3, 1},
      {"kernel k() {\n  kernel j() {}\n}", "kernels cannot be nested", 2, 3},
  };
  for (const ParseErr &pe : cases) {
    INFO(pe.src);
    auto c = parseOnly(pe.src);
    CHECK_FALSE(c->module);
    const Diagnostic *d = c->first();
    REQUIRE(d);
    CHECK(d->message == pe.message);
    CHECK(d->loc.line == pe.line);
    CHECK(d->loc.col == pe.col);
    CHECK_FALSE(d->hint.empty());
  }
}

TEST_CASE("parser: caret rendering of a syntax error", "[parser]") {
  auto c = parseOnly("kernel k() {\n  let x = 3 +\n}\n");
  CHECK(c->rendered() ==
        "t.tile:3:1: error: expected an expression, found '}'\n"
        "}\n"
        "^\n"
        "hint: expressions are literals, names, calls, `(e)`, `e[i]`, `e.member` and operators\n");
}

TEST_CASE("parser: nesting depth is bounded", "[parser]") {
  SECTION("parentheses") {
    std::string e(100000, '(');
    auto c = parseOnly("kernel k() { let x = " + e + "1 }");
    CHECK_FALSE(c->module);
    CHECK(c->firstError() == "expression nested too deeply (more than 256 levels)");
  }
  SECTION("unary chain") {
    std::string e(100000, '!');
    auto c = parseOnly("kernel k() { let x = " + e + "true }");
    CHECK(c->firstError() == "expression nested too deeply (more than 256 levels)");
  }
  SECTION("long binary chain") {
    std::string e = "1";
    for (int i = 0; i < 5000; ++i)
      e += " + 1";
    auto c = parseOnly("kernel k() { let x = " + e + " }");
    CHECK(c->firstError() == "expression nested too deeply (more than 256 levels)");
  }
  SECTION("blocks") {
    std::string s;
    for (int i = 0; i < 5000; ++i)
      s += "if true { ";
    auto c = parseOnly("kernel k() { " + s + " }");
    CHECK(c->firstError() == "blocks nested too deeply (more than 256 levels)");
  }
  SECTION("else-if chain") {
    std::string s = "if true { }";
    for (int i = 0; i < 5000; ++i)
      s += " else if true { }";
    auto c = parseOnly("kernel k() { " + s + " }");
    CHECK_FALSE(c->module);
  }
  SECTION("just under the limit is fine") {
    std::string open(100, '('), close(100, ')');
    auto c = compile("kernel k() { let x = " + open + "1" + close + " }");
    CHECK(c->ok);
  }
}
