#include "TestUtil.h"

#include <catch2/catch.hpp>

using namespace tile::frontend;

static const char *kHistogram = R"(// Cluster-wide histogram over a distributed shared array.
kernel cluster_histogram(bins: ptr<i32, global>, input: ptr<i32, global>,
                         n: i64, nbins: i32) cluster(2) threads(256) {
  let hist = dshared<i32>[nbins]
  for i in block_range(hist.local) { hist.local[i] = 0 }
  for i in grid_range(n) {
    let b = clamp(input[i], 0, nbins - 1)
    atomic_add(hist[b], 1, scope = cluster)
  }
  for i in block_range(hist.local) {
    atomic_add(bins[hist.local_base + i], hist.local[i], scope = gpu)
  }
}
)";

TEST_CASE("sema: full histogram kernel parses, checks and is annotated", "[sema]") {
  auto c = compile(kHistogram);
  INFO(c->rendered());
  REQUIRE(c->ok);
  KernelAST &k = *c->module->kernels[0];
  CHECK(k.usesClusterFeatures);
  CHECK(k.numDecls == 9);
  CHECK(k.staticSharedBytes == 0);
  REQUIRE(k.sharedArrays.size() == 1);
  SharedArrayStmt &h = *k.sharedArrays[0];
  CHECK(h.distributed);
  CHECK_FALSE(h.isStatic); // sized by a kernel parameter -> dynamic smem
  CHECK(h.dynamicIndex == 0);
  CHECK(h.decl->type.kind == Type::DistArray);
  CHECK(h.decl->type.lengthType == ScalarKind::I32);
  CHECK(h.decl->array == &h);

  // for i in block_range(hist.local): bound rewritten to len(hist.local)
  auto *f1 = k.body[1]->as<ForStmt>();
  REQUIRE(f1);
  CHECK(f1->forKind == ForKind::BlockRange);
  CHECK(f1->boundIsArray);
  auto *len = f1->end->as<CallExpr>();
  REQUIRE(len);
  CHECK(len->builtin == Builtin::Len);
  CHECK(len->args[0]->as<MemberExpr>()->member == MemberKind::Local);
  CHECK(f1->loopVar->type == Type::i32());
  auto *store = f1->body[0]->as<AssignStmt>();
  REQUIRE(store);
  auto *tgt = store->target->as<IndexExpr>();
  CHECK(tgt->use == IndexUse::Store);
  CHECK(tgt->space == AddressSpace::Shared);
  CHECK(store->value->type == Type::i32());

  // for i in grid_range(n): loop var has n's type
  auto *f2 = k.body[2]->as<ForStmt>();
  CHECK(f2->forKind == ForKind::GridRange);
  CHECK(f2->loopVar->type == Type::scalarTy(ScalarKind::I64));
  auto *let = f2->body[0]->as<LetStmt>();
  auto *clamp = let->init->as<CallExpr>();
  CHECK(clamp->builtin == Builtin::Clamp);
  CHECK(clamp->type == Type::i32());
  CHECK(clamp->args[1]->type == Type::i32()); // literal adapted
  auto *load = clamp->args[0]->as<IndexExpr>();
  CHECK(load->use == IndexUse::Load);
  CHECK(load->space == AddressSpace::Global);
  CHECK(load->index->as<VarRefExpr>()->decl == f2->loopVar.get());

  auto *atom = f2->body[1]->as<ExprStmtAST>()->expr->as<CallExpr>();
  REQUIRE(atom);
  CHECK(atom->builtin == Builtin::AtomicAdd);
  CHECK(atom->resultUnused);
  CHECK(atom->order == MemOrder::Relaxed);
  CHECK(atom->scope == MemScope::Cluster);
  CHECK(atom->space == AddressSpace::Cluster);
  CHECK(atom->args[0]->as<IndexExpr>()->use == IndexUse::Address);
  CHECK(atom->args[0]->as<IndexExpr>()->base->as<VarRefExpr>()->decl == h.decl.get());

  auto *atom2 = k.body[3]->as<ForStmt>()->body[0]->as<ExprStmtAST>()->expr->as<CallExpr>();
  CHECK(atom2->scope == MemScope::Gpu);
  CHECK(atom2->space == AddressSpace::Global);
  auto *sum = atom2->args[0]->as<IndexExpr>()->index->as<BinaryExpr>();
  CHECK(sum->lhs->as<MemberExpr>()->member == MemberKind::LocalBase);
  CHECK(sum->type == Type::i32());

  // every expression got a type: the dump never shows an untyped literal
  std::string dump = c->dump();
  CHECK(dump.find("literal}") == std::string::npos);
  CHECK(dump.find("Call atomic_add order=relaxed scope=cluster space=cluster unused : i32 @8:5") !=
        std::string::npos);
}

TEST_CASE("sema: literals adapt to context", "[sema]") {
  auto c =
      compile(inKernel("let a: i64 = 5\nlet b = m + 1\nlet c = 2.5\nlet d: f16 = 1\n"
                       "let e = 0xffffffff as i32\nlet g: i32 = 0xffffffff\nlet h = -2147483648\n"
                       "let q = f[0] * 2\nlet r = (1 + 2) * m"));
  INFO(c->rendered());
  REQUIRE(c->ok);
  auto &b = c->module->kernels[0]->body;
  auto init = [&](int i) { return b[i]->as<LetStmt>()->init.get(); };
  CHECK(init(0)->type == Type::scalarTy(ScalarKind::I64));
  CHECK(init(1)->as<BinaryExpr>()->rhs->type == Type::scalarTy(ScalarKind::I64));
  CHECK(init(2)->type == Type::scalarTy(ScalarKind::F32));
  CHECK(
      init(3)->is<FloatLiteralExpr>()); // an int literal in a float context becomes a float literal
  CHECK(init(3)->type == Type::scalarTy(ScalarKind::F16));
  CHECK(init(5)->as<IntLiteralExpr>()->value == -1); // sign-extended bit pattern
  CHECK(init(6)->as<IntLiteralExpr>()->value == INT32_MIN);
  CHECK(init(7)->as<BinaryExpr>()->rhs->is<FloatLiteralExpr>());
  auto *r = init(8)->as<BinaryExpr>();
  CHECK(r->lhs->type == Type::scalarTy(ScalarKind::I64));
  CHECK(r->lhs->as<BinaryExpr>()->lhs->type == Type::scalarTy(ScalarKind::I64));
}

TEST_CASE("sema: builtins, orders and scopes resolve", "[sema]") {
  auto c = compile(inKernel("let s = shared<i32>[64]\n"
                            "let t = thread_id() + block_dim(1) * block_id(2)\n"
                            "let r = remote(s, cluster_rank() ^ 1)\n"
                            "let v = load(r[0], order = acquire)\n"
                            "store(p[n], v, order = release, scope = sys)\n"
                            "let o = atomic_cas(s[3], 0, 1, order = acq_rel)\n"
                            "let x = atomic_exch(p[m], o)\n"
                            "let fl = atomic_add(f[0], 1.0)\n"
                            "cluster_sync()\nsync_threads()",
                            "cluster(dynamic)"));
  INFO(c->rendered());
  REQUIRE(c->ok);
  auto &b = c->module->kernels[0]->body;
  auto *s = b[0]->as<SharedArrayStmt>();
  CHECK(s->isStatic);
  CHECK(s->staticBytes == 256);
  CHECK(s->decl->type.staticLength == 64);
  auto *t = b[1]->as<LetStmt>()->init->as<BinaryExpr>();
  CHECK(t->lhs->as<CallExpr>()->builtin == Builtin::ThreadId);
  CHECK(t->lhs->as<CallExpr>()->axis == 0);
  auto *mul = t->rhs->as<BinaryExpr>();
  CHECK(mul->lhs->as<CallExpr>()->axis == 1);
  CHECK(mul->rhs->as<CallExpr>()->builtin == Builtin::BlockId);
  CHECK(mul->rhs->as<CallExpr>()->axis == 2);
  auto *r = b[2]->as<LetStmt>();
  CHECK(r->decl->type.kind == Type::ArrayView);
  CHECK(r->decl->type.space == AddressSpace::Cluster);
  CHECK(r->decl->type.staticLength == 64);
  auto *ld = b[3]->as<LetStmt>()->init->as<CallExpr>();
  CHECK(ld->builtin == Builtin::Load);
  CHECK(ld->order == MemOrder::Acquire);
  CHECK(ld->scope == MemScope::Cluster); // default from the cluster address space
  CHECK(ld->space == AddressSpace::Cluster);
  CHECK_FALSE(ld->resultUnused);
  auto *st = b[4]->as<ExprStmtAST>()->expr->as<CallExpr>();
  CHECK(st->builtin == Builtin::Store);
  CHECK(st->order == MemOrder::Release);
  CHECK(st->scope == MemScope::Sys);
  CHECK(st->type.kind == Type::Void);
  auto *cas = b[5]->as<LetStmt>()->init->as<CallExpr>();
  CHECK(cas->builtin == Builtin::AtomicCas);
  CHECK(cas->order == MemOrder::AcqRel);
  CHECK(cas->scope == MemScope::Cta);
  auto *xch = b[6]->as<LetStmt>()->init->as<CallExpr>();
  CHECK(xch->scope == MemScope::Gpu);
  CHECK(xch->order == MemOrder::Relaxed);
  CHECK(b[7]->as<LetStmt>()->decl->type == Type::scalarTy(ScalarKind::F32));
  CHECK(b[8]->as<ExprStmtAST>()->expr->as<CallExpr>()->builtin == Builtin::ClusterSync);
}

TEST_CASE("sema: static shared memory, dshared sizes, cluster override", "[sema]") {
  SECTION("static dshared with a static cluster") {
    auto c = compile(
        inKernel("let h = dshared<f32>[1000]\nlet a = shared<i8>[3]\nlet b = shared<i64>[n * 2]",
                 "cluster(4)"));
    REQUIRE(c->ok);
    auto &k = *c->module->kernels[0];
    REQUIRE(k.sharedArrays.size() == 3);
    CHECK(k.sharedArrays[0]->staticPerBlock == 250);
    CHECK(k.sharedArrays[0]->staticBytes == 1000);
    CHECK(k.sharedArrays[1]->staticBytes == 3);
    CHECK(k.staticSharedBytes == 1008 + 3); // each array 16-byte aligned
    CHECK_FALSE(k.sharedArrays[2]->isStatic);
    CHECK(k.sharedArrays[2]->dynamicIndex == 0);
  }
  SECTION("dshared with a dynamic cluster is dynamic") {
    auto c = compile(inKernel("let h = dshared<f32>[1000]", "cluster(dynamic)"));
    REQUIRE(c->ok);
    CHECK_FALSE(c->module->kernels[0]->sharedArrays[0]->isStatic);
    CHECK(c->module->kernels[0]->sharedArrays[0]->constantCount == 1000);
  }
  SECTION("--cluster override replaces the attribute") {
    CheckOptions o;
    o.clusterOverride = std::array<int, 3>{2, 2, 1};
    auto c = compile(inKernel("let h = dshared<f32>[1000]", "cluster(dynamic)"), o);
    REQUIRE(c->ok);
    auto &k = *c->module->kernels[0];
    CHECK(k.cluster.kind == ClusterAttr::Static);
    CHECK(k.cluster.overridden);
    CHECK(k.cluster.dims == std::array<int, 3>{2, 2, 1});
    CHECK(k.sharedArrays[0]->staticPerBlock == 250);
  }
  SECTION("exactly at the limit") {
    auto c = compile(inKernel("let a = shared<i8>[232448]"));
    CHECK(c->ok);
  }
}

TEST_CASE("sema: names, scopes, decl ids", "[sema]") {
  auto c = compile(
      inKernel("let x = 1\nif true { let x = 2.0\n let y = x }\nlet z = x\nlet n = n as i64"));
  INFO(c->rendered());
  REQUIRE(c->ok);
  auto &b = c->module->kernels[0]->body;
  auto *y = b[1]->as<IfStmt>()->thenBody[1]->as<LetStmt>();
  CHECK(y->decl->type == Type::scalarTy(ScalarKind::F32)); // inner x shadows
  auto *z = b[2]->as<LetStmt>();
  CHECK(z->init->as<VarRefExpr>()->decl == b[0]->as<LetStmt>()->decl.get());
  CHECK(z->decl->type == Type::i32());
  auto *n = b[3]->as<LetStmt>();
  CHECK(n->init->as<CastExpr>()->operand->as<VarRefExpr>()->decl->kind == DeclKind::Param);
  CHECK(n->decl->id == 8); // ids: 4 params, x, inner x, y, z, n
}

TEST_CASE("sema: a call statement's result is marked unused; other statements warn", "[sema]") {
  auto c = compile(inKernel("atomic_add(p[0], 1)\nlet v = atomic_add(p[1], 1)\nn + 1"));
  REQUIRE(c->ok);
  auto &b = c->module->kernels[0]->body;
  CHECK(b[0]->as<ExprStmtAST>()->expr->as<CallExpr>()->resultUnused);
  CHECK_FALSE(b[1]->as<LetStmt>()->init->as<CallExpr>()->resultUnused);
  REQUIRE(c->diags.diagnostics().size() == 1);
  CHECK(c->diags.diagnostics()[0].kind == Diagnostic::Warning);
  CHECK(c->diags.diagnostics()[0].message == "expression result unused");
}

struct SemaErr {
  const char *body;
  const char *attrs;
  const char *message;
  int line, col; // within the kernel from inKernel(): body starts at line 2
};

TEST_CASE("sema: every error class reports message, location and a hint", "[sema]") {
  SemaErr cases[] = {
      // names
      {"let x = y", "", "unknown name 'y'", 2, 9},
      {"let x = thread_id", "", "'thread_id' is a builtin function, not a value", 2, 9},
      {"let x = 1\nlet x = 2", "", "redefinition of 'x'", 3, 5},
      {"foo(1)", "", "unknown function 'foo'", 2, 1},
      {"n(1)", "", "'n' is not a function", 2, 1},
      // types
      {"let x: i64 = n", "", "initializer of 'x' has type i32, expected i64", 2, 14},
      {"let x = n + m", "", "mismatched operand types i32 and i64 for '+'", 2, 11},
      {"let x = f[0] % 2.0", "", "'%' needs integer operands, found f32", 2, 14},
      {"let x = 1.5 << 2", "", "'<<' needs integer operands, found a float literal", 2, 13},
      {"let x = !n", "", "'!' needs an i1 operand, found i32", 2, 9},
      {"let x = -true", "", "'-' cannot be applied to i1", 2, 9},
      {"let x = n && true", "", "operand of '&&' has type i32, expected i1", 2, 9},
      {"let x = true + false", "", "'+' cannot be applied to i1", 2, 14},
      {"let x = p < p", "", "'<' cannot be applied to ptr<i32, global>", 2, 11},
      {"if n { }", "", "condition of 'if' has type i32, expected i1", 2, 4},
      {"while 1 { }", "", "integer literal 1 cannot be used as i1", 2, 7},
      {"let x: i8 = 1 + 300", "", "integer literal 300 does not fit in i8", 2, 17},
      {"let x: i32 = 1.5", "", "float literal cannot be used as i32", 2, 14},
      {"let x: f16 = 70000.0", "", "float literal is out of range for f16", 2, 14},
      {"let x = n as i1", "", "cannot cast i32 to i1", 2, 11},
      {"let x = true as f32", "", "cannot cast i1 to f32", 2, 14},
      {"let x = p as i32", "", "cannot cast ptr<i32, global> to i32", 2, 11},
      {"let x = sync_threads()", "", "'x' is initialized with a call that returns no value", 2, 9},
      // assignment
      {"n = 3", "", "cannot assign to 'n': it is a kernel parameter", 2, 1},
      {"let x = 1\nx += 1", "", "cannot assign to 'x': it is a 'let' binding", 3, 1},
      {"for i in 0 .. 4 { i = 2 }", "", "cannot assign to 'i': it is a loop variable", 2, 19},
      {"inf = 7", "", "cannot assign to 'inf': it is the float value infinity, not a variable",
       2, 1},
      {"nan += 1", "", "cannot assign to 'nan': it is the float value NaN, not a variable", 2, 1},
      {"const N = 4\nN <<= 1", "", "cannot assign to 'N': it is a constant", 3, 1},
      {"var x = 1\nx = m", "", "assigned value has type i64, expected i32", 3, 5},
      {"var x = 1.0\nx %= 2.0", "", "'%' needs integer operands, found f32", 3, 3},
      {"p[0] = 1.0", "", "float literal cannot be used as i32", 2, 8},
      // indexing and members
      {"let x = n[0]", "", "cannot index a value of type i32", 2, 10},
      {"let x = p[1.0]", "", "index must be an integer, found f32", 2, 11},
      {"let a = shared<i32>[4]\nlet x = a[4]", "", "index 4 is out of bounds for shared<i32>[4]", 3,
       11},
      {"let x = p.local", "", "a value of type ptr<i32, global> has no member 'local'", 2, 11},
      {"let h = dshared<i32>[8]\nlet x = h.size", "cluster(2)",
       "unknown member 'size' of a dshared array", 3, 11},
      {"let x = p + 1.0", "", "pointer offset must be an integer, found f32", 2, 13},
      {"let x = 1 + p", "", "pointer arithmetic is written `pointer + integer`", 2, 11},
      // builtin calls
      {"let x = thread_id(0, 1)", "", "'thread_id' takes 0 or 1 arguments, got 2", 2, 9},
      {"let x = thread_id(n)", "", "axis of 'thread_id' must be the literal 0, 1 or 2", 2, 19},
      {"let x = min(n, m)", "", "argument 2 of 'min' has type i64, expected i32", 2, 16},
      {"let x = max(true, false)", "", "'max' needs integer or float arguments, found i1", 2, 13},
      {"let x = len(p)", "",
       "len() needs a shared array, view or dshared array, found ptr<i32, global>", 2, 13},
      {"sync_threads(scope = cta)", "", "'sync_threads' takes no named arguments", 2, 14},
      // clusters
      {"cluster_sync()", "", "cluster_sync() needs a kernel with a cluster attribute", 2, 1},
      {"let h = dshared<i32>[8]", "", "a dshared array needs a kernel with a cluster attribute", 2,
       1},
      {"let a = shared<i32>[8]\nlet r = remote(a, 0)", "",
       "remote() needs a kernel with a cluster attribute", 3, 9},
      {"let a = shared<i32>[8]\nlet r = remote(a, 2)", "cluster(2)",
       "CTA rank 2 is outside the cluster of 2 CTAs", 3, 19},
      {"let h = dshared<i32>[8]\nlet r = remote(h, 0)", "cluster(2)",
       "remote() takes a CTA-local shared array, not a dshared array", 3, 16},
      {"let r = remote(p, 0)", "cluster(2)",
       "remote() needs a shared array or `h.local`, found ptr<i32, global>", 2, 16},
      {"let h = dshared<i32>[8]\nlet g = h", "cluster(2)",
       "a dshared array cannot be bound to another name", 3, 9},
      {"", "cluster(4, 4, 2)", "cluster of 32 CTAs is not supported (at most 16)", 1, 68},
      {"", "threads(64, 32)", "threads(64,32,1) is 2048 threads per block, over the limit of 1024",
       1, 68},
      // shared arrays
      {"if true { let a = shared<i32>[8] }", "",
       "shared arrays must be declared at the top level of the kernel body", 2, 11},
      {"let c = 4\nlet a = shared<i32>[c]", "",
       "shared array size must be built from constants and kernel parameters: 'c' is a let, not a "
       "kernel parameter",
       3, 21},
      {"let a = shared<i32>[thread_id()]", "",
       "shared array size must be built from constants and kernel parameters: this expression is "
       "not a constant or a kernel parameter",
       2, 21},
      {"let a = shared<i32>[f[0]]", "",
       "shared array size must be built from constants and kernel parameters: this expression is "
       "not a constant or a kernel parameter",
       2, 22},
      {"let a = shared<i32>[0]", "", "shared array size must be positive, found 0", 2, 21},
      {"let a = shared<i32>[4 - 5]", "", "shared array size must be positive, found -1", 2, 23},
      {"let a = shared<i1>[4]", "", "shared arrays of i1 are not supported", 2, 16},
      {"let a = shared<f32>[40000]\nlet b = shared<f32>[20000]", "",
       "static shared memory of kernel 'k' reaches 240000 bytes, over the per-block limit of "
       "232448 bytes (227 KB)",
       3, 1},
      {"var v = shared<i32>[1]", "", "shared arrays must be declared with 'let'", 2, 1},
      {"let a = shared<i32>[8]\nvar v = a", "",
       "a 'var' holds a scalar or a pointer, not shared<i32>[8]", 3, 9},
      // memory operations
      {"let x = load(n)", "", "the first argument of load must be an element access like `p[i]`", 2,
       14},
      {"let x = load(p[0], order = release)", "", "order 'release' is not valid for load", 2, 28},
      {"store(p[0], 1, order = acquire)", "", "order 'acquire' is not valid for store", 2, 24},
      {"let x = load(p[0], order = seq)", "", "unknown memory order 'seq'", 2, 28},
      {"let x = load(p[0], scope = device)", "", "unknown memory scope 'device'", 2, 28},
      {"let x = load(p[0], order = sc, order = sc)", "", "duplicate 'order' argument", 2, 32},
      {"let x = load(p[0], cached = none)", "", "unknown named argument 'cached'", 2, 20},
      {"let h = dshared<i32>[8]\natomic_add(h[0], 1, scope = cta)", "cluster(2)",
       "scope 'cta' does not cover cluster shared memory", 3, 29},
      {"atomic_max(f[0], 1.0)", "", "atomic_max does not support elements of type f32", 2, 13},
      {"let a = shared<i16>[4]\natomic_add(a[0], 1)", "",
       "atomic_add does not support elements of type i16", 3, 13},
      {"atomic_add(p[0], 1.5)", "", "float literal cannot be used as i32", 2, 18},
      {"atomic_add(p[0], m)", "", "value of atomic_add has type i64, expected i32", 2, 18},
      {"let x = atomic_cas(p[0], 1)", "", "'atomic_cas' takes 3 arguments, got 2", 2, 9},
      // loops
      {"for i in 0 .. m + n { }", "", "mismatched operand types i64 and i32 for '+'", 2, 17},
      {"for i in n .. m { }", "", "mismatched types i32 and i64 in the loop bounds", 2, 1},
      {"for i in 0.0 .. 4.0 { }", "", "loop bounds must be integers, found f32", 2, 10},
      {"for i in 0 .. 8 step 0 { }", "", "loop step must be positive, found 0", 2, 22},
      {"for i in block_range(f[0]) { }", "",
       "block_range needs an integer count or an array, found f32", 2, 23},
  };
  for (const SemaErr &se : cases) {
    std::string src = inKernel(se.body, se.attrs);
    INFO(src);
    auto c = compile(src);
    INFO(c->rendered());
    CHECK_FALSE(c->ok);
    const Diagnostic *d = c->first();
    REQUIRE(d);
    CHECK(d->message == se.message);
    CHECK(d->loc.line == se.line);
    CHECK(d->loc.col == se.col);
    CHECK_FALSE(d->hint.empty());
  }
}

TEST_CASE("sema: kernel-level errors", "[sema]") {
  SECTION("duplicate kernel") {
    auto c = compile("kernel a() { }\nkernel a() { }");
    CHECK(c->firstError() == "redefinition of kernel 'a'");
    CHECK(c->first()->loc.line == 2);
    // The note is the error's, with its own location.
    REQUIRE(c->diags.diagnostics()[0].notes.size() == 1);
    CHECK(c->diags.diagnostics()[0].notes[0].kind == Diagnostic::Note);
    CHECK(c->diags.diagnostics()[0].notes[0].loc.line == 1);
  }
  SECTION("duplicate parameter") {
    auto c = compile("kernel a(x: i32, x: i64) { }");
    CHECK(c->firstError() == "redefinition of 'x'");
    CHECK(c->first()->loc.col == 18);
  }
  SECTION("shared-space parameter") {
    auto c = compile("kernel a(x: ptr<i32, shared>) { }");
    CHECK(c->firstError() == "kernel parameter 'x' points to shared memory");
  }
  SECTION("pointer to i1") {
    auto c = compile("kernel a(x: ptr<i1, global>) { }");
    CHECK(c->firstError() == "pointers to i1 are not supported");
  }
  SECTION("cluster-space pointer access without a cluster") {
    auto c = compile("kernel a(x: i32) { let q: ptr<i32, cluster> = q }");
    CHECK_FALSE(c->ok);
  }
}

TEST_CASE("sema: errors do not cascade", "[sema]") {
  auto c = compile(inKernel("let x = y + 1\nlet z = x * 2\np[x] = z"));
  CHECK(c->diags.numErrors() == 1);
}

TEST_CASE("sema: assigning to inf, nan or a constant is one error", "[sema]") {
  // Such a name is a value, not a place; the check must read the name as
  // written (not the literal it reads as) and explain it once.
  const char *bodies[] = {
      "inf = 7\np[0] = 1",
      "nan = 1.0",
      "inf += 1",
      "nan *= f[0]",
      "const N = 4\nN = 5",
      "const N = 4\nN -= 1 + 2",
      "for i in 0 .. 4 { if i > 1 { inf = 2.0 } }",
      "inf = 1.0\nvar inf = 2.0\ninf = 3.0",
  };
  for (const char *body : bodies) {
    INFO(body);
    auto c = compile(inKernel(body));
    INFO(c->rendered());
    CHECK_FALSE(c->ok);
    CHECK(c->diags.numErrors() == 1);
  }
}
